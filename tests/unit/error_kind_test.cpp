// Failures carry a kind, set where they are raised: each kind the CPU backend can produce, from a tiny kernel
// through its worker process, and the expected outcomes of buggy-on-purpose lessons decided on the kind alone
// (a message in other words gives the same outcome).
#include "core/engine/backend.h"
#include "core/kernel_file/kernel_file.h"
#include "core/session/session.h"
#include "cpu_backend_rig.h"
#include "cpu_session.h"
#include "core/backends/registry.h"

#include <cstdlib>
#include <set>

namespace cp::test {
namespace {

class ScopedEnv {
public:
    ScopedEnv(const char* name, const char* value) : name_(name) { ::setenv(name, value, 1); }
    ~ScopedEnv() { ::unsetenv(name_); }

private:
    const char* name_;
};

ErrorKind launch_kind(const LaunchResult& r) {
    EXPECT_FALSE(r.ok);
    EXPECT_TRUE(r.error.has_value());
    return r.error ? r.error->kind : ErrorKind::Unknown;
}

TEST(ErrorKind, NamesRoundTripAndAreDistinct) {
    std::set<std::string> names;
    for (int i = 0; i < kErrorKindCount; ++i) {
        const std::string name = error_kind_name(ErrorKind(i));
        EXPECT_TRUE(names.insert(name).second) << "two kinds are called " << name;
        EXPECT_EQ(error_kind_from_name(name), ErrorKind(i)) << name;
    }
    EXPECT_EQ(std::string(error_kind_name(ErrorKind::OutOfBounds)), "out_of_bounds");
    EXPECT_FALSE(error_kind_from_name("segfault").has_value());
    EXPECT_EQ(make_error("words").kind, ErrorKind::Unknown);
    EXPECT_EQ(make_error(ErrorKind::Io, "words").kind, ErrorKind::Io);
    EXPECT_EQ(make_error("words").with_kind(ErrorKind::Hang).kind, ErrorKind::Hang);
    EXPECT_EQ(to_error(engine_error(ErrorKind::Fault, "N", "m", "h")).kind, ErrorKind::Fault);
}

// ---- the CPU backend, through its worker process ---------------------------------------------------------

TEST(ErrorKind, CpuOutOfBounds) {
    CpuRig rig(test_options(1));
    const char* src =
        "extern \"C\" __global__ void fill(int* out, int n)\n"
        "{\n"
        "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
        "    out[i] = n;\n"  // no bounds check: 1000 elements, 4 blocks of 256
        "}\n";
    const int n = 1000;
    const BufferId out = rig.buffer("out", std::vector<int>(n, 0));
    const LaunchResult r =
        rig.launch(rig.compile(src, "fill"), "fill", {4}, {256}, {buffer_arg("out", out), value_arg("n", n)});
    EXPECT_EQ(launch_kind(r), ErrorKind::OutOfBounds) << error_text(r);
}

TEST(ErrorKind, CpuNullPointerIsAFault) {
    CpuRig rig(test_options(1));
    const char* src =
        "extern \"C\" __global__ void deref(int* out)\n"
        "{\n"
        "    int* volatile p = nullptr;\n"
        "    if (threadIdx.x == 3) out[0] = *p;\n"
        "}\n";
    const BufferId out = rig.buffer("out", std::vector<int>(5, 0));
    const LaunchResult r = rig.launch(rig.compile(src, "deref"), "deref", {1}, {37}, {buffer_arg("out", out)});
    EXPECT_EQ(launch_kind(r), ErrorKind::Fault) << error_text(r);
}

TEST(ErrorKind, CpuTrapIsAFault) {
    CpuRig rig(test_options(1));
    const char* src =
        "extern \"C\" __global__ void stops(int* out)\n"
        "{\n"
        "    if (threadIdx.x == 5) __trap();\n"
        "    out[threadIdx.x] = 1;\n"
        "}\n";
    const BufferId out = rig.buffer("out", std::vector<int>(40, 0));
    const LaunchResult r = rig.launch(rig.compile(src, "stops"), "stops", {1}, {37}, {buffer_arg("out", out)});
    EXPECT_EQ(launch_kind(r), ErrorKind::Fault) << error_text(r);
}

TEST(ErrorKind, CpuInfiniteLoopIsAHang) {
    ScopedEnv timeout("CUDA_PLAYGROUND_LAUNCH_TIMEOUT_S", "1");
    CpuRig rig;
    const char* src =
        "extern \"C\" __global__ void forever(int* out)\n"
        "{\n"
        "    volatile int spin = 1;\n"
        "    while (spin) out[threadIdx.x] += 1;\n"
        "}\n";
    const BufferId out = rig.buffer("out", std::vector<int>(33, 0));
    const LaunchResult r = rig.launch(rig.compile(src, "forever"), "forever", {1}, {33}, {buffer_arg("out", out)});
    EXPECT_EQ(launch_kind(r), ErrorKind::Hang) << error_text(r);
}

TEST(ErrorKind, CpuDivergentBarrierIsAHang) {
    CpuRig rig(test_options(1));
    const char* src =
        // Two groups wait at two different barriers, neither reached by the whole block: a GPU waits forever.
        "extern \"C\" __global__ void split(int* out)\n"
        "{\n"
        "    if (threadIdx.x < 10) {\n"
        "        __syncthreads();\n"
        "        out[threadIdx.x] = 1;\n"
        "    } else {\n"
        "        __syncthreads();\n"
        "        out[threadIdx.x] = 2;\n"
        "    }\n"
        "}\n";
    const BufferId out = rig.buffer("out", std::vector<int>(37, 0));
    const LaunchResult r = rig.launch(rig.compile(src, "split"), "split", {1}, {37}, {buffer_arg("out", out)});
    EXPECT_EQ(launch_kind(r), ErrorKind::Hang) << error_text(r);
}

// A refused system call is a sandbox refusal: checked with its report in CpuSandbox.RefusedCallsFailInTheKernelAndAreReported.

TEST(ErrorKind, CpuBlockOver1024IsARefusedLaunch) {
    CpuRig rig(test_options(1));
    const char* src = "extern \"C\" __global__ void one(int* out) { out[threadIdx.x] = 1; }\n";
    const BufferId out = rig.buffer("out", std::vector<int>(2000, 0));
    const LaunchResult r = rig.launch(rig.compile(src, "one"), "one", {1}, {1025}, {buffer_arg("out", out)});
    EXPECT_EQ(launch_kind(r), ErrorKind::LaunchRefused) << error_text(r);
}

TEST(ErrorKind, BadSettingsAreUserInput) {
    EXPECT_EQ(make_backend("warp-drive").error().kind, ErrorKind::UserInput);
    ScopedEnv workers("CUDA_PLAYGROUND_CPU_WORKERS", "many");
    EXPECT_EQ(cpu_backend_options_from_env().error().kind, ErrorKind::UserInput);
}

// ---- through a session: the stages' kinds --------------------------------------------------------------

const char* kAddHeader =
    "/*@playground\n"
    "title: copy\n"
    "param n: int = 1000\n"
    "buffer a: float[n] in random(seed=1)\n"
    "buffer c: float[n] out zeros\n"
    "block: BLOCK\n"
    "grid: ceil(n / block.x)\n"
    "*/\n";

std::string add_source(const std::string& block, const std::string& body) {
    std::string header = kAddHeader;
    header.replace(header.find("BLOCK"), 5, block);
    return header + "extern \"C\" __global__ void add(const float* a, float* c, int n)\n{\n" + body + "}\n";
}

TEST(ErrorKind, SessionCompileErrorIsCompile) {
    CpuRun run = open_on_cpu(add_source("256",
                                        "    int i = blockIdx.x * blockDim.x + threadIdx.x\n"
                                        "    if (i < n) c[i] = a[i];\n"),
                             "missing_semicolon.cu");
    const RunReport r = run.session->run();
    ASSERT_TRUE(r.error.has_value());
    EXPECT_EQ(r.failed_stage, RunStage::Compile);
    EXPECT_EQ(r.error->kind, ErrorKind::Compile) << r.error->full();
}

TEST(ErrorKind, SessionBlockOver1024IsARefusedLaunch) {
    CpuRun run = open_on_cpu(add_source("2048",
                                        "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                                        "    if (i < n) c[i] = a[i];\n"),
                             "big_block.cu");
    const RunReport r = run.session->run();
    ASSERT_TRUE(r.error.has_value());
    EXPECT_EQ(r.error->kind, ErrorKind::LaunchRefused) << r.error->full();
    EXPECT_EQ(run_outcome(r), "refused");
}

TEST(ErrorKind, SessionUnknownParameterIsUserInput) {
    CpuRun run = open_on_cpu(add_source("256",
                                        "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                                        "    if (i < n) c[i] = a[i];\n"),
                             "add.cu");
    RunChoices choices;
    choices.params["m"] = 5;  // the file has n, not m
    run.session->set_choices(choices);
    const RunReport r = run.session->run();
    ASSERT_TRUE(r.error.has_value());
    EXPECT_EQ(r.error->kind, ErrorKind::UserInput) << r.error->full();
}

// ---- expected outcomes decide on the kind ------------------------------------------------------------------

RunReport failed_with(RunStage stage, ErrorKind kind, const std::string& message) {
    RunReport r;
    r.failed_stage = stage;
    r.error = make_error(kind, message);
    return r;
}

TEST(ErrorKind, OutcomeFollowsTheKindNotTheWords) {
    // Each message says something else entirely (or what another kind used to say): only the kind counts.
    EXPECT_EQ(run_outcome(failed_with(RunStage::Launch, ErrorKind::Hang, "all is well")), "hang");
    EXPECT_EQ(run_outcome(failed_with(RunStage::Launch, ErrorKind::LaunchRefused, "did not finish within 2 s")),
              "refused");
    EXPECT_EQ(run_outcome(failed_with(RunStage::Launch, ErrorKind::Fault, "launch refused: LAUNCH_OUT_OF_RESOURCES")),
              "fault");
    EXPECT_EQ(run_outcome(failed_with(RunStage::Launch, ErrorKind::OutOfBounds, "did not finish within")), "fault");
    EXPECT_EQ(run_outcome(failed_with(RunStage::Launch, ErrorKind::WorkerLost, "")), "fault");
    EXPECT_EQ(run_outcome(failed_with(RunStage::Prepare, ErrorKind::OutOfMemory, "did not finish within")), "error");
    EXPECT_EQ(run_outcome(failed_with(RunStage::Compile, ErrorKind::Compile, "launch refused")), "error");
    // Unclassified: the stage that failed decides.
    EXPECT_EQ(run_outcome(failed_with(RunStage::Launch, ErrorKind::Unknown, "did not finish within")), "fault");
    EXPECT_EQ(run_outcome(failed_with(RunStage::Validate, ErrorKind::Unknown, "x")), "refused");
    // The CPU reference failed, whatever its kind (it crashed, hung): nothing is known of the kernel's result, so a
    // lesson that must fault or hang is not judged to have done so.
    EXPECT_EQ(run_outcome(failed_with(RunStage::Verify, ErrorKind::Fault, "")), "error");
    EXPECT_EQ(run_outcome(failed_with(RunStage::Verify, ErrorKind::Hang, "")), "error");

    RunReport mismatch;
    mismatch.launched = true;
    mismatch.verified = false;
    EXPECT_EQ(run_outcome(mismatch), "mismatch");
    RunReport verified;
    verified.launched = true;
    verified.verified = true;
    EXPECT_EQ(run_outcome(verified), "verified");
}

// The library's buggy-on-purpose lessons, run on the CPU backend: the outcome each one expects, by its kind.
RunReport run_lesson(const std::string& relative) {
    auto file = load_kernel_file(source_dir() / "kernels" / relative);
    EXPECT_TRUE(file.ok()) << relative;
    auto made = make_backend("cpu");
    EXPECT_TRUE(made.ok());
    Engine engine(std::move(made->backend));
    KernelSession session(engine);
    session.set_kernel(std::move(*file));
    return session.run();
}

TEST(ErrorKind, LessonThatMustBeRefusedIsRefusedByKind) {
    const RunReport r = run_lesson("mistakes/block_too_large.cu");
    EXPECT_EQ(r.expect, "refused");
    ASSERT_TRUE(r.error.has_value());
    EXPECT_EQ(r.error->kind, ErrorKind::LaunchRefused);
    EXPECT_EQ(r.outcome, "refused");
    EXPECT_EQ(r.as_expected, true);
}

TEST(ErrorKind, LessonThatMustFaultFaultsOutOfBounds) {
    const RunReport r = run_lesson("mistakes/missing_bounds_check.cu");
    EXPECT_EQ(r.expect, "fault");
    ASSERT_TRUE(r.error.has_value());
    EXPECT_EQ(r.error->kind, ErrorKind::OutOfBounds) << r.error->full();
    EXPECT_EQ(r.outcome, "fault");
    EXPECT_EQ(r.as_expected, true);
}

// Threads that return before a __syncthreads(): the CPU backend reports the barrier they never reach as a
// hang (kernels/FORMAT.md), naming the block, the line and how many threads were where.
TEST(ErrorKind, LessonWithAnEarlyReturnBeforeABarrierHangs) {
    const RunReport r = run_lesson("mistakes/early_return_before_syncthreads.cu");
    EXPECT_EQ(r.expect, "hang");
    ASSERT_TRUE(r.error.has_value());
    EXPECT_EQ(r.error->kind, ErrorKind::Hang) << r.error->full();
    EXPECT_NE(r.error->message.find("block (3,0,0): 232 threads (0-231) wait at __syncthreads at line "),
              std::string::npos)
        << r.error->message;
    EXPECT_NE(r.error->message.find("but 24 threads (232-255) have already returned"), std::string::npos)
        << r.error->message;
    EXPECT_EQ(r.outcome, "hang");
    EXPECT_EQ(r.as_expected, true);
}

}  // namespace
}  // namespace cp::test
