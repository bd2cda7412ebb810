// Steps (`step:` lines): the header's mistakes named on their line with the fix, and sequences run on the real
// CPU backend (a two-pass reduction, a scan followed by adding block offsets, a kernel launched five times),
// their outputs compared with sums computed here, independently of the kernels and the in-file references.
#include "core/engine/backend.h"
#include "core/kernel_file/kernel_file.h"
#include "core/session/report_json.h"
#include "core/session/session.h"
#include "unit/diagnostics_text.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <numeric>
#include "test_paths.h"
#include "core/backends/registry.h"

namespace cp {
namespace {

std::filesystem::path data() { return std::filesystem::path(CP_SOURCE_DIR) / "tests" / "data" / "steps"; }

using test::dump;

const char* kTwoKernels = R"(
extern "C" __global__ void first(const float* a, float* b, int n) { int i = threadIdx.x; if (i < n) b[i] = a[i]; }
extern "C" __global__ void second(float* b, float s, int n) { int i = threadIdx.x; if (i < n) b[i] *= s; }
)";

KernelFile parse_steps(const std::string& step_lines, const std::string& code = kTwoKernels) {
    const std::string header = "/*@playground\n"  // line 1
                               "title: Steps\n"
                               "param n: int = 100\n"
                               "param s: float = 2\n"
                               "buffer a: float[n] in\n"  // line 5
                               "buffer b: float[n] out\n"
                               "block: 128\n"
                               "grid: ceil(n / block.x)\n" +
                               step_lines + "*/\n";  // steps from line 9
    return parse_kernel_source(header + code, "steps.cu");
}

const Diagnostic& error_on(const KernelFile& f, int line, std::initializer_list<std::string> pieces) {
    for (const auto& d : f.diagnostics) {
        if (d.severity != Severity::Error || d.line != line) continue;
        bool all = true;
        for (const auto& p : pieces) all = all && d.message.find(p) != std::string::npos;
        if (all) return d;
    }
    ADD_FAILURE() << "no error on line " << line << " with the expected words; got:\n" << dump(f.diagnostics);
    static const Diagnostic none;
    return none;
}

TEST(StepsHeader, TwoStepsParseWithTheirOwnSettings) {
    const KernelFile f = parse_steps("step: first block=64 grid=ceil(n / block.x) shared=block.x * 4\n"
                                     "step: second repeat=3\n");
    EXPECT_TRUE(f.usable()) << dump(f.diagnostics);
    ASSERT_EQ(f.spec.steps.size(), 2u);
    EXPECT_EQ(f.spec.steps[0].kernel, "first");
    EXPECT_EQ(f.spec.steps[0].line, 9);
    EXPECT_EQ(f.spec.steps[0].block_expr[0], "64");
    EXPECT_EQ(f.spec.steps[0].grid_expr[0], "ceil(n / block.x)");
    EXPECT_EQ(f.spec.steps[0].shared_expr, "block.x * 4");
    EXPECT_TRUE(f.spec.steps[1].block_expr[0].empty());  // the file's
    EXPECT_EQ(f.spec.steps[1].repeat_expr, "3");
    ASSERT_EQ(f.step_signatures.size(), 2u);
    EXPECT_EQ(f.step_signatures[1].name, "second");
    EXPECT_EQ(f.signature->name, "first");
}

TEST(StepsHeader, MistakesNameTheirLineAndTheFix) {
    error_on(parse_steps("step: first\nstep: thrid\n"), 10, {"`step: thrid` names no `__global__` function", "first"});
    const auto& d = error_on(parse_steps("step: first blocks=64\n"), 9, {"unknown step setting `blocks=`", "`block`"});
    EXPECT_EQ(d.column, 13);
    error_on(parse_steps("step: first 64\n"), 9, {"`name=value`", "not `64`"});
    error_on(parse_steps("step: first grid=ceil(m / block.x)\n"), 9, {"`m`"});
    error_on(parse_steps("step: first repeat=\n"), 9, {"`repeat=` has no value", "repeat=5"});
    error_on(parse_steps("step: first block=64 block=32\n"), 9, {"`block=` is given twice"});
    error_on(parse_steps("step: first block=1 x 2 x 3 x 4\n"), 9, {"1 to 3 sizes"});
    error_on(parse_steps("step: first repeat=block.x\n"), 9, {"block.x"});
    error_on(parse_steps("kernel: first\nstep: second\n"), 9, {"`kernel:` and `step:` both say what runs", "line 10"});
}

TEST(StepsHeader, StepsMustAgreeOnSharedParametersAndDescribeThemAll) {
    const char* mismatched = R"(
extern "C" __global__ void first(const float* a, float* b, int n) {}
extern "C" __global__ void second(int* b, float s, int n) {}
)";
    error_on(parse_steps("step: first\nstep: second\n", mismatched), 14, {"`int* b` of `second` (step 2)", "same way"});
    const char* extra = R"(
extern "C" __global__ void first(const float* a, float* b, int n) {}
extern "C" __global__ void second(float* b, float* c, int n) {}
)";
    error_on(parse_steps("step: first\nstep: second\n", extra), 14, {"parameter `c`", "buffer c: float[n]"});
    // A header param no step's kernel takes (and no expression uses) is still pointed out.
    const KernelFile f = parse_steps("step: first\n");
    bool warned = false;
    for (const auto& d : f.diagnostics) warned = warned || (d.line == 4 && d.message.find("param `s`") != std::string::npos);
    EXPECT_TRUE(warned) << dump(f.diagnostics);
}

struct CpuSession {
    Engine engine;
    KernelSession session;
    explicit CpuSession(const std::filesystem::path& file)
        : engine(std::move(make_backend("cpu").value().backend)), session(engine) {
        auto loaded = load_kernel_file(file);
        EXPECT_TRUE(loaded) << (loaded ? "" : loaded.error().message);
        if (loaded) session.set_kernel(std::move(*loaded));
    }
};

std::vector<int> ints(const RunReport& r, const std::string& name) {
    const HostBuffer& b = r.outputs.at(name);
    return std::vector<int>(b.as<int>(), b.as<int>() + b.count());
}

TEST(StepsRun, TwoPassReductionMatchesSumsComputedHere) {
    CpuSession s(data() / "reduce_steps.cu");
    const RunReport r = s.session.run();
    ASSERT_TRUE(r.ok()) << r.error->message << " / " << r.error->hint;
    const int n = 20011, threads = 128, blocks = (n + threads - 1) / threads;  // 157 blocks, the last one partial
    std::vector<long long> partial(blocks, 0);
    long long total = 0;
    for (int i = 0; i < n; ++i) {
        partial[i / threads] += 3 + 7LL * i;
        total += 3 + 7LL * i;
    }
    const std::vector<int> got = ints(r, "partials");
    ASSERT_EQ(got.size(), size_t(blocks));
    for (int b = 0; b < blocks; ++b) ASSERT_EQ(got[b], int(partial[b])) << "block " << b;
    EXPECT_EQ(ints(r, "total")[0], int(total));
    EXPECT_EQ(r.verified, std::optional<bool>(true));  // the in-file reference agrees

    ASSERT_EQ(r.steps.size(), 2u);
    EXPECT_EQ(r.steps[0].kernel, "block_partials");
    EXPECT_EQ(r.steps[0].grid.x, uint32_t(blocks));
    EXPECT_EQ(r.steps[0].block.x, 128u);
    EXPECT_EQ(r.steps[0].dynamic_shared_bytes, 512u);
    EXPECT_EQ(r.steps[1].grid.x, 1u);
    EXPECT_EQ(r.steps[1].block.x, 256u);
    EXPECT_EQ(r.steps[1].dynamic_shared_bytes, 1024u);
    EXPECT_EQ(r.kernel, "block_partials, final_pass");
    for (const auto& st : r.steps) EXPECT_GT(st.total_ms, 0);
    // One pass is both steps: every timed sample adds one sample of each.
    EXPECT_NEAR(r.timing.median_ms, r.steps[0].total_ms + r.steps[1].total_ms,
                0.5 * (r.steps[0].total_ms + r.steps[1].total_ms));
    EXPECT_DOUBLE_EQ(r.transfers.kernel_ms, r.timing.median_ms);

    const auto j = run_report_json(r, {});
    ASSERT_EQ(j.at("steps").size(), 2u);
    EXPECT_EQ(j["steps"][1]["kernel"], "final_pass");
    EXPECT_EQ(j["steps"][1]["line"], 10);
    EXPECT_EQ(j["steps"][1]["repeat"], 1);
    EXPECT_TRUE(j["steps"][1]["launched"].get<bool>());
    EXPECT_DOUBLE_EQ(j["steps"][0]["total_ms"].get<double>(), r.steps[0].total_ms);
    EXPECT_DOUBLE_EQ(j["timing"]["median_ms"].get<double>(), r.timing.median_ms);
}

TEST(StepsRun, ScanThenBlockOffsetsMatchesAPrefixSumComputedHere) {
    CpuSession s(data() / "scan_steps.cu");
    const RunReport r = s.session.run();
    ASSERT_TRUE(r.ok()) << r.error->message;
    const int n = 70001;  // 274 segments of 256, the last one partial
    const std::vector<int> out = ints(r, "out");
    ASSERT_EQ(out.size(), size_t(n));
    long long sum = 0;
    for (int i = 0; i < n; ++i) {
        sum += 5 + 3LL * i;
        ASSERT_EQ(out[i], int(sum)) << "element " << i;
    }
    EXPECT_EQ(r.verified, std::optional<bool>(true));
    ASSERT_EQ(r.steps.size(), 3u);
    EXPECT_EQ(r.steps[0].block.x, 128u);   // the file's block
    EXPECT_EQ(r.steps[1].block.x, 256u);   // its own
    EXPECT_EQ(r.steps[2].grid.x, uint32_t((n + 127) / 128));
}

TEST(StepsRun, WithoutItsLastStepTheScanFailsItsCheck) {
    // The check is of the final buffers: leaving out the offsets leaves a saw-tooth the reference rejects.
    auto file = load_kernel_file(data() / "scan_steps.cu").value();
    const std::string source = file.source;
    const size_t at = source.find("step: add_offsets");
    ASSERT_NE(at, std::string::npos);
    KernelFile cut = parse_kernel_source(source.substr(0, at) + "# " + source.substr(at), file.path);
    ASSERT_TRUE(cut.usable()) << dump(cut.diagnostics);
    Engine engine(std::move(make_backend("cpu").value().backend));
    KernelSession session(engine);
    session.set_kernel(std::move(cut));
    const RunReport r = session.run();
    ASSERT_TRUE(r.launched) << (r.error ? r.error->message : "");
    EXPECT_EQ(r.verified, std::optional<bool>(false));
    EXPECT_EQ(r.steps.size(), 2u);
    long long first_segment = 0;
    for (int i = 0; i < 256; ++i) first_segment += 5 + 3 * i;
    EXPECT_EQ(ints(r, "out")[255], int(first_segment));  // the first segment is right...
    EXPECT_EQ(ints(r, "out")[256], 5 + 3 * 256);          // ...the second starts again from its own first element
}

TEST(StepsRun, StoppingAfterAStepShowsTheBuffersAsThatStepLeftThemUnchecked) {
    CpuSession s(data() / "scan_steps.cu");
    RunChoices choices;
    choices.until_step = 1;  // only the per-segment scans: every segment starts again from its own first element
    s.session.set_choices(choices);
    const RunReport r = s.session.run();
    ASSERT_TRUE(r.ok()) << r.error->message;
    ASSERT_EQ(r.steps.size(), 1u);
    ASSERT_TRUE(r.resolved);
    EXPECT_EQ(r.resolved->steps_in_file, 3u);
    const int n = 70001;
    const std::vector<int> out = ints(r, "out");
    ASSERT_EQ(out.size(), size_t(n));
    long long sum = 0;
    for (int i = 0; i < n; ++i) {
        sum = (i % 256 == 0 ? 0 : sum) + 5 + 3LL * i;
        ASSERT_EQ(out[i], int(sum)) << "element " << i;
    }
    // The reference is about the last step: not run, and said so (never "verified", never "mismatch").
    EXPECT_FALSE(r.verified.has_value());
    EXPECT_EQ(r.not_checked_why, NotCheckedWhy::StoppedEarly) << r.not_checked;
    EXPECT_EQ(r.not_checked,
              "shown after step 1 of 3: the check compares the result of the last step, so it did not run");
    const auto j = run_report_json(r, {});
    EXPECT_EQ(j["steps_in_file"], 3);
    EXPECT_EQ(j["steps"].size(), 1u);
    EXPECT_TRUE(j["verified"].is_null());
    EXPECT_EQ(j["not_checked"], r.not_checked);

    // Every step again: checked.
    choices.until_step = 3;
    s.session.set_choices(choices);
    const RunReport all = s.session.run();
    EXPECT_EQ(all.verified, std::optional<bool>(true));
    EXPECT_TRUE(all.not_checked.empty());
    EXPECT_EQ(all.not_checked_why, NotCheckedWhy::None);

    // Out of range, and on a file without steps: refused at the field, with the range.
    choices.until_step = 4;
    s.session.set_choices(choices);
    const RunReport over = s.session.run();
    ASSERT_FALSE(over.launched);
    ASSERT_EQ(over.input_problems.size(), 1u);
    EXPECT_EQ(over.input_problems[0].field, "until_step");
    EXPECT_NE(over.input_problems[0].error.message.find("has 3 steps"), std::string::npos);
    EXPECT_NE(over.input_problems[0].error.hint.find("from 1 to 3"), std::string::npos);
    auto plain = load_kernel_file(data() / "reduce_steps.cu").value();
    plain.spec.steps.clear();  // as if the file had no `step:` lines
    RunChoices kept;
    kept.until_step = 1;
    kept.keep_only_those_of(plain);  // a choice the file cannot take is forgotten when the file changes
    EXPECT_FALSE(kept.until_step.has_value());
}

TEST(StepsRun, AKernelLaunchedFiveTimesInARowAddsFive) {
    CpuSession s(data() / "increment_steps.cu");
    const RunReport r = s.session.run();
    ASSERT_TRUE(r.ok()) << r.error->message;
    const std::vector<int> x = ints(r, "x");
    ASSERT_EQ(x.size(), 10007u);
    for (int i = 0; i < 10007; ++i) ASSERT_EQ(x[i], -2 + 3 * i + 5) << "element " << i;
    EXPECT_EQ(r.verified, std::optional<bool>(true));
    ASSERT_EQ(r.steps.size(), 1u);
    EXPECT_EQ(r.steps[0].repeat, 5u);
    // Every launch's timed samples are the step's: 5 launches of `repeats` samples each.
    EXPECT_EQ(r.steps[0].timing.samples_ms.size(), 5 * r.timing.samples_ms.size());
    EXPECT_GT(r.steps[0].total_ms, r.steps[0].timing.median_ms);  // five launches take longer than one

    // The count is an expression over params: --set times=2 adds two (and the reference follows).
    ASSERT_TRUE(s.session.set_param("times", "2"));
    const RunReport again = s.session.run();
    ASSERT_TRUE(again.ok());
    EXPECT_EQ(ints(again, "x")[10], -2 + 30 + 2);
    EXPECT_EQ(again.verified, std::optional<bool>(true));
}

TEST(StepsRun, ABlockNoStepFollowsIsRefusedAndAStepTooLargeIsNamed) {
    CpuSession s(data() / "reduce_steps.cu");
    RunChoices choices;
    choices.block = Dim3{64, 1, 1};
    s.session.set_choices(choices);
    std::vector<InputProblem> problems;
    auto resolved = s.session.resolve(&problems);
    ASSERT_FALSE(resolved);
    EXPECT_NE(resolved.error().message.find("every step of this file sets its own block"), std::string::npos)
        << resolved.error().message;
    ASSERT_FALSE(problems.empty());
    EXPECT_EQ(problems[0].field, "block");

    s.session.set_choices({});
    ASSERT_TRUE(s.session.set_param("threads", "2048"));
    const RunReport r = s.session.run();
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.error->message.find("step 1 (`block_partials`)"), std::string::npos) << r.error->message;
    EXPECT_NE(r.error->hint.find("line 9"), std::string::npos) << r.error->hint;
}

}  // namespace
}  // namespace cp
