// Headless rendering: an EGL OpenGL 4.5 core context with no surface (no X server, no Xvfb) drawing the UI
// into an offscreen framebuffer, read back for screenshots. Tries the EGL device platform first (NVIDIA
// on the GPU machine, Mesa's software device elsewhere), then Mesa's surfaceless platform.
#include "render/render_target.h"

#include "render/gl_objects.h"

#include <glad/egl.h>
#include <glad/gl.h>

#include <imgui.h>

#include <cstdio>
#include <utility>
#include <vector>

namespace cp::render {
namespace {

std::string egl_error_text() {
    char buf[32];
    std::snprintf(buf, sizeof buf, "EGL error 0x%04X", static_cast<unsigned>(eglGetError()));
    return buf;
}

struct EglCandidate {
    EGLDisplay display = EGL_NO_DISPLAY;
    std::string label;
};

// Every display worth trying, best first. Needs the client extensions loaded (gladLoaderLoadEGL(NO_DISPLAY)).
std::vector<EglCandidate> candidate_displays() {
    std::vector<EglCandidate> out;
    if (GLAD_EGL_EXT_device_enumeration && GLAD_EGL_EXT_platform_device && eglQueryDevicesEXT) {
        EGLDeviceEXT devices[16];
        EGLint count = 0;
        if (eglQueryDevicesEXT(16, devices, &count)) {
            for (EGLint i = 0; i < count; ++i) {
                EGLDisplay d = eglGetPlatformDisplayEXT(EGL_PLATFORM_DEVICE_EXT, devices[i], nullptr);
                if (d != EGL_NO_DISPLAY) out.push_back({d, "EGL device " + std::to_string(i)});
            }
        }
    }
    if (GLAD_EGL_MESA_platform_surfaceless && eglGetPlatformDisplayEXT) {
        EGLDisplay d = eglGetPlatformDisplayEXT(EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY, nullptr);
        if (d != EGL_NO_DISPLAY) out.push_back({d, "EGL surfaceless platform"});
    }
    EGLDisplay d = eglGetDisplay(EGL_DEFAULT_DISPLAY);
    if (d != EGL_NO_DISPLAY) out.push_back({d, "EGL default display"});
    return out;
}

// An OpenGL 4.5 core context without a surface on `display`, or EGL_NO_CONTEXT.
EGLContext create_context(EGLDisplay display, std::string& why) {
    EGLint major = 0, minor = 0;
    if (!eglInitialize(display, &major, &minor)) {
        why = "eglInitialize failed (" + egl_error_text() + ")";
        return EGL_NO_CONTEXT;
    }
    gladLoaderLoadEGL(display);  // display extensions (surfaceless context) now known
    if (!GLAD_EGL_KHR_surfaceless_context) {
        why = "no EGL_KHR_surfaceless_context";
        eglTerminate(display);
        return EGL_NO_CONTEXT;
    }
    if (!eglBindAPI(EGL_OPENGL_API)) {
        why = "desktop OpenGL not offered";
        eglTerminate(display);
        return EGL_NO_CONTEXT;
    }
    // We never draw to an EGL surface (only to our framebuffer object); a pbuffer-capable config is merely
    // the one every implementation offers. Without any, EGL_KHR_no_config_context accepts none.
    const EGLint config_attribs[] = {EGL_SURFACE_TYPE, EGL_PBUFFER_BIT, EGL_RENDERABLE_TYPE, EGL_OPENGL_BIT,
                                     EGL_RED_SIZE, 8, EGL_GREEN_SIZE, 8, EGL_BLUE_SIZE, 8, EGL_ALPHA_SIZE, 8,
                                     EGL_NONE};
    EGLConfig config = nullptr;
    EGLint configs = 0;
    if (!eglChooseConfig(display, config_attribs, &config, 1, &configs)) configs = 0;
    const EGLint context_attribs[] = {EGL_CONTEXT_MAJOR_VERSION, 4, EGL_CONTEXT_MINOR_VERSION, 5,
                                      EGL_CONTEXT_OPENGL_PROFILE_MASK, EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT,
                                      // a debug context only when asked (CUDA_PLAYGROUND_GL_DEBUG)
                                      gl_debug_requested() ? EGL_CONTEXT_OPENGL_DEBUG : EGL_NONE, EGL_TRUE,
                                      EGL_NONE};
    EGLContext ctx = eglCreateContext(display, configs > 0 ? config : nullptr, EGL_NO_CONTEXT, context_attribs);
    if (ctx == EGL_NO_CONTEXT) {
        why = "no OpenGL 4.5 core context (" + egl_error_text() + ")";
        eglTerminate(display);
        return EGL_NO_CONTEXT;
    }
    if (!eglMakeCurrent(display, EGL_NO_SURFACE, EGL_NO_SURFACE, ctx)) {
        why = "eglMakeCurrent without a surface failed (" + egl_error_text() + ")";
        eglDestroyContext(display, ctx);
        eglTerminate(display);
        return EGL_NO_CONTEXT;
    }
    return ctx;
}

class HeadlessTarget final : public RenderTarget {
public:
    HeadlessTarget(EGLDisplay display, EGLContext context, std::string label, std::string skipped, int width, int height)
        : display_(display), context_(context), label_(std::move(label)), skipped_(std::move(skipped)), width_(width),
          height_(height) {
        color_ = Texture::create_2d(GL_RGBA8, width, height, 1);
        glCreateFramebuffers(1, &fbo_);
        glNamedFramebufferTexture(fbo_, GL_COLOR_ATTACHMENT0, color_.id(), 0);
    }
    ~HeadlessTarget() override {
        glDeleteFramebuffers(1, &fbo_);
        color_ = Texture();
        eglMakeCurrent(display_, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
        eglDestroyContext(display_, context_);
        eglTerminate(display_);
    }

    bool framebuffer_complete() const {
        return glCheckNamedFramebufferStatus(fbo_, GL_FRAMEBUFFER) == GL_FRAMEBUFFER_COMPLETE;
    }

    bool headless() const override { return true; }
    std::string describe() const override {
        auto str = [](GLenum e) {
            const auto* s = reinterpret_cast<const char*>(glGetString(e));
            return std::string(s ? s : "?");
        };
        std::string d = "headless " + label_ + " - " + str(GL_RENDERER) + ", OpenGL " + str(GL_VERSION);
        if (!skipped_.empty()) d += " (skipped:" + skipped_ + ")";
        return d;
    }
    void attach_imgui() override { ImGui::GetIO().BackendPlatformName = "cp_headless_egl"; }
    void detach_imgui() override { ImGui::GetIO().BackendPlatformName = nullptr; }
    void begin_frame() override {
        ImGuiIO& io = ImGui::GetIO();
        io.DisplaySize = ImVec2(float(width_), float(height_));
        io.DisplayFramebufferScale = ImVec2(1, 1);
        io.DeltaTime = 1.0f / 60.0f;  // a steady clock makes screenshots reproducible
    }
    void bind_framebuffer() override {
        glBindFramebuffer(GL_FRAMEBUFFER, fbo_);
        glViewport(0, 0, width_, height_);
    }
    void present() override { glFinish(); }
    bool close_requested() const override { return close_; }
    void request_close() override { close_ = true; }
    bool wait_events(double) override { return false; }
    void wake() override {}
    void set_fullscreen(bool) override {}
    float content_scale() const override { return 1.0f; }

    Result<Image> read_pixels() override {
        Image img;
        img.width = width_;
        img.height = height_;
        img.channels = 4;
        img.pixels.resize(size_t(width_) * height_ * 4);
        glBindFramebuffer(GL_READ_FRAMEBUFFER, fbo_);
        glPixelStorei(GL_PACK_ALIGNMENT, 1);
        glReadPixels(0, 0, width_, height_, GL_RGBA, GL_UNSIGNED_BYTE, img.pixels.data());
        if (glGetError() != GL_NO_ERROR)
            return make_error(ErrorKind::Internal, "reading the offscreen framebuffer failed");
        flip_rows(img);  // GL's origin is the bottom-left corner; images start at the top
        return img;
    }

private:
    EGLDisplay display_;
    EGLContext context_;
    std::string label_, skipped_;
    int width_, height_;
    Texture color_;
    GLuint fbo_ = 0;
    bool close_ = false;
};

}  // namespace

Result<std::unique_ptr<RenderTarget>> make_headless_target(const TargetOptions& options) {
    if (!gladLoaderLoadEGL(EGL_NO_DISPLAY))
        return make_error(ErrorKind::Unsupported, "cannot load libEGL.so.1 for headless rendering",
                          "install an EGL implementation (Debian: libegl1 and libegl-mesa0; NVIDIA: the driver's "
                          "EGL vendor library)");
    std::string tried;
    for (const EglCandidate& c : candidate_displays()) {
        std::string why;
        EGLContext ctx = create_context(c.display, why);
        if (ctx == EGL_NO_CONTEXT) {
            tried += " " + c.label + ": " + why + ";";
            continue;
        }
        if (!gladLoadGL(reinterpret_cast<GLADloadfunc>(eglGetProcAddress))) {
            tried += " " + c.label + ": OpenGL functions could not be loaded;";
            eglMakeCurrent(c.display, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
            eglDestroyContext(c.display, ctx);
            eglTerminate(c.display);
            continue;
        }
        install_gl_debug_log();
        auto target = std::make_unique<HeadlessTarget>(c.display, ctx, c.label, tried, options.width, options.height);
        if (!target->framebuffer_complete()) {
            tried += " " + c.label + ": offscreen framebuffer incomplete;";
            continue;
        }
        return std::unique_ptr<RenderTarget>(std::move(target));
    }
    return make_error(
        ErrorKind::Unsupported,
        "no headless OpenGL 4.5 context could be created:" + (tried.empty() ? std::string(" no EGL display") : tried),
        "on machines without a GPU install Mesa (libegl-mesa0, libgl1-mesa-dri); EGL_PLATFORM=surfaceless "
        "may help");
}

}  // namespace cp::render
