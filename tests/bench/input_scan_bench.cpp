// How long the scans of a kernel file take as it grows: a pasted sample (kernels, host functions with
// cudaMalloc and <<<...>>>, includes, comments) of 1, 2, 4 and 8 MiB through parsing, local includes and the
// CPU backend's source preparation. Prints figures; asserts nothing. `cp_input_scan_bench [max MiB]`.
#include "core/cpu/source_prep.h"
#include "core/kernel_file/file_limits.h"
#include "core/kernel_file/host_code.h"
#include "core/kernel_file/kernel_file.h"
#include "core/kernel_file/local_includes.h"
#include "core/text_util.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace {

// One block of a pasted sample; repeated until the text is `bytes` long, then a main().
std::string pasted_program(size_t bytes) {
    std::string s = "#include <cstdio>\n#include <cuda_runtime.h>\n";
    for (int i = 0; s.size() < bytes; ++i) {
        const std::string n = std::to_string(i);
        s += "// step " + n + ": scale a buffer\n#include <vector>\n";
        s += "__global__ void scale" + n +
             "(float* a, int n) {\n    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
             "    if (i < n) a[i] *= 2.0f; /* twice */\n}\n";
        s += "static void host" + n + "(float* d, int n) {\n    cudaMalloc(&d, n * sizeof(float));\n    scale" + n +
             "<<<(n + 255) / 256, 256>>>(d, n);\n    printf(\"done %d\\n\", n);\n    cudaFree(d);\n}\n";
        s += "struct Pair" + n + " { int a; float b; };\n";
    }
    return s + "int main() { host0(nullptr, 1000); return 0; }\n";
}

double ms_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

int main(int argc, char** argv) {
    const int max_mib = argc > 1 ? std::atoi(argv[1]) : 8;
    std::printf("%8s %12s %12s %12s %12s %s\n", "MiB", "host scan ms", "parse ms", "includes ms", "cpu prep ms",
                "(per MiB: parse / includes / prep)");
    for (int mib = 1; mib <= max_mib; mib *= 2) {
        // Just under the limit at 8 MiB (a block and main() past the size asked would go over it).
        const std::string text = pasted_program(std::min(size_t(mib) << 20, cp::kKernelFileMaxBytes - 1024));
        auto t0 = std::chrono::steady_clock::now();
        const cp::HostCodeScan host = cp::separate_host_code(text);
        const double host_ms = ms_since(t0);
        t0 = std::chrono::steady_clock::now();
        const cp::KernelFile f = cp::parse_kernel_source(text, "/tmp/pasted.cu");
        const double parse = ms_since(t0);
        t0 = std::chrono::steady_clock::now();
        const cp::LocalIncludes inc = cp::resolve_local_includes(f.compile_source, "/tmp/pasted.cu");
        const double includes = ms_since(t0);
        t0 = std::chrono::steady_clock::now();
        const cp::PreparedSource prep = cp::prepare_kernel_source(f.compile_source, "/tmp/pasted.cu", "scale0");
        const double prep_ms = ms_since(t0);
        std::printf(
            "%8d %12.0f %12.0f %12.0f %12.0f (%.0f / %.0f / %.0f)   [%zu diagnostics, %zu kernels, %zu host parts]\n",
            mib, host_ms, parse, includes, prep_ms, parse / mib, includes / mib, prep_ms / mib, f.diagnostics.size(),
            prep.kernels.size(), host.parts.size());
        (void)inc;
    }
    std::printf("kernel files over %zu MiB are refused when loaded (kKernelFileMaxBytes)\n",
                cp::kKernelFileMaxBytes >> 20);
    return 0;
}
