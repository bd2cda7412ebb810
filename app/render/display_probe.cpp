// Reading a picture's texels back behind a fence (see display_probe.h).
#include "render/display_probe.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>

namespace cp::render {
namespace {

constexpr size_t kSourceBytes = 16;  // four 32-bit components
constexpr size_t kShownBytes = 4;    // RGBA8

std::atomic<bool> g_pass_fault{false}, g_upload_fault{false}, g_distrusted{false};

std::string colour_text(const std::array<uint8_t, 4>& c) {
    return std::to_string(c[0]) + "," + std::to_string(c[1]) + "," + std::to_string(c[2]) + "," + std::to_string(c[3]);
}

std::string value_text(const std::array<double, 4>& v) {
    auto one = [](double x) {
        char b[32];
        std::snprintf(b, sizeof b, "%g", x);
        return std::string(b);
    };
    return one(v[0]) + (v[1] != 0 || v[2] != 0 || v[3] != 1 ? " " + one(v[1]) + " " + one(v[2]) + " " + one(v[3]) : "");
}

}  // namespace

std::vector<ProbePoint> probe_points(int width, int height, int count, uint64_t seed) {
    std::vector<ProbePoint> p;
    if (width <= 0 || height <= 0 || count <= 0) return p;
    // Rows: the middle, the top, the bottom, then a golden-ratio walk over the picture.
    int y = height / 2;
    if (seed % 4 == 1) y = 0;
    else if (seed % 4 == 2) y = height - 1;
    else if (seed % 4 == 3) y = int(std::fmod(double(seed) * 0.6180339887, 1.0) * height);
    y = std::clamp(y, 0, height - 1);
    const int n = std::min(count, width);
    // Evenly spread from the first column to the last, the inner ones moved within their step from probe to probe
    // so that other columns are looked at too.
    const int64_t step = n > 1 ? int64_t(width - 1) / (n - 1) : 0;
    for (int i = 0; i < n; ++i) {
        int64_t x = n == 1 ? width / 2 : int64_t(i) * (width - 1) / (n - 1);
        if (i > 0 && i < n - 1 && step > 1) x += int64_t((seed * 37 + uint64_t(i) * 11) % uint64_t(step)) - step / 2;
        p.push_back({int(std::clamp<int64_t>(x, 0, width - 1)), y});
    }
    std::sort(p.begin(), p.end(), [](const ProbePoint& a, const ProbePoint& b) { return a.x < b.x; });
    return p;
}

DisplayProbe::DisplayProbe(const BufferTexture& source, const Texture& display, std::vector<ProbePoint> points)
    : points_(std::move(points)), sampler_(source.format().sampler), value_scale_(source.format().value_scale),
      started_(std::chrono::steady_clock::now()) {
    const size_t n = points_.size();
    glCreateBuffers(1, &buffer_);
    glNamedBufferStorage(buffer_, GLsizeiptr(std::max<size_t>(n, 1) * (kSourceBytes + kShownBytes)), nullptr, 0);
    glBindBuffer(GL_PIXEL_PACK_BUFFER, buffer_);
    glPixelStorei(GL_PACK_ALIGNMENT, 1);
    GLenum format = GL_RGBA, type = GL_FLOAT;
    if (sampler_ == SamplerKind::Int) format = GL_RGBA_INTEGER, type = GL_INT;
    if (sampler_ == SamplerKind::UInt) format = GL_RGBA_INTEGER, type = GL_UNSIGNED_INT;
    for (size_t i = 0; i < n; ++i) {
        const ProbePoint& q = points_[i];
        glGetTextureSubImage(source.texture().id(), 0, q.x, q.y, 0, 1, 1, 1, format, type, GLsizei(kSourceBytes),
                             reinterpret_cast<void*>(i * kSourceBytes));
        glGetTextureSubImage(display.id(), 0, q.x, q.y, 0, 1, 1, 1, GL_RGBA, GL_UNSIGNED_BYTE, GLsizei(kShownBytes),
                             reinterpret_cast<void*>(n * kSourceBytes + i * kShownBytes));
    }
    glBindBuffer(GL_PIXEL_PACK_BUFFER, 0);
    issue_error_ = glGetError();
    fence_ = glFenceSync(GL_SYNC_GPU_COMMANDS_COMPLETE, 0);
    glFlush();
}

double DisplayProbe::age_s() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
}

DisplayProbe::~DisplayProbe() {
    if (fence_) glDeleteSync(fence_);
    if (buffer_) glDeleteBuffers(1, &buffer_);
}

std::optional<ProbeSamples> DisplayProbe::poll() {
    if (!fence_) return std::nullopt;
    const GLenum state = glClientWaitSync(fence_, 0, 0);
    last_wait_ = state;
    if (state != GL_ALREADY_SIGNALED && state != GL_CONDITION_SATISFIED) return std::nullopt;
    const size_t n = points_.size();
    std::vector<std::byte> bytes(n * (kSourceBytes + kShownBytes));
    if (n) glGetNamedBufferSubData(buffer_, 0, GLsizeiptr(bytes.size()), bytes.data());
    ProbeSamples s;
    for (size_t i = 0; i < n; ++i) {
        const std::byte* p = bytes.data() + i * kSourceBytes;
        std::array<double, 4> v{};
        for (size_t c = 0; c < 4; ++c) {
            if (sampler_ == SamplerKind::Float) {
                float f;
                std::memcpy(&f, p + c * 4, 4);
                v[c] = double(f);
            } else if (sampler_ == SamplerKind::Int) {
                int32_t x;
                std::memcpy(&x, p + c * 4, 4);
                v[c] = double(x);
            } else {
                uint32_t x;
                std::memcpy(&x, p + c * 4, 4);
                v[c] = double(x);
            }
        }
        // Normalised formats read back as [0, 1]: the shader multiplies them by the scale, so does this.
        if (sampler_ == SamplerKind::Float)
            for (double& c : v) c *= value_scale_;
        s.source.push_back(v);
        std::array<uint8_t, 4> shown{};
        std::memcpy(shown.data(), bytes.data() + n * kSourceBytes + i * kShownBytes, 4);
        s.shown.push_back(shown);
    }
    return s;
}

std::string first_display_mismatch(const ProbeSamples& samples, const std::vector<ProbePoint>& points,
                                   const std::vector<std::array<double, 4>>& values,
                                   const std::vector<std::array<uint8_t, 4>>& expected, int tolerance) {
    for (size_t i = 0; i < points.size() && i < samples.shown.size() && i < expected.size(); ++i) {
        bool same = true;
        for (size_t c = 0; c < 4; ++c) same = same && std::abs(int(samples.shown[i][c]) - int(expected[i][c])) <= tolerance;
        if (same) continue;
        return "texel (" + std::to_string(points[i].x) + "," + std::to_string(points[i].y) + ") is shown as " +
               colour_text(samples.shown[i]) + " where its value " + (i < values.size() ? value_text(values[i]) : "?") +
               " gives " + colour_text(expected[i]);
    }
    return "";
}

void set_display_faults_for_tests(DisplayFaults faults) {
    g_pass_fault = faults.pass;
    g_upload_fault = faults.host_upload;
}

DisplayFaults display_faults() { return {g_pass_fault.load(), g_upload_fault.load()}; }

bool display_pass_distrusted() { return g_distrusted.load(); }
void distrust_display_pass() { g_distrusted = true; }
void trust_display_pass_again_for_tests() { g_distrusted = false; }

}  // namespace cp::render
