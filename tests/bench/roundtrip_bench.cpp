// cp_roundtrip_bench: prints what each backend request costs on the live re-run path (a benchmark, no
// assertion): the wall time the caller waits against the time the backend reports for the work itself, for
// the requests a 4K blur re-run makes (the output's reset, the launch, a small read-back), in the worker
// process and in this process.  usage: cp_roundtrip_bench [--size WxH] [--iterations N]
#include "core/cuda/cuda_backend_factory.h"
#include "core/engine/engine.h"
#include "core/engine/launch_validation.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

using namespace cp;

namespace {

const char* kSource = R"(
extern "C" __global__ void blur(const uchar4* src, uchar4* dst, int width, int height)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= width || y >= height) return;
    int s[4] = {0, 0, 0, 0};
    for (int dy = -1; dy <= 1; ++dy)
        for (int dx = -1; dx <= 1; ++dx) {
            uchar4 p = src[min(max(y + dy, 0), height - 1) * width + min(max(x + dx, 0), width - 1)];
            s[0] += p.x; s[1] += p.y; s[2] += p.z; s[3] += p.w;
        }
    dst[y * width + x] = make_uchar4(s[0] / 9, s[1] / 9, s[2] / 9, s[3] / 9);
}
)";

double median(std::vector<double> v) {
    if (v.empty()) return 0;
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

double since_ms(std::chrono::steady_clock::time_point t) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t).count();
}

std::vector<std::byte> scalar(int v) {
    std::vector<std::byte> b(sizeof v);
    std::memcpy(b.data(), &v, sizeof v);
    return b;
}

int bench(const char* label, std::unique_ptr<Backend> backend, int width, int height, int iterations) {
    Engine engine(std::move(backend));
    std::printf("[roundtrip] %s: %s\n", label, engine.device().name.c_str());
    CompileRequest request;
    request.source = kSource;
    request.path = "blur.cu";
    request.kernel_name = "blur";
    CompileResult c = engine.compile(request);
    if (!c.ok) {
        std::printf("[roundtrip]   compile failed\n");
        return 1;
    }
    const uint64_t bytes = uint64_t(width) * height * 4;
    AllocateResult src = engine.allocate({"src", bytes, 4});
    AllocateResult dst = engine.allocate({"dst", bytes, 4});
    if (src.error || dst.error) {
        std::printf("[roundtrip]   allocate failed\n");
        return 1;
    }
    std::vector<std::byte> photo(bytes);
    for (uint64_t i = 0; i < bytes; ++i) photo[i] = std::byte(i * 2654435761u >> 24);
    engine.upload({src.buffer, photo});

    LaunchRequest launch;
    launch.module = c.module;
    launch.kernel_name = "blur";
    launch.block = {16, 16, 1};
    launch.grid = {uint32_t((width + 15) / 16), uint32_t((height + 15) / 16), 1};
    launch.args = {{"src", src.buffer, {}, 0}, {"dst", dst.buffer, {}, 0}, {"width", 0, scalar(width), 0},
                   {"height", 0, scalar(height), 0}};
    launch.timing = {0, 1, false};

    std::vector<double> reset_wall, reset_work, launch_wall, kernel, read_wall, read_work, run_wall;
    for (int i = 0; i < iterations; ++i) {
        const auto t0 = std::chrono::steady_clock::now();
        UploadResult u = engine.upload({dst.buffer, std::vector<std::byte>(4), true});
        const double reset = since_ms(t0);
        const auto t1 = std::chrono::steady_clock::now();
        LaunchResult l = engine.launch(launch);
        const double launched = since_ms(t1);
        if (u.error || !l.ok) {
            std::printf("[roundtrip]   a request failed\n");
            return 1;
        }
        reset_wall.push_back(reset), reset_work.push_back(u.elapsed_ms);
        launch_wall.push_back(launched), kernel.push_back(l.timing.median_ms);
        run_wall.push_back(reset + launched);
    }
    // Read-backs on their own: the worker frees a big answer after sending it, which the next request waits for.
    for (int i = 0; i < std::max(iterations / 10, 3); ++i) {
        const auto t2 = std::chrono::steady_clock::now();
        ReadBackResult r = engine.read_back({src.buffer, false});  // 33 MB at 4K: a host view's read-back
        read_wall.push_back(since_ms(t2)), read_work.push_back(r.elapsed_ms);
        if (r.error) return 1;
    }
    std::printf("[roundtrip]   %dx%d, %d iterations, medians:\n", width, height, iterations);
    std::printf("[roundtrip]   reset (fill)  wall %.3f ms, backend %.3f ms\n", median(reset_wall), median(reset_work));
    std::printf("[roundtrip]   launch        wall %.3f ms, kernel (events) %.3f ms\n", median(launch_wall),
                median(kernel));
    std::printf("[roundtrip]   read-back     wall %.3f ms, backend %.3f ms (%.1f MB)\n", median(read_wall),
                median(read_work), double(bytes) / 1e6);
    std::printf("[roundtrip]   reset+launch  wall %.3f ms\n", median(run_wall));
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    int width = 3840, height = 2160, iterations = 200;
    for (int i = 1; i + 1 < argc; i += 2) {
        const std::string a = argv[i], v = argv[i + 1];
        if (a == "--iterations") iterations = std::max(1, std::stoi(v));
        if (a == "--size") {
            auto d = parse_dim3(v);
            if (d) width = int(d->x), height = int(d->y);
        }
    }
    auto worker = make_cuda_backend();
    if (!worker) {
        std::printf("[roundtrip] no CUDA device: %s\n", worker.error().full().c_str());
        return 0;
    }
    int rc = bench("worker process", std::move(*worker), width, height, iterations);
    auto here = make_cuda_backend_in_process();
    if (here) rc |= bench("in this process", std::move(*here), width, height, iterations);
    return rc;
}
