// Per-line memory figures of a recorded run: warp-level requests, 32-byte sectors, shared-memory bank
// conflicts and active lanes, from a list of single-thread accesses (memory_figures.h).
#include "core/engine/memory_figures.h"

#include <algorithm>
#include <map>
#include <numeric>
#include <tuple>
#include <unordered_map>

namespace cp {

const char* memory_space_name(MemorySpace space) {
    return space == MemorySpace::Shared ? "shared" : "global";
}

namespace {

constexpr uint64_t kSectorBytes = 32;
constexpr uint32_t kWarpSize = 32;
constexpr uint32_t kBanks = 32;

struct LaneKey {
    uint64_t block, site;
    uint32_t thread;
    bool operator==(const LaneKey& o) const { return block == o.block && site == o.site && thread == o.thread; }
};
struct LaneKeyHash {
    size_t operator()(const LaneKey& k) const {
        uint64_t h = k.block * 0x9E3779B97F4A7C15ull;
        h ^= k.site + 0x7F4A7C159E3779B9ull + (h << 6) + (h >> 2);
        h ^= uint64_t(k.thread) + 0x94D049BB133111EBull + (h << 6) + (h >> 2);
        return size_t(h);
    }
};

// Distinct 32-byte sectors under the lanes' [address, address + size) ranges.
uint64_t distinct_sectors(const std::vector<const MemoryAccess*>& lanes) {
    std::vector<uint64_t> sectors;
    for (const MemoryAccess* a : lanes) {
        if (!a->size) continue;
        for (uint64_t s = a->address / kSectorBytes; s <= (a->address + a->size - 1) / kSectorBytes; ++s)
            sectors.push_back(s);
    }
    std::sort(sectors.begin(), sectors.end());
    return uint64_t(std::unique(sectors.begin(), sectors.end()) - sectors.begin());
}

// Wavefronts beyond the least a shared-memory request needs. The 32 banks are 4 bytes wide (bank = (address / 4)
// % 32); lanes that touch the same 32-bit word are served together (broadcast), so a phase takes as many
// wavefronts as the largest number of distinct words any one bank holds. Accesses wider than 4 bytes are served
// in phases, as the CUDA Programming Guide documents for 64-bit accesses (one half-warp after the other) and as
// the hardware does for 128-bit ones (a quarter-warp at a time): lanes 0-15 and 16-31 for 8 bytes, 0-7, 8-15,
// ... for 16 bytes. The conflicts are the sum over phases with active lanes of (wavefronts - 1): a conflict-free
// 8-byte request takes its 2 phases and counts 0.
uint64_t bank_conflicts(const std::vector<const MemoryAccess*>& lanes) {
    uint32_t widest = 0;
    for (const MemoryAccess* a : lanes) widest = std::max(widest, a->size);
    uint32_t words_per_lane = std::max<uint32_t>(1, (widest + 3) / 4);
    uint32_t phase_lanes = kWarpSize;
    while (phase_lanes > 1 && phase_lanes * words_per_lane > kBanks) phase_lanes /= 2;
    std::map<uint32_t, std::vector<uint64_t>> words_by_phase;  // phase -> words touched
    for (const MemoryAccess* a : lanes) {
        const uint32_t phase = (a->thread % kWarpSize) / phase_lanes;
        std::vector<uint64_t>& words = words_by_phase[phase];
        const uint64_t last = a->size ? a->address + a->size - 1 : a->address;
        for (uint64_t w = a->address / 4; w <= last / 4; ++w) words.push_back(w);
    }
    uint64_t conflicts = 0;
    for (auto& [phase, words] : words_by_phase) {
        std::sort(words.begin(), words.end());
        words.erase(std::unique(words.begin(), words.end()), words.end());
        uint32_t per_bank[kBanks] = {};
        uint32_t wavefronts = 0;
        for (uint64_t w : words) wavefronts = std::max(wavefronts, ++per_bank[w % kBanks]);
        conflicts += wavefronts - 1;
    }
    return conflicts;
}

}  // namespace

std::vector<MemoryFigures> memory_figures(const std::vector<MemoryAccess>& accesses) {
    // k: how many times this lane had executed this site before (each thread's accesses come in its order).
    std::vector<uint32_t> occurrence(accesses.size());
    {
        std::unordered_map<LaneKey, uint32_t, LaneKeyHash> seen;
        seen.reserve(accesses.size() / 4 + 16);
        for (size_t i = 0; i < accesses.size(); ++i) {
            const MemoryAccess& a = accesses[i];
            occurrence[i] = seen[LaneKey{a.block, a.site, a.thread}]++;
        }
    }
    // A request: (site, space, store, block, warp, k); sorted so that a site's requests are adjacent.
    auto key = [&](size_t i) {
        const MemoryAccess& a = accesses[i];
        return std::make_tuple(a.site, uint8_t(a.space), a.store, a.block, a.thread / kWarpSize, occurrence[i],
                               a.thread);
    };
    std::vector<size_t> order(accesses.size());
    std::iota(order.begin(), order.end(), size_t(0));
    std::sort(order.begin(), order.end(), [&](size_t x, size_t y) { return key(x) < key(y); });

    std::vector<MemoryFigures> out;
    std::vector<const MemoryAccess*> lanes;
    for (size_t at = 0; at < order.size();) {
        const auto request = [&](size_t i) {
            auto k = key(i);
            return std::make_tuple(std::get<0>(k), std::get<1>(k), std::get<2>(k), std::get<3>(k), std::get<4>(k),
                                   std::get<5>(k));
        };
        const auto this_request = request(order[at]);
        lanes.clear();
        size_t end = at;
        for (; end < order.size() && request(order[end]) == this_request; ++end) lanes.push_back(&accesses[order[end]]);
        at = end;

        const MemoryAccess& first = *lanes.front();
        if (out.empty() || out.back().site != first.site || out.back().space != first.space ||
            out.back().store != first.store) {
            MemoryFigures f;
            f.site = first.site;
            f.space = first.space;
            f.store = first.store;
            out.push_back(f);
        }
        MemoryFigures& f = out.back();
        f.requests += 1;
        f.active_lanes += lanes.size();
        if (first.space == MemorySpace::Global) {
            uint64_t bytes = 0;
            for (const MemoryAccess* a : lanes) bytes += a->size;
            f.sectors += distinct_sectors(lanes);
            f.ideal_sectors += (bytes + kSectorBytes - 1) / kSectorBytes;
        } else {
            f.bank_conflicts += bank_conflicts(lanes);
        }
    }
    return out;
}

std::vector<MemoryFigures> merge_memory_figures(const std::vector<MemoryFigures>& figures) {
    std::map<std::tuple<int, uint8_t, bool>, MemoryFigures> merged;
    for (const MemoryFigures& f : figures) {
        MemoryFigures& m = merged[{f.line, uint8_t(f.space), f.store}];
        if (!m.requests && !m.active_lanes) {
            m.line = f.line;
            m.space = f.space;
            m.store = f.store;
            m.site = f.site;
        }
        m.requests += f.requests;
        m.sectors += f.sectors;
        m.ideal_sectors += f.ideal_sectors;
        m.bank_conflicts += f.bank_conflicts;
        m.active_lanes += f.active_lanes;
    }
    std::vector<MemoryFigures> out;
    for (auto& [key, f] : merged) out.push_back(f);
    return out;
}

std::string memory_recording_note(const MemoryRecording& r) {
    std::string note = "every global and shared load and store of ";
    if (r.capped)
        note += "the first " + std::to_string(r.blocks_recorded) + " of " + std::to_string(r.blocks_total) +
                " blocks (the cap of " + std::to_string(r.access_cap) + " recorded accesses was reached)";
    else
        note += "all " + std::to_string(r.blocks_total) + (r.blocks_total == 1 ? " block" : " blocks");
    note += ": " + std::to_string(r.accesses) + " accesses";
    return note;
}

}  // namespace cp
