// The memory recording run on the real CPU backend (issue 23): `run --memory`'s per-line figures for a
// strided read (stride 1, 2, 4, 8, 32 floats, a partial last warp), a 32x32 shared tile read column-wise with
// and without padding, and a divergent store. Expected counts are computed here from the access pattern.
#include "core/engine/memory_figures.h"
#include "core/session/report_json.h"
#include "core/session/session.h"

#include "cpu_session.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

using namespace cp;

namespace {

RunOptions recording() {
    RunOptions o;
    o.timing = {0, 1, false};
    o.memory = true;
    return o;
}

// The 1-based line of the first line of `source` holding `marker`.
int recorded_line_of(const std::string& source, const std::string& marker) {
    const size_t at = source.find(marker);
    EXPECT_NE(at, std::string::npos) << marker;
    int line = 1;
    for (size_t i = 0; i < at; ++i) line += source[i] == '\n';
    return line;
}

const MemoryFigures* figures_at(const MemoryRecording& m, int line, MemorySpace space, bool store) {
    for (const MemoryFigures& f : m.figures)
        if (f.line == line && f.space == space && f.store == store) return &f;
    return nullptr;
}

std::string replace(std::string s, const std::string& what, const std::string& by) {
    for (size_t at = s.find(what); at != std::string::npos; at = s.find(what, at + by.size()))
        s.replace(at, what.size(), by);
    return s;
}

// n = 1001 threads in blocks of 128: 31 full warps and one of 9 lanes (the last block's 4th warp); the 8th
// block's last 23 threads do nothing. The buffers (n * s * 4 bytes) start on the CPU only 4- or 8-byte aligned (a
// guarded buffer ends at its guard page): the figures count sectors from the buffer's start, as a GPU's 256-byte
// aligned allocation would have them, and so does this test.
constexpr const char* kStrided = R"(/*@playground
title: Strided read
param n: int = 1001
param s: int = STRIDE
buffer in: float[n * s] in random(seed=3, min=0, max=1)
buffer out: float[n] out zeros
block: 128
grid: ceil(n / block.x)
problem: n
*/
extern "C" __global__ void strided(const float* in, float* out, int n, int s)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = in[i * s];  // ACCESS
}
)";

// Sectors of the warp-level requests of lanes i in [first, first + lanes) reading 4 bytes at i * stride * 4.
uint64_t sectors(uint64_t first, uint64_t lanes, uint64_t stride) {
    std::set<uint64_t> s;
    for (uint64_t i = first; i < first + lanes; ++i) s.insert(i * stride * 4 / 32);
    return s.size();
}

TEST(MemoryRecording, StridedReadsTouchFourToThirtyTwoSectorsPerRequest) {
    const uint64_t n = 1001;
    for (uint64_t stride : {1, 2, 4, 8, 32}) {
        const std::string source = replace(kStrided, "STRIDE", std::to_string(stride));
        test::CpuRun r = test::open_on_cpu(source, "strided.cu");
        const RunReport report = r.session->run(recording());
        ASSERT_TRUE(report.ok()) << report.error->full();
        ASSERT_TRUE(report.memory);
        const MemoryRecording& m = *report.memory;
        EXPECT_FALSE(m.capped);
        EXPECT_EQ(m.blocks_total, 8u);
        EXPECT_EQ(m.accesses, 2 * n);
        const int line = recorded_line_of(source, "// ACCESS");
        const MemoryFigures* load = figures_at(m, line, MemorySpace::Global, false);
        const MemoryFigures* store = figures_at(m, line, MemorySpace::Global, true);
        ASSERT_TRUE(load && store) << "stride " << stride << ": " << run_report_json(report, {}).dump();
        EXPECT_EQ(m.figures.size(), 2u);

        const uint64_t full_warps = n / 32, tail = n % 32;  // 31 and 9
        uint64_t expected = 0;
        for (uint64_t w = 0; w < full_warps; ++w) expected += sectors(w * 32, 32, stride);
        expected += sectors(full_warps * 32, tail, stride);
        EXPECT_EQ(sectors(0, 32, stride), std::min<uint64_t>(32, 4 * stride));  // 4, 8, 16, 32, 32 a full warp
        EXPECT_EQ(load->requests, full_warps + 1);
        EXPECT_EQ(load->sectors, expected) << "stride " << stride;
        EXPECT_EQ(load->ideal_sectors, full_warps * 4 + 2);  // 128 bytes a full warp, 36 the last
        EXPECT_DOUBLE_EQ(load->active_lanes_mean(), double(n) / double(full_warps + 1));
        EXPECT_EQ(store->sectors, full_warps * 4 + sectors(full_warps * 32, tail, 1)) << "the stores stay contiguous";
        EXPECT_EQ(sectors(full_warps * 32, tail, 1), 2u);
        EXPECT_EQ(load->bank_conflicts, 0u);
    }
}

// The warps asked for come back lane by lane, on their source line, through the CPU worker: warp 0 of block 0
// always, and the one picked (here the last block's 9-lane warp: threads 992-1000).
TEST(MemoryRecording, ThePickedWarpsRequestsComeBackLaneByLane) {
    const uint64_t stride = 8;
    const std::string source = replace(kStrided, "STRIDE", std::to_string(stride));
    test::CpuRun r = test::open_on_cpu(source, "strided.cu");
    RunOptions o = recording();
    o.memory_warps = {WarpId{7, 3}};
    const RunReport report = r.session->run(o);
    ASSERT_TRUE(report.ok()) << report.error->full();
    ASSERT_TRUE(report.memory);
    const int line = recorded_line_of(source, "// ACCESS");
    const auto& warps = report.memory->warps;
    ASSERT_EQ(warps.size(), 4u);  // 2 warps x (load, store)
    for (const WarpSiteDetail& d : warps) EXPECT_EQ(d.line, line);
    EXPECT_EQ(warps[0].warp, (WarpId{0, 0}));
    EXPECT_FALSE(warps[0].store);
    ASSERT_EQ(warps[0].requests.size(), 1u);
    EXPECT_EQ(warps[0].requests[0].active, 0xFFFFFFFFu);
    EXPECT_EQ(warps[0].requests[0].sectors, sectors(0, 32, stride));
    const WarpSiteDetail& tail = warps[2];
    EXPECT_EQ(tail.warp, (WarpId{7, 3}));
    EXPECT_FALSE(tail.store);
    ASSERT_EQ(tail.requests.size(), 1u);
    const WarpRequest& q = tail.requests[0];
    EXPECT_EQ(q.active, (1u << 9) - 1);
    // Addresses are offsets into their buffer (on a base of its own, access_recorder.cpp): lane l reads in[992 + l].
    const uint64_t base = q.address[0] - 992 * stride * 4;
    for (uint32_t l = 0; l < 9; ++l) EXPECT_EQ(q.address[l], base + (992 + l) * stride * 4) << l;
    EXPECT_EQ(base % 256, 0u);
    EXPECT_EQ(q.sectors, sectors(992, 9, stride));
    EXPECT_EQ(warps[3].requests[0].sectors, sectors(992, 9, 1));  // the store: contiguous
}

// A 32x32 tile through shared memory: written row by row, read column by column (each warp is one threadIdx.y
// row, its lanes read tile[lane][y]: a stride of 32 + PAD words).
constexpr const char* kTile = R"(/*@playground
title: Tile
param w: int = 96
param h: int = 64
buffer in: float[w * h] in random(seed=5, min=0, max=1)
buffer out: float[w * h] out zeros
block: 32 x 32
grid: ceil(w / 32) x ceil(h / 32)
problem: w x h
*/
extern "C" __global__ void tile_transpose(const float* in, float* out, int w, int h)
{
    __shared__ float tile[32][32 + PAD];
    int x = blockIdx.x * 32 + threadIdx.x, y = blockIdx.y * 32 + threadIdx.y;
    if (x < w && y < h) tile[threadIdx.y][threadIdx.x] = in[y * w + x];  // ROW
    __syncthreads();
    int ox = blockIdx.y * 32 + threadIdx.x, oy = blockIdx.x * 32 + threadIdx.y;
    if (ox < h && oy < w) out[oy * h + ox] = tile[threadIdx.x][threadIdx.y];  // COLUMN
}
)";

TEST(MemoryRecording, AColumnOfAnUnpaddedTileIsAThirtyTwoWayConflictAndPaddingRemovesIt) {
    for (int pad : {0, 1}) {
        const std::string source = replace(kTile, "PAD", std::to_string(pad));
        test::CpuRun r = test::open_on_cpu(source, "tile.cu");
        const RunReport report = r.session->run(recording());
        ASSERT_TRUE(report.ok()) << report.error->full();
        ASSERT_TRUE(report.memory);
        const MemoryRecording& m = *report.memory;
        const uint64_t blocks = 3 * 2, warps = blocks * 32;
        const MemoryFigures* column = figures_at(m, recorded_line_of(source, "// COLUMN"), MemorySpace::Shared, false);
        const MemoryFigures* row = figures_at(m, recorded_line_of(source, "// ROW"), MemorySpace::Shared, true);
        ASSERT_TRUE(column && row) << run_report_json(report, {}).dump();
        EXPECT_EQ(column->requests, warps);
        // Lanes l read word l * (32 + pad) + y: bank (l * (32 + pad) + y) % 32, distinct words all.
        uint64_t per_request = 0;
        {
            std::set<uint64_t> words_in_bank[32];
            for (uint64_t l = 0; l < 32; ++l) words_in_bank[(l * (32 + pad)) % 32].insert(l * (32 + pad));
            for (auto& b : words_in_bank) per_request = std::max<uint64_t>(per_request, b.size());
            per_request -= 1;
        }
        EXPECT_EQ(per_request, pad ? 0u : 31u);
        EXPECT_EQ(column->bank_conflicts, warps * per_request) << "pad " << pad;
        EXPECT_EQ(row->bank_conflicts, 0u);
        EXPECT_EQ(row->requests, warps);
        EXPECT_DOUBLE_EQ(column->active_lanes_mean(), 32.0);
        // The global load and store: one 128-byte row a warp.
        const MemoryFigures* in = figures_at(m, recorded_line_of(source, "// ROW"), MemorySpace::Global, false);
        ASSERT_TRUE(in);
        EXPECT_EQ(in->sectors, warps * 4);
        EXPECT_EQ(in->ideal_sectors, warps * 4);
    }
}

// A 16 x 16 block: a warp is two rows of 16 threads (linear index x + 16 y), so each request touches two
// 64-byte pieces of rows w floats apart. w = 100, h = 40: the right and bottom blocks are partial; the buffers
// (16000 bytes) start 128-byte aligned.
constexpr const char* kRows = R"(/*@playground
title: Rows
param w: int = 100
param h: int = 40
buffer in: float[w * h] in random(seed=7, min=0, max=1)
buffer out: float[w * h] out zeros
block: 16 x 16
grid: ceil(w / 16) x ceil(h / 16)
problem: w x h
*/
extern "C" __global__ void rows(const float* in, float* out, int w, int h)
{
    int x = blockIdx.x * 16 + threadIdx.x, y = blockIdx.y * 16 + threadIdx.y;
    if (x < w && y < h) out[y * w + x] = 2.0f * in[y * w + x];  // ACCESS
}
)";

TEST(MemoryRecording, AWarpOfATwoDimensionalBlockIsTwoRowsOfSixteen) {
    test::CpuRun r = test::open_on_cpu(kRows, "rows.cu");
    const RunReport report = r.session->run(recording());
    ASSERT_TRUE(report.ok()) << report.error->full();
    ASSERT_TRUE(report.memory);
    const MemoryFigures* load = figures_at(*report.memory, recorded_line_of(kRows, "// ACCESS"), MemorySpace::Global, false);
    ASSERT_TRUE(load) << run_report_json(report, {}).dump();
    const int w = 100, h = 40;
    uint64_t requests = 0, lanes = 0, sectors_expected = 0, ideal = 0;
    for (int by = 0; by < (h + 15) / 16; ++by)
        for (int bx = 0; bx < (w + 15) / 16; ++bx)
            for (int warp = 0; warp < 8; ++warp) {
                std::set<uint64_t> s;
                uint64_t active = 0;
                for (int lane = 0; lane < 32; ++lane) {
                    const int t = warp * 32 + lane, x = bx * 16 + t % 16, y = by * 16 + t / 16;
                    if (x < w && y < h) ++active, s.insert(uint64_t(y * w + x) * 4 / 32);
                }
                if (!active) continue;
                ++requests, lanes += active, sectors_expected += s.size(), ideal += (active * 4 + 31) / 32;
            }
    EXPECT_EQ(load->requests, requests);
    EXPECT_EQ(load->active_lanes, lanes);
    EXPECT_EQ(load->sectors, sectors_expected);
    EXPECT_EQ(load->ideal_sectors, ideal);
}

constexpr const char* kDivergent = R"(/*@playground
title: Divergent store
param n: int = 1000
param k: int = K
buffer out: int[n] out zeros
block: 128
grid: ceil(n / block.x)
problem: n
*/
extern "C" __global__ void divergent(int* out, int n, int k)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n && threadIdx.x % k == 0) out[i] = 1;  // STORE
}
)";

TEST(MemoryRecording, ADivergentBranchLeavesThirtyTwoOverKLanesActive) {
    for (uint64_t k : {1, 2, 4, 8, 32}) {
        const std::string source = replace(kDivergent, "K", std::to_string(k));
        test::CpuRun r = test::open_on_cpu(source, "divergent.cu");
        const RunReport report = r.session->run(recording());
        ASSERT_TRUE(report.ok()) << report.error->full();
        ASSERT_TRUE(report.memory);
        const MemoryFigures* store = figures_at(*report.memory, recorded_line_of(source, "// STORE"), MemorySpace::Global, true);
        ASSERT_TRUE(store) << run_report_json(report, {}).dump();
        // Per warp of threads [32w, 32w + 32) below n = 1000, the lanes with threadIdx.x % k == 0.
        uint64_t requests = 0, lanes = 0, sectors_expected = 0;
        for (uint64_t w = 0; w * 32 < 1000; ++w) {
            uint64_t active = 0;
            std::set<uint64_t> s;
            for (uint64_t i = w * 32; i < std::min<uint64_t>(w * 32 + 32, 1000); ++i)
                if ((i % 128) % k == 0) ++active, s.insert(i * 4 / 32);
            if (active) ++requests, lanes += active, sectors_expected += s.size();
        }
        EXPECT_EQ(store->requests, requests);
        EXPECT_EQ(store->active_lanes, lanes) << "k " << k;
        EXPECT_DOUBLE_EQ(store->active_lanes_mean(), double(lanes) / double(requests));
        EXPECT_EQ(store->sectors, sectors_expected);
        // The 31 full warps have 32 / k lanes each; the last (8 lanes) ceil(8 / k).
        EXPECT_EQ(lanes, 31 * (32 / k) + (8 + k - 1) / k);
    }
}

TEST(MemoryRecording, TheJsonHasOneEntryPerLineAndKindAndANote) {
    const std::string source = replace(kStrided, "STRIDE", "2");
    test::CpuRun r = test::open_on_cpu(source, "strided.cu");
    const RunReport report = r.session->run(recording());
    ASSERT_TRUE(report.ok()) << report.error->full();
    const nlohmann::json j = run_report_json(report, {});
    ASSERT_TRUE(j.contains("memory"));
    ASSERT_EQ(j["memory"].size(), 2u);
    const nlohmann::json& load = j["memory"][0]["op"] == "load" ? j["memory"][0] : j["memory"][1];
    EXPECT_EQ(load["line"], recorded_line_of(source, "// ACCESS"));
    EXPECT_EQ(load["space"], "global");
    EXPECT_EQ(load["requests"], 32);
    EXPECT_EQ(load["sectors"], 31 * 8 + 3);  // the last 9 lanes read bytes 7936-8007: sectors 248-250
    EXPECT_EQ(load["ideal_sectors"], 31 * 4 + 2);
    EXPECT_EQ(load["bank_conflicts"], 0);
    EXPECT_DOUBLE_EQ(load["active_lanes_mean"].get<double>(), 1001.0 / 32.0);
    EXPECT_NE(j["memory_recording"]["note"].get<std::string>().find("all 8 blocks: 2002 accesses"), std::string::npos)
        << j["memory_recording"].dump();
}

}  // namespace
