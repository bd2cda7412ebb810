// NVRTC compile times: a plain kernel and a cooperative-groups kernel, cold (nothing cached: each source is
// new), with this process's precompiled header for <cooperative_groups.h>, and cached (the cubin cache).
// Prints figures; asserts nothing. `compile_bench [--arch sm_XY] [--runs N]`; no GPU needed.
#include "core/cuda/cuda_backend_factory.h"
#include "core/toolkit/nvrtc_compiler.h"
#include "core/toolkit/nvrtc_pch.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <unistd.h>
#include <vector>

namespace {

std::string plain_kernel(int variant) {
    return "extern \"C\" __global__ void blur(const unsigned char* src, unsigned char* dst, int w, int h) {\n"
           "    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;\n"
           "    if (x >= w || y >= h) return;\n"
           "    int sum = 0;\n"
           "    for (int dy = -1; dy <= 1; ++dy)\n"
           "        for (int dx = -1; dx <= 1; ++dx)\n"
           "            sum += src[min(max(y + dy, 0), h - 1) * w + min(max(x + dx, 0), w - 1)];\n"
           "    dst[y * w + x] = (unsigned char)((sum + " + std::to_string(variant) + ") / 9);\n}\n";
}

std::string cg_kernel(int variant) {
    return "/*@playground\ntitle: bench\n*/\n#include <cooperative_groups.h>\nnamespace cg = cooperative_groups;\n"
           "template <class T, unsigned int blockSize>\n"
           "__global__ void reduce(const T* in, T* out, unsigned int n) {\n"
           "    __shared__ T partial[blockSize];\n"
           "    cg::thread_block block = cg::this_thread_block();\n"
           "    unsigned int i = blockIdx.x * blockSize + threadIdx.x;\n"
           "    T v = i < n ? in[i] : T(" + std::to_string(variant) + ");\n"
           "    partial[block.thread_rank()] = v;\n"
           "    block.sync();\n"
           "    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);\n"
           "    for (int o = 16; o > 0; o /= 2) v += warp.shfl_down(v, o);\n"
           "    if (warp.thread_rank() == 0) atomicAdd(out, v);\n}\n";
}

double compile_ms(const std::string& source, const std::string& kernel, const std::string& arch, bool* hit = nullptr) {
    cp::CompileRequest request;
    request.source = source;
    request.kernel_name = kernel;
    request.load = false;
    const cp::CompileResult r = cp::compile_with_nvrtc(request, arch, nullptr);
    if (!r.ok) {
        std::fprintf(stderr, "compile failed:\n%s\n", r.log.c_str());
        std::exit(1);
    }
    if (hit) *hit = r.cache_hit;
    return r.compile_ms;
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
    cp::use_pch_dir_for_temporary_files();  // as the CUDA worker does at its start
    std::string arch = cp::cuda_device_arch();
    if (arch.empty()) arch = cp::kArchWithoutDevice;
    int runs = 3;
    for (int i = 1; i + 1 < argc; ++i) {
        if (std::string(argv[i]) == "--arch") arch = argv[i + 1];
        if (std::string(argv[i]) == "--runs") runs = std::max(1, std::atoi(argv[i + 1]));
    }
    // A fresh cache folder: "cold" means what it says.
    const auto cache = std::filesystem::temp_directory_path() / ("cp-compile-bench-" + std::to_string(::getpid()));
    ::setenv("CUDA_PLAYGROUND_CACHE_DIR", cache.string().c_str(), 1);
    std::printf("NVRTC %s, arch %s, %d run(s) each (median)\n", cp::nvrtc_version_text().c_str(), arch.c_str(), runs);

    int variant = 0;
    std::vector<double> plain_cold, cg_cold_no_pch, cg_cold_pch, plain_cached, cg_cached;
    for (int r = 0; r < runs; ++r) plain_cold.push_back(compile_ms(plain_kernel(++variant), "blur", arch));
    ::setenv("CUDA_PLAYGROUND_NO_PCH", "1", 1);
    for (int r = 0; r < runs; ++r) cg_cold_no_pch.push_back(compile_ms(cg_kernel(++variant), "reduce<float, 256>", arch));
    ::unsetenv("CUDA_PLAYGROUND_NO_PCH");
    const auto t0 = std::chrono::steady_clock::now();
    cp::warm_up_nvrtc_pch(arch);
    const double warm_up = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    for (int r = 0; r < runs; ++r) cg_cold_pch.push_back(compile_ms(cg_kernel(++variant), "reduce<float, 256>", arch));
    bool hit = false;
    for (int r = 0; r < runs; ++r) plain_cached.push_back(compile_ms(plain_kernel(1), "blur", arch, &hit));
    for (int r = 0; r < runs; ++r) cg_cached.push_back(compile_ms(cg_kernel(runs + 1), "reduce<float, 256>", arch, &hit));

    std::printf("%-52s %9.1f ms\n", "plain kernel, cold", median(plain_cold));
    std::printf("%-52s %9.1f ms\n", "cooperative-groups kernel, cold, no PCH", median(cg_cold_no_pch));
    std::printf("%-52s %9.1f ms\n", "PCH warm-up for <cooperative_groups.h> (once/process)", warm_up);
    std::printf("%-52s %9.1f ms\n", "cooperative-groups kernel, cold, with the PCH", median(cg_cold_pch));
    std::printf("%-52s %9.1f ms\n", "plain kernel, cached", median(plain_cached));
    std::printf("%-52s %9.1f ms%s\n", "cooperative-groups kernel, cached", median(cg_cached), hit ? "" : " (not a cache hit!)");
    std::error_code ec;
    std::filesystem::remove_all(cache, ec);
    return 0;
}
