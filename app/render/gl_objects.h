// Small owning wrappers for OpenGL objects (textures, buffers, shader programs) and pixel helpers.
#pragma once

#include "core/data/image_io.h"
#include "core/result.h"

#include <glad/gl.h>

#include <string>
#include <utility>

namespace cp::render {

// An immutable-storage 2D texture (glTextureStorage2D); deleted with the object.
class Texture {
public:
    Texture() = default;
    static Texture create_2d(GLenum internal_format, int width, int height, int levels);
    ~Texture() { reset(); }
    Texture(Texture&& o) noexcept { *this = std::move(o); }
    Texture& operator=(Texture&& o) noexcept {
        if (this != &o) {
            reset();
            std::swap(id_, o.id_);
            width_ = o.width_;
            height_ = o.height_;
            levels_ = o.levels_;
            format_ = o.format_;
        }
        return *this;
    }
    Texture(const Texture&) = delete;
    Texture& operator=(const Texture&) = delete;

    GLuint id() const { return id_; }
    int width() const { return width_; }
    int height() const { return height_; }
    int levels() const { return levels_; }
    GLenum internal_format() const { return format_; }
    explicit operator bool() const { return id_ != 0; }
    void reset();
    // Sharp texels when magnified (pixel peeping), smooth otherwise; minification always uses mipmaps.
    void set_nearest_magnification(bool nearest) const;

private:
    GLuint id_ = 0;
    int width_ = 0, height_ = 0, levels_ = 1;
    GLenum format_ = 0;
};

// An RGBA8 texture holding `pixels` (width x height, 4 bytes each), sharp when magnified: overlays and charts
// made on the CPU.
Texture texture_from_rgba8(const uint8_t* pixels, int width, int height);

// A linked shader program; deleted with the object.
class Program {
public:
    Program() = default;
    // Compiles and links; the error carries the driver's log.
    static Result<Program> compile(const std::string& vertex_source, const std::string& fragment_source);
    static Result<Program> compile_compute(const std::string& compute_source);
    ~Program() { reset(); }
    Program(Program&& o) noexcept { std::swap(id_, o.id_); }
    Program& operator=(Program&& o) noexcept {
        if (this != &o) {
            reset();
            std::swap(id_, o.id_);
        }
        return *this;
    }
    Program(const Program&) = delete;
    Program& operator=(const Program&) = delete;

    GLuint id() const { return id_; }
    GLint uniform(const char* name) const { return glGetUniformLocation(id_, name); }
    void reset();

private:
    GLuint id_ = 0;
};

// Reverses the row order in place (GL's bottom-up rows <-> images' top-down rows).
void flip_rows(Image& image);

// Number of mip levels for a full chain down to 1x1.
int mip_levels_for(int width, int height);

// CUDA_PLAYGROUND_GL_DEBUG=1: contexts are created as debug contexts and the driver's KHR_debug messages
// (errors, performance warnings, notes) go to stderr, prefixed "[gl]".
bool gl_debug_requested();
// Routes the current context's debug messages to stderr when requested; does nothing otherwise.
void install_gl_debug_log();

}  // namespace cp::render
