// A run's stages as products (core/session/run_products.h), on the real CPU backend: a check made after the run
// (the window's deferred check) is the same check stage as the run's own, giving the same verdict, errors and stage
// entries; and the window's memory recording is a stage over the products of the run it follows, which launches
// the recording copy and never the kernel itself again. Sizes: n = 1031 over blocks of 128 (the last block partly
// idle); the expected values are computed here.
#include "core/session/launcher.h"
#include "core/session/run_products.h"
#include "core/session/session.h"
#include "unit/cpu_session.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

namespace cp {
namespace {

constexpr uint64_t kN = 1031;

// y = 2x + 1 over x[i] = i; with bug = 1 every element whose index ends in 07 is one too large.
std::string lesson() {
    return "/*@playground\n"
           "title: Products\n"
           "kernel: twice\n"
           "param n: int = 1031\n"
           "param bug: int = 0\n"
           "buffer x: float[n] in ramp(start=0, step=1)\n"
           "buffer y: float[n] out zeros\n"
           "block: 128\n"
           "grid: ceil(n / block.x)\n"
           "problem: n\n"
           "reference: twice_reference\n"
           "*/\n"
           "extern \"C\" __global__ void twice(const float* x, float* y, int n, int bug) {\n"
           "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
           "    if (i < n) y[i] = 2.0f * x[i] + 1.0f + ((bug && i % 100 == 7) ? 1.0f : 0.0f);\n"
           "}\n"
           "#ifdef PLAYGROUND_REFERENCE\n"
           "static void twice_reference(const float* x, float* y, int n, int bug) {\n"
           "    for (int i = 0; i < n; ++i) y[i] = 2.0f * x[i] + 1.0f;\n"
           "}\n"
           "#endif\n";
}

uint64_t wrong_elements() {
    uint64_t wrong = 0;
    for (uint64_t i = 0; i < kN; ++i) wrong += i % 100 == 7;
    return wrong;
}

std::vector<std::string> stage_names(const RunReport& r) {
    std::vector<std::string> names;
    for (const StageRun& s : r.stage_runs) names.push_back(s.stage);
    return names;
}

TEST(RunProducts, ADeferredCheckIsTheSameCheckAsTheRunsOwn) {
    test::CpuRun now = test::open_on_cpu(lesson(), "products.cu");
    test::CpuRun later = test::open_on_cpu(lesson(), "products.cu");
    ASSERT_TRUE(now.session->set_param("bug", "1"));
    ASSERT_TRUE(later.session->set_param("bug", "1"));
    RunOptions options;
    options.timing = {0, 1, false};
    const RunReport checked_now = now.session->run(options);
    options.defer_check = true;
    RunReport shown = later.session->run(options);
    ASSERT_TRUE(shown.check_pending);
    EXPECT_FALSE(shown.verified.has_value());
    auto checked = later.session->check(shown);
    ASSERT_TRUE(checked);
    take_check(shown, *checked);
    EXPECT_FALSE(later.session->check(shown)) << "taken: nothing is pending any more";

    for (const RunReport* r : {&checked_now, static_cast<const RunReport*>(&shown)}) {
        SCOPED_TRACE(r == &shown ? "deferred" : "in the run");
        EXPECT_FALSE(r->check_pending);
        EXPECT_EQ(r->verified, std::optional<bool>(false));
        EXPECT_EQ(r->mismatched_elements, wrong_elements());
        EXPECT_EQ(r->mismatches, wrong_elements());
        EXPECT_DOUBLE_EQ(r->max_abs_error, 1.0);
        ASSERT_EQ(r->error_maps.size(), 1u);
        EXPECT_EQ(r->error_maps[0].buffer, "y");
        EXPECT_EQ(r->error_maps[0].elements, kN);
        EXPECT_EQ(r->error_maps[0].mismatched_elements, wrong_elements());
        ASSERT_FALSE(r->error_maps[0].first_mismatches.empty());
        EXPECT_EQ(r->error_maps[0].abs_error.size(), kN);
        for (uint64_t i = 0; i < kN; ++i)
            ASSERT_EQ(r->error_maps[0].abs_error[i], i % 100 == 7 ? 1.0f : 0.0f) << "element " << i;
        EXPECT_FALSE(r->error.has_value());  // a mismatch is a verdict, not a failure
    }
    EXPECT_EQ(shown.mismatch_detail, checked_now.mismatch_detail);
    EXPECT_EQ(shown.error_maps[0].first_mismatches, checked_now.error_maps[0].first_mismatches);
    // The same stages in the same order: the deferred check's entries come last, as the run's own do.
    EXPECT_EQ(stage_names(shown), stage_names(checked_now));
    ASSERT_GE(shown.stage_runs.size(), 2u);
    EXPECT_EQ(shown.stage_runs.back().stage, "check");
    EXPECT_EQ(shown.stage_runs[shown.stage_runs.size() - 2].stage, "reference");
    EXPECT_FALSE(shown.stage_runs[shown.stage_runs.size() - 2].reused);
}

TEST(RunProducts, TheRecordingAfterARunLaunchesOnlyTheRecordingCopy) {
    test::CpuRun cpu = test::open_on_cpu(lesson(), "products.cu");
    RunOptions shown;
    shown.timing = {0, 1, false};
    const RunReport first = cpu.session->run(shown);
    ASSERT_TRUE(first.ok()) << first.error->full();
    ASSERT_EQ(first.verified, std::optional<bool>(true)) << first.mismatch_detail;

    std::vector<LaunchPurpose> launches;
    cpu.session->launcher().observe([&](const LaunchRecord& r) { launches.push_back(r.site.purpose); });
    RunOptions recording = shown;
    recording.memory = true;
    recording.measurements_only = true;
    recording.verify = false;
    recording.read_back = false;
    const RunReport recorded = cpu.session->run(recording);
    ASSERT_TRUE(recorded.ok()) << recorded.error->full();
    ASSERT_EQ(launches.size(), 1u);
    EXPECT_EQ(launches[0], LaunchPurpose::Memory) << launch_purpose_name(launches[0]);
    ASSERT_TRUE(recorded.memory.has_value());
    EXPECT_FALSE(recorded.memory->figures.empty());
    EXPECT_EQ(recorded.memory->blocks_total, (kN + 127) / 128);
    // The run's own stages did not happen: nothing launched, read back or checked.
    EXPECT_FALSE(recorded.launched);
    EXPECT_TRUE(recorded.outputs.empty());
    EXPECT_EQ(recorded.stage_run("launch"), nullptr);
    EXPECT_EQ(recorded.stage_run("read back"), nullptr);
    EXPECT_EQ(recorded.stage_run("check"), nullptr);
    // The kernel's module is the run's: reused, not compiled again.
    ASSERT_NE(recorded.stage_run("compile"), nullptr);
    EXPECT_TRUE(recorded.stage_run("compile")->reused);
    ASSERT_NE(recorded.stage_run("compile memory"), nullptr);

    // The next run shown is right again, with the recording between.
    launches.clear();
    const RunReport again = cpu.session->run(shown);
    ASSERT_TRUE(again.ok()) << again.error->full();
    EXPECT_EQ(again.verified, std::optional<bool>(true)) << again.mismatch_detail;
    ASSERT_EQ(launches.size(), 1u);
    EXPECT_EQ(launches[0], LaunchPurpose::Run);
    const HostBuffer& y = again.outputs.at("y");
    ASSERT_EQ(y.bytes.size(), kN * sizeof(float));
    std::vector<float> v(kN);
    std::memcpy(v.data(), y.bytes.data(), y.bytes.size());
    for (uint64_t i = 0; i < kN; ++i) ASSERT_EQ(v[i], 2.0f * float(i) + 1.0f) << "element " << i;
}

}  // namespace
}  // namespace cp
