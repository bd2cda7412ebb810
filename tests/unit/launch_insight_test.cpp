// Seeing the launch, on the real CPU backend: measured coverage (the grid-too-small count computed
// independently, grid-stride loops not warned about, sentinel values a kernel writes), the per-block trace,
// the instrumented wrapper compiling for every library kernel (NVRTC, no GPU needed), per-element error
// counts, and the grid-limit-respecting coverage suggestion.
#include "core/toolkit/nvrtc_compiler.h"
#include "core/engine/backend.h"
#include "core/engine/launch_validation.h"
#include "core/engine/occupancy.h"
#include "core/engine/trace_wrapper.h"
#include "core/kernel_file/kernel_file.h"
#include "core/session/coverage.h"
#include "core/session/output_compare.h"
#include "core/session/session.h"

#include "cpu_session.h"

#include <gtest/gtest.h>

#include <cstring>
#include <set>

using namespace cp;

namespace {

constexpr const char* kFill2D = R"(/*@playground
title: Fill 2D
param width: int = 1000
param height: int = 300
buffer dst: float[width * height] out zeros
block: 16 x 16
grid: ceil(width / block.x) x ceil(height / block.y)
problem: width x height
view dst: image(width, height)
*/
extern "C" __global__ void fill2d(float* dst, int width, int height)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < width && y < height) dst[y * width + x] = 1.0f + x + y;
}
)";

// A grid-stride loop: any grid covers the whole array.
constexpr const char* kStride = R"(/*@playground
title: Grid stride
param n: int = 100003
buffer out: uchar[n] out zeros
block: 128
grid: 7
problem: n
*/
extern "C" __global__ void stride(unsigned char* out, int n)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        out[i] = 0xA5;  // the first sentinel's byte: only the second pass tells it from an unwritten element
}
)";

using test::CpuRun;

RunOptions quick() {
    RunOptions o;
    o.timing = {0, 1, false};
    return o;
}

TEST(Coverage, GridTooSmallGivesTheExactUncoveredCount) {
    CpuRun r = test::open_on_cpu(kFill2D, "fill2d.cu");
    RunChoices choices;
    choices.grid = Dim3{50, 15, 1};  // 800 x 240 threads for 1000 x 300 elements
    r.session->set_choices(choices);
    RunOptions o = quick();
    o.coverage = true;
    const RunReport report = r.session->run(o);
    ASSERT_TRUE(report.ok()) << report.error->full();
    ASSERT_EQ(report.coverage.size(), 1u);
    const CoverageMap& c = report.coverage[0];
    // Independently: the elements no (block, thread) of the grid maps to.
    uint64_t expected = 0;
    std::vector<uint8_t> expected_map;
    for (int y = 0; y < 300; ++y)
        for (int x = 0; x < 1000; ++x) {
            bool hit = false;
            for (int by = 0; by < 15 && !hit; ++by)
                hit = y >= by * 16 && y < by * 16 + 16 && x < 50 * 16;
            expected += !hit;
            expected_map.push_back(!hit);
        }
    EXPECT_EQ(c.elements, 300000u);
    EXPECT_EQ(c.never_written, expected);
    EXPECT_EQ(c.unwritten, expected_map);
    EXPECT_EQ(c.summary(), with_thousands(expected) + " of 300,000 elements never written");
    // The warning states the measurement, and its suggestion.
    bool warned = false;
    for (const auto& i : report.launch_issues)
        if (i.limit == std::string(kCoverageLimit)) {
            warned = true;
            EXPECT_NE(i.message.find("(measured)"), std::string::npos) << i.message;
            EXPECT_NE(i.message.find("grid 63x19x1"), std::string::npos) << i.message;
            // As data: the elements written of the buffer's, and the guess's fix.
            EXPECT_EQ(i.value, c.elements - expected);
            EXPECT_EQ(i.maximum, c.elements);
            ASSERT_TRUE(i.try_grid.has_value());
            EXPECT_EQ(i.try_grid->str(), "63x19x1");
        }
    EXPECT_TRUE(warned);
    // The run's own output is unaffected by the measuring launches: written elements hold their values,
    // unwritten ones the buffer's initial zeros (not a sentinel).
    const auto& out = report.outputs.at("dst");
    float v0 = 0, vlast = 0;
    std::memcpy(&v0, out.bytes.data(), 4);
    std::memcpy(&vlast, out.bytes.data() + (300000 - 1) * 4, 4);
    EXPECT_EQ(v0, 1.0f);
    EXPECT_EQ(vlast, 0.0f);
}

TEST(Coverage, FullGridWritesEverything) {
    CpuRun r = test::open_on_cpu(kFill2D, "fill2d.cu");
    RunOptions o = quick();
    o.coverage = true;
    const RunReport report = r.session->run(o);
    ASSERT_TRUE(report.ok()) << report.error->full();
    ASSERT_EQ(report.coverage.size(), 1u);
    EXPECT_EQ(report.coverage[0].never_written, 0u);
}

TEST(Coverage, GridStrideLoopIsNotWarnedAboutAndSentinelValuesCount) {
    CpuRun r = test::open_on_cpu(kStride, "stride.cu");
    const RunReport report = r.session->run(quick());  // measured because the guess warns
    ASSERT_TRUE(report.ok()) << report.error->full();
    ASSERT_EQ(report.coverage.size(), 1u) << "the guess warned, so coverage is measured";
    EXPECT_EQ(report.coverage[0].elements, 100003u);
    EXPECT_EQ(report.coverage[0].never_written, 0u);
    for (const auto& i : report.launch_issues) EXPECT_NE(i.limit, std::string(kCoverageLimit)) << i.message;
}

TEST(Coverage, OneDimensionalTooSmallGrid) {
    CpuRun r = test::open_on_cpu(kStride, "stride.cu");
    // Same kernel without the loop: one element per thread.
    std::string src = kStride;
    src.replace(src.find("for (int i"), std::string("for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)").size(),
                "int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n)");
    r.session->set_kernel(parse_kernel_source(src, "one.cu"));
    RunOptions o = quick();
    o.coverage = true;
    const RunReport report = r.session->run(o);
    ASSERT_TRUE(report.ok()) << report.error->full();
    ASSERT_EQ(report.coverage.size(), 1u);
    EXPECT_EQ(report.coverage[0].never_written, 100003u - 7u * 128u);
}

TEST(Trace, CpuBackendRecordsEveryBlockOnceWithSaneTimes) {
    CpuRun r = test::open_on_cpu(kFill2D, "fill2d.cu");
    RunOptions o = quick();
    o.trace = true;
    const RunReport report = r.session->run(o);
    ASSERT_TRUE(report.ok()) << report.error->full();
    ASSERT_TRUE(report.trace.has_value());
    const uint64_t blocks = report.resolved->grid.count();
    EXPECT_EQ(blocks, 63u * 19u);
    ASSERT_EQ(report.trace->blocks.size(), blocks);
    EXPECT_EQ(report.trace->unit, "worker");
    std::set<uint32_t> units;
    for (uint64_t i = 0; i < blocks; ++i) {
        const BlockTrace& b = report.trace->blocks[i];
        EXPECT_EQ(b.block, i);
        EXPECT_LE(b.start_ns, b.end_ns);
        EXPECT_LT(b.end_ns, uint64_t(60e9)) << "times are from the launch's start";
        units.insert(b.unit);
    }
    EXPECT_EQ(units.size(), report.trace->units_used);
    EXPECT_GE(units.size(), 1u);
}

TEST(TraceWrapper, EveryLibraryKernelCompilesInstrumented) {
    for (const KernelFile& file : scan_library(kernels_dir())) {
        ASSERT_TRUE(file.signature.has_value()) << file.path;
        auto wrapped = make_trace_wrapper(file.source, file.signature->name);
        ASSERT_TRUE(wrapped.ok()) << file.path << ": " << wrapped.error().full();
        EXPECT_NE(wrapped->find("%%smid"), std::string::npos);
        CompileRequest request;
        request.source = *wrapped;
        request.path = file.path.string();
        request.kernel_name = file.signature->name;
        request.load = false;
        std::vector<std::byte> cubin;
        const CompileResult c = compile_with_nvrtc(request, kArchWithoutDevice, &cubin);
        EXPECT_TRUE(c.ok) << file.path << ":\n" << c.log;
        // The body keeps its lines: a diagnostic in the user's code points where the user wrote it.
        EXPECT_EQ(wrapped->substr(0, file.source.size()).find(file.signature->name + "__cp_user"),
                  wrapped->find(file.signature->name + "__cp_user"));
    }
}

TEST(TraceWrapper, LaunchBoundsMoveToTheWrapperAndUnnamedParametersAreRefused) {
    const std::string src = "extern \"C\" __global__ void __launch_bounds__(256) k(float* a, int n) { a[0] = n; }\n";
    auto w = make_trace_wrapper(src, "k");
    ASSERT_TRUE(w.ok()) << w.error().full();
    EXPECT_NE(w->find("__global__ void __launch_bounds__(256) k(float* a, int n)"), std::string::npos) << *w;
    EXPECT_NE(w->find("k__cp_user(a, n);"), std::string::npos) << *w;
    EXPECT_FALSE(make_trace_wrapper("extern \"C\" __global__ void k(float*, int n) {}", "k").ok());
    EXPECT_FALSE(make_trace_wrapper("// __global__ void k(int n)\n", "k").ok());
}

TEST(ErrorMap, MismatchesCountedPerElementWithComponentsApart) {
    // 6 uchar4 pixels; pixel 1 wrong in r, g, b; pixel 4 wrong in a only.
    HostBuffer want{"dst", ElemType::UChar4, std::vector<std::byte>(24, std::byte{10})};
    HostBuffer got = want;
    for (int c : {4, 5, 6, 19}) got.bytes[c] = std::byte{200};
    const Comparison cmp = compare_buffers(got, want, 1, true);
    EXPECT_EQ(cmp.mismatched_elements, 2u);
    EXPECT_EQ(cmp.mismatches, 4u);
    EXPECT_EQ(cmp.mismatched_components, (std::vector<uint64_t>{1, 1, 1, 1}));
    ASSERT_EQ(cmp.abs_error.size(), 6u);
    EXPECT_EQ(cmp.abs_error[1], 190.0f);
    EXPECT_EQ(cmp.abs_error[0], 0.0f);
    ASSERT_EQ(cmp.first_mismatches.size(), 2u);
    EXPECT_EQ(cmp.first_mismatches[1].rfind("dst[4]", 0), 0u) << cmp.first_mismatches[1];
}

TEST(CoverageWarning, NeverSuggestsAGridPastTheDeviceLimits) {
    DeviceInfo device;  // CUDA's usual limits: grid y at most 65535
    LaunchCheck check{Dim3{4, 1, 1}, Dim3{256, 1, 1}, 0, ResourceUsage{}, {1000, 70000}};
    bool warned = false;
    for (const LaunchIssue& i : validate_launch(device, check)) {
        if (i.limit != std::string(kCoverageLimit) || i.message.find("in y") == std::string::npos) continue;
        warned = true;
        EXPECT_EQ(i.message.find("use ceil(70000"), std::string::npos) << i.message;
        EXPECT_NE(i.message.find("block 256x2x1 with grid 4x35000x1"), std::string::npos) << i.message;
        ASSERT_TRUE(i.try_block && i.try_grid);
        EXPECT_EQ(i.try_block->str(), "256x2x1");
        EXPECT_EQ(i.try_grid->str(), "4x35000x1");
        EXPECT_LE(i.try_grid->y, device.max_grid.y);
        // Whatever grid is suggested must pass the checks.
        LaunchCheck fixed{Dim3{4, 35000, 1}, Dim3{256, 2, 1}, 0, ResourceUsage{}, {1000, 70000}};
        for (const LaunchIssue& j : validate_launch(device, fixed)) EXPECT_NE(j.severity, Severity::Error) << j.message;
    }
    EXPECT_TRUE(warned);
    // A block that cannot grow: a grid-stride loop is the advice.
    LaunchCheck full{Dim3{1, 1, 1}, Dim3{1, 1024, 1}, 0, ResourceUsage{}, {1, 100000000}};
    bool advised = false;
    for (const LaunchIssue& i : validate_launch(device, full))
        advised = advised || i.message.find("grid-stride loop") != std::string::npos;
    EXPECT_TRUE(advised);
}

}  // namespace

namespace {

// An H100-like SM: 64 warps, 65536 registers, 228 KiB shared, 32 blocks.
DeviceInfo h100_like() {
    DeviceInfo d;
    d.cc_major = 9;
    d.max_threads_per_sm = 2048;
    d.regs_per_sm = 65536;
    d.regs_per_block = 65536;
    d.max_shared_per_sm = 233472;
    d.max_shared_per_block = 49152;
    d.max_blocks_per_sm = 32;
    return d;
}

TEST(OccupancyFigures, EachLimitBindsWhereItShould) {
    const DeviceInfo d = h100_like();
    ResourceUsage u;
    u.registers = 32;
    u.static_shared_bytes = 0;
    // 256 threads, 32 registers: 8 warps a block; 64 / 8 = 8 blocks by warps, 65536 / (1024 * 8) = 8 by registers.
    OccupancyFigures f = occupancy_for_block(d, u, 0, 256);
    EXPECT_EQ(f.warps_per_block, 8);
    EXPECT_EQ(f.blocks_per_sm, 8);
    EXPECT_EQ(f.warps_per_sm, 64);
    EXPECT_DOUBLE_EQ(f.occupancy, 1.0);
    EXPECT_EQ(f.limited_by, "warps");
    // 64 registers: 2048 per warp, 16384 per block: 4 blocks, half the warps.
    u.registers = 64;
    f = occupancy_for_block(d, u, 0, 256);
    EXPECT_EQ(f.blocks_per_sm, 4);
    EXPECT_DOUBLE_EQ(f.occupancy, 0.5);
    EXPECT_EQ(f.limited_by, "registers");
    // 40 KiB of shared memory (+1 KiB reserved) per block: 233472 / 41984 = 5 blocks of 2 warps.
    u.registers = 16;
    f = occupancy_for_block(d, u, 40 * 1024, 64);
    EXPECT_EQ(f.blocks_per_sm, 5);
    EXPECT_EQ(f.limited_by, "shared memory");
    // 32 threads: 32 blocks of 1 warp; the block limit binds.
    f = occupancy_for_block(d, u, 0, 32);
    EXPECT_EQ(f.blocks_per_sm, 32);
    EXPECT_DOUBLE_EQ(f.occupancy, 0.5);
    EXPECT_EQ(f.limited_by, "blocks per SM");
    // Past the kernel's limit, nothing launches.
    EXPECT_EQ(occupancy_for_block(d, u, 0, 2048).blocks_per_sm, 0);
    // The chart: every multiple of 32 up to 1024, and the suggestion is its maximum.
    const auto curve = occupancy_curve(d, u, 0);
    ASSERT_EQ(curve.size(), 32u);
    double best = 0;
    for (const auto& c : curve) best = std::max(best, c.occupancy);
    EXPECT_DOUBLE_EQ(estimate_best_block(d, u, 0, 1).occupancy, best);
}

}  // namespace
