// The floor under `cuda-playground compile`: a process that links only NVRTC and compiles one file with the given
// options, nothing else (no kernel-file parsing, no sandbox, no cache). process_compile_bench.py times it paired.
//   nvrtc_floor_bench FILE [--name KERNEL] [--times] [NVRTC OPTION]...   compile FILE to a cubin (or PTX)
//   nvrtc_floor_bench --load-only                                        load libnvrtc, call nothing, exit
// --times prints each call's wall and CPU time (ms) to stderr. Exit status 0 compiled, 1 not.
#include <nvrtc.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace {

double cpu_ms() {
    timespec t{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return double(t.tv_sec) * 1e3 + double(t.tv_nsec) / 1e6;
}

double wall_ms() {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

}  // namespace

int main(int argc, char** argv) {
    if (argc == 2 && std::strcmp(argv[1], "--load-only") == 0) return 0;  // what linking libnvrtc costs a process
    if (argc < 2) {
        std::fprintf(stderr, "usage: nvrtc_floor_bench FILE [--name KERNEL] [--times] [NVRTC OPTION]...\n");
        return 1;
    }
    const double cpu_at_main = cpu_ms();
    std::ifstream in(argv[1], std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    const std::string source = text.str();
    std::string name;
    bool times = false;
    std::vector<const char*> options;
    for (int i = 2; i < argc; ++i) {
        if (std::strcmp(argv[i], "--name") == 0 && i + 1 < argc) {
            name = argv[++i];
        } else if (std::strcmp(argv[i], "--times") == 0) {
            times = true;
        } else {
            options.push_back(argv[i]);
        }
    }
    bool cubin = true;
    for (const char* o : options)
        if (std::strncmp(o, "-arch=compute_", 14) == 0) cubin = false;

    nvrtcProgram program = nullptr;
    if (nvrtcCreateProgram(&program, source.c_str(), argv[1], 0, nullptr, nullptr) != NVRTC_SUCCESS) return 1;
    if (!name.empty()) nvrtcAddNameExpression(program, name.c_str());
    const double wall0 = wall_ms(), cpu0 = cpu_ms();
    const nvrtcResult r = nvrtcCompileProgram(program, int(options.size()), options.data());
    const double wall1 = wall_ms(), cpu1 = cpu_ms();
    size_t size = 0;
    if (r == NVRTC_SUCCESS) {
        if (cubin ? nvrtcGetCUBINSize(program, &size) : nvrtcGetPTXSize(program, &size)) return 1;
        std::vector<char> image(size);
        if (cubin ? nvrtcGetCUBIN(program, image.data()) : nvrtcGetPTX(program, image.data())) return 1;
    } else {
        size_t log_size = 0;
        nvrtcGetProgramLogSize(program, &log_size);
        std::string log(log_size, '\0');
        nvrtcGetProgramLog(program, log.data());
        std::fprintf(stderr, "%s\n", log.c_str());
    }
    nvrtcDestroyProgram(&program);
    if (times)
        std::fprintf(stderr,
                     "[nvrtc-floor] CPU before main's work %.2f ms (process start, loading libnvrtc); "
                     "nvrtcCompileProgram %.2f ms wall, %.2f ms CPU; image %zu bytes\n",
                     cpu_at_main, wall1 - wall0, cpu1 - cpu0, size);
    return r == NVRTC_SUCCESS ? 0 : 1;
}
