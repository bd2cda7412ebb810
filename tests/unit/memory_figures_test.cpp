// The per-line memory figures (memory_figures.h) from hand-made access lists: sectors of strided and
// misaligned requests, partial warps, loops split into requests, shared-memory broadcast and bank conflicts
// for 4-, 8- and 16-byte accesses. Expected values are worked out here from the addresses.
#include "core/cpu/access_recorder.h"
#include "core/engine/memory_figures.h"
#include "core/engine/memory_figures_reference.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <numeric>
#include <random>
#include <set>
#include <thread>

namespace cp {
namespace {

MemoryAccess access(uint64_t block, uint32_t thread, uint64_t site, uint64_t address, uint32_t size,
                    MemorySpace space = MemorySpace::Global, bool store = false) {
    return MemoryAccess{block, thread, site, address, size, space, store};
}

// Sectors of one warp request of `lanes` lanes reading `size` bytes at base + lane * stride, counted here.
uint64_t sectors_of(uint64_t base, uint32_t lanes, uint64_t stride, uint32_t size) {
    std::set<uint64_t> s;
    for (uint32_t l = 0; l < lanes; ++l)
        for (uint64_t b = base + l * stride; b < base + l * stride + size; ++b) s.insert(b / 32);
    return s.size();
}

TEST(MemoryFigures, StridedFloatReadsTouchTheSectorsTheirAddressesSpan) {
    for (uint64_t stride_floats : {1, 2, 4, 8, 32}) {
        const uint32_t n = 70;  // two full warps and a warp of 6 lanes
        std::vector<MemoryAccess> a;
        for (uint32_t t = 0; t < n; ++t) a.push_back(access(0, t, 7, 0x10000 + uint64_t(t) * stride_floats * 4, 4));
        const auto f = memory_figures(a);
        ASSERT_EQ(f.size(), 1u);
        EXPECT_EQ(f[0].requests, 3u);
        const uint64_t full = std::min<uint64_t>(32, 4 * stride_floats);  // 4, 8, 16, 32, 32
        EXPECT_EQ(sectors_of(0x10000, 32, stride_floats * 4, 4), full);
        const uint64_t expected = 2 * full + sectors_of(0x10000 + 64 * stride_floats * 4, 6, stride_floats * 4, 4);
        EXPECT_EQ(f[0].sectors, expected) << "stride " << stride_floats;
        EXPECT_EQ(f[0].ideal_sectors, 4u + 4u + 1u);  // 128, 128 and 24 bytes
        EXPECT_EQ(f[0].active_lanes, uint64_t(n));
        EXPECT_DOUBLE_EQ(f[0].active_lanes_mean(), 70.0 / 3.0);
    }
}

TEST(MemoryFigures, AMisalignedRequestTouchesOneMoreSector) {
    std::vector<MemoryAccess> a;
    for (uint32_t t = 0; t < 32; ++t) a.push_back(access(0, t, 1, 0x1000 + 4 + t * 4, 4));
    const auto f = memory_figures(a);
    ASSERT_EQ(f.size(), 1u);
    EXPECT_EQ(f[0].sectors, 5u);
    EXPECT_EQ(f[0].ideal_sectors, 4u);
}

TEST(MemoryFigures, EachIterationOfALoopIsItsOwnRequestAndBlocksAndWarpsAreApart) {
    std::vector<MemoryAccess> a;
    // 2 blocks of 40 threads, each thread reading 3 times at the same site: 2 warps (32 + 8) x 3 x 2 blocks.
    for (uint64_t b = 0; b < 2; ++b)
        for (uint32_t t = 0; t < 40; ++t)
            for (uint32_t k = 0; k < 3; ++k) a.push_back(access(b, t, 9, 0x8000 + k * 4096 + t * 4, 4));
    const auto f = memory_figures(a);
    ASSERT_EQ(f.size(), 1u);
    EXPECT_EQ(f[0].requests, 12u);
    EXPECT_EQ(f[0].sectors, 2u * 3u * (4u + 1u));
    EXPECT_EQ(f[0].active_lanes, 2u * 3u * 40u);
}

TEST(MemoryFigures, SitesSpacesAndStoresAreCountedApart) {
    std::vector<MemoryAccess> a;
    for (uint32_t t = 0; t < 32; ++t) {
        a.push_back(access(0, t, 5, 0x1000 + t * 4, 4));
        a.push_back(access(0, t, 6, 0x2000 + t * 8, 4, MemorySpace::Global, true));
        a.push_back(access(0, t, 6, 0x3000 + t * 4, 4, MemorySpace::Shared, true));
    }
    const auto f = memory_figures(a);
    ASSERT_EQ(f.size(), 3u);
    EXPECT_EQ(f[0].site, 5u);
    EXPECT_EQ(f[0].sectors, 4u);
    EXPECT_EQ(f[1].site, 6u);
    EXPECT_EQ(f[1].space, MemorySpace::Global);
    EXPECT_TRUE(f[1].store);
    EXPECT_EQ(f[1].sectors, 8u);
    EXPECT_EQ(f[2].space, MemorySpace::Shared);
    EXPECT_EQ(f[2].bank_conflicts, 0u);
    EXPECT_EQ(f[2].sectors, 0u);
}

// Wavefronts - 1 for 4-byte lanes, computed the plain way: distinct words per bank.
uint64_t conflicts_4(const std::vector<uint64_t>& addresses) {
    std::set<uint64_t> words[32];
    for (uint64_t a : addresses) words[(a / 4) % 32].insert(a / 4);
    size_t most = 0;
    for (auto& w : words) most = std::max(most, w.size());
    return most - 1;
}

TEST(MemoryFigures, SharedStridesConflictAsManyWaysAsTheStrideSharesWith32) {
    for (uint64_t stride : {1, 2, 3, 4, 8, 16, 32, 33}) {
        std::vector<MemoryAccess> a;
        std::vector<uint64_t> addresses;
        for (uint32_t t = 0; t < 32; ++t) {
            addresses.push_back(0x4000 + t * stride * 4);
            a.push_back(access(0, t, 3, addresses.back(), 4, MemorySpace::Shared));
        }
        const auto f = memory_figures(a);
        ASSERT_EQ(f.size(), 1u);
        EXPECT_EQ(f[0].bank_conflicts, conflicts_4(addresses)) << "stride " << stride;
        const uint64_t ways = std::gcd(stride, uint64_t(32));  // 1, 2, 1, 4, 8, 16, 32, 1
        EXPECT_EQ(f[0].bank_conflicts, ways - 1) << "stride " << stride;
        EXPECT_EQ(f[0].sectors, 0u);
    }
}

TEST(MemoryFigures, LanesReadingOneWordAreABroadcast) {
    std::vector<MemoryAccess> a;
    for (uint32_t t = 0; t < 32; ++t) a.push_back(access(0, t, 3, 0x4000, 4, MemorySpace::Shared));
    EXPECT_EQ(memory_figures(a)[0].bank_conflicts, 0u);
    // Two words in bank 0 (0x4000 and 0x4080), half the lanes on each: 2 wavefronts.
    a.clear();
    for (uint32_t t = 0; t < 32; ++t) a.push_back(access(0, t, 3, t % 2 ? 0x4080 : 0x4000, 4, MemorySpace::Shared));
    EXPECT_EQ(memory_figures(a)[0].bank_conflicts, 1u);
    // Bytes of one word: one word, no conflict.
    a.clear();
    for (uint32_t t = 0; t < 32; ++t) a.push_back(access(0, t, 3, 0x4000 + t % 4, 1, MemorySpace::Shared));
    EXPECT_EQ(memory_figures(a)[0].bank_conflicts, 0u);
}

TEST(MemoryFigures, EightByteSharedAccessesAreServedAHalfWarpAtATime) {
    // Consecutive doubles: each half-warp covers the 32 banks once: no conflict, though the warp spans 64 words.
    std::vector<MemoryAccess> a;
    for (uint32_t t = 0; t < 32; ++t) a.push_back(access(0, t, 4, 0x4000 + t * 8, 8, MemorySpace::Shared));
    EXPECT_EQ(memory_figures(a)[0].bank_conflicts, 0u);
    // Stride of 2 doubles: a half-warp's 16 lanes touch words 0,1,4,5,...: banks hold 2 words each: 1 extra per
    // half-warp, 2 for the request.
    a.clear();
    for (uint32_t t = 0; t < 32; ++t) a.push_back(access(0, t, 4, 0x4000 + t * 16, 8, MemorySpace::Shared));
    EXPECT_EQ(memory_figures(a)[0].bank_conflicts, 2u);
    // Only the first half-warp active, stride 2: one phase, 1 extra.
    a.clear();
    for (uint32_t t = 0; t < 16; ++t) a.push_back(access(0, t, 4, 0x4000 + t * 16, 8, MemorySpace::Shared));
    const auto f = memory_figures(a);
    EXPECT_EQ(f[0].bank_conflicts, 1u);
    EXPECT_EQ(f[0].active_lanes, 16u);
}

TEST(MemoryFigures, SixteenByteSharedAccessesAreServedAQuarterWarpAtATime) {
    std::vector<MemoryAccess> a;
    for (uint32_t t = 0; t < 32; ++t) a.push_back(access(0, t, 4, 0x4000 + t * 16, 16, MemorySpace::Shared));
    EXPECT_EQ(memory_figures(a)[0].bank_conflicts, 0u);
    // Stride of 2 float4s: a quarter-warp's 8 lanes touch 32 words over 16 banks, 2 each: 1 extra x 4 phases.
    a.clear();
    for (uint32_t t = 0; t < 32; ++t) a.push_back(access(0, t, 4, 0x4000 + t * 32, 16, MemorySpace::Shared));
    EXPECT_EQ(memory_figures(a)[0].bank_conflicts, 4u);
}

TEST(MemoryFigures, APartialWarpCountsOnlyItsLanes) {
    std::vector<MemoryAccess> a;
    for (uint32_t t = 0; t < 5; ++t) a.push_back(access(0, 32 + t, 2, 0x1000 + t * 128, 4));
    const auto f = memory_figures(a);
    ASSERT_EQ(f.size(), 1u);
    EXPECT_EQ(f[0].requests, 1u);
    EXPECT_EQ(f[0].sectors, 5u);
    EXPECT_EQ(f[0].ideal_sectors, 1u);  // 20 bytes
    EXPECT_DOUBLE_EQ(f[0].active_lanes_mean(), 5.0);
}

TEST(MemoryFigures, FiguresOfOneLineMergeBySumming) {
    std::vector<MemoryFigures> f(3);
    f[0].site = 100, f[0].line = 7, f[0].requests = 2, f[0].sectors = 8, f[0].active_lanes = 64;
    f[1].site = 140, f[1].line = 7, f[1].requests = 1, f[1].sectors = 4, f[1].active_lanes = 32;
    f[2].site = 90, f[2].line = 3, f[2].requests = 1, f[2].store = true;
    const auto m = merge_memory_figures(f);
    ASSERT_EQ(m.size(), 2u);
    EXPECT_EQ(m[0].line, 3);
    EXPECT_EQ(m[1].line, 7);
    EXPECT_EQ(m[1].requests, 3u);
    EXPECT_EQ(m[1].sectors, 12u);
    EXPECT_DOUBLE_EQ(m[1].active_lanes_mean(), 32.0);
}

}  // namespace
}  // namespace cp

// The CPU backend's recorder (access_recorder.h) driven by hand: what counts as global and shared, and the cap
// keeping only the first blocks recorded whole.
namespace cp {
namespace {

struct FakeThread {
    cp_abi::ThreadState state{};
    cp_abi::SharedSlot slots[2]{};
};

void touch(FakeThread& t, unsigned block, unsigned thread, const void* address, unsigned size, bool store) {
    t.state.block_idx = {block, 0, 0};
    t.state.linear_tid = thread;
    access_recorder()->record(&t.state, reinterpret_cast<unsigned long long>(address), size, store ? 1 : 0,
                              reinterpret_cast<const void*>(uintptr_t(0x1000 + (store ? 8 : 4))));
}

TEST(AccessRecorder, KeepsGlobalAndSharedAccessesAndNothingElse) {
    static float buffer[64], tile[32], dynamic[16], elsewhere[8];
    FakeThread t;
    t.slots[1] = {tile, sizeof tile};
    t.state.shared_slots = t.slots;
    t.state.shared_slot_count = 2;
    t.state.dynamic_shared = dynamic;
    RecordingLaunch launch;
    launch.grid = Dim3{4, 1, 1};
    launch.dynamic_shared_bytes = sizeof dynamic;
    launch.global = {{reinterpret_cast<const std::byte*>(buffer), sizeof buffer}};
    launch.load_base = 0x1000;
    ASSERT_TRUE(begin_access_recording(launch));
    for (unsigned i = 0; i < 32; ++i) {
        touch(t, 0, i, &buffer[i], 4, false);
        touch(t, 0, i, &tile[i], 4, true);
        touch(t, 0, i, &dynamic[i % 16], 4, false);
        touch(t, 0, i, &elsewhere[i % 8], 4, true);  // not a buffer, not shared: not recorded
    }
    const MemoryRecording m = end_access_recording();
    EXPECT_EQ(m.accesses, 96u);
    EXPECT_FALSE(m.capped);
    EXPECT_EQ(m.blocks_total, 4u);
    ASSERT_EQ(m.figures.size(), 3u);  // (site 4: global load, shared load), (site 8: shared store)
    EXPECT_EQ(m.figures[0].site, 4u);
    EXPECT_EQ(m.figures[0].space, MemorySpace::Global);
    EXPECT_EQ(m.figures[0].requests, 1u);
    EXPECT_EQ(m.figures[1].space, MemorySpace::Shared);
    EXPECT_FALSE(m.figures[1].store);
    EXPECT_EQ(m.figures[2].site, 8u);
    EXPECT_TRUE(m.figures[2].store);
    // After the recording: nothing is kept.
    touch(t, 0, 0, &buffer[0], 4, false);
    EXPECT_TRUE(begin_access_recording(launch));
    EXPECT_EQ(end_access_recording().accesses, 0u);
}

TEST(AccessRecorder, TheCapKeepsTheFirstBlocksRecordedWhole) {
    static float buffer[256];
    FakeThread t;
    RecordingLaunch launch;
    launch.grid = Dim3{5, 1, 1};
    launch.global = {{reinterpret_cast<const std::byte*>(buffer), sizeof buffer}};
    launch.load_base = 0x1000;
    launch.cap = 100;  // 40 accesses a block: blocks 0 and 1 whole, block 2 cut at 20
    ASSERT_TRUE(begin_access_recording(launch));
    for (unsigned b = 0; b < 5; ++b)
        for (unsigned i = 0; i < 40; ++i) touch(t, b, i, &buffer[i], 4, false);
    // Blocks from 2 on no longer count: the launch need not run them (GridLaunch::blocks_end).
    EXPECT_EQ(access_recording_blocks_end()->load(), 2u);
    const MemoryRecording m = end_access_recording();
    EXPECT_TRUE(m.capped);
    EXPECT_EQ(m.blocks_recorded, 2u);
    EXPECT_EQ(m.accesses, 80u);
    ASSERT_EQ(m.figures.size(), 1u);
    EXPECT_EQ(m.figures[0].requests, 4u);  // 2 blocks x (32 + 8 lanes)
    EXPECT_NE(memory_recording_note(m).find("the first 2 of 5 blocks"), std::string::npos) << memory_recording_note(m);
}

// The warp picture's detail: one kept warp's requests lane by lane, in order, with the same counts as the figures.
TEST(WarpDetails, AStridedLoopGivesEachIterationItsLanesAddressesAndSectors) {
    // Block 1, 45 threads (warps 0 and 1, the second of 13 lanes), each reading 3 times at site 5 with a stride of
    // 8 floats, iteration i at + i * 4096; warp 1 also stores once at site 9 from even lanes only (a branch).
    const uint64_t base = 0x20000;
    std::vector<MemoryAccess> a;
    for (uint64_t b = 0; b < 2; ++b)
        for (uint32_t t = 0; t < 45; ++t) {
            for (uint64_t i = 0; i < 3; ++i) a.push_back(access(b, t, 5, base + i * 4096 + t * 32, 4));
            if (t >= 32 && t % 2 == 0)
                a.push_back(access(b, t, 9, base + 0x8000 + (t - 32) * 4, 4, MemorySpace::Global, true));
        }
    const auto d = warp_details(a, {WarpId{1, 1}, WarpId{7, 0}, WarpId{1, 1}});
    ASSERT_EQ(d.size(), 2u);  // the load and the store of warp 1 of block 1; block 7 made none; the repeat ignored
    const WarpSiteDetail& load = d[0];
    EXPECT_EQ(load.warp, (WarpId{1, 1}));
    EXPECT_EQ(load.site, 5u);
    EXPECT_FALSE(load.store);
    EXPECT_EQ(load.requests_total, 3u);
    ASSERT_EQ(load.requests.size(), 3u);
    for (uint64_t i = 0; i < 3; ++i) {
        const WarpRequest& r = load.requests[i];
        EXPECT_EQ(r.active, (1u << 13) - 1) << i;  // lanes 0-12
        for (uint32_t lane = 0; lane < 13; ++lane) {
            EXPECT_EQ(r.address[lane], base + i * 4096 + (32 + lane) * 32) << i << " " << lane;
            EXPECT_EQ(r.size[lane], 4u);
        }
        EXPECT_EQ(r.address[13], 0u);
        EXPECT_EQ(r.sectors, sectors_of(base + i * 4096 + 32 * 32, 13, 32, 4));  // 13: one sector a lane
        EXPECT_EQ(r.ideal_sectors, 2u);                                          // 52 bytes
    }
    const WarpSiteDetail& store = d[1];
    EXPECT_EQ(store.site, 9u);
    EXPECT_TRUE(store.store);
    ASSERT_EQ(store.requests.size(), 1u);
    uint32_t even = 0;
    for (uint32_t lane = 0; lane < 13; lane += 2) even |= 1u << lane;
    EXPECT_EQ(store.requests[0].active, even);
    EXPECT_EQ(store.requests[0].address[12], base + 0x8000 + 12 * 4);
    // The detail's counts add up to the figures of the same warp alone.
    std::vector<MemoryAccess> only;
    for (const MemoryAccess& x : a)
        if (x.block == 1 && x.thread / 32 == 1) only.push_back(x);
    const auto f = memory_figures(only);
    ASSERT_EQ(f.size(), 2u);
    uint64_t sectors = 0;
    for (const WarpRequest& r : load.requests) sectors += r.sectors;
    EXPECT_EQ(sectors, f[0].sectors);
}

TEST(WarpDetails, SharedRequestsCarryTheirBankConflictsAndLongLoopsAreCut) {
    // A 32x32 float tile read down a column: lane l reads word l * 32, all in bank 0: a 32-way conflict (31 extra).
    std::vector<MemoryAccess> a;
    const uint32_t loops = uint32_t(kMaxDetailRequests) + 3;
    for (uint32_t t = 0; t < 32; ++t)
        for (uint32_t i = 0; i < loops; ++i)
            a.push_back(access(0, t, 2, (uint64_t(1) << 40) + (t * 32 + i % 32) * 4, 4, MemorySpace::Shared));
    const auto d = warp_details(a, {WarpId{0, 0}});
    ASSERT_EQ(d.size(), 1u);
    EXPECT_EQ(d[0].space, MemorySpace::Shared);
    EXPECT_EQ(d[0].requests_total, uint64_t(loops));
    ASSERT_EQ(d[0].requests.size(), kMaxDetailRequests);
    EXPECT_EQ(d[0].requests[0].bank_conflicts, 31u);
    EXPECT_EQ(d[0].requests[0].active, 0xFFFFFFFFu);
    EXPECT_EQ(d[0].requests[5].address[3], (uint64_t(1) << 40) + (3 * 32 + 5) * 4);
}

TEST(WarpDetails, MergingJoinsTheSitesOfOneLineInSiteOrder) {
    std::vector<MemoryAccess> a;
    for (uint32_t t = 0; t < 32; ++t) {
        a.push_back(access(0, t, 30, 0x1000 + t * 4, 4));  // site 30: line 4
        a.push_back(access(0, t, 10, 0x9000 + t * 8, 4));  // site 10: line 4 too
        a.push_back(access(0, t, 20, 0x5000 + t * 4, 4));  // site 20: line 3
    }
    auto d = warp_details(a, {WarpId{0, 0}});
    ASSERT_EQ(d.size(), 3u);
    for (WarpSiteDetail& x : d) x.line = x.site == 20 ? 3 : 4;
    const auto m = merge_warp_details(d);
    ASSERT_EQ(m.size(), 2u);
    EXPECT_EQ(m[0].line, 3);
    EXPECT_EQ(m[1].line, 4);
    EXPECT_EQ(m[1].requests_total, 2u);
    ASSERT_EQ(m[1].requests.size(), 2u);
    EXPECT_EQ(m[1].requests[0].address[0], 0x9000u);  // site 10 before site 30
    EXPECT_EQ(m[1].requests[0].sectors, 8u);          // 32 lanes x 8 bytes apart = 256 bytes
    EXPECT_EQ(m[1].requests[1].address[0], 0x1000u);
}

// memory_figures() packs the group into one key and radix-sorts it; memory_figures_reference() sorts every
// access plainly. On recordings with loops, divergent lanes, both spaces, stores, sites as far apart as the CPU
// backend's instruction offsets, and threads' accesses interleaved as a log gives them, both give the same.
TEST(MemoryFigures, TheFastGroupingEqualsThePlainSort) {
    const auto expect_same = [](const std::vector<MemoryAccess>& a, const std::string& what) {
        const auto fast = memory_figures(a), plain = memory_figures_reference(a);
        ASSERT_EQ(fast.size(), plain.size()) << what;
        for (size_t i = 0; i < fast.size(); ++i) {
            SCOPED_TRACE(what + ", figure " + std::to_string(i));
            EXPECT_EQ(fast[i].site, plain[i].site);
            EXPECT_EQ(fast[i].space, plain[i].space);
            EXPECT_EQ(fast[i].store, plain[i].store);
            EXPECT_EQ(fast[i].requests, plain[i].requests);
            EXPECT_EQ(fast[i].sectors, plain[i].sectors);
            EXPECT_EQ(fast[i].ideal_sectors, plain[i].ideal_sectors);
            EXPECT_EQ(fast[i].bank_conflicts, plain[i].bank_conflicts);
            EXPECT_EQ(fast[i].active_lanes, plain[i].active_lanes);
        }
    };
    std::mt19937_64 rng(23);
    for (int round = 0; round < 40; ++round) {
        const uint64_t far_block = round % 5 == 4 ? (uint64_t(1) << 40) : 0;  // a key that cannot pack: the fallback
        const std::vector<uint64_t> sites = {0x401a2c, 7, 0x7fff0000 + uint64_t(round), 12};
        const uint32_t threads = 1 + uint32_t(rng() % 300);  // a partial last warp
        const uint32_t blocks = 1 + uint32_t(rng() % 4);
        std::vector<MemoryAccess> a;
        // Each step, some threads of some blocks make their next access: the log's interleaving of warps.
        for (int step = 0; step < 12; ++step) {
            const uint64_t site = sites[rng() % sites.size()];
            const bool shared = rng() % 3 == 0, store = rng() % 2 == 0;
            const uint32_t size = std::array<uint32_t, 5>{1, 2, 4, 8, 16}[rng() % 5];
            const uint64_t stride = rng() % 40, base = (uint64_t(1) << 40) + (rng() % 64) * 4;
            const uint32_t k = 1 + uint32_t(rng() % 3);  // a loop at the site: k accesses a thread
            for (uint32_t b = 0; b < blocks; ++b)
                for (uint32_t t = 0; t < threads; ++t) {
                    if (rng() % 4 == 0) continue;  // diverged: not this lane this time
                    for (uint32_t i = 0; i < k; ++i)
                        a.push_back(access(b + far_block, t, site, base + (t + i * threads) * stride, size,
                                           shared ? MemorySpace::Shared : MemorySpace::Global, store));
                }
        }
        std::shuffle(a.begin(), a.end(), rng);  // blocks and warps interleaved...
        std::stable_sort(a.begin(), a.end(), [](const MemoryAccess& x, const MemoryAccess& y) {
            return x.thread < y.thread;  // ...but each thread's own accesses in an order kept by both
        });
        expect_same(a, "round " + std::to_string(round));
    }
    expect_same({}, "no access");
}

// Two OS threads record at once, each its own blocks, more accesses than one of the recorder's per-thread chunks
// holds: every CUDA thread's accesses must come back in the order it made them, or the k-th accesses of a
// warp's lanes would be paired wrongly. Blocks of 33 threads (a full warp and one of a lane, so that chunk
// boundaries cut through the rounds); thread t's k-th read is word k * 33 + t: the sectors per request are the
// expected ones only when the k-ths are paired right.
TEST(AccessRecorder, AccessesOfThreadsRecordingAtOnceKeepEachThreadsOrder) {
    constexpr unsigned kThreads = 33, kRounds = 300;
    static float buffer[kRounds * kThreads];
    RecordingLaunch launch;
    launch.grid = Dim3{4, 1, 1};
    launch.global = {{reinterpret_cast<const std::byte*>(buffer), sizeof buffer}};
    launch.load_base = 0x1000;
    ASSERT_TRUE(begin_access_recording(launch));
    const auto run = [](unsigned first_block) {
        FakeThread t;
        for (unsigned b = first_block; b < 4; b += 2)
            for (unsigned k = 0; k < kRounds; ++k)  // as a block's fibers take turns: thread by thread, k after k
                for (unsigned thread = 0; thread < kThreads; ++thread)
                    touch(t, b, thread, &buffer[k * kThreads + thread], 4, false);
    };
    std::thread other(run, 1);
    run(0);
    other.join();
    const MemoryRecording m = end_access_recording();
    uint64_t sectors = 0;
    for (unsigned k = 0; k < kRounds; ++k) {
        std::set<uint64_t> warp0;
        for (unsigned lane = 0; lane < 32; ++lane) warp0.insert((k * kThreads + lane) * 4 / 32);
        sectors += warp0.size() + 1;  // warp 1: its one lane's sector
    }
    EXPECT_FALSE(m.capped);
    EXPECT_EQ(m.accesses, 4u * kRounds * kThreads);
    ASSERT_EQ(m.figures.size(), 1u);
    EXPECT_EQ(m.figures[0].requests, 4u * kRounds * 2);
    EXPECT_EQ(m.figures[0].active_lanes, 4u * kRounds * kThreads);
    EXPECT_EQ(m.figures[0].sectors, 4 * sectors);
}

}  // namespace
}  // namespace cp
