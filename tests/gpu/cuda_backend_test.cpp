// The CUDA backend on a real GPU, driven through the Engine (so requests run on its worker thread):
// results checked against CPU loops, printf capture, refusals, the compile cache, timing and its phases.
#include "core/session/report_text.h"
#include "gpu/gpu_test_support.h"
#include "support/scoped_env.h"

namespace cp::gpu_test {
namespace {

TEST_F(CudaBackendTest, InfoDescribesTheDevice) {
    const DeviceInfo d = engine_->info().device;
    EXPECT_EQ(d.backend, "cuda");
    EXPECT_TRUE(d.caps.gpu);
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

// c = a + b over n elements in blocks of 256, timed as `timing` says.
LaunchRequest vector_add_launch(ModuleId m, BufferId a, BufferId b, BufferId c, int n, TimingOptions timing) {
    LaunchRequest l;
    l.module = m;
    l.kernel_name = "vector_add";
    l.block = {256, 1, 1};
    l.grid = {uint32_t((n + 255) / 256), 1, 1};
    l.args = {buffer("a", a), buffer("b", b), buffer("c", c), scalar("n", n)};
    l.timing = timing;
    return l;
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

    LaunchRequest l = vector_add_launch(m, da, db, dc, n, {3, 20, false});
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

    // The parameter list is asked once per kernel and kept: the same refusals from what was kept.
    l.args.push_back(scalar("extra", 1));
    r = engine_->launch(l);
    ASSERT_FALSE(r.ok);
    EXPECT_NE(r.error->message.find("takes 4 parameters but 5 arguments"), std::string::npos) << r.error->message;
    l.args.resize(3);
    r = engine_->launch(l);
    ASSERT_FALSE(r.ok);
    EXPECT_NE(r.error->message.find("takes more than 3 parameters but 3 arguments"), std::string::npos)
        << r.error->message;
    l.args.push_back(scalar("n", 1024.0));
    r = engine_->launch(l);
    ASSERT_FALSE(r.ok);
    EXPECT_NE(r.error->message.find("is 8 bytes but the kernel's parameter is 4 bytes"), std::string::npos)
        << r.error->message;
    l.args.back() = scalar("n", 1024);
    l.block = {2048, 1, 1};
    r = engine_->launch(l);
    ASSERT_FALSE(r.ok);
    l.block = {256, 1, 1};
    r = engine_->launch(l);
    EXPECT_TRUE(r.ok) << r.error->message;
}

// The frame budget (issue 19): the worker's launch call divided into set-up, launch calls, waiting for the GPU and
// after; together they fit in the worker's own time for the request, and the kernels' event times are counted.
TEST_F(CudaBackendTest, LaunchPhasesFitInTheWorkersTime) {
    const int n = 1000003;
    const ModuleId m = compile(kVectorAdd, "vector_add");
    const BufferId da = allocate("a", n * 4ull), db = allocate("b", n * 4ull), dc = allocate("c", n * 4ull);
    LaunchRequest l = vector_add_launch(m, da, db, dc, n, {2, 3, false});
    const bool in_process = std::getenv("CUDA_PLAYGROUND_CUDA_IN_PROCESS") != nullptr;
    for (int attempt = 0; attempt < 2; ++attempt) {  // the second from the kept function facts
        const LaunchResult r = engine_->launch(l);
        ASSERT_TRUE(r.ok) << r.error->message;
        const LaunchPhases& p = r.phases;
        for (double v : {p.setup_ms, p.launch_calls_ms, p.wait_ms, p.after_ms, p.kernel_ms}) EXPECT_GE(v, 0.0);
        EXPECT_GT(p.setup_ms, 0.0);
        EXPECT_GT(p.launch_calls_ms, 0.0);
        EXPECT_GT(p.wait_ms, 0.0);
        double timed = 0;
        for (double s : r.timing.samples_ms) timed += s;
        ASSERT_EQ(r.timing.samples_ms.size(), 3u);
        EXPECT_GE(p.kernel_ms, timed * (1 - 1e-9)) << "the warmups' events count too";
        if (!in_process) {
            ASSERT_GT(r.backend_ms, 0.0);
            EXPECT_LE(p.total_ms(), r.backend_ms + 1e-6) << "the phases are parts of the worker's time";
        }
        std::printf("vector_add, 2 warmups + 3 repeats: %s\n", launch_phases_text(r.backend_ms, p).c_str());
    }
    // A refused launch never reached the GPU: all set-up.
    l.block = {2048, 1, 1};
    const LaunchResult refused = engine_->launch(l);
    ASSERT_FALSE(refused.ok);
    EXPECT_GT(refused.phases.setup_ms, 0.0);
    EXPECT_EQ(refused.phases.launch_calls_ms, 0.0);
    EXPECT_EQ(refused.phases.wait_ms, 0.0);
    EXPECT_EQ(refused.phases.kernel_ms, 0.0);
}

TEST_F(CudaBackendTest, CompileCacheHitsAndCompileOnly) {
    const auto dir = std::filesystem::temp_directory_path() / ("cp-gpu-cache-" + std::to_string(std::random_device{}()));
    // The worker process reads the cache location when it starts: start one that sees a fresh directory.
    auto backend = [&] {
        const cp::test::ScopedEnv cache("CUDA_PLAYGROUND_CACHE_DIR", dir.string());
        return make_cuda_backend();
    }();
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

// In the worker (which has the driver loaded) NVRTC goes through the driver's JIT, whose cache folder its
// confined thread may write: refused, the same compile took 40-65 ms instead of 7-9 ms on an H200.
TEST_F(CudaBackendTest, NvrtcInTheWorkerUsesTheDriversJitCache) {
    const auto root = std::filesystem::temp_directory_path() / ("cp-gpu-jit-" + std::to_string(std::random_device{}()));
    const auto jit = root / "jit";
    auto backend = [&] {
        const cp::test::ScopedEnv cache("CUDA_PLAYGROUND_CACHE_DIR", (root / "cubins").string());
        const cp::test::ScopedEnv driver_cache("CUDA_CACHE_PATH", jit.string());
        const cp::test::ScopedEnv on("CUDA_CACHE_DISABLE", std::nullopt);
        return make_cuda_backend();
    }();
    ASSERT_TRUE(backend.ok()) << backend.error().message;
    engine_ = std::make_unique<Engine>(std::move(*backend));
    CompileRequest r;
    r.source = std::string(kVectorAdd) + "// " + root.string() + "\n";  // new text: NVRTC really compiles
    r.path = "jit.cu";
    r.kernel_name = "vector_add";
    const CompileResult c = engine_->compile(r);
    size_t files = 0;
    std::error_code ec;
    for (auto it = std::filesystem::recursive_directory_iterator(jit, ec); !ec && it != std::filesystem::end(it);
         it.increment(ec))
        files += it->is_regular_file();
    std::filesystem::remove_all(root);
    ASSERT_TRUE(c.ok) << c.log;
    EXPECT_FALSE(c.cache_hit);
    EXPECT_GT(files, 0u) << "NVRTC's confined thread wrote nothing to the driver's JIT cache " << jit;
    std::printf("compile in the worker with the driver's JIT cache: %.2f ms, %zu cache files\n", c.compile_ms, files);
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

}  // namespace
}  // namespace cp::gpu_test
