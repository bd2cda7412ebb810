// The memory recording on a real GPU (issue 23; skips without a CUDA device): for strided reads (stride 1, 2, 4,
// 8, 32 floats, n = 1001), a 32x32 shared tile read column-wise with and without padding, and a divergent store,
// the CUDA backend's per-line figures equal the CPU backend's for the same launch and the values computed here
// from the access pattern; the outputs are the plain run's; the recording launch's cost against the plain
// launch is printed for lessons at their default sizes.
#include "gpu_test_support.h"

#include "core/engine/backend.h"
#include "core/engine/memory_figures.h"
#include "core/kernel_file/kernel_file.h"
#include "core/session/report_json.h"
#include "core/session/session.h"
#include "core/backends/registry.h"

#include <iostream>
#include <set>

namespace cp::gpu_test {
namespace {

struct Recorded {
    RunReport report;
    std::vector<std::byte> output;  // the named out buffer as read back after the run
};

Recorded run_on(const std::string& backend_name, const KernelFile& file, bool memory, const std::string& output,
                TimingOptions timing = {0, 1, false}) {
    Recorded out;
    auto made = make_backend(backend_name);
    EXPECT_TRUE(made.ok()) << (made.ok() ? "" : made.error().full());
    if (!made.ok()) return out;
    Engine engine(std::move(made->backend));
    KernelSession session(engine);
    session.set_kernel(file);
    RunOptions options;
    options.timing = timing;
    options.memory = memory;
    out.report = session.run(options);
    if (out.report.ok() && !output.empty()) {
        auto read = session.read_output(output);
        EXPECT_TRUE(read.ok()) << (read.ok() ? "" : read.error().full());
        if (read.ok()) out.output = read->bytes;
    }
    return out;
}

KernelFile from_text(const std::string& source, const std::string& name) {
    KernelFile f = parse_kernel_source(source, name);
    EXPECT_FALSE(has_errors(f.diagnostics));
    return f;
}

int line_of(const std::string& source, const std::string& marker) {
    const size_t at = source.find(marker);
    EXPECT_NE(at, std::string::npos) << marker;
    return 1 + int(std::count(source.begin(), source.begin() + long(at), '\n'));
}

std::string replace(std::string s, const std::string& what, const std::string& by) {
    for (size_t at = s.find(what); at != std::string::npos; at = s.find(what, at + by.size()))
        s.replace(at, what.size(), by);
    return s;
}

const MemoryFigures* find(const MemoryRecording& m, int line, MemorySpace space, bool store) {
    for (const MemoryFigures& f : m.figures)
        if (f.line == line && f.space == space && f.store == store) return &f;
    return nullptr;
}

// Every figure of one backend equals the other's (line, kind and every count); the sites differ by nature.
void expect_same_figures(const MemoryRecording& cpu, const MemoryRecording& cuda, const std::string& what) {
    EXPECT_EQ(cuda.accesses, cpu.accesses) << what;
    EXPECT_EQ(cuda.blocks_total, cpu.blocks_total) << what;
    EXPECT_EQ(cuda.blocks_recorded, cpu.blocks_recorded) << what;
    EXPECT_EQ(cuda.capped, cpu.capped) << what;
    ASSERT_EQ(cuda.figures.size(), cpu.figures.size()) << what;
    for (size_t i = 0; i < cpu.figures.size(); ++i) {
        const MemoryFigures &c = cpu.figures[i], &g = cuda.figures[i];
        const std::string at = what + ", line " + std::to_string(c.line) + " " + memory_space_name(c.space) +
                               (c.store ? " store" : " load");
        EXPECT_EQ(g.line, c.line) << at;
        EXPECT_EQ(g.space, c.space) << at;
        EXPECT_EQ(g.store, c.store) << at;
        EXPECT_EQ(g.requests, c.requests) << at;
        EXPECT_EQ(g.sectors, c.sectors) << at;
        EXPECT_EQ(g.ideal_sectors, c.ideal_sectors) << at;
        EXPECT_EQ(g.bank_conflicts, c.bank_conflicts) << at;
        EXPECT_EQ(g.active_lanes, c.active_lanes) << at;
    }
    // Warp 0 of block 0 is always kept lane by lane (the Memory panel's picture): the same requests on both.
    ASSERT_EQ(cuda.warps.size(), cpu.warps.size()) << what;
    for (size_t i = 0; i < cpu.warps.size(); ++i) {
        const WarpSiteDetail &c = cpu.warps[i], &g = cuda.warps[i];
        const std::string at = what + ", warp detail at line " + std::to_string(c.line);
        EXPECT_EQ(g.line, c.line) << at;
        EXPECT_EQ(g.requests_total, c.requests_total) << at;
        ASSERT_EQ(g.requests.size(), c.requests.size()) << at;
        for (size_t r = 0; r < c.requests.size(); ++r) {
            EXPECT_EQ(g.requests[r].active, c.requests[r].active) << at << ", request " << r;
            // Offsets in their buffer: which buffer is region 0 follows each backend's allocation order, the
            // layout inside it does not.
            for (int lane = 0; lane < 32; ++lane)
                EXPECT_EQ(memory_region_offset(g.requests[r].address[lane]),
                          memory_region_offset(c.requests[r].address[lane]))
                    << at << ", request " << r << ", lane " << lane;
            EXPECT_EQ(g.requests[r].sectors, c.requests[r].sectors) << at << ", request " << r;
            EXPECT_EQ(g.requests[r].bank_conflicts, c.requests[r].bank_conflicts) << at << ", request " << r;
        }
    }
}

// Both backends recording the same launch, and CUDA's plain run for its outputs. The recording run's outputs
// must be the plain run's.
struct Both {
    Recorded cpu, cuda;
};
Both record_both(const std::string& source, const std::string& name, const std::string& output) {
    Both b;
    const KernelFile file = from_text(source, name);
    b.cpu = run_on("cpu", file, true, output);
    b.cuda = run_on("cuda", file, true, output);
    const Recorded plain = run_on("cuda", file, false, output);
    EXPECT_TRUE(b.cpu.report.ok()) << b.cpu.report.error->full();
    EXPECT_TRUE(b.cuda.report.ok()) << b.cuda.report.error->full();
    EXPECT_TRUE(b.cpu.report.memory && b.cuda.report.memory) << name;
    EXPECT_FALSE(plain.output.empty());
    EXPECT_TRUE(plain.output == b.cuda.output) << name << ": the recording run changed the outputs";
    return b;
}

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

uint64_t sectors(uint64_t first, uint64_t lanes, uint64_t stride) {
    std::set<uint64_t> s;
    for (uint64_t i = first; i < first + lanes; ++i) s.insert(i * stride * 4 / 32);
    return s.size();
}

TEST(CudaMemoryRecording, StridedReadsEqualTheCpuBackendAndTheCountedSectors) {
    if (auto why = cuda_unavailable()) GTEST_SKIP() << "no CUDA device: " << *why;
    const uint64_t n = 1001, full_warps = n / 32, tail = n % 32;
    for (uint64_t stride : {1, 2, 4, 8, 32}) {
        const std::string source = replace(kStrided, "STRIDE", std::to_string(stride));
        const Both b = record_both(source, "strided.cu", "out");
        if (!b.cpu.report.memory || !b.cuda.report.memory) continue;
        const MemoryRecording& m = *b.cuda.report.memory;
        expect_same_figures(*b.cpu.report.memory, m, "stride " + std::to_string(stride));
        EXPECT_FALSE(m.capped);
        EXPECT_EQ(m.blocks_total, 8u);
        EXPECT_EQ(m.accesses, 2 * n);
        const int line = line_of(source, "// ACCESS");
        const MemoryFigures* load = find(m, line, MemorySpace::Global, false);
        const MemoryFigures* store = find(m, line, MemorySpace::Global, true);
        ASSERT_TRUE(load && store) << run_report_json(b.cuda.report, {}).dump();
        uint64_t expected = sectors(full_warps * 32, tail, stride);
        for (uint64_t w = 0; w < full_warps; ++w) expected += sectors(w * 32, 32, stride);
        EXPECT_EQ(load->requests, full_warps + 1);
        EXPECT_EQ(load->sectors, expected) << "stride " << stride;
        EXPECT_EQ(load->ideal_sectors, full_warps * 4 + 2);
        EXPECT_EQ(load->active_lanes, n);
        EXPECT_EQ(store->sectors, full_warps * 4 + sectors(full_warps * 32, tail, 1));
    }
}

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

TEST(CudaMemoryRecording, TileBankConflictsEqualTheCpuBackendWithAndWithoutPadding) {
    if (auto why = cuda_unavailable()) GTEST_SKIP() << "no CUDA device: " << *why;
    for (int pad : {0, 1}) {
        const std::string source = replace(kTile, "PAD", std::to_string(pad));
        const Both b = record_both(source, "tile.cu", "out");
        if (!b.cpu.report.memory || !b.cuda.report.memory) continue;
        const MemoryRecording& m = *b.cuda.report.memory;
        expect_same_figures(*b.cpu.report.memory, m, "pad " + std::to_string(pad));
        const uint64_t warps = 3 * 2 * 32;
        const MemoryFigures* column = find(m, line_of(source, "// COLUMN"), MemorySpace::Shared, false);
        const MemoryFigures* row = find(m, line_of(source, "// ROW"), MemorySpace::Shared, true);
        ASSERT_TRUE(column && row) << run_report_json(b.cuda.report, {}).dump();
        uint64_t per_request = 0;
        std::set<uint64_t> words_in_bank[32];
        for (uint64_t l = 0; l < 32; ++l) words_in_bank[(l * (32 + pad)) % 32].insert(l * (32 + pad));
        for (auto& bank : words_in_bank) per_request = std::max<uint64_t>(per_request, bank.size());
        per_request -= 1;
        EXPECT_EQ(column->requests, warps);
        EXPECT_EQ(column->bank_conflicts, warps * per_request) << "pad " << pad;
        EXPECT_EQ(row->bank_conflicts, 0u);
        const MemoryFigures* in = find(m, line_of(source, "// ROW"), MemorySpace::Global, false);
        ASSERT_TRUE(in);
        EXPECT_EQ(in->sectors, warps * 4);
    }
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

TEST(CudaMemoryRecording, DivergentStoreLanesEqualTheCpuBackend) {
    if (auto why = cuda_unavailable()) GTEST_SKIP() << "no CUDA device: " << *why;
    for (uint64_t k : {1, 2, 4, 8, 32}) {
        const std::string source = replace(kDivergent, "K", std::to_string(k));
        const Both b = record_both(source, "divergent.cu", "out");
        if (!b.cpu.report.memory || !b.cuda.report.memory) continue;
        const MemoryRecording& m = *b.cuda.report.memory;
        expect_same_figures(*b.cpu.report.memory, m, "k " + std::to_string(k));
        const MemoryFigures* store = find(m, line_of(source, "// STORE"), MemorySpace::Global, true);
        ASSERT_TRUE(store) << run_report_json(b.cuda.report, {}).dump();
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
        EXPECT_EQ(store->sectors, sectors_expected);
    }
}

// More accesses than the cap: whole blocks from the first are recorded, and the note says how many.
TEST(CudaMemoryRecording, ALaunchPastTheCapRecordsItsFirstBlocksWhole) {
    if (auto why = cuda_unavailable()) GTEST_SKIP() << "no CUDA device: " << *why;
    const std::string source =
        replace(replace(kStrided, "param n: int = 1001", "param n: int = 3000017"), "STRIDE", "1");
    const Both b = record_both(source, "strided_big.cu", "out");
    if (!b.cpu.report.memory || !b.cuda.report.memory) return;
    const MemoryRecording& m = *b.cuda.report.memory;
    const uint64_t blocks = (3000017 + 127) / 128;
    EXPECT_TRUE(m.capped);
    EXPECT_EQ(m.blocks_total, blocks);
    EXPECT_GT(m.blocks_recorded, 0u);
    EXPECT_LE(m.accesses, m.access_cap);
    EXPECT_EQ(m.accesses, m.blocks_recorded * 128 * 2) << "whole blocks of 128 threads, a load and a store each";
    std::cout << "[gpu] strided n=3000017: " << memory_recording_note(m) << "\n";
}

// A launch whose accesses fit the cap is recorded whole. The CUDA recording takes the log's slots a chunk at a time
// and unused slots count against the cap: with chunks of 1, 2, 4, 8, 16 records a transpose thread's 16 accesses
// took 31 slots, and the lesson at its default 1100 x 900 (3.96 M accesses, under the 4.19 M cap) was recorded on
// about half its blocks. With 1, 1, 2, 4, 8 they take 16: every block, and the CPU backend's figures.
TEST(CudaMemoryRecording, TheSharedTransposeAtItsDefaultSizeIsRecordedWhole) {
    if (auto why = cuda_unavailable()) GTEST_SKIP() << "no CUDA device: " << *why;
    auto file = load_kernel_file(kernels_dir() / "matrix" / "transpose_shared.cu");
    ASSERT_TRUE(file.ok());
    const Recorded cpu = run_on("cpu", *file, true, "out");
    const Recorded cuda = run_on("cuda", *file, true, "out");
    ASSERT_TRUE(cpu.report.ok() && cpu.report.memory);
    ASSERT_TRUE(cuda.report.ok() && cuda.report.memory) << (cuda.report.error ? cuda.report.error->full() : "");
    const MemoryRecording& m = *cuda.report.memory;
    const uint64_t blocks = ((1100 + 31) / 32) * ((900 + 31) / 32);
    EXPECT_EQ(m.blocks_total, blocks);
    EXPECT_FALSE(m.capped) << memory_recording_note(m);
    EXPECT_EQ(m.blocks_recorded, blocks);
    EXPECT_EQ(m.accesses, uint64_t(1100) * 900 * 4) << "a global load, a shared store, a shared load and a global "
                                                        "store per element";
    expect_same_figures(*cpu.report.memory, m, "transpose_shared 1100x900");
    EXPECT_TRUE(cpu.output == cuda.output);
}

// The recording launch's time against the plain launch's median, for lessons at their default sizes (the
// issue asks for at most 20x on the H100). Printed, not asserted: the lead reads it on the H100.
TEST(CudaMemoryRecording, RecordingCostAgainstThePlainLaunch) {
    if (auto why = cuda_unavailable()) GTEST_SKIP() << "no CUDA device: " << *why;
    for (const char* name : {"performance/coalesced_vs_strided", "matrix/transpose_naive", "matrix/transpose_shared",
                             "matrix/tiled_matmul"}) {
        auto file = load_kernel_file(kernels_dir() / (std::string(name) + ".cu"));
        ASSERT_TRUE(file.ok()) << name;
        const Recorded plain = run_on("cuda", *file, false, "", {2, 10, false});
        const Recorded recorded = run_on("cuda", *file, true, "", {0, 1, false});
        ASSERT_TRUE(plain.report.ok()) << name << ": " << plain.report.error->full();
        ASSERT_TRUE(recorded.report.ok() && recorded.report.memory)
            << name << ": " << (recorded.report.error ? recorded.report.error->full() : "no recording");
        const double plain_ms = plain.report.timing.median_ms, recording_ms = recorded.report.memory->ms;
        std::cout << "[gpu] memory recording " << name << ": plain median " << plain_ms << " ms, recording launch "
                  << recording_ms << " ms (" << (plain_ms > 0 ? recording_ms / plain_ms : 0.0) << "x); "
                  << memory_recording_note(*recorded.report.memory) << "\n";
    }
}

}  // namespace
}  // namespace cp::gpu_test
