// Figures for issue 9 (a benchmark that prints, not a timed test): the block-size sweep's wall time on the
// 3840x2160 box blur (32 shapes x 10 repeats; target <= 1 s on the H100), and, for every library kernel, the
// instrumented (traced) launch's median time over the plain one's (target <= 1.5x), and the memory-recording
// launch's time (issue 23, `run --memory`) over the plain median (target <= 20x on the H100).
// usage: cp_launch_bench [--backend auto|cuda|cpu] [--size WxH] [--repeat N]
#include "core/data/image_io.h"
#include "core/engine/backend.h"
#include "core/engine/launch_validation.h"
#include "core/kernel_file/kernel_file.h"
#include "core/session/session.h"
#include "core/backends/registry.h"

#include <cstdio>
#include <iostream>
#include <string>

using namespace cp;

int main(int argc, char** argv) {
    std::string backend_name = "auto";
    int width = 3840, height = 2160, repeats = 10;
    for (int i = 1; i + 1 < argc; i += 2) {
        const std::string a = argv[i], v = argv[i + 1];
        if (a == "--backend") backend_name = v;
        if (a == "--repeat") repeats = std::stoi(v);
        if (a == "--size") {
            auto d = parse_dim3(v);
            if (d) width = int(d->x), height = int(d->y);
        }
    }
    auto made = make_backend(backend_name);
    if (!made) {
        std::cerr << made.error().full() << "\n";
        return 1;
    }
    Engine engine(std::move(made->backend));
    std::cout << "launch bench on " << engine.device().backend << ": " << engine.device().name << "\n";

    auto photo = load_image(assets_dir() / "coffee.png");
    const auto big = std::filesystem::temp_directory_path() / "cp-launch-bench.png";
    if (!photo || !save_png(big, resize_nearest(*photo, width, height))) {
        std::cerr << "cannot make the " << width << "x" << height << " input\n";
        return 1;
    }

    {  // The sweep.
        KernelSession session(engine);
        auto file = load_kernel_file(kernels_dir() / "image/box_blur.cu");
        if (!file) return 1;
        session.set_kernel(std::move(*file));
        RunChoices choices;
        if (!apply_set(session.kernel(), choices, "src", big.string())) return 1;
        session.set_choices(choices);
        SweepOptions options;
        options.repeats = repeats;
        auto result = session.sweep(options);
        if (!result) {
            std::cerr << "sweep failed: " << result.error().full() << "\n";
            return 1;
        }
        size_t timed = 0;
        for (const auto& c : result->configs) timed += c.timed();
        std::printf("sweep: box blur %dx%d, %zu shapes (%zu timed) x %d repeats: %.1f ms wall (target <= 1000 ms on "
                    "the H100); best %s at %.4f ms\n",
                    width, height, result->configs.size(), timed, repeats, result->wall_ms,
                    result->best >= 0 ? result->configs[size_t(result->best)].block.str().c_str() : "-",
                    result->best >= 0 ? result->configs[size_t(result->best)].median_ms : 0.0);
    }

    // Instrumented over plain, every library kernel at its defaults (the blur on the big photo).
    for (const KernelFile& file : scan_library(kernels_dir())) {
        if (file.spec.expect == ExpectedOutcome::Fault || file.spec.expect == ExpectedOutcome::Refused ||
            file.spec.expect == ExpectedOutcome::Hang) {
            std::printf("  %-28s skipped: buggy on purpose (expect: %s)\n", file.path.filename().string().c_str(),
                        expected_outcome_name(file.spec.expect));
            continue;
        }
        if (!file.spec.steps.empty()) {
            std::printf("  %-28s skipped: %zu steps (a trace follows one kernel's launch)\n",
                        file.path.filename().string().c_str(), file.spec.steps.size());
            continue;
        }
        KernelSession session(engine);
        session.set_kernel(file);
        RunChoices choices;
        if (file.spec.title.find("blur") != std::string::npos || file.path.filename() == "grayscale.cu")
            if (!apply_set(session.kernel(), choices, "src", big.string())) continue;
        session.set_choices(choices);
        RunOptions options;
        options.timing = {1, repeats, false};
        options.trace = true;
        options.verify = false;
        const RunReport r = session.run(options);
        if (!r.ok() || !r.trace) {
            std::printf("  %-28s failed: %s\n", file.path.filename().string().c_str(), r.error ? r.error->full().c_str() : "no trace");
            continue;
        }
        std::printf("  %-28s plain %.4f ms, instrumented %.4f ms: %.2fx (target <= 1.5x); %zu blocks on %u %s\n",
                    file.path.filename().string().c_str(), r.timing.median_ms, r.trace->timing.median_ms,
                    r.timing.median_ms > 0 ? r.trace->timing.median_ms / r.timing.median_ms : 0.0, r.trace->blocks.size(),
                    r.trace->units_used, r.trace->unit == "sm" ? "SMs" : "workers");
    }

    // The memory recording (issue 23): the recording launch over the plain median, every library kernel at its
    // defaults (the blur on the big photo: past the cap, its first blocks are recorded; the note says so).
    for (const KernelFile& file : scan_library(kernels_dir())) {
        if (file.spec.expect == ExpectedOutcome::Fault || file.spec.expect == ExpectedOutcome::Refused ||
            file.spec.expect == ExpectedOutcome::Hang || !file.spec.steps.empty())
            continue;  // said above
        KernelSession session(engine);
        session.set_kernel(file);
        RunChoices choices;
        if (file.spec.title.find("blur") != std::string::npos || file.path.filename() == "grayscale.cu")
            if (!apply_set(session.kernel(), choices, "src", big.string())) continue;
        session.set_choices(choices);
        RunOptions options;
        options.timing = {1, repeats, false};
        options.memory = true;
        options.verify = false;
        const RunReport r = session.run(options);
        if (!r.ok() || !r.memory) {
            std::printf("  %-28s memory recording failed: %s\n", file.path.filename().string().c_str(),
                        r.error ? r.error->full().c_str() : "no recording");
            continue;
        }
        std::printf("  %-28s plain %.4f ms, memory recording %.4f ms: %.1fx (target <= 20x); %s\n",
                    file.path.filename().string().c_str(), r.timing.median_ms, r.memory->ms,
                    r.timing.median_ms > 0 ? r.memory->ms / r.timing.median_ms : 0.0,
                    memory_recording_note(*r.memory).c_str());
    }
    return 0;
}
