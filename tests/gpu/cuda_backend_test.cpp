// The CUDA backend on a real GPU, driven through the Engine (so requests run on its worker thread):
// results checked against CPU loops, printf capture, recovery from sticky errors (the worker process is
// replaced), the launch watchdog, refusals, timing. Skips with the reason when there is no CUDA device.
#include "core/backend.h"
#include "core/cuda/cuda_backend_factory.h"
#include "core/cuda/cuda_worker.h"
#include "core/engine.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <random>

#include <signal.h>

namespace cp {
namespace {

const char* kVectorAdd = R"(extern "C" __global__ void vector_add(const float* a, const float* b, float* c, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        c[i] = a[i] + b[i];
    }
}
)";

template <class T>
KernelArg scalar(const std::string& name, T value) {
    KernelArg a;
    a.name = name;
    a.scalar.resize(sizeof(T));
    std::memcpy(a.scalar.data(), &value, sizeof(T));
    return a;
}

KernelArg buffer(const std::string& name, BufferId id) {
    KernelArg a;
    a.name = name;
    a.buffer = id;
    return a;
}

template <class T>
std::vector<std::byte> bytes_of(const std::vector<T>& v) {
    std::vector<std::byte> out(v.size() * sizeof(T));
    std::memcpy(out.data(), v.data(), out.size());
    return out;
}

template <class T>
std::vector<T> values_of(const std::vector<std::byte>& bytes) {
    std::vector<T> out(bytes.size() / sizeof(T));
    std::memcpy(out.data(), bytes.data(), out.size() * sizeof(T));
    return out;
}

// Why CUDA cannot be used here, asked of a worker process so that this process never initialises CUDA.
std::optional<std::string> cuda_unavailable() {
    auto backend = make_cuda_backend();
    if (backend.ok()) return std::nullopt;
    return backend.error().message;
}

class CudaBackendTest : public ::testing::Test {
protected:
    void SetUp() override {
        auto backend = make_cuda_backend();
        if (!backend.ok()) GTEST_SKIP() << "no CUDA device: " << backend.error().message;
        engine_ = std::make_unique<Engine>(std::move(*backend));
    }

    ModuleId compile(const std::string& source, const std::string& kernel) {
        CompileRequest r;
        r.source = source;
        r.path = "gpu_test.cu";
        r.kernel_name = kernel;
        const CompileResult c = engine_->compile(r);
        EXPECT_TRUE(c.ok) << c.log << (c.error ? c.error->message : "");
        EXPECT_NE(c.module, 0u);
        return c.module;
    }

    BufferId allocate(const std::string& name, uint64_t bytes) {
        const AllocateResult a = engine_->allocate({name, bytes});
        EXPECT_FALSE(a.error) << a.error->message;
        EXPECT_EQ(a.device_address, 0u) << "an address in the worker process is no use to the app";
        return a.buffer;
    }

    std::unique_ptr<Engine> engine_;
};

TEST_F(CudaBackendTest, InfoDescribesTheDevice) {
    const DeviceInfo d = engine_->info().device;
    EXPECT_EQ(d.backend, BackendKind::Cuda);
    EXPECT_FALSE(d.name.empty());
    EXPECT_GE(d.cc_major, 5);
    EXPECT_EQ(d.arch, "sm_" + std::to_string(d.cc_major * 10 + d.cc_minor));
    EXPECT_GT(d.sm_count, 0);
    EXPECT_GT(d.total_memory, 1ull << 30);
    EXPECT_GE(d.max_threads_per_block, 512);
    EXPECT_GE(d.max_block.x, 512u);
    EXPECT_GE(d.max_grid.x, 65535u);
    EXPECT_GE(d.max_shared_per_block, 16 * 1024);
    EXPECT_GE(d.max_shared_per_block_optin, d.max_shared_per_block);
    EXPECT_GE(d.max_shared_per_sm, d.max_shared_per_block);
    EXPECT_GT(d.regs_per_block, 0);
    EXPECT_GT(d.regs_per_sm, 0);
    EXPECT_GT(d.max_threads_per_sm, 0);
    EXPECT_GT(d.max_blocks_per_sm, 0);
    EXPECT_EQ(d.warp_size, 32);
    EXPECT_GT(d.l2_bytes, 0);
    EXPECT_GT(d.copy_bandwidth_gbps, 10.0);
    EXPECT_EQ(d.driver_version.rfind("CUDA ", 0), 0u) << d.driver_version;
    std::printf("device: %s (%s, %d SMs, %.1f GiB, L2 %d MiB), driver %s, copy bandwidth %.0f GB/s\n  %s\n",
                d.name.c_str(), d.arch.c_str(), d.sm_count, double(d.total_memory) / (1 << 30), d.l2_bytes >> 20,
                d.driver_version.c_str(), d.copy_bandwidth_gbps, d.notes.c_str());
}

TEST_F(CudaBackendTest, VectorAddMatchesCpuLoop) {
    const int n = 1000003;  // not a multiple of the block size
    std::mt19937 rng(7);
    std::uniform_real_distribution<float> dist(-1000.f, 1000.f);
    std::vector<float> a(n), b(n), expected(n);
    for (int i = 0; i < n; ++i) {
        a[size_t(i)] = dist(rng);
        b[size_t(i)] = dist(rng);
        expected[size_t(i)] = a[size_t(i)] + b[size_t(i)];
    }
    const ModuleId m = compile(kVectorAdd, "vector_add");
    const BufferId da = allocate("a", n * 4ull), db = allocate("b", n * 4ull), dc = allocate("c", n * 4ull);
    ASSERT_FALSE(engine_->upload({da, bytes_of(a)}).error);
    ASSERT_FALSE(engine_->upload({db, bytes_of(b)}).error);

    LaunchRequest l;
    l.module = m;
    l.kernel_name = "vector_add";
    l.block = {256, 1, 1};
    l.grid = {uint32_t((n + 255) / 256), 1, 1};
    l.args = {buffer("a", da), buffer("b", db), buffer("c", dc), scalar("n", n)};
    l.timing = {3, 20, false};
    const LaunchResult r = engine_->launch(l);
    ASSERT_TRUE(r.ok) << r.error->message;
    EXPECT_TRUE(r.printf_output.empty());

    const auto c = values_of<float>(engine_->read_back({dc}).data);
    ASSERT_EQ(c.size(), size_t(n));
    int mismatches = 0;
    for (int i = 0; i < n; ++i) mismatches += c[size_t(i)] != expected[size_t(i)];
    EXPECT_EQ(mismatches, 0);

    const TimingStats& t = r.timing;
    ASSERT_EQ(t.samples_ms.size(), 20u);
    EXPECT_FALSE(t.cpu_time);
    EXPECT_GT(t.min_ms, 0);
    EXPECT_LE(t.min_ms, t.median_ms);
    EXPECT_LE(t.median_ms, t.max_ms);
    EXPECT_LT(t.max_ms, 1000);
    const double gbps = 12.0 * n / (t.median_ms * 1e-3) / 1e9;
    std::printf("vector_add n=%d: min %.4f ms, median %.4f ms, max %.4f ms (%.0f GB/s at the median)\n", n, t.min_ms,
                t.median_ms, t.max_ms, gbps);

    l.timing = {1, 5, true};  // with L2 flushes between repeats
    const LaunchResult flushed = engine_->launch(l);
    ASSERT_TRUE(flushed.ok) << flushed.error->message;
    EXPECT_EQ(flushed.timing.samples_ms.size(), 5u);
    std::printf("vector_add with L2 flush: median %.4f ms\n", flushed.timing.median_ms);
}

TEST_F(CudaBackendTest, PrintfIsCapturedOncePerLaunchRequest) {
    const char* src = R"(#include <cstdio>
extern "C" __global__ void hello(int tag)
{
    printf("tag %d block %d thread %d\n", tag, blockIdx.x, threadIdx.x);
}
)";
    const ModuleId m = compile(src, "hello");
    LaunchRequest l;
    l.module = m;
    l.kernel_name = "hello";
    l.grid = {2, 1, 1};
    l.block = {3, 1, 1};
    l.args = {scalar("tag", 42)};
    l.timing = {1, 3, false};
    const LaunchResult r = engine_->launch(l);
    ASSERT_TRUE(r.ok) << r.error->message;
    for (int b = 0; b < 2; ++b)
        for (int t = 0; t < 3; ++t) {
            const std::string line = "tag 42 block " + std::to_string(b) + " thread " + std::to_string(t) + "\n";
            const size_t at = r.printf_output.find(line);
            EXPECT_NE(at, std::string::npos) << line << "in:\n" << r.printf_output;
            EXPECT_EQ(r.printf_output.find(line, at + 1), std::string::npos) << "printed once, not per repeat";
        }
    EXPECT_NE(r.printf_output.find("further launches"), std::string::npos) << r.printf_output;
}

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

TEST_F(CudaBackendTest, CppKernelAndDynamicSharedMemoryAboveDefaultLimit) {
    const char* src = R"(
__global__ void reverse(float* x, int n)
{
    extern __shared__ float tile[];
    for (int i = threadIdx.x; i < n; i += blockDim.x) tile[i] = x[i];
    __syncthreads();
    for (int i = threadIdx.x; i < n; i += blockDim.x) x[i] = tile[n - 1 - i];
}
)";
    const DeviceInfo d = engine_->info().device;
    const int n = (d.max_shared_per_block_optin / 4) - 7;  // needs the opt-in above 48 KiB on recent GPUs
    const ModuleId m = compile(src, "reverse");
    const BufferId buf = allocate("x", uint64_t(n) * 4);
    std::vector<float> x(static_cast<size_t>(n));
    for (int i = 0; i < n; ++i) x[size_t(i)] = float(i) * 0.25f;
    engine_->upload({buf, bytes_of(x)});
    LaunchRequest l;
    l.module = m;
    l.kernel_name = "reverse";
    l.grid = {1, 1, 1};
    l.block = {333, 1, 1};
    l.dynamic_shared_bytes = uint32_t(n) * 4;
    l.args = {buffer("x", buf), scalar("n", n)};
    const LaunchResult r = engine_->launch(l);
    ASSERT_TRUE(r.ok) << r.error->message;
    const auto y = values_of<float>(engine_->read_back({buf}).data);
    for (int i = 0; i < n; ++i) ASSERT_EQ(y[size_t(i)], x[size_t(n - 1 - i)]) << i;
}

TEST_F(CudaBackendTest, BadConfigurationsAreRefusedWithoutResettingTheContext) {
    const ModuleId m = compile(kVectorAdd, "vector_add");
    const BufferId a = allocate("a", 4096);
    LaunchRequest l;
    l.module = m;
    l.kernel_name = "vector_add";
    l.grid = {4, 1, 1};
    l.block = {2048, 1, 1};
    l.args = {buffer("a", a), buffer("b", a), buffer("c", a), scalar("n", 1024)};
    LaunchResult r = engine_->launch(l);
    ASSERT_FALSE(r.ok);
    EXPECT_FALSE(r.error->context_was_reset);
    EXPECT_NE(r.error->message.find("block"), std::string::npos) << r.error->message;

    l.block = {256, 1, 1};
    l.args.pop_back();  // missing `n`
    r = engine_->launch(l);
    ASSERT_FALSE(r.ok);
    EXPECT_FALSE(r.error->context_was_reset);
    std::printf("refused: %s\n", r.error->message.c_str());

    l.args.push_back(scalar("n", 1024.0));  // 8 bytes for an int parameter
    r = engine_->launch(l);
    ASSERT_FALSE(r.ok);

    l.args.back() = scalar("n", 1024);
    l.dynamic_shared_bytes = 1u << 30;
    r = engine_->launch(l);
    ASSERT_FALSE(r.ok);
    EXPECT_NE(r.error->message.find("shared memory"), std::string::npos) << r.error->message;

    l.dynamic_shared_bytes = 0;
    r = engine_->launch(l);
    EXPECT_TRUE(r.ok) << "the buffer survived every refusal: " << r.error->message;
    EXPECT_FALSE(engine_->read_back({a}).error);
}

TEST_F(CudaBackendTest, CompileCacheHitsAndCompileOnly) {
    const auto dir = std::filesystem::temp_directory_path() / ("cp-gpu-cache-" + std::to_string(std::random_device{}()));
    // The worker process reads the cache location when it starts: start one that sees a fresh directory.
    setenv("CUDA_PLAYGROUND_CACHE_DIR", dir.c_str(), 1);
    auto backend = make_cuda_backend();
    unsetenv("CUDA_PLAYGROUND_CACHE_DIR");
    ASSERT_TRUE(backend.ok()) << backend.error().message;
    engine_ = std::make_unique<Engine>(std::move(*backend));
    CompileRequest r;
    r.source = kVectorAdd;
    r.path = "cached.cu";
    r.kernel_name = "vector_add";
    const CompileResult cold = engine_->compile(r);
    const CompileResult warm = engine_->compile(r);
    r.load = false;
    const CompileResult only = engine_->compile(r);
    std::filesystem::remove_all(dir);
    ASSERT_TRUE(cold.ok && warm.ok && only.ok);
    EXPECT_FALSE(cold.cache_hit);
    EXPECT_TRUE(warm.cache_hit);
    EXPECT_NE(cold.module, warm.module);
    EXPECT_EQ(only.module, 0u);
    EXPECT_GT(warm.usage.registers, 0);
    EXPECT_GT(warm.usage.max_threads_per_block, 0);
    std::printf("compile + load: cold %.2f ms, cached %.2f ms (registers %d, max threads/block %d)\n", cold.compile_ms,
                warm.compile_ms, warm.usage.registers, warm.usage.max_threads_per_block);
}

TEST_F(CudaBackendTest, RepeatedLaunchesSeeTheSameInputs) {
    // An in-place update run 2 + 5 times still leaves the buffer as after one launch.
    const char* src = R"(extern "C" __global__ void add_one(float* x, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] += 1.0f;
}
)";
    const int n = 1001;
    std::vector<float> x(n);
    for (int i = 0; i < n; ++i) x[size_t(i)] = float(i % 97) - 40.0f;
    const ModuleId m = compile(src, "add_one");
    const BufferId buf = allocate("x", n * 4);
    engine_->upload({buf, bytes_of(x)});
    LaunchRequest l;
    l.module = m;
    l.kernel_name = "add_one";
    l.block = {128, 1, 1};
    l.grid = {(n + 127) / 128, 1, 1};
    l.args = {buffer("x", buf), scalar("n", n)};
    l.timing = {2, 5, false};
    const LaunchResult r = engine_->launch(l);
    ASSERT_TRUE(r.ok) << r.error->message;
    EXPECT_EQ(r.timing.samples_ms.size(), 5u);
    const auto y = values_of<float>(engine_->read_back({buf}).data);
    for (int i = 0; i < n; ++i) ASSERT_EQ(y[size_t(i)], x[size_t(i)] + 1.0f) << i;
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
    setenv("CUDA_PLAYGROUND_LAUNCH_TIMEOUT_S", "3", 1);
    const auto start = std::chrono::steady_clock::now();
    const LaunchResult r = engine_->launch(l);
    const double waited_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    unsetenv("CUDA_PLAYGROUND_LAUNCH_TIMEOUT_S");
    ASSERT_FALSE(r.ok);
    EXPECT_EQ(r.error->name, "timeout");
    EXPECT_TRUE(r.error->context_was_reset);
    EXPECT_NE(r.error->message.find("did not finish within 3 s"), std::string::npos) << r.error->message;
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
}  // namespace cp
