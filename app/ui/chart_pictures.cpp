// Charts drawn offscreen for the command line (chart_pictures.h): a headless EGL target of the picture's size,
// an ImGui + ImPlot context of its own styled as the window at the chosen text size, two frames (the first
// lays out, the second draws settled), read back.
#include "ui/chart_pictures.h"

#include "core/session/launch_images.h"
#include "core/session/coverage.h"
#include "core/text_util.h"
#include "render/gl_objects.h"
#include "render/render_target.h"
#include "ui/charts.h"
#include "ui/theme.h"

#include <glad/gl.h>
#include <imgui.h>
#include <imgui_impl_opengl3.h>
#include <implot.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <memory>

namespace cp::ui {
namespace {

// One picture's GL context and ImGui/ImPlot contexts; the caller's contexts (if any) are current again after.
// Not for use while a window of this process is drawing: the fonts (theme.h) are this process's.
class OffscreenFrame {
public:
    static Result<std::unique_ptr<OffscreenFrame>> create(int width, int height, float text_size) {
        render::TargetOptions t;
        t.width = width;
        t.height = height;
        auto target = render::make_headless_target(t);
        if (!target) return target.error();
        std::unique_ptr<OffscreenFrame> f(new OffscreenFrame());
        f->target_ = std::move(*target);
        f->previous_ = ImGui::GetCurrentContext();
        f->previous_plot_ = ImPlot::GetCurrentContext();
        f->context_ = ImGui::CreateContext();
        ImGui::SetCurrentContext(f->context_);
        f->plot_ = ImPlot::CreateContext();
        ImPlot::SetCurrentContext(f->plot_);
        ImGui::GetIO().IniFilename = nullptr;
        load_fonts();
        Presentation p;
        p.font_scale = text_size;
        apply_presentation(p);
        f->target_->attach_imgui();
        ImGui_ImplOpenGL3_Init("#version 450 core");
        return f;
    }
    ~OffscreenFrame() {
        ImGui::SetCurrentContext(context_);
        ImPlot::SetCurrentContext(plot_);
        ImGui_ImplOpenGL3_Shutdown();
        target_->detach_imgui();
        ImPlot::DestroyContext(plot_);
        ImGui::DestroyContext(context_);
        target_.reset();
        ImGui::SetCurrentContext(previous_);
        ImPlot::SetCurrentContext(previous_plot_);
    }

    // Draws `body` in a window covering the frame, twice, and reads the frame back.
    Result<Image> draw(const std::function<void()>& body) {
        for (int frame = 0; frame < 2; ++frame) {
            target_->begin_frame();
            ImGui_ImplOpenGL3_NewFrame();
            ImGui::NewFrame();
            ImGui::SetNextWindowPos(ImVec2(0, 0));
            ImGui::SetNextWindowSize(ImGui::GetIO().DisplaySize);
            ImGui::Begin("##picture", nullptr,
                         ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoSavedSettings);
            body();
            ImGui::End();
            ImGui::Render();
            target_->bind_framebuffer();
            glDisable(GL_SCISSOR_TEST);
            const ImVec4 bg = ImGui::GetStyle().Colors[ImGuiCol_WindowBg];
            glClearColor(bg.x, bg.y, bg.z, 1.0f);
            glClear(GL_COLOR_BUFFER_BIT);
            ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
            target_->present();
        }
        return target_->read_pixels();
    }

private:
    OffscreenFrame() = default;
    std::unique_ptr<render::RenderTarget> target_;
    ImGuiContext *context_ = nullptr, *previous_ = nullptr;
    ImPlotContext *plot_ = nullptr, *previous_plot_ = nullptr;
};

// Pixels of text at `text_size` (the window's base size times the text size).
float font_px(const PictureOptions& o) {
    return kBaseFontPixels * o.text_size;
}

// The heading lines above a chart, recorded as drawn text.
void heading(const std::vector<std::string>& lines, ChartText& text) {
    if (!text.labels) {
        for (size_t i = 0; i < lines.size(); ++i) ImGui::NewLine();
        return;
    }
    for (const std::string& l : lines) {
        ImGui::TextUnformatted(l.c_str());
        text.add(l);
    }
}

// Draws a chart with `lines` above it into a width x height picture; `chart` gets the room left and the record.
Result<ChartPicture> picture(const PictureOptions& o, int height, const std::vector<std::string>& lines,
                             const std::function<void(ImVec2, ChartText&)>& chart,
                             const std::function<void()>& before = {}) {
    if (const std::string why = why_no_chart_pictures(); !why.empty()) return make_error(ErrorKind::Unsupported, why);
    auto frame = OffscreenFrame::create(o.width, height, o.text_size);
    if (!frame) return frame.error();
    if (before) before();
    ChartText text;
    text.labels = o.labels;
    auto image = (*frame)->draw([&] {
        text.drawn.clear();
        heading(lines, text);
        chart(ImGui::GetContentRegionAvail(), text);
    });
    if (!image) return image.error();
    return ChartPicture{std::move(*image), std::move(text.drawn)};
}

std::string fixed(double v, int digits) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f", digits, v);
    return buf;
}

// A map's picture: as wide as asked, as tall as the map's shape needs at that width (within reason).
int map_picture_height(const PictureOptions& o, const Image& map, int legend_lines) {
    const float f = font_px(o);
    const float plot_w = float(o.width) - f * 10;
    const float plot_h = std::clamp(plot_w * float(map.height) / float(std::max(map.width, 1)), f * 6, f * 40);
    return int(plot_h + f * (6.5f + 1.5f * float(legend_lines)));
}

}  // namespace

std::string why_no_chart_pictures() {
    if (const char* v = std::getenv("CUDA_PLAYGROUND_NO_GL"); v && *v && std::string(v) != "0")
        return "CUDA_PLAYGROUND_NO_GL is set";
    return {};
}

Result<ChartPicture> timeline_picture(const LaunchTrace& trace, const PictureOptions& o) {
    const TimelineData data = timeline_data(trace);
    const int lanes = std::max<int>(1, int(data.lanes.size()));
    const float f = font_px(o);
    const float lane_px = std::clamp(900.0f / float(lanes), 7.0f, f * 1.6f);
    const int height = std::max(int(f * 20), int(float(lanes) * lane_px + f * 8));
    const double span_us = data.t1 > data.t0 ? double(data.t1 - data.t0) / 1e3 : 0.0;
    const std::string units = count_text(uint64_t(trace.units_used), trace.unit == "sm" ? "SM" : "CPU worker");
    const size_t blocks = trace.blocks.size();
    const std::vector<std::string> lines = {
        "Timeline: " + with_thousands(blocks) + (blocks == 1 ? " block" : " blocks") + " on " + units + " over " +
        (span_us >= 1e4 ? fixed(span_us / 1e3, 2) + " ms" : fixed(span_us, span_us < 10 ? 2 : 1) + " \xC2\xB5s") +
        "; each bar is one block from its start to its end, coloured by its index"};
    return picture(o, height, lines, [&](ImVec2 room, ChartText& text) { timeline_chart(data, room, &text); });
}

Result<ChartPicture> sweep_picture(const SweepResult& r, const PictureOptions& o) {
    std::vector<std::string> lines = {"Sweep of " + r.kernel + " on " + r.backend + " (" + r.device + "), " +
                                      count_text(uint64_t(std::max(r.repeats, 0)), "timed launch", "timed launches") + " per shape"};
    if (r.best >= 0) {
        const SweepConfig& b = r.configs[size_t(r.best)];
        lines.push_back("fastest: block " + b.block.str() + ", " + fixed(b.median_ms, 4) + " ms median, " +
                        fixed(b.predicted.occupancy * 100, 0) + "% predicted occupancy");
    }
    const int height = int(float(o.width) * 9 / 16);
    return picture(o, height, lines, [&](ImVec2 room, ChartText& text) { sweep_chart(r, room, &text); });
}

Result<ChartPicture> coverage_picture(const CoverageMap& c, const Image& map, const PictureOptions& o) {
    const std::vector<LegendEntry> legend = coverage_legend(c);
    render::Texture texture;
    ElementMapChart chart;
    chart.width = map.width;
    chart.height = map.height;
    chart.legend = legend;
    const std::vector<std::string> lines = {"Coverage of " + c.buffer + ": " + c.summary()};
    return picture(
        o, map_picture_height(o, map, int(legend.size())), lines,
        [&](ImVec2 room, ChartText& text) { element_map_chart(chart, room, &text); },
        [&] {
            texture = render::texture_from_rgba8(map.pixels.data(), map.width, map.height);
            chart.texture = ImTextureID(texture.id());
        });
}

Result<ChartPicture> error_picture(const ErrorMap& m, const Image& map, const PictureOptions& o) {
    render::Texture texture;
    ElementMapChart chart;
    chart.width = map.width;
    chart.height = map.height;
    chart.colour_bar_label = "|output - reference|";
    chart.colour_bar_max = m.max_abs_error;
    char tolerance[64];
    std::snprintf(tolerance, sizeof tolerance, "%g", m.tolerance);
    const std::vector<std::string> lines = {"Error of " + m.buffer + ": " + with_thousands(m.mismatched_elements) +
                                            " of " + with_thousands(m.elements) + " elements beyond the tolerance " +
                                            tolerance + " (never darker than red)"};
    return picture(
        o, map_picture_height(o, map, 0), lines,
        [&](ImVec2 room, ChartText& text) { element_map_chart(chart, room, &text); },
        [&] {
            texture = render::texture_from_rgba8(map.pixels.data(), map.width, map.height);
            chart.texture = ImTextureID(texture.id());
        });
}

}  // namespace cp::ui
