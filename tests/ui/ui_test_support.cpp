// UI test support: the host-kernels backend and screenshot helpers (see ui_test_support.h).
#include "ui_test_support.h"

#include "core/toolkit/nvrtc_compiler.h"
#include "core/data/colormap.h"
#include "core/kernel_file/kernel_file.h"
#include "ui/state/output_views.h"
#include "support/test_cache.h"

#include <chrono>
#include <glad/gl.h>
#include <gtest/gtest.h>
#include <imgui.h>
#include <imgui_internal.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <functional>
#include <cstdlib>
#include <cstring>
#include <map>
#include <set>
#include <stdexcept>

namespace cp::uitest {

ScopedUserDir::ScopedUserDir() {
    env_.set("CUDA_PLAYGROUND_USER_DIR", (dir_.path() / "user").string());
    // Under ctest, the run's compile cache of the lessons, which the CLI and unit tests fill too (the cache is
    // keyed by everything a compile reads, so sharing it changes no result): a window test that opens a lesson
    // compiles it only when no test of the run has. Alone, a private cache, as before.
    const char* shared = std::getenv("CP_TEST_CACHE_DIR");
    env_.set("CUDA_PLAYGROUND_CACHE_DIR", shared && *shared ? test::lessons_cache_dir().path().string()
                                                            : (dir_.path() / "cache").string());
}

namespace {

template <class T>
T scalar(const KernelArg& a) {
    T v{};
    std::memcpy(&v, a.scalar.data(), std::min(sizeof(T), a.scalar.size()));
    return v;
}

class HostKernelsBackend final : public Backend {
public:
    InfoResult info() override {
        InfoResult r;
        r.device.backend = "cpu";
        r.device.name = "host kernels (UI tests)";
        r.device.arch = kArchWithoutDevice;
        r.device.cc_major = 9;
        r.device.sm_count = 4;
        r.device.total_memory = 8ull << 30;
        r.device.max_shared_per_sm = 228 * 1024;
        r.device.copy_bandwidth_gbps = 100;
        return r;
    }
    CompileResult compile(const CompileRequest& req) override {
        CompileResult r = compile_with_nvrtc(req, kArchWithoutDevice, nullptr);
        if (r.ok) r.module = ++next_module_;
        return r;
    }
    AllocateResult allocate(const AllocateRequest& req) override {
        const BufferId id = ++next_buffer_;
        memory_[id].assign(req.bytes, std::byte{0});
        AllocateResult r;
        r.buffer = id;
        return r;
    }
    UploadResult upload(const UploadRequest& req) override {
        auto& m = memory_.at(req.buffer);
        if (req.repeat) fill_with_pattern(m.data(), m.size(), req.data);
        else std::copy(req.data.begin(), req.data.end(), m.begin());
        return {};
    }
    ReadBackResult read_back(const ReadBackRequest& req) override {
        auto it = memory_.find(req.buffer);
        if (it == memory_.end()) return {{}, EngineError{"", "no such buffer", "", false}};
        return {it->second, std::nullopt};
    }
    ReleaseResult release(const ReleaseRequest& req) override {
        for (BufferId id : req.buffers) memory_.erase(id);
        return {};
    }
    LaunchResult launch(const LaunchRequest& req) override {
        LaunchResult r;
        auto buf = [&](size_t i) { return memory_.at(req.args.at(i).buffer).data(); };
        // Visits every launched thread's (x, y) of a 2D launch.
        auto each_thread = [&](auto&& fn) {
            const uint64_t w = uint64_t(req.grid.x) * req.block.x, h = uint64_t(req.grid.y) * req.block.y;
            for (uint64_t y = 0; y < h; ++y)
                for (uint64_t x = 0; x < w; ++x) fn(int64_t(x), int64_t(y));
        };
        if (req.kernel_name == "box_blur" || req.kernel_name == "grayscale") {
            const auto* src = reinterpret_cast<const uint8_t*>(buf(0));
            auto* dst = reinterpret_cast<uint8_t*>(buf(1));
            const int width = scalar<int>(req.args.at(2)), height = scalar<int>(req.args.at(3));
            const bool blur = req.kernel_name == "box_blur";
            each_thread([&](int64_t x, int64_t y) {
                if (x >= width || y >= height) return;
                uint8_t* out = dst + (y * width + x) * 4;
                if (blur) {
                    int sum[4] = {0, 0, 0, 0};
                    for (int dy = -1; dy <= 1; ++dy)
                        for (int dx = -1; dx <= 1; ++dx) {
                            const int64_t sx = std::clamp<int64_t>(x + dx, 0, width - 1);
                            const int64_t sy = std::clamp<int64_t>(y + dy, 0, height - 1);
                            for (int c = 0; c < 4; ++c) sum[c] += src[(sy * width + sx) * 4 + c];
                        }
                    for (int c = 0; c < 4; ++c) out[c] = uint8_t((sum[c] + 4) / 9);
                } else {
                    const uint8_t* p = src + (y * width + x) * 4;
                    const float luma = 0.299f * p[0] + 0.587f * p[1] + 0.114f * p[2];
                    const auto g = uint8_t(std::min(luma + 0.5f, 255.0f));
                    out[0] = out[1] = out[2] = g;
                    out[3] = p[3];
                }
            });
        } else if (req.kernel_name == "thread_ids") {
            auto* ids = reinterpret_cast<int32_t*>(buf(0));
            const int width = scalar<int>(req.args.at(1)), height = scalar<int>(req.args.at(2));
            each_thread([&](int64_t x, int64_t y) {
                if (x < width && y < height) ids[y * width + x] = int32_t(y * width + x);
            });
        } else if (req.kernel_name == "vector_add") {
            const auto* a = reinterpret_cast<const float*>(buf(0));
            const auto* b = reinterpret_cast<const float*>(buf(1));
            auto* c = reinterpret_cast<float*>(buf(2));
            const int n = scalar<int>(req.args.at(3));
            const uint64_t threads = req.grid.count() * req.block.count();
            for (uint64_t i = 0; i < threads && i < uint64_t(n); ++i) c[i] = a[i] + b[i];
        } else {
            r.error = EngineError{"", "the test backend cannot run " + req.kernel_name, "", false};
            return r;
        }
        r.ok = true;
        std::vector<double> samples(size_t(std::max(req.timing.repeats, 1)), 0.25);
        r.timing = TimingStats::from_samples(samples, true);
        return r;
    }

private:
    std::map<BufferId, std::vector<std::byte>> memory_;
    BufferId next_buffer_ = 0;
    ModuleId next_module_ = 0;
};

}  // namespace

std::unique_ptr<Backend> make_host_kernels_backend() { return std::make_unique<HostKernelsBackend>(); }

ui::BackendFactory host_kernels_factory() {
    return []() -> Result<std::unique_ptr<Backend>> { return make_host_kernels_backend(); };
}

ui::BackendFactory no_backend_factory(const std::string& why) {
    return [why]() -> Result<std::unique_ptr<Backend>> { return make_error(why); };
}

Rect window_rect(const char* title) {
    ImGuiWindow* w = ImGui::FindWindowByName(title);
    if (!w || !w->WasActive) return {};
    if (w->DockIsActive && !w->DockTabIsVisible) return {};  // a tab behind another one in its group
    return {int(w->Pos.x), int(w->Pos.y), int(w->Pos.x + w->Size.x), int(w->Pos.y + w->Size.y)};
}

size_t distinct_colors(const Image& image, Rect r) {
    std::set<uint32_t> colors;
    for (int y = std::max(r.y0, 0); y < std::min(r.y1, image.height); ++y)
        for (int x = std::max(r.x0, 0); x < std::min(r.x1, image.width); ++x) {
            uint32_t c;
            std::memcpy(&c, &image.pixels[(size_t(y) * image.width + x) * 4], 4);
            colors.insert(c);
        }
    return colors.size();
}

int marker_red_pixels(const Image& shot, const ui::EditorPanel& editor, int line) {
    float x0, y0, x1, y1;
    if (!editor.line_number_rect(line, x0, y0, x1, y1)) return -1;
    int red = 0;
    for (int y = int(y0) + 1; y < int(y1) - 1; ++y)
        for (int x = int(x0) + 1; x < int(x1) - 1; ++x) {
            const uint8_t* p = shot.pixels.data() + (size_t(y) * size_t(shot.width) + size_t(x)) * 4;
            if (p[0] > 120 && p[0] > p[1] + 50 && p[0] > p[2] + 50) ++red;
        }
    return red;
}

void press_key(ui::AppHost& host, ImGuiKey key, bool ctrl) {
    ImGuiIO& io = ImGui::GetIO();
    if (ctrl) io.AddKeyEvent(ImGuiMod_Ctrl, true);
    io.AddKeyEvent(key, true);
    host.frame();
    io.AddKeyEvent(key, false);
    if (ctrl) io.AddKeyEvent(ImGuiMod_Ctrl, false);
    host.frame();
}

void click(ui::AppHost& host, float x, float y) {
    ImGuiIO& io = ImGui::GetIO();
    io.AddMousePosEvent(x, y);
    host.frame();
    io.AddMouseButtonEvent(ImGuiMouseButton_Left, true);
    host.frame();
    io.AddMouseButtonEvent(ImGuiMouseButton_Left, false);
    host.frame();
    host.frame();
}

void settle(ui::AppHost& host) {
    ui::Workspace& ws = host.workspace();
    bool settled = false;
    for (int i = 0; i < 40 && !settled; ++i) {
        host.frame();
        settled = !ws.run_in_flight() && !ws.needs_frame(host.seconds());
    }
    if (!settled)
        ADD_FAILURE() << "the window did not settle in 40 frames: " << (ws.run_in_flight() ? "a run is still in flight" : "")
                      << (ws.run_in_flight() && ws.needs_frame(host.seconds()) ? ", and " : "")
                      << (ws.needs_frame(host.seconds()) ? "it still asks for frames" : "");
    host.frame();  // draw the settled state once more
}

bool frames_until(ui::AppHost& host, const std::function<bool()>& done, const std::string& waited_for, int max_frames,
                  const std::function<std::string()>& seen) {
    for (int i = 0; i < max_frames; ++i) {
        if (done()) return true;
        host.frame();
    }
    if (done()) return true;
    ADD_FAILURE() << "waited " << max_frames << " frames for " << waited_for
                  << (seen ? "; saw: " + seen() : std::string());
    return false;
}

bool frames_until_seconds(ui::AppHost& host, const std::function<bool()>& done, const std::string& waited_for,
                          double max_seconds, const std::function<std::string()>& seen) {
    const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(max_seconds);
    int frames = 0;
    while (std::chrono::steady_clock::now() < until) {
        if (done()) return true;
        host.frame();
        ++frames;
    }
    if (done()) return true;
    ADD_FAILURE() << "waited " << max_seconds << " s (" << frames << " frames) for " << waited_for
                  << (seen ? "; saw: " + seen() : std::string());
    return false;
}

void show_output_at_100_percent(ui::AppHost& host) {
    auto& views = host.workspace().outputs().views();
    if (views.empty()) {
        ADD_FAILURE() << "no output view";
        return;
    }
    auto& state = views[0].state;
    state.fit = false;
    state.zoom = 1.0f;
    state.pan_x = state.pan_y = 0;
    host.frame();
}

namespace {

// Compares the visible part of the first output view with the colour `want(element)` gives, per pixel
// (RGB, within `tolerance` per channel); failures name the first pixels.
size_t expect_screen_matches(ui::AppHost& host, int width, int tolerance,
                             const std::function<std::array<int, 3>(size_t)>& want) {
    auto shot = host.screenshot();
    if (!shot.ok()) {
        ADD_FAILURE() << shot.error().full();
        return 0;
    }
    const ui::DrawnImage& d = host.workspace().output_panel().drawn_output();
    EXPECT_TRUE(d.valid);
    EXPECT_FLOAT_EQ(d.zoom, 1.0f);
    size_t compared = 0, mismatched = 0;
    const int x0 = int(std::max(d.x0, d.clip_x0)), y0 = int(std::max(d.y0, d.clip_y0));
    const int x1 = int(std::min(d.x1, d.clip_x1)), y1 = int(std::min(d.y1, d.clip_y1));
    for (int y = y0; y < y1; ++y)
        for (int x = x0; x < x1; ++x) {
            const int ix = x - int(d.x0), iy = y - int(d.y0);
            const std::array<int, 3> w = want(size_t(iy) * size_t(width) + size_t(ix));
            const uint8_t* got = &shot->pixels[(size_t(y) * size_t(shot->width) + size_t(x)) * 4];
            bool same = true;
            for (int c = 0; c < 3; ++c) same = same && std::abs(int(got[c]) - w[size_t(c)]) <= tolerance;
            if (!same && mismatched++ < 3)
                ADD_FAILURE() << "pixel (" << ix << "," << iy << ") on screen " << int(got[0]) << "," << int(got[1])
                              << "," << int(got[2]) << " but the kernel's output gives " << w[0] << "," << w[1] << ","
                              << w[2];
            ++compared;
        }
    EXPECT_EQ(mismatched, 0u) << "of " << compared << " pixels";
    return compared;
}

}  // namespace

size_t expect_screen_matches_output(ui::AppHost& host, const HostBuffer& dst, int width) {
    const auto* bytes = reinterpret_cast<const uint8_t*>(dst.bytes.data());
    return expect_screen_matches(host, width, 0, [&](size_t i) {
        return std::array<int, 3>{bytes[i * 4], bytes[i * 4 + 1], bytes[i * 4 + 2]};
    });
}

size_t expect_screen_matches_colormapped(ui::AppHost& host, const HostBuffer& values, int width,
                                         const std::string& colormap) {
    // The range the view should use (auto range: the data's own min and max), from the read-back itself.
    const size_t n = values.count();
    double lo = 0, hi = 0;
    for (size_t i = 0; i < n; ++i) {
        const double v = ui::element_value(values, i, 0);
        if (i == 0 || v < lo) lo = v;
        if (i == 0 || v > hi) hi = v;
    }
    const double span = hi > lo ? hi - lo : 1.0;
    const auto& table = colormap_table(colormap);
    return expect_screen_matches(host, width, 2, [&](size_t i) {
        const double t = std::clamp((ui::element_value(values, i, 0) - lo) / span, 0.0, 1.0) * 255.0;
        const size_t a = size_t(t), b = std::min<size_t>(a + 1, 255);
        const double f = t - double(a);
        std::array<int, 3> c{};
        for (size_t k = 0; k < 3; ++k) c[k] = int(std::lround(table[a][k] * (1 - f) + table[b][k] * f));
        return c;
    });
}

::testing::AssertionResult gpu_finishes_within(double seconds) {
    GLsync fence = glFenceSync(GL_SYNC_GPU_COMMANDS_COMPLETE, 0);
    if (!fence) return ::testing::AssertionFailure() << "glFenceSync failed (GL error " << glGetError() << ")";
    const auto timeout_ns = static_cast<GLuint64>(seconds * 1e9);
    const GLenum waited = glClientWaitSync(fence, GL_SYNC_FLUSH_COMMANDS_BIT, timeout_ns);
    glDeleteSync(fence);
    if (waited == GL_ALREADY_SIGNALED || waited == GL_CONDITION_SATISFIED) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure()
           << "the GPU did not finish a few small draws within " << seconds << " s ("
           << (waited == GL_TIMEOUT_EXPIRED ? "timed out" : "wait failed")
           << "): it is not working. On NVIDIA look for NVRM Xid lines in dmesg: after kernels faulted (Xid 13 or "
              "31, e.g. the GPU tests' planted out-of-bounds kernels), GL work was seen to stall for the rest of the "
              "machine's session (Xid 109 CTX SWITCH TIMEOUT); run the UI tests on a fresh machine or before those "
              "tests";
}

ui::KernelDocument& document_of(ui::Workspace& ws) {
    ui::KernelDocument* d = ws.document();
    if (!d) throw std::runtime_error("no kernel is open");
    return *d;
}

ui::AppOptions projector_options(const std::string& file) {
    ui::AppOptions o = headless_options();
    o.open_file = file;
    o.backend = "cpu";
    o.width = 1920;
    o.height = 1080;
    o.text_size = 1.75f;
    return o;
}

ui::AppOptions headless_options(const std::string& kernel_relative) {
    ui::AppOptions o;
    o.headless = true;
    o.width = 1600;
    o.height = 1000;
    o.open_file = (kernels_dir() / kernel_relative).string();
    return o;
}

std::unique_ptr<ui::AppHost> start_settled(const ui::AppOptions& options, const ui::BackendFactory& factory) {
    auto h = ui::AppHost::create(options, factory);
    EXPECT_TRUE(h.ok()) << h.error().full();
    if (!h.ok()) return nullptr;
    settle(**h);
    return std::move(*h);
}

bool console_has(ui::Workspace& ws, const std::string& text) {
    for (const auto& e : ws.console().entries())
        if (e.text.find(text) != std::string::npos) return true;
    return false;
}

}  // namespace cp::uitest
