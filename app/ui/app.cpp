// run_app and the AppHost: GL target + ImGui set-up, the frame loop, screenshots.
#include "ui/app_host.h"
#include "core/clock.h"

#include "core/remote/remote_backend.h"
#include "ui/state/user_dirs.h"

#include <glad/gl.h>
#include <imgui.h>
#include <imgui_impl_opengl3.h>
#include <implot.h>

#include <algorithm>
#include <chrono>
#include <cstdio>

namespace cp::ui {

Result<std::unique_ptr<AppHost>> AppHost::create(const AppOptions& options, const BackendFactory& backend_factory) {
    std::unique_ptr<AppHost> host(new AppHost());
    host->options_ = options;
    render::TargetOptions t;
    t.width = options.width;
    t.height = options.height;
    auto target = options.headless ? render::make_headless_target(t) : render::make_window_target(t);
    if (!target) return target.error();
    host->target_ = std::move(*target);

    IMGUI_CHECKVERSION();
    ImGui::CreateContext();
    ImPlot::CreateContext();
    ImGuiIO& io = ImGui::GetIO();
    io.ConfigFlags |= ImGuiConfigFlags_DockingEnable;
    // The layout lives next to the settings. Headless runs read it (screenshots show the user's layout)
    // but never write it.
    host->ini_path_ = (config_dir() / "imgui.ini").string();
    io.IniFilename = nullptr;
    if (!options.headless) io.IniFilename = host->ini_path_.c_str();
    else if (std::filesystem::exists(host->ini_path_)) ImGui::LoadIniSettingsFromDisk(host->ini_path_.c_str());
    const char* fonts = load_fonts();
    host->target_->attach_imgui();
    ImGui_ImplOpenGL3_Init("#version 450 core");
    host->imgui_ready_ = true;

    host->workspace_ = std::make_unique<Workspace>(*host->target_, options, config_dir() / "settings.json", !options.headless,
                                                   backend_factory);
    host->workspace_->console().add(LogKind::Info, fonts);
    if (auto r = host->workspace_->apply_command_line(options); !r) return r.error();
    return host;
}

AppHost::~AppHost() {
    workspace_.reset();  // GL textures go while the context exists
    if (imgui_ready_) {
        if (!options_.headless) ImGui::SaveIniSettingsToDisk(ini_path_.c_str());
        ImGui_ImplOpenGL3_Shutdown();
        target_->detach_imgui();
        ImPlot::DestroyContext();
        ImGui::DestroyContext();
    }
    target_.reset();
}

double AppHost::seconds() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
}

void AppHost::frame() {
    if (options_.headless && workspace_->run_in_flight()) workspace_->wait_for_run();
    draw_frame();
}

void AppHost::draw_frame() {
    const auto t0 = std::chrono::steady_clock::now();
    if (Presentation p; workspace_->take_presentation_change(p)) {
        apply_presentation(p);
        target_->set_fullscreen(p.fullscreen);
    }
    target_->begin_frame();
    ImGui_ImplOpenGL3_NewFrame();
    ImGui::NewFrame();
    workspace_->frame(seconds());
    ImGui::Render();
    target_->bind_framebuffer();
    glDisable(GL_SCISSOR_TEST);
    const ImVec4 clear = ImGui::GetStyle().Colors[ImGuiCol_WindowBg];
    glClearColor(clear.x * 0.6f, clear.y * 0.6f, clear.z * 0.6f, 1.0f);
    glClear(GL_COLOR_BUFFER_BIT);
    ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
    last_frame_cpu_ms_ = ms_since(t0);
    workspace_->set_frame_cpu_ms(float(last_frame_cpu_ms_));
    target_->present();
    ++frames_drawn_;
}

int AppHost::run() {
    const int frames = options_.frames > 0 ? options_.frames : options_.headless ? 3 : 0;
    if (options_.headless) {
        for (int i = 0; i < frames; ++i) frame();
        // A run started by the last frame is finished and shown before the picture is taken.
        // So is a machine code listing the Code panel waits for (made on its own thread: up to a few seconds).
        // Once it is there, a few frames more: the editor's counts and the scroll to the picked line follow it.
        const double give_up = seconds() + 60;
        int after_listing = 0;
        while (workspace_->run_in_flight() || workspace_->needs_frame(seconds()) || workspace_->code_listing_busy() ||
               after_listing > 0) {
            const bool listing = workspace_->code_listing_busy();
            after_listing = listing ? 3 : after_listing - 1;
            if ((frames_drawn_ > frames + 20 && !listing && after_listing <= 0) || seconds() > give_up) break;
            if (listing) workspace_->code_view().wait_idle(give_up - seconds());
            frame();
        }
    } else {
        event_loop(frames, 0);
    }
    if (!options_.screenshot.empty()) {
        auto pixels = target_->read_pixels();
        if (!pixels) {
            std::fprintf(stderr, "error: %s\n", pixels.error().full().c_str());
            return 1;
        }
        if (auto w = render::write_png(options_.screenshot, *pixels); !w) {
            std::fprintf(stderr, "error: %s\n", w.error().full().c_str());
            return 1;
        }
        std::printf("wrote %s (%dx%d)\n", options_.screenshot.c_str(), pixels->width, pixels->height);
    }
    if (options_.headless && !options_.sanitize.empty()) return report_sanitized();
    return 0;
}

int AppHost::report_sanitized() {
    // --sanitize in a script: what the window shows, on stdout, and an exit status like `run --sanitize`'s.
    const SanitizeState& s = workspace_->sanitize();
    if (s.failed || s.summary.empty()) {
        std::fprintf(stderr, "error: %s\n", s.summary.empty() ? "the sanitized run did not finish" : s.summary.c_str());
        return 1;
    }
    std::printf("sanitize %s\n", s.summary.c_str());
    for (const SanitizerFinding& f : s.findings) std::printf("  %s\n", f.message().c_str());
    for (const EditorPanel::Marker& m : workspace_->editor_panel().markers())
        if (m.from(DiagnosticOrigin::Sanitizer)) std::printf("  marked line %d\n", m.line);
    return s.findings.empty() ? 0 : 2;
}

void AppHost::event_loop(int max_frames, double max_seconds) {
    const double end = seconds() + max_seconds;
    if (frames_drawn_ == 0) frame();
    int extra = 1;  // ImGui settles hover/active states one frame after an input: draw two per input
    while (!target_->close_requested() && (max_frames == 0 || frames_drawn_ < max_frames)) {
        // A frame count (--frames N) asks for N frames now, e.g. for a screenshot: no waiting then.
        double timeout = extra > 0 || max_frames > 0 ? 0.0 : workspace_->idle_timeout(seconds());
        if (max_seconds > 0) {
            if (seconds() >= end) break;
            timeout = std::min(timeout, end - seconds());
        }
        if (target_->wait_events(timeout)) extra = 2;
        if (extra > 0 || max_frames > 0 || workspace_->needs_frame(seconds())) {
            frame();
            if (extra > 0) --extra;
        }
    }
}

int AppHost::run_for(double seconds_to_run) {
    const int before = frames_drawn_;
    event_loop(0, seconds_to_run);
    return frames_drawn_ - before;
}

int run_app(const AppOptions& options) {
    // --remote: the backend is the server's worker (core/remote/remote_backend.h), made through the same backend
    // set-up; one that cannot be reached leaves the window compile-only, saying why.
    BackendFactory remote;
    if (!options.remote.empty()) {
        RemoteOptions r = remote_options_from_environment(options.backend);
        r.prefix = options.remote;
        remote = [r] { return make_remote_backend(r); };
    }
    auto host = AppHost::create(options, remote);
    if (!host) {
        std::fprintf(stderr, "error: %s\n", host.error().full().c_str());
        return 1;  // like every user-facing error of the command line
    }
    return (*host)->run();
}

}  // namespace cp::ui
