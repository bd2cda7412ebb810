// The CPU backend's worker process and sandbox through the Backend API: the watchdog, exit()/abort() in a
// kernel, refused system calls, buffers that survive a replaced worker, host code (references) run in the
// sandbox, and the in-process executor the benchmarks compare with.
#include "core/cpu/cpu_executor.h"
#include "core/cpu/host_code.h"
#include "cpu_backend_rig.h"
#include "support/scoped_env.h"

#include <chrono>
#include <cstdlib>
#include <iostream>

namespace cp::test {
namespace {

const char* kSquare =
    "extern \"C\" __global__ void square(const int* in, int* out, int n)\n"
    "{\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i < n) out[i] = in[i] * in[i];\n"
    "}\n";

const char* kForever =
    "extern \"C\" __global__ void forever(int* out)\n"
    "{\n"
    "    volatile int spin = 1;\n"
    "    while (spin) out[threadIdx.x] += 1;\n"
    "}\n";

std::vector<int> iota_ints(int n) {
    std::vector<int> v(static_cast<size_t>(n));
    for (int i = 0; i < n; ++i) v[size_t(i)] = i - 500;
    return v;
}

// After a kernel took the worker down, the same backend runs the next kernel on the same buffers.
void expect_square_works(CpuRig& rig, BufferId in, BufferId out, int n) {
    const ModuleId m = rig.compile(kSquare, "square", "square.cu");
    const LaunchResult ok = rig.launch(m, "square", {div_up(uint32_t(n), 128)}, {128},
                                       {buffer_arg("in", in), buffer_arg("out", out), value_arg("n", n)});
    ASSERT_TRUE(ok.ok) << error_text(ok);
    const std::vector<int> got = rig.read<int>(out), inputs = iota_ints(n);
    ASSERT_EQ(got.size(), size_t(n));
    for (int i = 0; i < n; ++i) ASSERT_EQ(got[size_t(i)], inputs[size_t(i)] * inputs[size_t(i)]) << i;
}

TEST(CpuSandbox, AnInfiniteLoopEndsWithinTheTimeOutPlusOneSecondAndTheNextLaunchWorks) {
    const cp::test::ScopedEnv timeout("CUDA_PLAYGROUND_LAUNCH_TIMEOUT_S", "2");
    CpuRig rig;
    const int n = 1001;
    const BufferId in = rig.buffer("in", iota_ints(n)), out = rig.buffer("out", std::vector<int>(size_t(n), 0));
    const ModuleId m = rig.compile(kForever, "forever", "forever.cu");
    const auto start = std::chrono::steady_clock::now();
    const LaunchResult r = rig.launch(m, "forever", {1}, {32}, {buffer_arg("out", out)});
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    ASSERT_FALSE(r.ok);
    EXPECT_EQ(r.error->name, "LAUNCH_TIMEOUT");
    EXPECT_EQ(r.error->kind, ErrorKind::Hang);
    // Where it was: the first thread of the one block, whose fiber never yields, on the loop's line.
    EXPECT_EQ(r.error->thread, std::optional<Dim3>(Dim3{0, 0, 0}));
    EXPECT_EQ(r.error->block, std::optional<Dim3>(Dim3{0, 0, 0}));
    const std::string text = kForever;
    EXPECT_EQ(r.error->line, 1 + int(std::count(text.begin(), text.begin() + long(text.find("while (spin)")), '\n')));
    EXPECT_GE(seconds, 2.0);
    EXPECT_LE(seconds, 3.0) << "the time-out + 1 s";
    std::cout << "[ figure   ] an infinite loop with CUDA_PLAYGROUND_LAUNCH_TIMEOUT_S=2 was stopped after " << seconds
              << " s (limit: 3 s)\n";
    const auto again = std::chrono::steady_clock::now();
    expect_square_works(rig, in, out, n);
    std::cout << "[ figure   ] the next launch (new worker, compile, launch, read-back) took "
              << std::chrono::duration<double>(std::chrono::steady_clock::now() - again).count() << " s\n";
}

TEST(CpuSandbox, ExitInAKernelIsReportedWithThreadBlockAndLineAndTheBackendLivesOn) {
    CpuRig rig;
    const int n = 777;
    const BufferId in = rig.buffer("in", iota_ints(n)), out = rig.buffer("out", std::vector<int>(size_t(n), 0));
    // Host calls are hidden from NVRTC's check of the device code: the sandbox must stop them.
    const char* src =
        "#ifdef __CUDA_PLAYGROUND_CPU__\n#include <cstdlib>\n#endif\n"
        "extern \"C\" __global__ void quits(int* out)\n"
        "{\n"
        "#ifdef __CUDA_PLAYGROUND_CPU__\n    if (blockIdx.x == 2 && threadIdx.x == 7) exit(4);\n#endif\n"
        "    out[threadIdx.x] = 1;\n"
        "}\n";
    const ModuleId m = rig.compile(src, "quits", "quits.cu");
    const LaunchResult r = rig.launch(m, "quits", {3}, {32}, {buffer_arg("out", out)});
    ASSERT_FALSE(r.ok);
    EXPECT_EQ(r.error->name, "KERNEL_EXITED");
    EXPECT_EQ(r.error->kind, ErrorKind::Fault);
    // Who and where as data (the window marks the line); the sentence says them with the line in its middle.
    EXPECT_EQ(r.error->thread, (Dim3{7, 0, 0}));
    EXPECT_EQ(r.error->block, (Dim3{2, 0, 0}));
    EXPECT_EQ(r.error->line, 7);
    EXPECT_EQ(r.error->message,
              "kernel `quits` (grid 3x1x1, block 32x1x1): thread (7,0,0) of block (2,0,0) called "
              "exit(4) (line 7); kernels cannot end the program");
    EXPECT_FALSE(r.error->context_was_reset) << "buffers live in the app's shared memory and are kept";
    expect_square_works(rig, in, out, n);
}

TEST(CpuSandbox, AbortInAKernelIsReported) {
    CpuRig rig;
    const char* src =
        "#ifdef __CUDA_PLAYGROUND_CPU__\n#include <cstdlib>\n#define GIVE_UP abort()\n#else\n#define GIVE_UP\n#endif\n"
        "extern \"C\" __global__ void gives_up(int* out)\n"
        "{\n"
        "    out[threadIdx.x] = 1;\n"
        "    if (threadIdx.x == 9) GIVE_UP;\n"
        "}\n";
    const BufferId out = rig.buffer("out", std::vector<int>(32, 0));
    const LaunchResult r =
        rig.launch(rig.compile(src, "gives_up", "gives_up.cu"), "gives_up", {1}, {32}, {buffer_arg("out", out)});
    ASSERT_FALSE(r.ok);
    EXPECT_EQ(r.error->name, "KERNEL_ABORTED");
    EXPECT_EQ(r.error->thread, (Dim3{9, 0, 0}));
    EXPECT_EQ(r.error->block, (Dim3{0, 0, 0}));
    EXPECT_EQ(r.error->line, 10);
    EXPECT_EQ(r.error->message,
              "kernel `gives_up` (grid 1x1x1, block 32x1x1): thread (9,0,0) of block (0,0,0) called "
              "abort() (line 10); kernels cannot end the program");
}

TEST(CpuSandbox, RefusedCallsFailInTheKernelAndAreReported) {
    CpuRig rig;
    // The kernel sees the refusal (-1 from fopen's open) and carries on; the launch still fails, saying why.
    const char* src =
        "#ifdef __CUDA_PLAYGROUND_CPU__\n"
        "#include <cstdio>\n"
        "#define PEEK fopen(\"/etc/hostname\", \"r\") == nullptr ? 7 : 8\n"
        "#else\n"
        "#define PEEK 0\n"
        "#endif\n"
        "extern \"C\" __global__ void nosy(int* out)\n"
        "{\n"
        "    if (threadIdx.x == 1) out[0] = PEEK;\n"
        "}\n";
    const BufferId out = rig.buffer("out", std::vector<int>(4, 0));
    const LaunchResult r = rig.launch(rig.compile(src, "nosy", "nosy.cu"), "nosy", {1}, {32}, {buffer_arg("out", out)});
    ASSERT_FALSE(r.ok);
    EXPECT_EQ(r.error->name, "BLOCKED_SYSTEM_CALL");
    EXPECT_EQ(r.error->kind, ErrorKind::SandboxRefusal);
    EXPECT_EQ(r.error->thread, (Dim3{1, 0, 0}));
    EXPECT_EQ(r.error->block, (Dim3{0, 0, 0}));
    EXPECT_EQ(r.error->line, 9);
    EXPECT_EQ(r.error->message,
              "kernel `nosy` (grid 1x1x1, block 32x1x1): thread (1,0,0) of block (0,0,0) tried to "
              "read the file /etc/hostname (openat) (line 9); kernels can only compute, so the CPU "
              "backend refused it");
    EXPECT_EQ(rig.read<int>(out)[0], 7) << "fopen failed inside the kernel";
}

// The words of a code site go where the error says (EngineError::site_at: the sentence goes on after them) or
// else at its end, and the line becomes data.
TEST(CpuSandbox, ACodeSitesWordsGoWhereTheErrorSaysOrAtTheEnd) {
    const std::string before = "thread (7,0,0) of block (2,0,0) called exit(4)";
    EngineError mid = engine_error(ErrorKind::Fault, "KERNEL_EXITED", before + "; kernels cannot end the program");
    mid.site_at = before.size();
    place_code_site(mid, " (line 7)", 7);
    EXPECT_EQ(mid.message, before + " (line 7); kernels cannot end the program");
    EXPECT_EQ(mid.line, 7);
    EXPECT_FALSE(mid.site_at) << "placed once";

    EngineError end = engine_error(ErrorKind::Fault, "INTEGER_DIVIDE_BY_ZERO", "thread (5,0,0) divided by zero");
    place_code_site(end, " (line 3)");
    EXPECT_EQ(end.message, "thread (5,0,0) divided by zero (line 3)");
    EXPECT_EQ(end.line, 0) << "no line given: none set";

    EngineError shortened = engine_error(ErrorKind::Fault, "X", "short");
    shortened.site_at = 99;  // past the end: at the end
    place_code_site(shortened, " (line 1)", 1);
    EXPECT_EQ(shortened.message, "short (line 1)");
}

// glibc 2.39 (Ubuntu 24.04) reads these to count CPUs when a worker thread first allocates: that failed every
// launch on a 16-core machine as "the kernel tried to read /sys/devices/system/cpu/online". They fail quietly.
TEST(CpuSandbox, TheCLibrarysCpuCountFilesFailQuietly) {
    CpuRig rig;
    const char* src =
        "#ifdef __CUDA_PLAYGROUND_CPU__\n"
        "#include <cstdio>\n"
        "#define PEEK (fopen(\"/sys/devices/system/cpu/online\", \"r\") == nullptr && fopen(\"/proc/stat\", \"r\") == nullptr ? 7 : 8)\n"
        "#else\n"
        "#define PEEK 0\n"
        "#endif\n"
        "extern \"C\" __global__ void counting(int* out)\n"
        "{\n"
        "    if (threadIdx.x == 1) out[0] = PEEK;\n"
        "}\n";
    const BufferId out = rig.buffer("out", std::vector<int>(4, 0));
    const LaunchResult r =
        rig.launch(rig.compile(src, "counting", "counting.cu"), "counting", {1}, {32}, {buffer_arg("out", out)});
    ASSERT_TRUE(r.ok) << error_text(r);
    EXPECT_EQ(rig.read<int>(out)[0], 7) << "both opens failed inside the kernel";
}

TEST(CpuSandbox, StaticConstructorsRunInTheSandbox) {
    CpuRig rig;
    const char* src =
        "#ifdef __CUDA_PLAYGROUND_CPU__\n"
        "#include <cstdlib>\n"
        "static int at_load = (exit(9), 0);\n"
        "#endif\n"
        "extern \"C\" __global__ void k(int* out) { out[0] = 1; }\n";
    const CompileResult r = rig.compile_result(src, "k", "at_load.cu");
    ASSERT_FALSE(r.ok);
    ASSERT_TRUE(r.error.has_value());
    EXPECT_EQ(r.error->message,
              "while loading kernel `k`, its code (a static initialiser) called exit(9); kernels "
              "cannot end the program");
    // The backend is fine afterwards.
    const int n = 300;
    expect_square_works(rig, rig.buffer("in", iota_ints(n)), rig.buffer("out", std::vector<int>(size_t(n), 0)), n);
}

TEST(CpuSandbox, TheInProcessExecutorGivesTheSameResults) {
    CpuBackendOptions options = test_options();
    options.in_process = true;
    CpuRig rig(options);
    const int n = 513;
    expect_square_works(rig, rig.buffer("in", iota_ints(n)), rig.buffer("out", std::vector<int>(size_t(n), 0)), n);
}

// ---- host code (lessons' references) ---------------------------------------------------------------------

const char* kReference =
    "#ifdef PLAYGROUND_REFERENCE\n"
    "extern \"C\" void prefix_sums(void** args)\n"
    "{\n"
    "    const int* in = *static_cast<const int**>(args[0]);\n"
    "    long long* out = *static_cast<long long**>(args[1]);\n"
    "    const int n = *static_cast<const int*>(args[2]);\n"
    "    long long sum = 0;\n"
    "    for (int i = 0; i < n; ++i) out[i] = sum += in[i];\n"
    "}\n"
    "extern \"C\" void crashes(void** args)\n"
    "{\n"
    "    int* nowhere = *static_cast<int**>(args[0]);\n"
    "    nowhere[1 << 28] = 1;\n"
    "}\n"
    "#include <cstdio>\n"
    "extern \"C\" void writes(void**) { fopen(\"/tmp/cp-reference-was-here\", \"w\"); }\n"
    "#endif\n";

TEST(HostCode, AReferenceRunsInTheSandboxOnSharedBuffers) {
    auto runner = make_host_code_runner(test_options());
    ASSERT_TRUE(runner.ok()) << runner.error().full();
    HostCodeRunner& host = **runner;
    const CompileResult c = host.compile({kReference, "lesson.cu", {"PLAYGROUND_REFERENCE"}});
    ASSERT_TRUE(c.ok) << c.log;
    const int n = 1000;
    const auto in = host.allocate("in", n * sizeof(int)), out = host.allocate("out", n * sizeof(long long));
    ASSERT_TRUE(in.ok() && out.ok());
    auto* values = reinterpret_cast<int*>(host.data(*in));
    for (int i = 0; i < n; ++i) values[i] = (i * 37) % 101 - 50;
    const HostCallResult r =
        host.call(c.module, "prefix_sums", {buffer_arg("in", *in), buffer_arg("out", *out), value_arg("n", n)});
    ASSERT_TRUE(r.ok) << (r.error ? r.error->message : "");
    const auto* sums = reinterpret_cast<const long long*>(host.data(*out));
    long long expected = 0;
    for (int i = 0; i < n; ++i) ASSERT_EQ(sums[i], expected += values[i]) << i;

    const HostCallResult crash = host.call(c.module, "crashes", {buffer_arg("in", *in)});
    ASSERT_FALSE(crash.ok);
    EXPECT_NE(crash.error->message.find("`crashes` wrote to an address it may not"), std::string::npos)
        << crash.error->message;
    EXPECT_NE(crash.error->message.find("(line 13)"), std::string::npos) << crash.error->message;

    const HostCallResult nosy = host.call(c.module, "writes", {});
    ASSERT_FALSE(nosy.ok);
    EXPECT_NE(nosy.error->message.find("tried to write the file /tmp/cp-reference-was-here"), std::string::npos)
        << nosy.error->message;
    EXPECT_FALSE(std::filesystem::exists("/tmp/cp-reference-was-here"));

    // Still usable after all that.
    ASSERT_TRUE(
        host.call(c.module, "prefix_sums", {buffer_arg("in", *in), buffer_arg("out", *out), value_arg("n", n)}).ok);
}

}  // namespace
}  // namespace cp::test
