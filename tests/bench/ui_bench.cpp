// cp_ui_bench: a benchmark that prints figures (no test, no assertion about speed): CPU time per UI frame
// when idle and while re-running a 3x3 blur on a 3840x2160 photo every frame, and the time from a source
// change to new pixels (back to back, and paced at 60 Hz as a vsync'd window draws). Uses CUDA when there is a device, else the CPU backend (figures say which).
// Run: build/tests/cp_ui_bench [WIDTHxHEIGHT [TEXT_SIZE]] (headless, no display needed; default 1600x1000, 1.0),
// e.g. cp_ui_bench 1920x1080 1.75 for the projector's set-up.
#include "ui/ui_test_support.h"

#include "core/kernel_file/kernel_file.h"
#include "core/session/report_text.h"
#include "core/backends/registry.h"
#include "render/display_probe.h"
#include "ui/app.h"
#include "ui/workspace.h"

#include <glad/gl.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <vector>

using namespace cp;
using namespace cp::uitest;

namespace {

// Nearest-neighbour upscale of a bundled photo to 4K UHD.
std::filesystem::path make_uhd_photo(const std::filesystem::path& dir) {
    auto photo = load_image(assets_dir() / "coffee.png");
    if (!photo) return {};
    const Image big = resize_nearest(*photo, 3840, 2160);
    const auto path = dir / "uhd.png";
    return save_png(path, big) ? path : std::filesystem::path();
}

// Where the benchmark is, for its watchdog: a phase that takes longer than CP_UI_BENCH_STALL_S (default 60 s)
// ends the run saying which phase stalled, instead of waiting for ever (a GPU that no longer finishes GL work
// after an earlier process's kernel faulted, Xid 109, stalls a frame, a fence or the interop copy without end).
std::atomic<const char*> g_phase{"start"};
std::atomic<int64_t> g_phase_since{0};
int64_t now_s() {
    return std::chrono::duration_cast<std::chrono::seconds>(std::chrono::steady_clock::now().time_since_epoch()).count();
}
void phase(const char* what) {
    g_phase_since = now_s();
    g_phase = what;
    std::fprintf(stderr, "[ui-bench] ... %s\n", what);
}
void start_watchdog() {
    const char* v = std::getenv("CP_UI_BENCH_STALL_S");
    const int limit = v && std::atoi(v) > 0 ? std::atoi(v) : 60;
    g_phase_since = now_s();
    std::thread([limit] {
        for (;;) {
            std::this_thread::sleep_for(std::chrono::seconds(1));
            if (now_s() - g_phase_since.load() > limit) {
                std::fprintf(stderr, "[ui-bench] stalled: no progress for %d s in \"%s\". On an NVIDIA machine where a "
                             "kernel faulted earlier (the GPU tests' planted faults; dmesg: NVRM Xid 13/31, then 109) GL "
                             "work stalls: run this on a fresh machine, or before the fault tests\n", limit, g_phase.load());
                std::fflush(stdout);
                std::_Exit(3);
            }
        }
    }).detach();
}

double median(std::vector<double> v) {
    if (v.empty()) return 0;
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

// Medians of each stage over the runs applied (the frame budget), printed on one line.
struct StageSamples {
    std::vector<double> resolve, compile, prepare, insight, launch, launch_backend, read_back, check, variants, session,
        apply, views, frame;
    // The worker's launch call by phase (LaunchPhases): where its time went.
    std::vector<double> setup, launch_calls, wait, kernel_gpu, after;
    std::string last_stages;  // what the last run applied redid and reused, and why
    // Per run: the session's time beside the kernel's (session - kernel median), of which the launch's round trip
    // (launch stage - kernel) and what no stage accounts for (session - the stages' sum).
    std::vector<double> overhead, overhead_pct, launch_trip, unstaged;
    void add(const RunReport& r, double apply_ms, double views_ms, double frame_ms) {
        const StageTimes& s = r.stages;
        const double kernel = r.timing.median_ms;
        overhead.push_back(s.total_ms - kernel);
        overhead_pct.push_back(kernel > 0 ? 100.0 * (s.total_ms - kernel) / kernel : 0.0);
        launch_trip.push_back(s.launch_ms - kernel);
        unstaged.push_back(s.total_ms - (s.resolve_ms + s.compile_ms + s.prepare_ms + s.insight_ms + s.launch_ms +
                                         s.read_back_ms + s.check_ms));
        resolve.push_back(s.resolve_ms), compile.push_back(s.compile_ms), prepare.push_back(s.prepare_ms);
        insight.push_back(s.insight_ms), launch.push_back(s.launch_ms), read_back.push_back(s.read_back_ms);
        launch_backend.push_back(s.launch_backend_ms);
        setup.push_back(s.launch_phases.setup_ms), launch_calls.push_back(s.launch_phases.launch_calls_ms);
        wait.push_back(s.launch_phases.wait_ms), kernel_gpu.push_back(s.launch_phases.kernel_ms);
        after.push_back(s.launch_phases.after_ms);
        check.push_back(s.check_ms), variants.push_back(s.variants_ms), session.push_back(s.total_ms);
        apply.push_back(apply_ms), views.push_back(views_ms), frame.push_back(frame_ms);
        last_stages = stage_runs_text(r.stage_runs);
    }
    void print(const char* what) const;
};

void StageSamples::print(const char* what) const {
    std::printf("[ui-bench]     per stage (%s, median ms): resolve %.3f, compile %.3f, prepare %.3f, insight %.3f, "
                "launch %.3f (in the worker process %.3f), read-back %.3f, check %.3f | session %.3f + variants %.3f | UI: apply "
                "%.3f (views, interop + display %.3f), whole frame %.3f\n",
                what, median(resolve), median(compile), median(prepare), median(insight), median(launch), median(launch_backend),
                median(read_back), median(check), median(session), median(variants), median(apply), median(views),
                median(frame));
    // Each phase's own median (they need not add up to the worker's median exactly).
    LaunchPhases phases;
    phases.setup_ms = median(setup), phases.launch_calls_ms = median(launch_calls), phases.wait_ms = median(wait);
    phases.kernel_ms = median(kernel_gpu), phases.after_ms = median(after);
    if (const std::string said = launch_phases_text(median(launch_backend), phases); !said.empty())
        std::printf("[ui-bench]     the launch (%s, median ms) %s\n", what, said.c_str());
    std::printf("[ui-bench]     session overhead (%s, median per run): %.3f ms = %.1f%% of the kernel's time; of which the "
                "launch's round trip %.3f ms, outside the stages %.3f ms\n",
                what, median(overhead), median(overhead_pct), median(launch_trip), median(unstaged));
    std::printf("[ui-bench]     stages of the last run (%s): %s\n", what, last_stages.c_str());
}

double since_ms(std::chrono::steady_clock::time_point t) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t).count();
}

// One measurement: the default demo on `photo` (empty: the bundled 600x400 one).
// `backend`: "cuda", "cpu" (the real backends) or "host" (the tests' host kernels).
struct WindowSize {
    int width = 1600, height = 1000;
    float text_size = 1.0f;
};

bool measure(const std::string& backend, const std::filesystem::path& photo, const char* label, const WindowSize& window) {
    const bool cuda = backend == "cuda";
    ui::AppOptions o = headless_options("image/box_blur.cu");
    o.width = window.width;
    o.height = window.height;
    o.text_size = window.text_size;
    o.backend = backend == "host" ? "cpu" : backend;
    phase("starting the window");
    auto host = ui::AppHost::create(o, backend == "host" ? host_kernels_factory() : ui::BackendFactory{});
    if (!host) {
        std::printf("[ui-bench] %s: cannot start the window: %s\n", label, host.error().full().c_str());
        return false;
    }
    ui::Workspace& ws = (*host)->workspace();
    if (!photo.empty()) ws.inputs().choices.images["src"] = photo.string();
    ws.inputs().timing.repeats = 1;
    ws.inputs().timing.warmup = 0;
    ws.inputs().verify = false;
    ws.inputs().touch();
    phase("the first run");
    settle(**host);
    if (!ws.latest() || !ws.latest()->report.launched) {
        std::printf("[ui-bench] %s: the kernel did not run: %s\n", label,
                    ws.latest() && ws.latest()->report.error ? ws.latest()->report.error->full().c_str() : "no run");
        return false;
    }
    // Copies: the views are rebuilt by every run.
    const int width = ws.outputs().views().at(0).width, height = ws.outputs().views().at(0).height;
    const std::string path = ws.outputs().views().at(0).path;
    const std::string device = ws.device_status().device.name + " (" + o.backend + "), " + ws.device_status().renderer;

    phase("idle frames");
    std::vector<double> idle;
    for (int i = 0; i < 60; ++i) {
        (*host)->frame();
        idle.push_back((*host)->last_frame_cpu_ms());
    }

    phase("re-running every frame");
    ws.live().every_frame = true;
    (*host)->frame();
    std::vector<double> busy, worker;
    StageSamples live_stages;
    const uint64_t runs_before = ws.runs_applied();
    const auto t0 = std::chrono::steady_clock::now();
    const int frames = cuda ? 100 : 10;
    for (int i = 0; i < frames; ++i) {
        const uint64_t applied = ws.runs_applied();
        (*host)->frame();
        busy.push_back((*host)->last_frame_cpu_ms());
        if (ws.latest()) worker.push_back(ws.latest()->wall_ms);
        if (ws.latest() && ws.runs_applied() != applied)
            live_stages.add(ws.latest()->report, ws.apply_ms(), ws.views_ms(), (*host)->last_frame_cpu_ms());
    }
    const double wall_per_frame = since_ms(t0) / frames;
    const uint64_t runs = ws.runs_applied() - runs_before;
    const double kernel_ms = ws.latest()->report.timing.median_ms;

    // The same, paced as a window on a 60 Hz display draws (vsync): each frame starts on the next 1/60 s tick,
    // so the GPU has finished the last frame's drawing before the next launch. Back to back (above), the launch
    // queues behind the previous frame's GL work on the same GPU, which is time the session waits, not spends.
    phase("re-running every frame, paced at 60 Hz");
    StageSamples paced_stages;
    const auto tick = std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(1.0 / 60));
    const auto p0 = std::chrono::steady_clock::now();
    for (int i = 0; i < (cuda ? 60 : 10); ++i) {
        std::this_thread::sleep_until(p0 + tick * (i + 1));  // pacing, as vsync does; not synchronisation
        const uint64_t applied = ws.runs_applied();
        (*host)->frame();
        if (ws.latest() && ws.runs_applied() != applied)
            paced_stages.add(ws.latest()->report, ws.apply_ms(), ws.views_ms(), (*host)->last_frame_cpu_ms());
    }
    ws.live().every_frame = false;
    settle(**host);
    const uint64_t checks_passed = ws.outputs().views().at(0).checks_passed;

    // The screen check's own cost (issue 41): issuing a probe of a picture (CPU) and looking at it once the GPU
    // has done the reads.
    phase("screen checks");
    std::vector<double> probe_issue, probe_look;
    {
        const ui::OutputView& v = ws.outputs().views().at(0);
        for (int i = 0; i < 50 && v.raw && v.display; ++i) {
            const auto t = std::chrono::steady_clock::now();
            render::DisplayProbe probe(*v.raw, v.display, render::probe_points(v.raw->width(), v.raw->height(), 11, uint64_t(i)));
            probe_issue.push_back(since_ms(t));
            if (const auto done = gpu_finishes_within(10.0); !done) {  // the reads done, as a frame later they are
                std::printf("[ui-bench]   screen check: %s\n", done.message());
                break;
            }
            const auto t2 = std::chrono::steady_clock::now();
            if (!probe.poll()) {
                std::printf("[ui-bench]   screen check: the read-back did not arrive after glFinish (GL error at issue "
                            "0x%x, fence wait 0x%x)\n", probe.issue_error(), probe.last_wait());
                break;
            }
            probe_look.push_back(since_ms(t2));
        }
    }

    // Source change -> new pixels: a new text each time (so NVRTC really compiles), typing pause excluded.
    std::vector<double> latency, compile;
    StageSamples edit_stages;
    phase("source changes");
    std::string text = document_of(ws).text();
    for (int i = 0; i < 5; ++i) {
        text += "\n// edit " + std::to_string(i) + "\n";
        const uint64_t shown = ws.outputs().views().at(0).run;
        const auto t = std::chrono::steady_clock::now();
        ws.set_source(text, (*host)->seconds() - 5.0);
        while (ws.outputs().views().at(0).run == shown && since_ms(t) < 30000) (*host)->frame();
        latency.push_back(since_ms(t));
        compile.push_back(ws.latest()->report.compile_ms);
        edit_stages.add(ws.latest()->report, ws.apply_ms(), ws.views_ms(), (*host)->last_frame_cpu_ms());
    }
    std::printf("\n[ui-bench] %s: %s, %dx%d, output path: %s; window %dx%d, text size %.2f\n", label, device.c_str(), width,
                height, path.c_str(), window.width, window.height, double(window.text_size));
    std::printf("[ui-bench]   idle frame, CPU: median %.3f ms (max %.3f)\n", median(idle),
                *std::max_element(idle.begin(), idle.end()));
    std::printf("[ui-bench]   re-running box_blur every frame: CPU %.3f ms per frame (median), wall %.3f ms per frame, "
                "%llu runs in %d frames; per run: session (prepare + launch) %.1f ms, kernel %.3f ms\n",
                median(busy), wall_per_frame, static_cast<unsigned long long>(runs), frames, median(worker), kernel_ms);
    live_stages.print("re-run every frame");
    paced_stages.print("re-run every frame, paced at 60 Hz");
    std::printf("[ui-bench]   source change -> new pixels (compile + run + texture; the 0.6 s typing pause not included): "
                "median %.1f ms (min %.1f, max %.1f), of which compile %.1f ms\n",
                median(latency), *std::min_element(latency.begin(), latency.end()),
                *std::max_element(latency.begin(), latency.end()), median(compile));
    edit_stages.print("source change");
    std::printf("[ui-bench]   screen checks that passed while re-running every frame: %llu; the picture coloured on the %s\n",
                static_cast<unsigned long long>(checks_passed),
                ws.outputs().views().at(0).shading == ui::OutputView::Shading::Host ? "CPU (the GPU pass failed a check)" : "GPU");
    if (!probe_issue.empty() && !probe_look.empty())
        std::printf("[ui-bench]   screen check (16 texels read back behind a fence): issue %.3f ms, look %.3f ms CPU "
                    "(medians of %zu); checks that passed while re-running every frame: %llu, coloured on the %s\n",
                    median(probe_issue), median(probe_look), probe_look.size(),
                    static_cast<unsigned long long>(checks_passed),
                    ws.outputs().views().at(0).shading == ui::OutputView::Shading::Host ? "CPU (the GPU pass failed a check)" : "GPU");
    return true;
}

}  // namespace

int main(int argc, char** argv) {
    std::setvbuf(stdout, nullptr, _IOLBF, 0);  // each figure as it is printed, also when stdout is a file
    start_watchdog();
    WindowSize window;
    if (argc > 1 && std::sscanf(argv[1], "%dx%d", &window.width, &window.height) != 2) {
        std::printf("usage: cp_ui_bench [WIDTHxHEIGHT [TEXT_SIZE]]\n");
        return 2;
    }
    if (argc > 2) window.text_size = std::strtof(argv[2], nullptr);
    ScopedUserDir user;
    auto made = make_backend("auto");
    const std::string backend = made ? made->backend->info().device.backend : "host";
    made = make_error("");  // each measurement makes its own
    if (!measure(backend, {}, "bundled photo", window)) return 1;
    phase("making the 3840x2160 photo");
    const auto photo = make_uhd_photo(user.path());
    if (photo.empty()) {
        std::printf("[ui-bench] could not make the 3840x2160 photo\n");
        return 1;
    }
    return measure(backend, photo, "3840x2160 photo", window) ? 0 : 1;
}
