// Benchmark (prints figures, asserts nothing about speed): the library's image filters on a 3840x2160 photo,
// on the backend given (default: the GPU when there is one). Reports median time, achieved bandwidth and
// its fraction of the device's copy bandwidth, plus cold vs cached compile time.
//
// usage: cp_image_filter_bench [cuda|cpu] [repeats]
#include "core/kernel_file/kernel_file.h"
#include "core/session/session.h"
#include "core/backends/registry.h"

#include <cstdio>
#include <filesystem>
#include <string>

using namespace cp;

namespace {

// Nearest-neighbour upscale of a bundled photo to 4K UHD, written where the session can load it.
std::filesystem::path make_uhd_photo() {
    auto photo = load_image(assets_dir() / "coffee.png");
    if (!photo) return {};
    const Image big = resize_nearest(*photo, 3840, 2160);
    auto path = std::filesystem::temp_directory_path() / "cuda-playground-uhd.png";
    if (!save_png(path, big)) return {};
    return path;
}

}  // namespace

int main(int argc, char** argv) {
    const std::string which = argc > 1 ? argv[1] : "auto";
    const int repeats = argc > 2 ? std::max(1, std::atoi(argv[2])) : 50;
    auto made = make_backend(which);
    if (!made) {
        std::printf("no backend: %s\n", made.error().message.c_str());
        return 1;
    }
    Engine engine(std::move(made->backend));
    const DeviceInfo device = engine.device();
    std::printf("device: %s (%s), copy bandwidth %.0f GB/s\n", device.name.c_str(), device.backend.c_str(),
                device.copy_bandwidth_gbps);
    const auto photo = make_uhd_photo();
    if (photo.empty()) {
        std::printf("could not make the 3840x2160 test photo\n");
        return 1;
    }
    for (const char* name : {"image/grayscale", "image/box_blur"}) {
        auto file = load_kernel_file(kernels_dir() / (std::string(name) + ".cu"));
        if (!file) {
            std::printf("%s: %s\n", name, file.error().message.c_str());
            return 1;
        }
        KernelSession session(engine);
        session.set_kernel(*file);
        RunChoices choices;
        choices.images["src"] = photo.string();
        session.set_choices(choices);
        RunOptions options;
        options.timing.warmup = 3;
        options.timing.repeats = repeats;
        RunReport r = session.run(options);
        if (!r.ok()) {
            std::printf("%s: %s\n", name, r.error->full().c_str());
            return 1;
        }
        std::printf("%-16s 3840x2160 grid %s block %s: median %.4f ms (min %.4f, max %.4f, %d repeats, %s), "
                    "%.1f GB/s = %.1f%% of copy bandwidth, compile %.1f ms%s, verified %s\n",
                    name, r.resolved->grid.str().c_str(), r.resolved->block.str().c_str(), r.timing.median_ms, r.timing.min_ms,
                    r.timing.max_ms, repeats, r.timing.cpu_time ? "CPU clock" : "CUDA events", r.bandwidth_gbps,
                    r.bandwidth_fraction * 100, r.compile_ms, r.cache_hit ? " (cached)" : "",
                    r.verified ? (*r.verified ? "yes" : "NO") : "n/a");
    }
    return 0;
}
