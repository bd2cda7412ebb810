// Failures the CUDA backend must survive: sticky errors (illegal address, device assert) replace the
// worker process, the watchdog stops kernels that never end, a crashed worker is replaced, and the
// in-process backend explains that it cannot recover.
#include "gpu/gpu_test_support.h"
#include "support/scoped_env.h"

namespace cp::gpu_test {
namespace {

TEST_F(CudaBackendTest, IllegalAddressIsReportedAndRecovered) {
    const char* oob = R"(extern "C" __global__ void oob(float* out)
{
    // Far beyond any allocation: 2^36 floats past the buffer.
    out[(1ull << 36) + threadIdx.x] = 1.0f;
}
)";
    const ModuleId m = compile(oob, "oob");
    const BufferId buf = allocate("out", 1024);
    LaunchRequest l;
    l.module = m;
    l.kernel_name = "oob";
    l.grid = {40, 30, 1};
    l.block = {16, 16, 1};
    l.args = {buffer("out", buf)};
    const LaunchResult r = engine_->launch(l);
    ASSERT_FALSE(r.ok);
    ASSERT_TRUE(r.error.has_value());
    EXPECT_EQ(r.error->name, "CUDA_ERROR_ILLEGAL_ADDRESS");
    EXPECT_TRUE(r.error->context_was_reset);
    EXPECT_NE(r.error->message.find("kernel `oob` (grid 40x30x1, block 16x16x1) accessed memory outside any allocation"
                                    " (CUDA_ERROR_ILLEGAL_ADDRESS). All buffers were lost; the GPU context was reset."),
              std::string::npos)
        << r.error->message;
    EXPECT_FALSE(r.error->hint.empty());
    std::printf("reported: %s\n  hint: %s\n", r.error->message.c_str(), r.error->hint.c_str());

    // The old buffer and module are gone, and say so instead of crashing.
    EXPECT_TRUE(engine_->read_back({buf}).error.has_value());
    EXPECT_FALSE(engine_->launch(l).ok);

    // The same process keeps working: a fresh compile + launch gives right results.
    const int n = 1000;
    const ModuleId add = compile(kVectorAdd, "vector_add");
    const BufferId da = allocate("a", n * 4), db = allocate("b", n * 4), dc = allocate("c", n * 4);
    std::vector<float> a(n), b(n);
    for (int i = 0; i < n; ++i) {
        a[size_t(i)] = float(i);
        b[size_t(i)] = 0.5f * float(i);
    }
    engine_->upload({da, bytes_of(a)});
    engine_->upload({db, bytes_of(b)});
    LaunchRequest ok;
    ok.module = add;
    ok.kernel_name = "vector_add";
    ok.block = {128, 1, 1};
    ok.grid = {(n + 127) / 128, 1, 1};
    ok.args = {buffer("a", da), buffer("b", db), buffer("c", dc), scalar("n", n)};
    const LaunchResult again = engine_->launch(ok);
    ASSERT_TRUE(again.ok) << again.error->message;
    const auto c = values_of<float>(engine_->read_back({dc}).data);
    ASSERT_EQ(c.size(), size_t(n));
    for (int i = 0; i < n; ++i) ASSERT_EQ(c[size_t(i)], a[size_t(i)] + b[size_t(i)]) << i;
}

TEST_F(CudaBackendTest, DeviceAssertIsReportedWithItsMessage) {
    const char* src = R"(#include <cassert>
extern "C" __global__ void check(const int* x)
{
    assert(x[threadIdx.x] == 0);
}
)";
    const ModuleId m = compile(src, "check");
    const BufferId buf = allocate("x", 64 * 4);
    std::vector<int> x(64, 0);
    x[5] = 1;
    engine_->upload({buf, bytes_of(x)});
    LaunchRequest l;
    l.module = m;
    l.kernel_name = "check";
    l.grid = {1, 1, 1};
    l.block = {64, 1, 1};
    l.args = {buffer("x", buf)};
    const LaunchResult r = engine_->launch(l);
    ASSERT_FALSE(r.ok);
    EXPECT_EQ(r.error->name, "CUDA_ERROR_ASSERT");
    EXPECT_TRUE(r.error->context_was_reset);
    EXPECT_NE(r.printf_output.find("Assertion"), std::string::npos) << "printf output:\n" << r.printf_output;
    std::printf("assert output captured: %s\n", r.printf_output.c_str());
    // Recovered: a launch in the new context works.
    const ModuleId again = compile(src, "check");
    const BufferId zeros = allocate("x", 64 * 4);
    l.module = again;
    l.args = {buffer("x", zeros)};
    const LaunchResult ok = engine_->launch(l);
    EXPECT_TRUE(ok.ok) << ok.error->message;
}

TEST_F(CudaBackendTest, WatchdogStopsAKernelThatNeverEnds) {
    const char* spin = R"(extern "C" __global__ void spin(volatile int* flag)
{
    while (flag[0] == 0) {
    }
}
)";
    const ModuleId m = compile(spin, "spin");
    const BufferId flag = allocate("flag", 4);
    LaunchRequest l;
    l.module = m;
    l.kernel_name = "spin";
    l.grid = {1, 1, 1};
    l.block = {32, 1, 1};
    l.args = {buffer("flag", flag)};
    l.timing = {0, 1, false};
    const auto start = std::chrono::steady_clock::now();
    const LaunchResult r = [&] {
        const cp::test::ScopedEnv timeout("CUDA_PLAYGROUND_LAUNCH_TIMEOUT_S", "3");  // for this launch only
        return engine_->launch(l);
    }();
    const double waited_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    ASSERT_FALSE(r.ok);
    EXPECT_EQ(r.error->name, "timeout");
    EXPECT_TRUE(r.error->context_was_reset);
    EXPECT_NE(r.error->message.find("did not finish within 3 s"), std::string::npos) << r.error->message;
    EXPECT_EQ(r.error->kind, ErrorKind::Hang);
    // CUDA cannot say where the threads were: no thread, block or line is claimed (the hint says so).
    EXPECT_FALSE(r.error->thread.has_value());
    EXPECT_EQ(r.error->line, 0);
    EXPECT_LT(waited_s, 15.0);
    std::printf("watchdog: stopped after %.1f s: %s\n", waited_s, r.error->message.c_str());

    const ModuleId add = compile(kVectorAdd, "vector_add");
    const BufferId a = allocate("a", 400);
    LaunchRequest ok;
    ok.module = add;
    ok.kernel_name = "vector_add";
    ok.block = {64, 1, 1};
    ok.grid = {2, 1, 1};
    ok.args = {buffer("a", a), buffer("b", a), buffer("c", a), scalar("n", 100)};
    const LaunchResult again = engine_->launch(ok);
    EXPECT_TRUE(again.ok) << again.error->message;
}

TEST(CudaWorker, ACrashedWorkerIsReplaced) {
    auto created = CudaWorkerBackend::create();
    if (!created.ok()) GTEST_SKIP() << "no CUDA device: " << created.error().message;
    auto& backend = dynamic_cast<CudaWorkerBackend&>(**created);
    const pid_t first = backend.worker_pid();
    ASSERT_GT(first, 0);
    CompileRequest c;
    c.source = kVectorAdd;
    c.kernel_name = "vector_add";
    ASSERT_TRUE(backend.compile(c).ok);
    kill(first, SIGKILL);
    const CompileResult lost = backend.compile(c);
    ASSERT_FALSE(lost.ok);
    ASSERT_TRUE(lost.error.has_value());
    EXPECT_TRUE(lost.error->context_was_reset);
    EXPECT_NE(lost.error->message.find("stopped unexpectedly"), std::string::npos) << lost.error->message;
    const CompileResult again = backend.compile(c);
    EXPECT_TRUE(again.ok);
    EXPECT_NE(backend.worker_pid(), first);
}

// The in-process backend hands out device pointers usable here (CUDA-GL interop). Like the next test it
// runs in a forked child, so that this test binary never initialises CUDA itself (forking after that
// would be unsafe); death tests run before every other test.
TEST(CudaInProcessDeathTest, DeviceAddressesAndOneLaunch) {
    if (auto why = cuda_unavailable()) GTEST_SKIP() << "no CUDA device: " << *why;
    auto body = [] {
        auto fail = [](const char* why) {
            std::fprintf(stderr, "%s", why);
            std::exit(1);
        };
        auto backend = make_cuda_backend_in_process();
        if (!backend.ok()) fail("the in-process backend could not start");
        Engine engine(std::move(*backend));
        CompileRequest c;
        c.source = kVectorAdd;
        c.kernel_name = "vector_add";
        const CompileResult compiled = engine.compile(c);
        if (!compiled.ok) fail("compile failed");
        const int n = 777;
        std::vector<float> a(n, 1.5f), b(n, 2.25f);
        const AllocateResult da = engine.allocate({"a", n * 4}), db = engine.allocate({"b", n * 4}),
                             dc = engine.allocate({"c", n * 4});
        if (da.device_address == 0 || dc.device_address == da.device_address) fail("no distinct device addresses");
        engine.upload({da.buffer, bytes_of(a)});
        engine.upload({db.buffer, bytes_of(b)});
        LaunchRequest l;
        l.module = compiled.module;
        l.kernel_name = "vector_add";
        l.block = {256, 1, 1};
        l.grid = {(n + 255) / 256, 1, 1};
        l.args = {buffer("a", da.buffer), buffer("b", db.buffer), buffer("c", dc.buffer), scalar("n", n)};
        if (!engine.launch(l).ok) fail("launch failed");
        const auto out = values_of<float>(engine.read_back({dc.buffer}).data);
        if (out.size() != size_t(n)) fail("wrong read-back size");
        for (float v : out)
            if (v != 3.75f) fail("wrong sum");
        std::exit(0);
    };
    EXPECT_EXIT(body(), ::testing::ExitedWithCode(0), "");
}

// In the app's own process CUDA cannot recover from a sticky error: the backend says so, and refuses
// everything afterwards with the same explanation. Runs in a forked child (see above).
TEST(CudaInProcessDeathTest, StickyErrorAsksForARestart) {
    if (auto why = cuda_unavailable()) GTEST_SKIP() << "no CUDA device: " << *why;
    auto body = [] {
        auto created = make_cuda_backend_in_process();
        if (!created.ok()) std::exit(1);
        Backend& backend = **created;
        CompileRequest c;
        c.source = "extern \"C\" __global__ void oob(float* p) { p[(1ull << 36) + threadIdx.x] = 1.0f; }\n";
        c.kernel_name = "oob";
        const CompileResult compiled = backend.compile(c);
        const AllocateResult buf = backend.allocate({"p", 64});
        LaunchRequest l;
        l.module = compiled.module;
        l.kernel_name = "oob";
        l.block = {32, 1, 1};
        l.args = {buffer("p", buf.buffer)};
        const LaunchResult r = backend.launch(l);
        const bool says_restart = r.error && r.error->name == "CUDA_ERROR_ILLEGAL_ADDRESS" &&
                                  !r.error->context_was_reset &&
                                  r.error->hint.find("restart CUDA Playground") != std::string::npos;
        const AllocateResult after = backend.allocate({"q", 64});
        const bool refuses_after = after.error && after.error->message.find("lost") != std::string::npos;
        std::fprintf(stderr, "%s|%s", says_restart ? "says-restart" : "NO-RESTART-HINT",
                     refuses_after ? "refuses-after" : "DOES-NOT-REFUSE");
        std::exit(says_restart && refuses_after ? 0 : 1);
    };
    EXPECT_EXIT(body(), ::testing::ExitedWithCode(0), "");
}

}  // namespace
}  // namespace cp::gpu_test
