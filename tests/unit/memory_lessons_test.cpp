// The library's memory lessons (issue 23) recorded on the real CPU backend at several slider values: the bank
// conflicts of performance/shared_bank_conflicts (strides 1..33, broadcast), the active lanes of
// performance/warp_divergence (k = 1, 2, 4, 8, 32) and the padding of matrix/transpose_shared. Every expected
// count is worked out here from the access pattern the kernel's indices make, warp by warp.
#include "core/engine/memory_figures.h"
#include "core/kernel_file/kernel_file.h"
#include "core/session/report_json.h"
#include "core/session/session.h"
#include "core/backends/registry.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

using namespace cp;

namespace {

struct Lesson {
    std::unique_ptr<Engine> engine;
    std::unique_ptr<KernelSession> session;
    std::string source;
};

// A library lesson on the CPU backend with `values` set as `--set` would set them.
Lesson open_lesson(const std::string& name, const std::map<std::string, std::string>& values) {
    Lesson l;
    auto made = make_backend("cpu");
    EXPECT_TRUE(made.ok()) << made.error().full();
    l.engine = std::make_unique<Engine>(std::move(made->backend));
    l.session = std::make_unique<KernelSession>(*l.engine);
    auto file = load_kernel_file(kernels_dir() / (name + ".cu"));
    EXPECT_TRUE(file.ok()) << file.error().full();
    l.source = file->source;
    l.session->set_kernel(std::move(*file));
    for (const auto& [param, value] : values) {
        auto set = l.session->set_param(param, value);
        EXPECT_TRUE(set.ok()) << param << "=" << value << ": " << set.error().full();
    }
    return l;
}

RunReport record(Lesson& l) {
    RunOptions o;
    o.timing = {0, 1, false};
    o.memory = true;
    return l.session->run(o);
}

// The 1-based line of the one line of `source` holding `marker`.
int line_of(const std::string& source, const std::string& marker) {
    const size_t at = source.find(marker);
    EXPECT_NE(at, std::string::npos) << marker;
    EXPECT_EQ(source.find(marker, at + 1), std::string::npos) << marker << " is on more than one line";
    return 1 + int(std::count(source.begin(), source.begin() + std::ptrdiff_t(at), '\n'));
}

const MemoryFigures* find(const MemoryRecording& m, int line, MemorySpace space, bool store) {
    for (const MemoryFigures& f : m.figures)
        if (f.line == line && f.space == space && f.store == store) return &f;
    return nullptr;
}

// Extra wavefronts of one warp's shared request of 4-byte words, as the hardware serves it: each of the 32
// banks (word % 32) serves one distinct word per pass; lanes on the same word share it (broadcast).
uint64_t conflicts(const std::vector<uint64_t>& words) {
    std::set<uint64_t> in_bank[32];
    for (uint64_t w : words) in_bank[w % 32].insert(w);
    size_t passes = 0;
    for (const auto& bank : in_bank) passes = std::max(passes, bank.size());
    return passes ? passes - 1 : 0;
}

// --- performance/shared_bank_conflicts: thread t stores at word t * stride (every thread of every block, those
// past n a 0) and, when its element is below n, loads word (t ^ 1) * stride, or word 0 with broadcast on.

struct BankFigures {
    uint64_t store_requests = 0, load_requests = 0, store_conflicts = 0, load_conflicts = 0;
};

BankFigures expected_banks(uint64_t n, uint64_t stride, bool broadcast) {
    const uint64_t block = 256, blocks = (n + block - 1) / block;
    BankFigures e;
    for (uint64_t b = 0; b < blocks; ++b)
        for (uint64_t warp = 0; warp < block / 32; ++warp) {
            std::vector<uint64_t> stores, loads;
            for (uint64_t lane = 0; lane < 32; ++lane) {
                const uint64_t t = warp * 32 + lane;
                stores.push_back(t * stride);
                if (b * block + t < n) loads.push_back(broadcast ? 0 : (t ^ 1) * stride);
            }
            ++e.store_requests;
            e.store_conflicts += conflicts(stores);
            if (!loads.empty()) ++e.load_requests, e.load_conflicts += conflicts(loads);
        }
    return e;
}

TEST(MemoryLessons, SharedBankConflictsAreTheStridesCommonFactorWithThirtyTwoMinusOne) {
    const uint64_t n = 1000;  // 4 blocks of 256, the last with 232 threads in range
    // The pattern's own answer, for the reader: an N-way conflict costs N - 1 extra passes.
    const std::map<uint64_t, uint64_t> per_request = {{1, 0}, {2, 1}, {4, 3}, {8, 7}, {16, 15}, {32, 31}, {33, 0}};
    for (const auto& [stride, extra] : per_request) {
        Lesson l = open_lesson("performance/shared_bank_conflicts",
                               {{"n", std::to_string(n)}, {"stride", std::to_string(stride)}, {"broadcast", "off"}});
        const RunReport report = record(l);
        ASSERT_TRUE(report.ok()) << report.error->full();
        EXPECT_TRUE(report.verified.value_or(false)) << "stride " << stride;
        ASSERT_TRUE(report.memory);
        const MemoryRecording& m = *report.memory;
        EXPECT_FALSE(m.capped);
        EXPECT_EQ(m.blocks_total, 4u);
        const MemoryFigures* store = find(m, line_of(l.source, "// store: stride"), MemorySpace::Shared, true);
        const MemoryFigures* load = find(m, line_of(l.source, "// load: the same banks"), MemorySpace::Shared, false);
        ASSERT_TRUE(store && load) << "stride " << stride << ": " << run_report_json(report, {}).dump();

        const BankFigures e = expected_banks(n, stride, false);
        EXPECT_EQ(e.store_conflicts, e.store_requests * extra) << "stride " << stride;
        EXPECT_EQ(e.store_requests, 4u * 8u);
        EXPECT_EQ(e.load_requests, (n + 31) / 32);
        EXPECT_EQ(store->requests, e.store_requests);
        EXPECT_EQ(load->requests, e.load_requests);
        EXPECT_EQ(store->bank_conflicts, e.store_conflicts) << "stride " << stride;
        EXPECT_EQ(load->bank_conflicts, e.load_conflicts) << "stride " << stride;
        EXPECT_DOUBLE_EQ(store->active_lanes_mean(), 32.0);
        EXPECT_EQ(load->active_lanes, n) << "the threads past n load nothing";
        // The global side stays coalesced: one request a warp that has a thread below n.
        const MemoryFigures* in = find(m, line_of(l.source, "// store: stride"), MemorySpace::Global, false);
        ASSERT_TRUE(in) << run_report_json(report, {}).dump();
        EXPECT_EQ(in->requests, (n + 31) / 32);
        EXPECT_EQ(in->bank_conflicts, 0u);
    }
}

TEST(MemoryLessons, LanesReadingOneWordAreABroadcastWithoutConflicts) {
    const uint64_t n = 777;
    for (uint64_t stride : {1, 32}) {
        Lesson l = open_lesson("performance/shared_bank_conflicts",
                               {{"n", std::to_string(n)}, {"stride", std::to_string(stride)}, {"broadcast", "on"}});
        const RunReport report = record(l);
        ASSERT_TRUE(report.ok()) << report.error->full();
        EXPECT_TRUE(report.verified.value_or(false)) << "stride " << stride;
        ASSERT_TRUE(report.memory);
        const MemoryFigures* store =
            find(*report.memory, line_of(l.source, "// store: stride"), MemorySpace::Shared, true);
        const MemoryFigures* load =
            find(*report.memory, line_of(l.source, "// load: the same banks"), MemorySpace::Shared, false);
        ASSERT_TRUE(store && load) << run_report_json(report, {}).dump();
        const BankFigures e = expected_banks(n, stride, true);
        EXPECT_EQ(e.load_conflicts, 0u);
        EXPECT_EQ(load->requests, e.load_requests);
        EXPECT_EQ(load->bank_conflicts, e.load_conflicts) << "stride " << stride;
        EXPECT_EQ(store->bank_conflicts, e.store_conflicts) << "the stores are still stride words apart";
    }
}

// --- performance/warp_divergence: lanes with threadIdx.x % k == 0 load a[i] in branch A, the others b[i] in
// branch B, and all of them store y[i] after it; threads at or past n return first.

struct LaneFigures {
    uint64_t requests = 0, lanes = 0, sectors = 0;
};

TEST(MemoryLessons, ADivergentBranchRunsEachSideWithItsOwnLanes) {
    const uint64_t n = 1000, block = 256;  // the last block's last warp has 8 threads below n
    for (uint64_t k : {1, 2, 4, 8, 32}) {
        Lesson l = open_lesson("performance/warp_divergence",
                               {{"n", std::to_string(n)}, {"k", std::to_string(k)}, {"work", "3"}});
        const RunReport report = record(l);
        ASSERT_TRUE(report.ok()) << report.error->full();
        EXPECT_TRUE(report.verified.value_or(false)) << "k " << k;
        ASSERT_TRUE(report.memory);
        const MemoryRecording& m = *report.memory;

        LaneFigures a, b, y;  // per line: warps with a lane there, lanes, distinct 32-byte sectors
        for (uint64_t w = 0; w * 32 < n; ++w) {
            std::set<uint64_t> sa, sb, sy;
            for (uint64_t i = w * 32; i < std::min(n, w * 32 + 32); ++i) {
                const bool take_a = (i % block) % k == 0;
                (take_a ? sa : sb).insert(i * 4 / 32);
                sy.insert(i * 4 / 32);
                ++(take_a ? a : b).lanes, ++y.lanes;
            }
            for (auto [s, f] : {std::pair{&sa, &a}, std::pair{&sb, &b}, std::pair{&sy, &y}})
                if (!s->empty()) ++f->requests, f->sectors += s->size();
        }
        const MemoryFigures* load_a = find(m, line_of(l.source, "// branch A:"), MemorySpace::Global, false);
        const MemoryFigures* load_b = find(m, line_of(l.source, "// branch B:"), MemorySpace::Global, false);
        const MemoryFigures* store = find(m, line_of(l.source, "// after the branch:"), MemorySpace::Global, true);
        ASSERT_TRUE(load_a && store) << "k " << k << ": " << run_report_json(report, {}).dump();
        EXPECT_EQ(load_a->requests, a.requests) << "k " << k;
        EXPECT_EQ(load_a->active_lanes, a.lanes) << "k " << k;
        EXPECT_DOUBLE_EQ(load_a->active_lanes_mean(), double(a.lanes) / double(a.requests)) << "k " << k;
        EXPECT_EQ(load_a->sectors, a.sectors) << "k " << k;
        if (b.requests == 0) {
            EXPECT_TRUE(!load_b || load_b->requests == 0) << "k = 1: no lane takes branch B";
        } else {
            ASSERT_TRUE(load_b) << "k " << k << ": " << run_report_json(report, {}).dump();
            EXPECT_EQ(load_b->requests, b.requests) << "k " << k;
            EXPECT_EQ(load_b->active_lanes, b.lanes) << "k " << k;
            EXPECT_EQ(load_b->sectors, b.sectors) << "k " << k;
        }
        EXPECT_EQ(store->requests, y.requests);
        EXPECT_EQ(store->active_lanes, n) << "after the branch every lane below n stores";
        EXPECT_EQ(store->sectors, y.sectors);
        // The same counts in closed form: 31 full warps with 32 / k lanes in A, and the last 8 lanes' ceil(8 / k).
        EXPECT_EQ(a.lanes, 31 * (32 / k) + (8 + k - 1) / k) << "k " << k;
        EXPECT_EQ(a.lanes + b.lanes, n);
    }
}

// --- matrix/transpose_shared: a 32 x 8 block moves a 32 x 32 tile; the warp of threadIdx.y = ty reads the tile's
// column words tx * (32 + pad) + ty + j for j = 0, 8, 16, 24, lanes whose output element is in range.

TEST(MemoryLessons, TransposePaddingTurnsAThirtyTwoWayColumnReadIntoNone) {
    const uint64_t width = 100, height = 70;  // partial tiles on the right and at the bottom
    for (uint64_t pad : {0, 1, 2, 4}) {
        Lesson l = open_lesson(
            "matrix/transpose_shared",
            {{"width", std::to_string(width)}, {"height", std::to_string(height)}, {"pad", std::to_string(pad)}});
        const RunReport report = record(l);
        ASSERT_TRUE(report.ok()) << report.error->full();
        EXPECT_TRUE(report.verified.value_or(false)) << "pad " << pad;
        ASSERT_TRUE(report.memory);
        EXPECT_FALSE(report.memory->capped);
        const uint64_t pitch = 32 + pad;
        uint64_t requests = 0, column_conflicts = 0, row_conflicts = 0, row_requests = 0;
        for (uint64_t by = 0; by < (height + 31) / 32; ++by)
            for (uint64_t bx = 0; bx < (width + 31) / 32; ++bx)
                for (uint64_t ty = 0; ty < 8; ++ty)
                    for (uint64_t j = 0; j < 32; j += 8) {
                        std::vector<uint64_t> column, row;
                        for (uint64_t tx = 0; tx < 32; ++tx) {
                            if (bx * 32 + tx < width && by * 32 + ty + j < height)  // the tile store's test
                                row.push_back((ty + j) * pitch + tx);
                            if (by * 32 + tx < height && bx * 32 + ty + j < width)  // the tile load's test
                                column.push_back(tx * pitch + ty + j);
                        }
                        if (!column.empty()) ++requests, column_conflicts += conflicts(column);
                        if (!row.empty()) ++row_requests, row_conflicts += conflicts(row);
                    }
        const MemoryFigures* read =
            find(*report.memory, line_of(l.source, "tile[threadIdx.x * pitch + threadIdx.y + j]"), MemorySpace::Shared, false);
        const MemoryFigures* write =
            find(*report.memory, line_of(l.source, "tile[(threadIdx.y + j) * pitch"), MemorySpace::Shared, true);
        ASSERT_TRUE(read && write) << run_report_json(report, {}).dump();
        EXPECT_EQ(read->requests, requests);
        EXPECT_EQ(read->bank_conflicts, column_conflicts) << "pad " << pad;
        EXPECT_EQ(write->requests, row_requests);
        EXPECT_EQ(write->bank_conflicts, row_conflicts);
        EXPECT_EQ(row_conflicts, 0u);
        // A full column (32 lanes) costs 31, 0, 1 and 3 extra passes at pad 0, 1, 2 and 4.
        std::vector<uint64_t> full;
        for (uint64_t tx = 0; tx < 32; ++tx) full.push_back(tx * pitch);
        EXPECT_EQ(conflicts(full), (std::map<uint64_t, uint64_t>{{0, 31}, {1, 0}, {2, 1}, {4, 3}}).at(pad));
    }
}

// An edit that resizes a static __shared__ array, recorded in the same session (the same CPU worker) as the
// source before it, in the order the window runs them: a recording, a plain run, the edit, a recording. The edit
// releases the old modules, the plain one last run by the worker's threads, before the new recording launches
// (this aborted the worker: StaticSharedArrays::forget wrote the unloaded library's thread state). The recording
// must count the new kernel's accesses: with the tile TILE x TILE (no padding) the column read is the 32-way
// conflict of pad 0 whatever `pad` says.
TEST(MemoryLessons, ARecordingAfterAnEditThatResizesASharedArrayRecordsTheNewKernel) {
    const uint64_t width = 70, height = 50;  // partial tiles, as in the window's test
    Lesson l = open_lesson("matrix/transpose_shared",
                           {{"width", std::to_string(width)}, {"height", std::to_string(height)}, {"pad", "1"}});
    const RunReport before = record(l);
    ASSERT_TRUE(before.ok()) << before.error->full();
    ASSERT_TRUE(before.memory);
    // A plain run after the recording (another `pad`: launched again), as the window's next run makes: the plain
    // module is the last one the CPU worker's threads ran when the edit below releases it.
    ASSERT_TRUE(l.session->set_param("pad", "2").ok());
    RunOptions plain;
    plain.timing = {0, 1, false};
    const RunReport shown = l.session->run(plain);
    ASSERT_TRUE(shown.ok()) << shown.error->full();
    std::string edited = l.source;
    for (const auto& [from, to] :
         {std::pair<std::string, std::string>{"const int pitch = TILE + pad;", "const int pitch = TILE;"},
          {"tile[TILE * (TILE + MAX_PAD)]", "tile[TILE * TILE]"}}) {
        ASSERT_NE(edited.find(from), std::string::npos) << from;
        edited.replace(edited.find(from), from.size(), to);
    }
    KernelFile file = parse_kernel_source(edited, "transpose_shared.cu");
    ASSERT_FALSE(has_errors(file.diagnostics));
    l.session->set_kernel(std::move(file));
    const RunReport after = record(l);
    ASSERT_TRUE(after.ok()) << after.error->full();
    EXPECT_TRUE(after.verified.value_or(false));
    ASSERT_TRUE(after.memory);
    uint64_t requests = 0, column_conflicts = 0;
    for (uint64_t by = 0; by < (height + 31) / 32; ++by)
        for (uint64_t bx = 0; bx < (width + 31) / 32; ++bx)
            for (uint64_t ty = 0; ty < 8; ++ty)
                for (uint64_t j = 0; j < 32; j += 8) {
                    std::vector<uint64_t> column;
                    for (uint64_t tx = 0; tx < 32; ++tx)
                        if (by * 32 + tx < height && bx * 32 + ty + j < width) column.push_back(tx * 32 + ty + j);
                    if (!column.empty()) ++requests, column_conflicts += conflicts(column);
                }
    const MemoryFigures* read =
        find(*after.memory, line_of(edited, "tile[threadIdx.x * pitch + threadIdx.y + j]"), MemorySpace::Shared, false);
    ASSERT_TRUE(read) << run_report_json(after, {}).dump();
    EXPECT_EQ(read->requests, requests);
    EXPECT_EQ(read->bank_conflicts, column_conflicts);
    // Every column holds 32 lanes (or 18, in the bottom tiles: height 50), all in one bank: 31 (or 17) extra.
    EXPECT_GE(column_conflicts, requests * 17);
    // And back to the first source: its modules again, after the edited kernel's.
    KernelFile again = parse_kernel_source(l.source, "transpose_shared.cu");
    l.session->set_kernel(std::move(again));
    const RunReport back = record(l);
    ASSERT_TRUE(back.ok()) << back.error->full();
    EXPECT_TRUE(back.verified.value_or(false));
}

}  // namespace
