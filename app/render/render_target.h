// Where frames are drawn: a GLFW window or a headless EGL context rendering into an offscreen framebuffer.
// Both give an OpenGL 4.5 core context with glad loaded and drive Dear ImGui's platform side; the UI above
// them is the same code.
#pragma once

#include "core/data/image_io.h"
#include "core/result.h"

#include <memory>
#include <string>

namespace cp::render {

struct TargetOptions {
    int width = 1600, height = 1000;  // window size in screen coordinates / framebuffer size in pixels
    std::string title = "CUDA Playground";
};

class RenderTarget {
public:
    virtual ~RenderTarget() = default;

    virtual bool headless() const = 0;
    // "GLFW window (X11) — Mesa llvmpipe, OpenGL 4.5" etc., for the Device panel and logs.
    virtual std::string describe() const = 0;

    // Connects / disconnects Dear ImGui's platform side (input, display size). Needs a current ImGui context.
    virtual void attach_imgui() = 0;
    virtual void detach_imgui() = 0;

    // Before ImGui::NewFrame: feeds input, display size, time step.
    virtual void begin_frame() = 0;
    // Binds the framebuffer the UI is drawn into and sets the viewport to its full size.
    virtual void bind_framebuffer() = 0;
    // After drawing: shows the frame (swap) or nothing (headless).
    virtual void present() = 0;

    virtual bool close_requested() const = 0;
    virtual void request_close() = 0;
    // Sleeps until input arrives, wake() is called, or timeout_s passes (0: only polls). Returns whether
    // input arrived (or wake() was called). Headless: returns false at once.
    virtual bool wait_events(double timeout_s) = 0;
    // Thread-safe: ends a wait_events early (a run finished on the worker thread).
    virtual void wake() = 0;
    // Presentation mode: the window covers the monitor it is on (true) or goes back to its place and size.
    // Headless targets keep their size.
    virtual void set_fullscreen(bool on) = 0;
    // Display scale for HiDPI (1 on ordinary screens and headless).
    virtual float content_scale() const = 0;

    // The last drawn frame, top row first, RGBA8.
    virtual Result<Image> read_pixels() = 0;
};

// Fails with a plain hint when there is no display (suggesting --headless) or no OpenGL 4.5.
Result<std::unique_ptr<RenderTarget>> make_window_target(const TargetOptions& options);
// EGL without any display server: the device platform (NVIDIA, Mesa software) or Mesa's surfaceless one.
Result<std::unique_ptr<RenderTarget>> make_headless_target(const TargetOptions& options);

// Why a window cannot be opened here, before trying (no DISPLAY / WAYLAND_DISPLAY); empty if one may be.
std::string why_no_display();

// Writes an RGBA8 image as PNG (stb_image_write).
Result<bool> write_png(const std::string& path, const Image& image);

}  // namespace cp::render
