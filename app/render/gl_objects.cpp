// OpenGL object wrappers: creation, shader compilation with readable errors, row flipping.
#include "render/gl_objects.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace cp::render {

Texture texture_from_rgba8(const uint8_t* pixels, int width, int height) {
    Texture t = Texture::create_2d(GL_RGBA8, std::max(width, 1), std::max(height, 1), 1);
    if (width > 0 && height > 0) {
        glPixelStorei(GL_UNPACK_ALIGNMENT, 1);
        glTextureSubImage2D(t.id(), 0, 0, 0, width, height, GL_RGBA, GL_UNSIGNED_BYTE, pixels);
    }
    t.set_nearest_magnification(true);
    return t;
}

Texture Texture::create_2d(GLenum internal_format, int width, int height, int levels) {
    Texture t;
    glCreateTextures(GL_TEXTURE_2D, 1, &t.id_);
    glTextureStorage2D(t.id_, levels, internal_format, width, height);
    glTextureParameteri(t.id_, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
    glTextureParameteri(t.id_, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
    glTextureParameteri(t.id_, GL_TEXTURE_MIN_FILTER, levels > 1 ? GL_LINEAR_MIPMAP_LINEAR : GL_LINEAR);
    glTextureParameteri(t.id_, GL_TEXTURE_MAG_FILTER, GL_LINEAR);
    glTextureParameteri(t.id_, GL_TEXTURE_MAX_LEVEL, levels - 1);
    t.width_ = width;
    t.height_ = height;
    t.levels_ = levels;
    t.format_ = internal_format;
    return t;
}

void Texture::set_nearest_magnification(bool nearest) const {
    if (id_) glTextureParameteri(id_, GL_TEXTURE_MAG_FILTER, nearest ? GL_NEAREST : GL_LINEAR);
}

void Texture::reset() {
    if (id_) glDeleteTextures(1, &id_);
    id_ = 0;
}

namespace {

Result<GLuint> compile_stage(GLenum stage, const std::string& source) {
    GLuint shader = glCreateShader(stage);
    const char* text = source.c_str();
    glShaderSource(shader, 1, &text, nullptr);
    glCompileShader(shader);
    GLint ok = 0;
    glGetShaderiv(shader, GL_COMPILE_STATUS, &ok);
    if (!ok) {
        GLint length = 0;
        glGetShaderiv(shader, GL_INFO_LOG_LENGTH, &length);
        std::string log(size_t(std::max(length, 1)), '\0');
        glGetShaderInfoLog(shader, length, nullptr, log.data());
        glDeleteShader(shader);
        return make_error(ErrorKind::Internal, "an internal shader failed to compile: " + log);
    }
    return shader;
}

Result<GLuint> link(const std::vector<GLuint>& shaders) {
    GLuint program = glCreateProgram();
    for (GLuint s : shaders) glAttachShader(program, s);
    glLinkProgram(program);
    for (GLuint s : shaders) glDeleteShader(s);
    GLint ok = 0;
    glGetProgramiv(program, GL_LINK_STATUS, &ok);
    if (!ok) {
        GLint length = 0;
        glGetProgramiv(program, GL_INFO_LOG_LENGTH, &length);
        std::string log(size_t(std::max(length, 1)), '\0');
        glGetProgramInfoLog(program, length, nullptr, log.data());
        glDeleteProgram(program);
        return make_error(ErrorKind::Internal, "an internal shader failed to link: " + log);
    }
    return program;
}

}  // namespace

Result<Program> Program::compile(const std::string& vertex_source, const std::string& fragment_source) {
    auto vs = compile_stage(GL_VERTEX_SHADER, vertex_source);
    if (!vs) return vs.error();
    auto fs = compile_stage(GL_FRAGMENT_SHADER, fragment_source);
    if (!fs) {
        glDeleteShader(*vs);
        return fs.error();
    }
    auto linked = link({*vs, *fs});
    if (!linked) return linked.error();
    Program p;
    p.id_ = *linked;
    return p;
}

Result<Program> Program::compile_compute(const std::string& compute_source) {
    auto cs = compile_stage(GL_COMPUTE_SHADER, compute_source);
    if (!cs) return cs.error();
    auto linked = link({*cs});
    if (!linked) return linked.error();
    Program p;
    p.id_ = *linked;
    return p;
}

void Program::reset() {
    if (id_) glDeleteProgram(id_);
    id_ = 0;
}

void flip_rows(Image& image) {
    const size_t row = size_t(image.width) * image.channels;
    std::vector<uint8_t> tmp(row);
    for (int y = 0; y < image.height / 2; ++y) {
        uint8_t* a = image.pixels.data() + size_t(y) * row;
        uint8_t* b = image.pixels.data() + size_t(image.height - 1 - y) * row;
        std::copy(a, a + row, tmp.data());
        std::copy(b, b + row, a);
        std::copy(tmp.data(), tmp.data() + row, b);
    }
}

bool gl_debug_requested() {
    const char* v = std::getenv("CUDA_PLAYGROUND_GL_DEBUG");
    return v && *v && std::strcmp(v, "0") != 0;
}

namespace {

const char* debug_type_name(GLenum type) {
    switch (type) {
        case GL_DEBUG_TYPE_ERROR: return "error";
        case GL_DEBUG_TYPE_DEPRECATED_BEHAVIOR: return "deprecated";
        case GL_DEBUG_TYPE_UNDEFINED_BEHAVIOR: return "undefined behaviour";
        case GL_DEBUG_TYPE_PORTABILITY: return "portability";
        case GL_DEBUG_TYPE_PERFORMANCE: return "performance";
        case GL_DEBUG_TYPE_MARKER: return "marker";
        default: return "other";
    }
}

const char* debug_severity_name(GLenum severity) {
    switch (severity) {
        case GL_DEBUG_SEVERITY_HIGH: return "high";
        case GL_DEBUG_SEVERITY_MEDIUM: return "medium";
        case GL_DEBUG_SEVERITY_LOW: return "low";
        default: return "note";
    }
}

void GLAD_API_PTR print_debug_message(GLenum, GLenum type, GLuint id, GLenum severity, GLsizei, const GLchar* message,
                                      const void*) {
    std::fprintf(stderr, "[gl] %s (%s, id %u): %s\n", debug_type_name(type), debug_severity_name(severity), id,
                 message ? message : "");
}

}  // namespace

void install_gl_debug_log() {
    if (!gl_debug_requested() || !glDebugMessageCallback) return;
    glEnable(GL_DEBUG_OUTPUT);
    // Synchronous: a message is printed inside the call that caused it, so it lands next to that call's logs.
    glEnable(GL_DEBUG_OUTPUT_SYNCHRONOUS);
    glDebugMessageCallback(print_debug_message, nullptr);
    glDebugMessageControl(GL_DONT_CARE, GL_DONT_CARE, GL_DONT_CARE, 0, nullptr, GL_TRUE);
}

int mip_levels_for(int width, int height) {
    int levels = 1;
    while ((width | height) >> levels) ++levels;
    return levels;
}

}  // namespace cp::render
