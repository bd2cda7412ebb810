// Benchmark for the course's "fast where it claims to be" (prints figures, asserts nothing about speed):
//  1. memory-bound lessons at 3840x2160 (or 2^26 elements) as a fraction of the device's measured copy
//     bandwidth: grayscale, 3x3 box blur, padded shared-memory transpose, grid-stride reduction, map;
//  2. the register-blocked matrix multiply at 4096^3 against cuBLAS SGEMM on the same device. cuBLAS is
//     loaded here with dlopen, at run time, only in this benchmark: the app never needs it.
//
// usage: cp_course_bench [cuda|cpu] [repeats] [matmul size]   (cpu: part 1 only, small figures)
#include "core/cuda/cuda_driver.h"
#include "core/kernel_file/kernel_file.h"
#include "core/session/session.h"
#include "core/backends/registry.h"

#include <dlfcn.h>

#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

using namespace cp;

namespace {

std::filesystem::path make_uhd_photo() {
    auto photo = load_image(assets_dir() / "coffee.png");
    if (!photo) return {};
    const Image big = resize_nearest(*photo, 3840, 2160);
    auto path = std::filesystem::temp_directory_path() / "cuda-playground-course-uhd.png";
    if (!save_png(path, big)) return {};
    return path;
}

struct Case {
    const char* lesson;
    std::vector<std::pair<std::string, std::string>> sets;  // --set name=value
};

// One lesson through the same session the app uses; prints its line and returns the report.
std::optional<RunReport> run_lesson(Engine& engine, const Case& c, int repeats, bool verify) {
    auto file = load_kernel_file(kernels_dir() / (std::string(c.lesson) + ".cu"));
    if (!file) {
        std::printf("%-32s %s\n", c.lesson, file.error().message.c_str());
        return std::nullopt;
    }
    KernelSession session(engine);
    session.set_kernel(*file);
    for (const auto& [name, value] : c.sets) {
        if (auto ok = session.set_param(name, value); !ok) {
            std::printf("%-32s --set %s=%s: %s\n", c.lesson, name.c_str(), value.c_str(), ok.error().message.c_str());
            return std::nullopt;
        }
    }
    RunOptions options;
    options.timing.warmup = 3;
    options.timing.repeats = repeats;
    options.verify = verify;
    RunReport r = session.run(options);
    if (!r.ok()) {
        std::printf("%-32s %s\n", c.lesson, r.error->full().c_str());
        return std::nullopt;
    }
    std::printf("%-32s grid %-12s block %-10s median %9.4f ms (min %9.4f), %7.1f GB/s = %5.1f%% of copy bandwidth, "
                "verified %s\n",
                c.lesson, r.resolved->grid.str().c_str(), r.resolved->block.str().c_str(), r.timing.median_ms,
                r.timing.min_ms, r.bandwidth_gbps, r.bandwidth_fraction * 100,
                r.verified ? (*r.verified ? "yes" : "NO") : "not checked");
    return r;
}

// cuBLAS SGEMM (C = A B, n x n, column-major: the time does not depend on the layout) timed with events.
// Returns the median ms over `repeats`, or a negative value after printing why it could not run.
double cublas_sgemm_ms(int n, int repeats) {
    std::string why;
    const CudaDriver* d = cuda_driver(&why);
    if (!d) {
        std::printf("cuBLAS: %s\n", why.c_str());
        return -1;
    }
    void* lib = nullptr;
    for (const char* name : {"libcublas.so.13", "libcublas.so.12", "libcublas.so", "/usr/local/cuda/lib64/libcublas.so"}) {
        if ((lib = dlopen(name, RTLD_NOW | RTLD_LOCAL))) break;
    }
    if (!lib) {
        std::printf("cuBLAS: could not load libcublas (%s); set LD_LIBRARY_PATH to the toolkit's lib64\n", dlerror());
        return -1;
    }
    using Handle = void*;
    using Create = int (*)(Handle*);
    using Destroy = int (*)(Handle);
    using Sgemm = int (*)(Handle, int, int, int, int, int, const float*, const float*, int, const float*, int,
                          const float*, float*, int);
    auto create = reinterpret_cast<Create>(dlsym(lib, "cublasCreate_v2"));
    auto destroy = reinterpret_cast<Destroy>(dlsym(lib, "cublasDestroy_v2"));
    auto sgemm = reinterpret_cast<Sgemm>(dlsym(lib, "cublasSgemm_v2"));
    if (!create || !destroy || !sgemm) {
        std::printf("cuBLAS: the library lacks cublasCreate_v2/cublasSgemm_v2\n");
        return -1;
    }
    CUdevice dev = 0;
    CUcontext ctx = nullptr;
    if (d->Init(0) != CUDA_SUCCESS || d->DeviceGet(&dev, 0) != CUDA_SUCCESS ||
        d->DevicePrimaryCtxRetain(&ctx, dev) != CUDA_SUCCESS || d->CtxSetCurrent(ctx) != CUDA_SUCCESS) {
        std::printf("cuBLAS: no CUDA device/context\n");
        return -1;
    }
    const size_t bytes = size_t(n) * n * 4;
    CUdeviceptr a = 0, b = 0, c = 0;
    if (d->MemAlloc(&a, bytes) || d->MemAlloc(&b, bytes) || d->MemAlloc(&c, bytes)) {
        std::printf("cuBLAS: out of device memory for %d x %d\n", n, n);
        return -1;
    }
    // Values do not change the time; 1.0f everywhere keeps the sums finite.
    d->MemsetD32(a, 0x3f800000u, size_t(n) * n);
    d->MemsetD32(b, 0x3f800000u, size_t(n) * n);
    Handle h = nullptr;
    if (create(&h) != 0) {
        std::printf("cuBLAS: cublasCreate failed\n");
        return -1;
    }
    const float alpha = 1.0f, beta = 0.0f;
    auto gemm = [&] {
        return sgemm(h, 0, 0, n, n, n, &alpha, reinterpret_cast<const float*>(a), n, reinterpret_cast<const float*>(b),
                     n, &beta, reinterpret_cast<float*>(c), n);
    };
    for (int i = 0; i < 3; ++i) gemm();
    d->CtxSynchronize();
    CUevent start = nullptr, stop = nullptr;
    d->EventCreate(&start, 0);
    d->EventCreate(&stop, 0);
    std::vector<double> samples;
    for (int i = 0; i < repeats; ++i) {
        d->EventRecord(start, nullptr);
        gemm();
        d->EventRecord(stop, nullptr);
        d->EventSynchronize(stop);
        float ms = 0;
        d->EventElapsedTime(&ms, start, stop);
        samples.push_back(ms);
    }
    destroy(h);
    d->MemFree(a);
    d->MemFree(b);
    d->MemFree(c);
    return TimingStats::from_samples(samples, false).median_ms;
}

}  // namespace

int main(int argc, char** argv) {
    const std::string which = argc > 1 ? argv[1] : "cuda";
    const int repeats = argc > 2 ? std::max(1, std::atoi(argv[2])) : 30;
    const int mm = argc > 3 ? std::max(16, std::atoi(argv[3])) : 4096;
    auto made = make_backend(which);
    if (!made) {
        std::printf("no backend: %s\n", made.error().message.c_str());
        return 1;
    }
    Engine engine(std::move(made->backend));
    const DeviceInfo device = engine.device();
    const bool gpu = device.caps.gpu;
    std::printf("device: %s (%s), copy bandwidth %.0f GB/s\n", device.name.c_str(), device.backend.c_str(),
                device.copy_bandwidth_gbps);
    const auto photo = make_uhd_photo();
    if (photo.empty()) {
        std::printf("could not make the 3840x2160 test photo\n");
        return 1;
    }
    // On the CPU backend the same lessons at their default sizes (the figures only show the bench runs).
    const std::string big = gpu ? "67108864" : "1000003";
    const std::vector<Case> cases = {
        {"image/grayscale", {{"src", photo.string()}}},
        {"image/grayscale_fast", {{"src", photo.string()}}},
        {"image/box_blur", {{"src", photo.string()}}},
        {"image/box_blur_shared", {{"src", photo.string()}}},
        {"image/box_blur_wide", {{"src", photo.string()}}},
        {"matrix/transpose_shared", {{"width", gpu ? "3840" : "600"}, {"height", gpu ? "2160" : "400"}}},
        {"matrix/transpose_naive", {{"width", gpu ? "3840" : "600"}, {"height", gpu ? "2160" : "400"}}},
        {"patterns/reduce_grid_stride", {{"n", big}}},
        {"patterns/map_square", {{"n", big}}},
    };
    std::printf("\n1. memory-bound lessons (target: >= 85%% of the copy bandwidth)\n");
    for (const Case& c : cases) run_lesson(engine, c, repeats, true);

    if (!gpu) {
        std::printf("\n2. matrix multiply vs cuBLAS: needs --backend cuda on a GPU\n");
        return 0;
    }
    std::printf("\n2. matrix multiply at %d^3 (target: >= 50%% of cuBLAS SGEMM)\n", mm);
    const double flops = 2.0 * double(mm) * mm * mm;
    const std::string size = std::to_string(mm);
    // The CPU reference would take minutes at this size: the lessons verify at their default sizes instead.
    for (const char* lesson : {"matrix/matmul_register_blocked", "matrix/tiled_matmul"}) {
        auto r = run_lesson(engine, {lesson, {{"m", size}, {"n", size}, {"k", size}}}, std::min(repeats, 10), false);
        if (r) std::printf("%-32s %.0f GFLOP/s\n", lesson, flops / (r->timing.median_ms * 1e6));
        if (r && std::string(lesson) == "matrix/matmul_register_blocked") {
            const double cublas = cublas_sgemm_ms(mm, std::min(repeats, 10));
            if (cublas > 0) {
                std::printf("%-32s median %9.4f ms, %.0f GFLOP/s\n", "cuBLAS SGEMM", cublas, flops / (cublas * 1e6));
                std::printf("register-blocked / cuBLAS: %.1f%%\n", 100.0 * cublas / r->timing.median_ms);
            }
        }
    }
    return 0;
}
