// The app around the workspace: a render target (window or headless EGL), Dear ImGui's context and
// OpenGL renderer, the frame loop (waiting for events when idle) and screenshots. run_app() is create +
// run; tests drive frames one by one.
#pragma once

#include "render/render_target.h"
#include "ui/app.h"
#include "ui/workspace.h"

#include <chrono>
#include <memory>
#include <string>

namespace cp::ui {

class AppHost {
public:
    // Window or headless per options.headless. Fails (with a hint) when no GL context can be made.
    static Result<std::unique_ptr<AppHost>> create(const AppOptions& options, const BackendFactory& backend_factory = {});
    ~AppHost();
    AppHost(const AppHost&) = delete;
    AppHost& operator=(const AppHost&) = delete;

    // Draws one frame. Headless: first waits for a run in flight, so each frame shows settled results.
    void frame();
    // Draws one frame without waiting for a run, headless too (tests of a server that stops answering: the
    // frames must go on).
    void draw_frame();
    // Until the window closes (or options.frames are drawn); then the screenshot, if asked. Exit code.
    int run();
    // The window's event loop for `seconds` (tests: an idle window must not spin). Returns frames drawn.
    int run_for(double seconds);
    Result<Image> screenshot() { return target_->read_pixels(); }

    Workspace& workspace() { return *workspace_; }
    render::RenderTarget& target() { return *target_; }
    double seconds() const;
    // CPU time of the last frame's UI work and drawing (not the swap / vsync wait), ms.
    double last_frame_cpu_ms() const { return last_frame_cpu_ms_; }

private:
    AppHost() = default;
    // Waits for events when idle; draws when input arrived or the workspace needs a frame.
    void event_loop(int max_frames, double max_seconds);
    // Headless --sanitize: prints the findings and the marked lines; 0 clean, 2 findings, 1 could not run.
    int report_sanitized();

    AppOptions options_;
    std::unique_ptr<render::RenderTarget> target_;
    std::unique_ptr<Workspace> workspace_;
    std::string ini_path_;
    bool imgui_ready_ = false;
    std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
    double last_frame_cpu_ms_ = 0;
    int frames_drawn_ = 0;
};

}  // namespace cp::ui
