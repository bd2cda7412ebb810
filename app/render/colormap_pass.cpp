// The colormap pass: GLSL for the display (normalise, channel, colormap) and for the min/max reduction
// (a compute shader: per-workgroup shared-memory reduction, one atomic per group), plus the colormap table.
#include "render/colormap_pass.h"

#include "core/data/colormap.h"
#include "render/display_probe.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>

namespace cp::render {
namespace {

const char* sampler_decl(SamplerKind k) {
    switch (k) {
        case SamplerKind::Float: return "#define SAMPLER sampler2D\n";
        case SamplerKind::Int: return "#define SAMPLER isampler2D\n";
        case SamplerKind::UInt: return "#define SAMPLER usampler2D\n";
    }
    return "";
}

// The display pass is a compute shader, not a full-screen triangle: on an H100 only a couple of its TPCs run
// pixel shaders, and a 4K triangle pass plus glGenerateTextureMipmap took 0.60 + 0.26 ms of every frame, time
// the next kernel launch waited behind. Compute runs on every SM. Each invocation colours a 2x2 patch and
// writes its average into level 1 as well, so the mip chain starts one level down.
const char* kDisplayCompute = R"(
layout(local_size_x = 16, local_size_y = 16) in;
layout(binding = 0) uniform SAMPLER source;
layout(binding = 1) uniform sampler2D lut;
layout(rgba8, binding = 0) writeonly uniform image2D level0;
layout(rgba8, binding = 1) writeonly uniform image2D level1;
uniform int channel;        // -1: colour
uniform int components;
uniform int colormap_row;
uniform int colormap_rows;
uniform float value_scale;
uniform float lo, hi;
uniform bool show_alpha;
uniform bool has_level1;
vec4 shade(ivec2 p) {
    vec4 v = vec4(texelFetch(source, p, 0)) * value_scale;
    float span = hi > lo ? hi - lo : 1.0;
    if (channel >= 0 || components == 1) {
        int c = max(channel, 0);
        if (isnan(v[c])) return vec4(1.0, 0.0, 1.0, 1.0);  // NaN shows magenta
        float t = clamp((v[c] - lo) / span, 0.0, 1.0);
        float row = (float(colormap_row) + 0.5) / float(colormap_rows);
        return vec4(textureLod(lut, vec2((t * 255.0 + 0.5) / 256.0, row), 0.0).rgb, 1.0);
    }
    vec3 rgb = clamp((v.rgb - lo) / span, 0.0, 1.0);
    if (components == 2) rgb.b = 0.0;
    float a = (components == 4 && show_alpha) ? clamp((v.a - lo) / span, 0.0, 1.0) : 1.0;
    return vec4(rgb, a);
}
void main() {
    ivec2 size = textureSize(source, 0);
    ivec2 base = ivec2(gl_GlobalInvocationID.xy) * 2;
    vec4 sum = vec4(0.0);
    float n = 0.0;
    for (int dy = 0; dy < 2; ++dy) for (int dx = 0; dx < 2; ++dx) {
        ivec2 p = base + ivec2(dx, dy);
        if (p.x >= size.x || p.y >= size.y) continue;
        vec4 c = shade(p);
        imageStore(level0, p, c);
        sum += c;
        n += 1.0;
    }
    ivec2 half_size = max(size / 2, ivec2(1));
    if (has_level1 && n > 0.0 && gl_GlobalInvocationID.x < uint(half_size.x) && gl_GlobalInvocationID.y < uint(half_size.y))
        imageStore(level1, ivec2(gl_GlobalInvocationID.xy), sum / n);
}
)";

// One mip level from the one above: the average of (up to) 2x2 texels, as glGenerateTextureMipmap's box filter.
const char* kDownsampleCompute = R"(#version 450 core
layout(local_size_x = 16, local_size_y = 16) in;
layout(rgba8, binding = 0) readonly uniform image2D above;
layout(rgba8, binding = 1) writeonly uniform image2D below;
void main() {
    ivec2 p = ivec2(gl_GlobalInvocationID.xy);
    ivec2 out_size = imageSize(below), in_size = imageSize(above);
    if (p.x >= out_size.x || p.y >= out_size.y) return;
    vec4 sum = vec4(0.0);
    float n = 0.0;
    for (int dy = 0; dy < 2; ++dy) for (int dx = 0; dx < 2; ++dx) {
        ivec2 q = p * 2 + ivec2(dx, dy);
        if (q.x >= in_size.x || q.y >= in_size.y) continue;
        sum += imageLoad(above, q);
        n += 1.0;
    }
    imageStore(below, p, sum / max(n, 1.0));
}
)";

const char* kRangeCompute = R"(
layout(local_size_x = 16, local_size_y = 16) in;
layout(binding = 0) uniform SAMPLER source;
layout(std430, binding = 0) buffer Range { uint lo_key; uint hi_key; };
uniform int channel;
uniform int components;
uniform float value_scale;
shared float s_lo[256];
shared float s_hi[256];
// Floats mapped to uints whose order matches the floats' (so atomicMin/Max work on them).
uint ordered(float f) {
    uint u = floatBitsToUint(f);
    return (u & 0x80000000u) != 0u ? ~u : (u | 0x80000000u);
}
void main() {
    ivec2 size = textureSize(source, 0);
    float lo = 3.4e38, hi = -3.4e38;
    // Each invocation covers a 4x4 patch so big images need few groups.
    ivec2 base = ivec2(gl_GlobalInvocationID.xy) * 4;
    for (int dy = 0; dy < 4; ++dy) for (int dx = 0; dx < 4; ++dx) {
        ivec2 p = base + ivec2(dx, dy);
        if (p.x >= size.x || p.y >= size.y) continue;
        vec4 v = vec4(texelFetch(source, p, 0)) * value_scale;
        int first = channel >= 0 ? channel : 0;
        int last = channel >= 0 ? channel : min(components, 3) - 1;
        for (int c = first; c <= last; ++c) {
            if (isnan(v[c]) || isinf(v[c])) continue;
            lo = min(lo, v[c]);
            hi = max(hi, v[c]);
        }
    }
    uint i = gl_LocalInvocationIndex;
    s_lo[i] = lo;
    s_hi[i] = hi;
    barrier();
    for (uint stride = 128u; stride > 0u; stride >>= 1) {
        if (i < stride) {
            s_lo[i] = min(s_lo[i], s_lo[i + stride]);
            s_hi[i] = max(s_hi[i], s_hi[i + stride]);
        }
        barrier();
    }
    if (i == 0u && s_lo[0] <= s_hi[0]) {
        atomicMin(lo_key, ordered(s_lo[0]));
        atomicMax(hi_key, ordered(s_hi[0]));
    }
}
)";

float from_ordered(uint32_t key) {
    uint32_t u = (key & 0x80000000u) ? (key & 0x7fffffffu) : ~key;
    float f;
    std::memcpy(&f, &u, sizeof f);
    return f;
}

}  // namespace

// The same tables the PNG export uses (core/colormap), so a saved view and the window agree.
const std::vector<std::string>& colormap_names() { return cp::colormap_names(); }

Colormap colormap_from_name(const std::string& name) {
    const auto& n = colormap_names();
    auto it = std::find(n.begin(), n.end(), name);
    return it == n.end() ? Colormap::Gray : Colormap(it - n.begin());
}

Result<std::unique_ptr<ColormapPass>> ColormapPass::create() {
    std::unique_ptr<ColormapPass> pass(new ColormapPass());
    for (SamplerKind k : {SamplerKind::Float, SamplerKind::Int, SamplerKind::UInt}) {
        const std::string header = std::string("#version 450 core\n") + sampler_decl(k);
        auto display = Program::compile_compute(header + kDisplayCompute);
        if (!display) return display.error();
        auto range = Program::compile_compute(header + kRangeCompute);
        if (!range) return range.error();
        pass->display_[int(k)] = std::move(*display);
        pass->range_[int(k)] = std::move(*range);
    }
    const int rows = int(colormap_names().size());
    std::vector<uint8_t> table;
    table.reserve(size_t(rows) * 256 * 4);
    for (const std::string& name : colormap_names())
        for (const auto& entry : colormap_table(name)) table.insert(table.end(), entry.begin(), entry.end());
    auto downsample = Program::compile_compute(kDownsampleCompute);
    if (!downsample) return downsample.error();
    pass->downsample_ = std::move(*downsample);
    pass->lut_ = Texture::create_2d(GL_RGBA8, 256, rows, 1);
    glTextureSubImage2D(pass->lut_.id(), 0, 0, 0, 256, rows, GL_RGBA, GL_UNSIGNED_BYTE, table.data());
    glCreateBuffers(1, &pass->range_buffer_);
    glNamedBufferStorage(pass->range_buffer_, 8, nullptr, GL_DYNAMIC_STORAGE_BIT);
    return pass;
}

ColormapPass::~ColormapPass() {
    glDeleteBuffers(1, &range_buffer_);
}

ValueRange ColormapPass::value_range(const BufferTexture& source, int channel) {
    const TexelFormat& f = source.format();
    const Program& prog = range_[int(f.sampler)];
    const uint32_t init[2] = {0xffffffffu, 0u};
    glNamedBufferSubData(range_buffer_, 0, sizeof init, init);
    glUseProgram(prog.id());
    glUniform1i(prog.uniform("channel"), shown_channel(channel, f));
    glUniform1i(prog.uniform("components"), f.data_components);
    glUniform1f(prog.uniform("value_scale"), f.value_scale);
    glBindTextureUnit(0, source.texture().id());
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 0, range_buffer_);
    const int patch = 16 * 4;
    glDispatchCompute(GLuint((source.width() + patch - 1) / patch), GLuint((source.height() + patch - 1) / patch), 1);
    glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT);
    uint32_t keys[2] = {0, 0};
    glGetNamedBufferSubData(range_buffer_, 0, sizeof keys, keys);
    glUseProgram(0);
    ValueRange r;
    if (keys[0] == 0xffffffffu && keys[1] == 0u) return r;  // no finite value
    r.min = from_ordered(keys[0]);
    r.max = from_ordered(keys[1]);
    r.valid = true;
    return r;
}

void ColormapPass::render(const BufferTexture& source, const DisplaySettings& settings, ValueRange range,
                          Texture& display) {
    const TexelFormat& f = source.format();
    if (!display || display.width() != source.width() || display.height() != source.height())
        display = Texture::create_2d(GL_RGBA8, source.width(), source.height(),
                                     mip_levels_for(source.width(), source.height()));
    if (display_faults().pass) return;  // a test's broken display path: the texture keeps what it had
    double lo = settings.range_min, hi = settings.range_max;
    if (settings.auto_range && range.valid) {
        lo = range.min;
        hi = range.max;
    }
    const Program& prog = display_[int(f.sampler)];
    const bool has_level1 = display.levels() > 1;
    glUseProgram(prog.id());
    glUniform1i(prog.uniform("channel"), shown_channel(settings.channel, f));
    glUniform1i(prog.uniform("components"), f.data_components);
    glUniform1i(prog.uniform("colormap_row"), int(settings.colormap));
    glUniform1i(prog.uniform("colormap_rows"), int(colormap_names().size()));
    glUniform1f(prog.uniform("value_scale"), f.value_scale);
    glUniform1f(prog.uniform("lo"), float(lo));
    glUniform1f(prog.uniform("hi"), float(hi));
    glUniform1i(prog.uniform("show_alpha"), settings.show_alpha ? 1 : 0);
    glUniform1i(prog.uniform("has_level1"), has_level1 ? 1 : 0);
    glBindTextureUnit(0, source.texture().id());
    glBindTextureUnit(1, lut_.id());
    glBindImageTexture(0, display.id(), 0, GL_FALSE, 0, GL_WRITE_ONLY, GL_RGBA8);
    glBindImageTexture(1, display.id(), has_level1 ? 1 : 0, GL_FALSE, 0, GL_WRITE_ONLY, GL_RGBA8);
    const int group = 16 * 2;  // each invocation colours 2x2 texels
    glDispatchCompute(GLuint((source.width() + group - 1) / group), GLuint((source.height() + group - 1) / group), 1);
    // Levels 2 and below, each from the one above.
    if (display.levels() > 2) glUseProgram(downsample_.id());
    for (int level = 2; level < display.levels(); ++level) {
        glMemoryBarrier(GL_SHADER_IMAGE_ACCESS_BARRIER_BIT);
        const int w = std::max(1, display.width() >> level), h = std::max(1, display.height() >> level);
        glBindImageTexture(0, display.id(), level - 1, GL_FALSE, 0, GL_READ_ONLY, GL_RGBA8);
        glBindImageTexture(1, display.id(), level, GL_FALSE, 0, GL_WRITE_ONLY, GL_RGBA8);
        glDispatchCompute(GLuint((w + 15) / 16), GLuint((h + 15) / 16), 1);
    }
    // Everything that samples the texture afterwards (ImGui's draw, a read-back) sees the stores.
    glMemoryBarrier(GL_TEXTURE_FETCH_BARRIER_BIT | GL_TEXTURE_UPDATE_BARRIER_BIT | GL_FRAMEBUFFER_BARRIER_BIT);
    glBindImageTexture(0, 0, 0, GL_FALSE, 0, GL_READ_ONLY, GL_RGBA8);
    glBindImageTexture(1, 0, 0, GL_FALSE, 0, GL_READ_ONLY, GL_RGBA8);
    glUseProgram(0);
}

}  // namespace cp::render
