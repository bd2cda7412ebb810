// The desktop window: GLFW with an OpenGL 4.5 core context, Dear ImGui's GLFW platform backend, and
// event waiting so an idle window costs no CPU.
#include "render/render_target.h"

#include "render/gl_objects.h"

#include <glad/gl.h>
#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>

#include <imgui.h>
#include <imgui_impl_glfw.h>

#include <atomic>
#include <cstdlib>
#include <string>

namespace cp::render {
namespace {

std::string last_glfw_error;

void remember_glfw_error(int code, const char* description) {
    last_glfw_error = std::string(description ? description : "unknown") + " (GLFW error " + std::to_string(code) + ")";
}

class WindowTarget final : public RenderTarget {
public:
    explicit WindowTarget(GLFWwindow* window) : window_(window) {
        // Installed before ImGui's GLFW backend, which chains to them: they only note that input arrived,
        // so an idle timeout that passed without any is not worth a frame.
        glfwSetWindowUserPointer(window_, this);
        glfwSetCursorPosCallback(window_, [](GLFWwindow* w, double, double) { noted(w); });
        glfwSetMouseButtonCallback(window_, [](GLFWwindow* w, int, int, int) { noted(w); });
        glfwSetScrollCallback(window_, [](GLFWwindow* w, double, double) { noted(w); });
        glfwSetKeyCallback(window_, [](GLFWwindow* w, int, int, int, int) { noted(w); });
        glfwSetCharCallback(window_, [](GLFWwindow* w, unsigned) { noted(w); });
        glfwSetCursorEnterCallback(window_, [](GLFWwindow* w, int) { noted(w); });
        glfwSetWindowFocusCallback(window_, [](GLFWwindow* w, int) { noted(w); });
        glfwSetWindowSizeCallback(window_, [](GLFWwindow* w, int, int) { noted(w); });
        glfwSetWindowRefreshCallback(window_, [](GLFWwindow* w) { noted(w); });
        glfwSetWindowContentScaleCallback(window_, [](GLFWwindow* w, float, float) { noted(w); });
    }
    ~WindowTarget() override {
        glfwDestroyWindow(window_);
        glfwTerminate();
    }

    bool headless() const override { return false; }
    std::string describe() const override {
        auto str = [](GLenum e) {
            const auto* s = reinterpret_cast<const char*>(glGetString(e));
            return std::string(s ? s : "?");
        };
        return std::string("GLFW window - ") + str(GL_RENDERER) + ", OpenGL " + str(GL_VERSION);
    }
    void attach_imgui() override { ImGui_ImplGlfw_InitForOpenGL(window_, true); }
    void detach_imgui() override { ImGui_ImplGlfw_Shutdown(); }
    void begin_frame() override { ImGui_ImplGlfw_NewFrame(); }
    void bind_framebuffer() override {
        int w = 0, h = 0;
        glfwGetFramebufferSize(window_, &w, &h);
        glBindFramebuffer(GL_FRAMEBUFFER, 0);
        glViewport(0, 0, w, h);
    }
    void present() override { glfwSwapBuffers(window_); }
    bool close_requested() const override { return glfwWindowShouldClose(window_); }
    void request_close() override { glfwSetWindowShouldClose(window_, GLFW_TRUE); }
    bool wait_events(double timeout_s) override {
        if (timeout_s <= 0) glfwPollEvents();
        else glfwWaitEventsTimeout(timeout_s);
        return input_.exchange(false);
    }
    void wake() override {
        input_ = true;
        glfwPostEmptyEvent();
    }
    void set_fullscreen(bool on) override {
        if (on == (glfwGetWindowMonitor(window_) != nullptr)) return;
        if (!on) {
            glfwSetWindowMonitor(window_, nullptr, windowed_[0], windowed_[1], windowed_[2], windowed_[3], 0);
            return;
        }
        glfwGetWindowPos(window_, &windowed_[0], &windowed_[1]);
        glfwGetWindowSize(window_, &windowed_[2], &windowed_[3]);
        GLFWmonitor* monitor = monitor_under_window();
        if (!monitor) return;
        const GLFWvidmode* mode = glfwGetVideoMode(monitor);
        if (mode) glfwSetWindowMonitor(window_, monitor, 0, 0, mode->width, mode->height, mode->refreshRate);
    }
    float content_scale() const override {
        float x = 1, y = 1;
        glfwGetWindowContentScale(window_, &x, &y);
        return x > 0 ? x : 1.0f;
    }
    Result<Image> read_pixels() override {
        int w = 0, h = 0;
        glfwGetFramebufferSize(window_, &w, &h);
        Image img;
        img.width = w;
        img.height = h;
        img.channels = 4;
        img.pixels.resize(size_t(w) * h * 4);
        glBindFramebuffer(GL_READ_FRAMEBUFFER, 0);
        glReadBuffer(GL_BACK);  // the frame just drawn, before or after the swap of its copy
        glPixelStorei(GL_PACK_ALIGNMENT, 1);
        glReadPixels(0, 0, w, h, GL_RGBA, GL_UNSIGNED_BYTE, img.pixels.data());
        if (glGetError() != GL_NO_ERROR)
            return make_error(ErrorKind::Internal, "reading the window's framebuffer failed");
        flip_rows(img);
        return img;
    }

private:
    // The monitor holding the window's centre (a projector is often the second one), else the primary.
    GLFWmonitor* monitor_under_window() const {
        int x = 0, y = 0, w = 0, h = 0, count = 0;
        glfwGetWindowPos(window_, &x, &y);
        glfwGetWindowSize(window_, &w, &h);
        GLFWmonitor** monitors = glfwGetMonitors(&count);
        for (int i = 0; i < count; ++i) {
            int mx = 0, my = 0;
            glfwGetMonitorPos(monitors[i], &mx, &my);
            const GLFWvidmode* mode = glfwGetVideoMode(monitors[i]);
            if (mode && x + w / 2 >= mx && x + w / 2 < mx + mode->width && y + h / 2 >= my && y + h / 2 < my + mode->height)
                return monitors[i];
        }
        return glfwGetPrimaryMonitor();
    }
    static void noted(GLFWwindow* w) { static_cast<WindowTarget*>(glfwGetWindowUserPointer(w))->input_ = true; }

    GLFWwindow* window_;
    std::atomic<bool> input_{true};
    int windowed_[4] = {0, 0, 1600, 1000};  // x, y, width, height before going full screen
};

}  // namespace

std::string why_no_display() {
    const char* x11 = std::getenv("DISPLAY");
    const char* wayland = std::getenv("WAYLAND_DISPLAY");
    if ((x11 && *x11) || (wayland && *wayland)) return {};
    return "there is no display to open a window on (DISPLAY and WAYLAND_DISPLAY are not set)";
}

Result<std::unique_ptr<RenderTarget>> make_window_target(const TargetOptions& options) {
    const std::string headless_hint =
        "run headless instead: cuda-playground --headless --screenshot out.png (EGL, no display needed), "
        "or start a virtual display: xvfb-run -a cuda-playground";
    if (std::string why = why_no_display(); !why.empty()) return make_error(ErrorKind::Unsupported, why, headless_hint);

    glfwSetErrorCallback(remember_glfw_error);
    if (!glfwInit())
        return make_error(ErrorKind::Unsupported, "GLFW could not start: " + last_glfw_error, headless_hint);

    glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 4);
    glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 5);
    glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
    glfwWindowHint(GLFW_OPENGL_FORWARD_COMPAT, GLFW_TRUE);
    glfwWindowHint(GLFW_SCALE_TO_MONITOR, GLFW_TRUE);  // HiDPI: the window keeps its apparent size
    glfwWindowHint(GLFW_OPENGL_DEBUG_CONTEXT, gl_debug_requested() ? GLFW_TRUE : GLFW_FALSE);
    GLFWwindow* window = glfwCreateWindow(options.width, options.height, options.title.c_str(), nullptr, nullptr);
    if (!window) {
        std::string why = last_glfw_error;
        glfwTerminate();
        return make_error(ErrorKind::Unsupported, "no window with OpenGL 4.5 core could be created: " + why,
                          "update the graphics driver (Mesa >= 20 or a vendor driver), or " + headless_hint);
    }
    glfwMakeContextCurrent(window);
    if (!gladLoadGL(glfwGetProcAddress)) {
        glfwDestroyWindow(window);
        glfwTerminate();
        return make_error(ErrorKind::Unsupported, "OpenGL functions could not be loaded in the new window",
                          headless_hint);
    }
    install_gl_debug_log();
    glfwSwapInterval(1);
    return std::unique_ptr<RenderTarget>(std::make_unique<WindowTarget>(window));
}

}  // namespace cp::render
