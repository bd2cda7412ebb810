// CPU backend benchmark (prints figures; asserts nothing): a barrier-free kernel against the same work as a
// plain C++ loop, the cost of one thread passing one barrier, a 512x512 box blur end to end, compile
// latency cold and cached (with NVRTC's check), and what the sandboxed worker process costs.
// Run: build/tests/cpu_backend_bench [--quick] [--section 1-5]
#include "core/cpu/cpu_backend.h"
#include "core/toolkit/nvrtc_compiler.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <unistd.h>
#include <vector>
#include "test_paths.h"

namespace {

using namespace cp;
using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point t) { return std::chrono::duration<double, std::milli>(Clock::now() - t).count(); }

template <class F>
double median_ms(int repeats, F&& f) {
    std::vector<double> t;
    for (int i = 0; i < repeats; ++i) {
        const auto start = Clock::now();
        f();
        t.push_back(ms_since(start));
    }
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
}

[[noreturn]] void die(const std::string& what) {
    std::fprintf(stderr, "cpu_backend_bench: %s\n", what.c_str());
    std::exit(1);
}

struct Bench {
    std::unique_ptr<Backend> backend;

    Bench(int workers, const std::string& cache_dir, bool in_process = false) {
        CpuBackendOptions o;
        o.workers = workers;
        o.cache_dir = cache_dir;
        o.in_process = in_process;
        auto b = make_cpu_backend_with(o);
        if (!b) die(b.error().full());
        backend = std::move(*b);
    }
    CompileResult compile(const std::string& src, const std::string& kernel) {
        CompileRequest r;
        r.source = src;
        r.kernel_name = kernel;
        r.path = kernel + ".cu";
        CompileResult c = backend->compile(r);
        if (!c.ok) die("compile of " + kernel + " failed:\n" + c.log);
        return c;
    }
    BufferId buffer(const std::string& name, const void* data, size_t bytes) {
        AllocateRequest a{name, bytes};
        const AllocateResult r = backend->allocate(a);
        if (r.error) die(r.error->message);
        UploadRequest u;
        u.buffer = r.buffer;
        u.data.resize(bytes);
        std::memcpy(u.data.data(), data, bytes);
        if (backend->upload(u).error) die("upload failed");
        return r.buffer;
    }
    LaunchResult launch(ModuleId m, const std::string& kernel, Dim3 grid, Dim3 block, std::vector<KernelArg> args,
                        int repeats) {
        LaunchRequest r;
        r.module = m;
        r.kernel_name = kernel;
        r.grid = grid;
        r.block = block;
        r.args = std::move(args);
        r.timing.warmup = 1;
        r.timing.repeats = repeats;
        LaunchResult out = backend->launch(r);
        if (!out.ok) die("launch of " + kernel + " failed: " + (out.error ? out.error->message : ""));
        return out;
    }
    LaunchResult launch_result(ModuleId m, const std::string& kernel, Dim3 grid, Dim3 block, std::vector<KernelArg> args) {
        LaunchRequest r;
        r.module = m;
        r.kernel_name = kernel;
        r.grid = grid;
        r.block = block;
        r.args = std::move(args);
        r.timing.warmup = 0;
        return backend->launch(r);
    }
};

KernelArg buf(BufferId id) {
    KernelArg a;
    a.buffer = id;
    return a;
}
template <class T>
KernelArg val(T v) {
    KernelArg a;
    a.scalar.resize(sizeof(T));
    std::memcpy(a.scalar.data(), &v, sizeof(T));
    return a;
}

const char* kSaxpy = R"(
extern "C" __global__ void saxpy(float a, const float* x, float* y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}
)";

// The same work as a plain loop, kept from being vectorised so that it is the per-element work the
// kernel does (a kernel's threads cannot be vectorised together).
#if defined(__GNUC__) && !defined(__clang__)
#define CP_NO_VECTORIZE __attribute__((noinline, optimize("no-tree-vectorize")))
#else
#define CP_NO_VECTORIZE __attribute__((noinline))
#endif
CP_NO_VECTORIZE void saxpy_loop(float a, const float* x, float* y, int n) {
    for (int i = 0; i < n; ++i) y[i] = a * x[i] + y[i];
}
__attribute__((noinline)) void saxpy_loop_vectorised(float a, const float* x, float* y, int n) {
    for (int i = 0; i < n; ++i) y[i] = a * x[i] + y[i];
}

// Barriers alone, and barriers between writes and reads of shared memory (a reduction's inner step).
const char* kBarriers = R"(
extern "C" __global__ void barriers(int* out, int rounds)
{
    int v = threadIdx.x;
    for (int r = 0; r < rounds; ++r) {
        __syncthreads();
        v += r;
    }
    out[blockIdx.x * blockDim.x + threadIdx.x] = v;
}
)";
const char* kShuffles = R"(
extern "C" __global__ void shuffles(int* out, int rounds)
{
    int v = threadIdx.x;
    for (int r = 0; r < rounds; ++r) v += __shfl_down_sync(0xffffffff, v, 1 + (r & 15));
    out[blockIdx.x * blockDim.x + threadIdx.x] = v;
}
)";
const char* kSharedBarriers = R"(
extern "C" __global__ void shared_barriers(int* out, int rounds)
{
    __shared__ int s[1024];
    int v = threadIdx.x;
    for (int r = 0; r < rounds; ++r) {
        s[threadIdx.x] = v;
        __syncthreads();
        v += s[threadIdx.x ^ 1];
    }
    out[blockIdx.x * blockDim.x + threadIdx.x] = v;
}
)";

void bench_barrier_free(int repeats, int n) {
    std::printf("\n1. Barrier-free kernel (saxpy, n = %d, block 256) vs the same work as a plain loop\n", n);
    std::vector<float> x(static_cast<size_t>(n)), y(static_cast<size_t>(n));
    for (int i = 0; i < n; ++i) x[size_t(i)] = float(i % 1000) * 0.001f, y[size_t(i)] = 1.0f;
    const double loop = median_ms(repeats, [&] { saxpy_loop(1.0001f, x.data(), y.data(), n); });
    const double loop_vec = median_ms(repeats, [&] { saxpy_loop_vectorised(1.0001f, x.data(), y.data(), n); });
    std::printf("   plain loop, 1 thread, scalar:        %8.3f ms\n", loop);
    std::printf("   plain loop, 1 thread, vectorised:    %8.3f ms\n", loop_vec);
    for (int workers : {1, 0}) {
        Bench b(workers, "-");
        const ModuleId m = b.compile(kSaxpy, "saxpy").module;
        const BufferId bx = b.buffer("x", x.data(), x.size() * 4), by = b.buffer("y", y.data(), y.size() * 4);
        const LaunchResult r = b.launch(m, "saxpy", {unsigned((n + 255) / 256)}, {256},
                                        {val(1.0001f), buf(bx), buf(by), val(n)}, repeats);
        const int threads = workers ? workers : int(b.backend->info().device.sm_count);
        std::printf("   kernel on CPU backend, %2d worker%s:  %8.3f ms  (%.2fx the scalar loop, %.2fx the vectorised loop; "
                    "%.2f ns per CUDA thread per worker)\n",
                    threads, threads == 1 ? ", " : "s,", r.timing.median_ms, r.timing.median_ms / loop,
                    r.timing.median_ms / loop_vec, r.timing.median_ms * 1e6 * threads / n);
    }
}

void bench_barriers(int repeats) {
    std::printf("\n2. Cost of one thread passing one __syncthreads (1 worker, 64 blocks; last: one __shfl_down_sync)\n");
    Bench b(1, "-");
    for (const char* kernel : {"barriers", "shared_barriers", "shuffles"}) {
        const std::string k = kernel;
        const ModuleId m = b.compile(k == "barriers" ? kBarriers : k == "shuffles" ? kShuffles : kSharedBarriers, kernel).module;
        for (unsigned block : {64u, 256u, 1024u}) {
            const unsigned blocks = 64;
            std::vector<int> zeros(size_t(block * blocks), 0);
            const BufferId out = b.buffer("out", zeros.data(), zeros.size() * 4);
            const int few = 1, many = 201;
            const double t_few = b.launch(m, kernel, {blocks}, {block}, {buf(out), val(few)}, repeats).timing.median_ms;
            const double t_many = b.launch(m, kernel, {blocks}, {block}, {buf(out), val(many)}, repeats).timing.median_ms;
            const double ns = (t_many - t_few) * 1e6 / (double(block) * blocks * (many - few));
            std::printf("   %-15s block %4u: %6.1f ns per thread per operation (%d vs %d barriers: %.2f vs %.2f ms)\n", kernel,
                        block, ns, many, few, t_many, t_few);
        }
    }
}

std::string read_text(const std::filesystem::path& p) {
    std::ifstream in(p);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

void bench_blur(int repeats) {
    std::printf("\n3. Box blur 3x3 on 512x512 (kernels/image/box_blur.cu), end to end: in the sandboxed worker process "
                "(what users get) and in this process (no sandbox, for comparison)\n");
    const std::string src = read_text(std::filesystem::path(CP_SOURCE_DIR) / "kernels" / "image" / "box_blur.cu");
    const int w = 512, h = 512;
    std::vector<uint32_t> image(size_t(w * h));
    std::mt19937 rng(5);
    for (auto& p : image) p = rng();
    const auto cache = std::filesystem::temp_directory_path() / ("cp-bench-blur-" + std::to_string(::getpid()));
    for (const bool in_process : {false, true})
    for (int workers : {1, 0}) {
        Bench b(workers, cache.string(), in_process);
        b.compile(src, "box_blur");  // fills the cache: the figures below are a session's re-run
        const auto start = Clock::now();
        const CompileResult c = b.compile(src, "box_blur");
        const double t_compile = ms_since(start);
        auto t = Clock::now();
        const BufferId s = b.buffer("src", image.data(), image.size() * 4);
        const BufferId d = b.buffer("dst", image.data(), image.size() * 4);
        const double t_upload = ms_since(t);
        t = Clock::now();
        LaunchRequest r;
        r.module = c.module;
        r.kernel_name = "box_blur";
        r.grid = {(w + 15) / 16, (h + 15) / 16};
        r.block = {16, 16};
        r.args = {buf(s), buf(d), val(w), val(h)};
        r.timing.warmup = 0;
        r.timing.repeats = 1;
        if (!b.backend->launch(r).ok) die("blur launch failed");
        const double t_launch = ms_since(t);
        t = Clock::now();
        const ReadBackResult back = b.backend->read_back(ReadBackRequest{d});
        const double t_read = ms_since(t);
        const double total = ms_since(start);
        const LaunchResult timed = b.launch(c.module, "box_blur", r.grid, r.block, r.args, repeats);
        const int threads = workers ? workers : int(b.backend->info().device.sm_count);
        std::printf("   %-10s %2d worker%s compile (cache %s) %.1f ms + allocate/upload %.2f ms + launch "
                    "%.2f ms + read back %.2f ms = %.1f ms end to end; launch median over %d runs: %.2f ms\n",
                    in_process ? "in-process" : "sandboxed", threads, threads == 1 ? ": " : "s:", c.cache_hit ? "hit" : "miss",
                    t_compile, t_upload, t_launch, t_read, total, repeats, timed.timing.median_ms);
        (void)back;
    }
    std::filesystem::remove_all(cache);
}

void bench_compile() {
    std::printf("\n4. Compile latency (kernels/image/box_blur.cu)\n");
    const std::string src = read_text(std::filesystem::path(CP_SOURCE_DIR) / "kernels" / "image" / "box_blur.cu");
    const auto dir = std::filesystem::temp_directory_path() / ("cp-bench-cache-" + std::to_string(::getpid()));
    std::filesystem::remove_all(dir);
    Bench b(1, dir.string());
    // Each module is released before the next compile, so the cached compiles really load the library.
    const CompileResult cold = b.compile(src, "box_blur");
    b.backend->release(ReleaseRequest{{}, {cold.module}});
    const CompileResult cached = b.compile(src, "box_blur");
    b.backend->release(ReleaseRequest{{}, {cached.module}});
    const CompileResult cached2 = b.compile(src, "box_blur");
    std::printf("   cold (host compiler runs): %7.1f ms  (cache hit: %s)\n", cold.compile_ms, cold.cache_hit ? "yes" : "no");
    std::printf("   cached (load the .so):     %7.2f ms, %.2f ms  (cache hit: %s)\n", cached.compile_ms, cached2.compile_ms,
                cached.cache_hit ? "yes" : "no");

    // The parts of a cold compile: NVRTC's check of the device code runs while the host compiler does.
    CompileRequest r;
    r.source = src;
    r.kernel_name = "box_blur";
    r.path = "box_blur.cu";
    (void)check_device_code_with_nvrtc(r);  // NVRTC's own first-use costs
    const double check = median_ms(5, [&] { (void)check_device_code_with_nvrtc(r); });
    std::printf("   of which NVRTC's device-code check (-fdevice-syntax-only), alone: %.1f ms median (runs beside "
                "the host compiler; cached with the library)\n", check);
    ::setenv("CUDA_PLAYGROUND_CACHE_DIR", dir.string().c_str(), 1);
    std::vector<double> cold_nvrtc, cached_nvrtc;
    for (int i = 0; i < 3; ++i) {
        std::filesystem::remove_all(dir / "cubin");
        r.load = false;
        cold_nvrtc.push_back(compile_with_nvrtc(r, "sm_90", nullptr).compile_ms);
        cached_nvrtc.push_back(compile_with_nvrtc(r, "sm_90", nullptr).compile_ms);
    }
    std::sort(cold_nvrtc.begin(), cold_nvrtc.end());
    std::sort(cached_nvrtc.begin(), cached_nvrtc.end());
    std::printf("   NVRTC (CUDA backend, sm_90): cold %.1f ms, cached %.2f ms (medians of 3)\n", cold_nvrtc[1], cached_nvrtc[1]);
    std::filesystem::remove_all(dir);
}

// What the process hop costs: a launch that does nearly nothing, the shared-memory transfers of a 4K image,
// starting the worker, and replacing it after a kernel ended it.
void bench_process_hop(int repeats) {
    std::printf("\n5. The sandboxed worker process: per-launch overhead, transfers, start and replacement\n");
    const char* tiny = "extern \"C\" __global__ void tiny(int* out) { out[threadIdx.x] = threadIdx.x; }\n";
    const auto cache = std::filesystem::temp_directory_path() / ("cp-bench-hop-" + std::to_string(::getpid()));
    const size_t image_bytes = size_t(3840) * 2160 * 4;
    std::vector<std::byte> image(image_bytes, std::byte{7});
    Bench(1, cache.string(), true).compile(tiny, "tiny");  // fills the cache: both rows below are cache hits
    for (const bool in_process : {true, false}) {
        const auto started = Clock::now();
        Bench b(1, cache.string(), in_process);
        const CompileResult c = b.compile(tiny, "tiny");
        const double first_ms = ms_since(started);
        const BufferId out = b.buffer("out", image.data(), 128);
        LaunchRequest r;
        r.module = c.module;
        r.kernel_name = "tiny";
        r.grid = {1};
        r.block = {32};
        r.args = {buf(out)};
        r.timing.warmup = 0;
        r.timing.repeats = 1;
        const double launch = median_ms(std::max(repeats, 1) * 20, [&] {
            if (!b.backend->launch(r).ok) die("tiny launch failed");
        });
        const AllocateResult big = b.backend->allocate({"image", image_bytes});
        if (big.error) die(big.error->message);
        const double upload = median_ms(repeats, [&] {
            UploadRequest u;
            u.buffer = big.buffer;
            u.data = image;
            if (b.backend->upload(u).error) die("upload failed");
        });
        const double read = median_ms(repeats, [&] { (void)b.backend->read_back(ReadBackRequest{big.buffer}); });
        std::printf("   %-10s backend made + first compile (cached, the worker starting meanwhile) %.1f ms; a tiny launch %.3f ms; 4K image "
                    "(33 MB) upload %.2f ms, read back %.2f ms\n",
                    in_process ? "in-process" : "sandboxed", first_ms, launch, upload, read);
    }
    // A kernel that ends its worker: how long until the next launch has run in a new one.
    const char* quits = "#ifdef __CUDA_PLAYGROUND_CPU__\n#include <cstdlib>\n#define QUIT exit(1)\n#else\n#define QUIT\n#endif\n"
                        "extern \"C\" __global__ void quits(int* out) { QUIT; out[0] = 1; }\n";
    Bench b(1, cache.string());
    const CompileResult q = b.compile(quits, "quits"), t = b.compile(tiny, "tiny");
    const BufferId out = b.buffer("out", image.data(), 128);
    std::vector<double> replace;
    for (int i = 0; i < 5; ++i) {
        (void)b.launch_result(q.module, "quits", {1}, {32}, {buf(out)});
        const auto start = Clock::now();
        b.launch(t.module, "tiny", {1}, {32}, {buf(out)}, 1);
        replace.push_back(ms_since(start));
    }
    std::sort(replace.begin(), replace.end());
    std::printf("   after exit() in a kernel, the next launch (new worker, library loaded again): %.1f ms median\n",
                replace[2]);
    std::filesystem::remove_all(cache);
}

}  // namespace

int main(int argc, char** argv) {
    bool quick = false;
    int only = 0;  // --section N: just that part
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--quick") quick = true;
        else if (a == "--section" && i + 1 < argc) only = std::atoi(argv[++i]);
        else die("usage: cpu_backend_bench [--quick] [--section 1-5]");
    }
    const int repeats = quick ? 3 : 9;
    std::printf("CPU backend benchmark (%s)\n", quick ? "quick" : "full");
    if (!only || only == 1) bench_barrier_free(repeats, quick ? 1 << 20 : 1 << 22);
    if (!only || only == 2) bench_barriers(repeats);
    if (!only || only == 3) bench_blur(repeats);
    if (!only || only == 4) bench_compile();
    if (!only || only == 5) bench_process_hop(repeats);
    return 0;
}
