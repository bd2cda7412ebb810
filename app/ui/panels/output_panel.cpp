// Output panel drawing.
//   draw()               tabs, one per view, and the verification / stale-output line
//   draw_image_view()    canvas: zoom, pan, compare modes, texture filtering
//   draw_image_toolbar() display settings
//   draw_inspector()     the hovered pixel's values and thread mapping
//   (1D views: output_series.cpp)
#include "ui/panels/output_panel.h"

#include "ui/plots.h"
#include "ui/widgets.h"

#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>

namespace cp::ui {
namespace {

ImTextureID texture_id(const render::Texture& t) { return ImTextureID(t.id()); }  // the OpenGL3 backend's texture ids are GL names

}  // namespace

const char* const kChannelNames[4] = {"x / R", "y / G", "z / B", "w / A"};

std::string format_value(double v, bool is_float) {
    char buf[48];
    if (is_float) std::snprintf(buf, sizeof buf, "%.6g", v);
    else std::snprintf(buf, sizeof buf, "%.0f", v);
    return buf;
}

std::string thread_of_pixel(int x, int y, int width, Dim3 grid, Dim3 block) {
    block.x = std::max(block.x, 1u);
    block.y = std::max(block.y, 1u);
    char buf[160];
    if (grid.y > 1 || block.y > 1) {
        std::snprintf(buf, sizeof buf, "blockIdx (%u, %u)  threadIdx (%u, %u)", uint32_t(x) / block.x, uint32_t(y) / block.y,
                      uint32_t(x) % block.x, uint32_t(y) % block.y);
    } else {
        const uint64_t i = uint64_t(y) * uint64_t(width) + uint64_t(x);
        std::snprintf(buf, sizeof buf, "index %llu: blockIdx.x %llu  threadIdx.x %llu", static_cast<unsigned long long>(i),
                      static_cast<unsigned long long>(i / block.x), static_cast<unsigned long long>(i % block.x));
    }
    return buf;
}

void OutputPanel::draw() {
    drawn_output_.valid = false;
    drawn_columns_.clear();
    column_key_.clear();
    if (!status_.on_purpose.empty()) {
        // Said before anything else: a red "differs" line below is the lesson working, not a broken app.
        const ImVec4 colour = status_.as_expected == false ? ImVec4(1, 0.4f, 0.35f, 1) : ImVec4(0.45f, 0.75f, 1, 1);
        ImGui::PushStyleColor(ImGuiCol_Text, colour);
        ImGui::TextWrapped("%s", status_.on_purpose.c_str());
        ImGui::PopStyleColor();
    }
    if (!compare_.listed.empty() && !presenting_) {
        std::string label = "Compare side by side with ";
        for (size_t i = 0; i < compare_.listed.size(); ++i) label += (i ? ", " : "") + compare_.listed[i];
        ImGui::Checkbox(label.c_str(), &compare_.enabled);
    }
    // Presentation mode shows the main kernel's output over the whole screen; the columns are the Output panel's.
    if (compare_.active() && !compare_.columns.empty() && !presenting_) {
        draw_side_by_side();
        return;
    }
    draw_status();
    draw_views(views_);
}

void OutputPanel::draw_status() {
    if (!status_.failure.empty()) {
        // Why there is no new output, where the output would be; older output below is marked as such.
        ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1, 0.5f, 0.4f, 1));
        ImGui::TextWrapped("No new output. %s", status_.failure.c_str());
        ImGui::PopStyleColor();
        if (status_.run && !views_.views().empty())
            ImGui::TextDisabled("Below: the last good output (run #%llu).", static_cast<unsigned long long>(status_.run));
    }
    if (status_.verified.has_value()) {
        ImGui::PushStyleColor(ImGuiCol_Text, *status_.verified ? ImVec4(0.4f, 0.9f, 0.4f, 1) : ImVec4(1, 0.4f, 0.35f, 1));
        ImGui::TextWrapped("%s", status_.verification.c_str());
        ImGui::PopStyleColor();
    } else if (!status_.verification.empty()) {
        // Not checked, and why (e.g. the buffers shown after an earlier step).
        ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1, 0.75f, 0.3f, 1));
        ImGui::TextWrapped("%s", status_.verification.c_str());
        ImGui::PopStyleColor();
    }
}

void OutputPanel::draw_views(OutputViews& outputs) {
    auto& views = outputs.views();
    if (views.empty()) {
        InputImage& input = outputs.input();
        if (input.raw && input.display) {
            // Nothing has run (or nothing can): show the input, so the first screen is not empty.
            ImGui::TextDisabled("Input %s (%s); the output appears once the kernel runs.", input.buffer.c_str(), input.path.c_str());
            const ImVec2 avail = ImGui::GetContentRegionAvail();
            const float zoom = std::min(avail.x / float(input.raw->width()), avail.y / float(input.raw->height()));
            input.display.set_nearest_magnification(zoom >= 2.0f);
            ImGui::Image(texture_id(input.display), ImVec2(float(input.raw->width()) * zoom, float(input.raw->height()) * zoom));
            return;
        }
        if (&outputs == &views_ && status_.failure.empty())
            ImGui::TextDisabled(status_.run ? "This kernel declares no outputs to show." : "No output yet: run the kernel (F5).");
        return;
    }
    if (!ImGui::BeginTabBar("##views")) return;
    for (OutputView& v : views) {
        const char* kind = v.is_image() ? "image" : v.spec.kind == ViewSpec::Kind::Plot ? "plot" : "table";
        const std::string label = v.spec.buffer + " (" + kind + ")";
        if (ImGui::BeginTabItem(label.c_str())) {
            if (!v.problem.empty()) ImGui::TextColored(ImVec4(1, 0.4f, 0.35f, 1), "%s", v.problem.c_str());
            if (v.is_image()) draw_image_view(v);
            else draw_series_view(v);
            ImGui::EndTabItem();
        }
    }
    ImGui::EndTabBar();
}

void OutputPanel::draw_image_toolbar(OutputView& v, bool has_input) {
    ImageViewState& s = v.state;
    if (ImGui::Button("Fit")) s.fit = true;
    ImGui::SameLine();
    if (ImGui::Button("1:1")) {
        s.fit = false;
        s.zoom = 1.0f;
    }
    ImGui::SameLine();
    ImGui::Text("%.0f%%", double(s.zoom) * 100);
    if (has_input) {
        ImGui::SameLine();
        const char* modes[] = {"output", "input | output", "split"};
        int mode = int(s.compare);
        ImGui::SetNextItemWidth(ImGui::CalcTextSize("input | output").x + ImGui::GetFrameHeight() * 2);
        if (ImGui::Combo("##compare", &mode, modes, 3)) s.compare = CompareMode(mode);
        if (s.compare == CompareMode::Split) {
            ImGui::SameLine();
            ImGui::SetNextItemWidth(ImGui::GetContentRegionAvail().x * 0.5f);
            ImGui::SliderFloat("split", &s.split, 0.0f, 1.0f, "%.2f");
        }
    }

    bool changed = false;
    render::DisplaySettings& d = s.display;
    const int comps = v.raw ? v.raw->format().data_components : int(elem_info(v.type).components);
    if (comps > 1) {
        int ch = d.channel + 1;
        const char* items[] = {"all channels", kChannelNames[0], kChannelNames[1], kChannelNames[2], kChannelNames[3]};
        ImGui::SetNextItemWidth(ImGui::CalcTextSize("all channels").x + ImGui::GetFrameHeight() * 2);
        if (ImGui::Combo("##channel", &ch, items, comps + 1)) {
            d.channel = ch - 1;
            changed = true;
        }
        same_line_if_fits(ImGui::CalcTextSize("coolwarm").x + ImGui::GetFrameHeight() * 2);
    }
    const bool scalar = comps == 1 || d.channel >= 0;
    ImGui::BeginDisabled(!scalar);
    int cmap = int(d.colormap);
    const auto& names = render::colormap_names();
    ImGui::SetNextItemWidth(ImGui::CalcTextSize("coolwarm").x + ImGui::GetFrameHeight() * 2);
    if (ImGui::BeginCombo("##colormap", names[size_t(cmap)].c_str())) {
        for (size_t i = 0; i < names.size(); ++i)
            if (ImGui::Selectable(names[i].c_str(), int(i) == cmap)) {
                d.colormap = render::Colormap(i);
                changed = true;
            }
        ImGui::EndCombo();
    }
    ImGui::EndDisabled();
    same_line_if_fits(checkbox_width("auto range"));
    changed |= ImGui::Checkbox("auto range", &d.auto_range);
    // The row wraps where the panel is narrow (large text, a narrow column): nothing runs off its edge.
    const bool alpha = comps == 4 && d.channel < 0;
    const float spacing = ImGui::GetStyle().ItemSpacing.x;
    const float after_range = ImGui::CalcTextSize("range").x + ImGui::GetStyle().ItemInnerSpacing.x +
                              (alpha ? spacing + checkbox_width("alpha") : 0.0f);
    const float range_width = ImGui::CalcTextSize("-0.0000e+00").x * 2.5f;
    if (d.auto_range) {
        if (v.range.valid) {
            char text[64];
            std::snprintf(text, sizeof text, "[%.4g, %.4g]", v.range.min, v.range.max);
            same_line_if_fits(ImGui::CalcTextSize(text).x);
            ImGui::TextDisabled("%s", text);
        }
    } else {
        same_line_if_fits(range_width + after_range);
        double r[2] = {d.range_min, d.range_max};
        ImGui::SetNextItemWidth(std::min(range_width, ImGui::GetContentRegionAvail().x - after_range));
        if (ImGui::InputScalarN("range", ImGuiDataType_Double, r, 2, nullptr, nullptr, "%.4g",
                                ImGuiInputTextFlags_EnterReturnsTrue)) {
            d.range_min = r[0];
            d.range_max = r[1];
            changed = true;
        }
    }
    if (alpha) {
        same_line_if_fits(checkbox_width("alpha"));
        changed |= ImGui::Checkbox("alpha", &d.show_alpha);
    }
    if (changed) views_.refresh_display(v);
    ImGui::TextDisabled("%dx%d %s | run #%llu | %s", v.width, v.height, elem_info(v.type).name,
                        static_cast<unsigned long long>(v.run), v.path.c_str());
}

void OutputPanel::draw_image_view(OutputView& v) {
    InputImage& input = views_.input();
    const bool has_input = input.raw && input.display;
    if (!presenting_ && !compact_) draw_image_toolbar(v, has_input);
    if (!v.display) {
        ImGui::TextDisabled("Nothing to show yet.");
        return;
    }
    ImageViewState& s = v.state;
    const CompareMode mode = has_input && !compact_ ? s.compare : CompareMode::OutputOnly;
    const float inspector_height = compact_ ? 0.0f : ImGui::GetTextLineHeightWithSpacing() * 3;
    const ImVec2 avail = ImGui::GetContentRegionAvail();
    // Scalars (or one channel) are colormapped: a colour bar with the range stands beside them.
    const int comps = v.raw ? v.raw->format().data_components : int(elem_info(v.type).components);
    const bool colormapped = comps == 1 || s.display.channel >= 0;
    const float bar_w = colormapped ? colour_bar_width() + ImGui::GetStyle().ItemSpacing.x : 0.0f;
    const ImVec2 size(std::max(avail.x - bar_w, 64.0f), std::max(avail.y - inspector_height, 64.0f));
    const ImVec2 canvas = ImGui::GetCursorScreenPos();
    ImGui::InvisibleButton("##canvas", size);
    const bool hovered = ImGui::IsItemHovered();
    const bool active = ImGui::IsItemActive();
    const ImGuiIO& io = ImGui::GetIO();

    const float gap = mode == CompareMode::SideBySide ? 4.0f : 0.0f;
    const ImVec2 pane(mode == CompareMode::SideBySide ? (size.x - gap) * 0.5f : size.x, size.y);
    if (s.fit) {
        s.zoom = std::min(pane.x / float(v.width), pane.y / float(v.height));
        s.pan_x = (pane.x - float(v.width) * s.zoom) * 0.5f;
        s.pan_y = (pane.y - float(v.height) * s.zoom) * 0.5f;
    }
    const int hovered_pane = mode == CompareMode::SideBySide && io.MousePos.x >= canvas.x + pane.x + gap ? 1 : 0;
    const ImVec2 pane_origin(canvas.x + float(hovered_pane) * (pane.x + gap), canvas.y);
    if (hovered && io.MouseWheel != 0.0f) {
        const float zoom = std::clamp(s.zoom * std::pow(1.25f, io.MouseWheel), 1.0f / 64, 256.0f);
        const float mx = io.MousePos.x - pane_origin.x, my = io.MousePos.y - pane_origin.y;
        s.pan_x = mx - (mx - s.pan_x) * (zoom / s.zoom);  // keep the texel under the cursor in place
        s.pan_y = my - (my - s.pan_y) * (zoom / s.zoom);
        s.zoom = zoom;
        s.fit = false;
    }
    if (active && ImGui::IsMouseDragging(ImGuiMouseButton_Left, 0.0f)) {
        s.pan_x += io.MouseDelta.x;
        s.pan_y += io.MouseDelta.y;
        s.fit = false;
    }

    ImDrawList* draw = ImGui::GetWindowDrawList();
    draw->AddRectFilled(canvas, ImVec2(canvas.x + size.x, canvas.y + size.y), IM_COL32(24, 24, 24, 255));
    // Whole-pixel origin: at 100% every texel lands on exactly one screen pixel.
    auto image_origin = [&](int pane_index) {
        return ImVec2(std::floor(canvas.x + float(pane_index) * (pane.x + gap) + s.pan_x), std::floor(canvas.y + s.pan_y));
    };
    const bool sharp = s.zoom >= 2.0f || std::abs(s.zoom - 1.0f) < 1e-3f;
    auto draw_texture = [&](const render::Texture& t, int w, int h, ImVec2 origin, ImVec2 clip0, ImVec2 clip1) {
        t.set_nearest_magnification(sharp);
        draw->PushClipRect(clip0, clip1, true);
        draw->AddImage(texture_id(t), origin, ImVec2(origin.x + float(w) * s.zoom, origin.y + float(h) * s.zoom));
        draw->PopClipRect();
    };
    const ImVec2 canvas_end(canvas.x + size.x, canvas.y + size.y);
    int output_pane = 0;
    float split_x = canvas.x + size.x * s.split;
    switch (mode) {
        case CompareMode::OutputOnly:
            draw_texture(v.display, v.width, v.height, image_origin(0), canvas, canvas_end);
            break;
        case CompareMode::SideBySide:
            draw_texture(input.display, input.raw->width(), input.raw->height(), image_origin(0), canvas,
                         ImVec2(canvas.x + pane.x, canvas_end.y));
            draw_texture(v.display, v.width, v.height, image_origin(1), ImVec2(canvas.x + pane.x + gap, canvas.y), canvas_end);
            output_pane = 1;
            break;
        case CompareMode::Split:
            draw_texture(input.display, input.raw->width(), input.raw->height(), image_origin(0), canvas,
                         ImVec2(split_x, canvas_end.y));
            draw_texture(v.display, v.width, v.height, image_origin(0), ImVec2(split_x, canvas.y), canvas_end);
            draw->AddLine(ImVec2(split_x, canvas.y), ImVec2(split_x, canvas_end.y), IM_COL32(255, 255, 255, 200), 2.0f);
            break;
    }
    const ImVec2 out0 = image_origin(output_pane);
    const float clip_x0 = mode == CompareMode::SideBySide ? canvas.x + pane.x + gap : mode == CompareMode::Split ? split_x : canvas.x;
    drawn_output_ = {out0.x, out0.y, out0.x + float(v.width) * s.zoom, out0.y + float(v.height) * s.zoom,
                     clip_x0,  canvas.y, canvas_end.x, canvas_end.y, s.zoom, true};
    if (colormapped) {
        const render::DisplaySettings& d = s.display;
        const double lo = d.auto_range ? v.range.min : d.range_min, hi = d.auto_range ? v.range.max : d.range_max;
        std::string label = v.spec.buffer;
        if (comps > 1) label += std::string(".") + "xyzw"[std::clamp(d.channel, 0, 3)];
        label += std::string(" (") + elem_info(v.type).name + ")";
        ImGui::SameLine();
        colour_bar(label.c_str(), lo, hi, d.colormap, ImVec2(colour_bar_width(), size.y));
        drawn_output_.colour_bar = true;
        drawn_output_.bar_min = lo;
        drawn_output_.bar_max = hi;
    }

    std::optional<std::pair<int, int>> pixel;
    bool over_input = false;
    if (hovered) {
        const ImVec2 o = image_origin(hovered_pane);
        over_input = (mode == CompareMode::SideBySide && hovered_pane == 0) || (mode == CompareMode::Split && io.MousePos.x < split_x);
        const int px = int(std::floor((io.MousePos.x - o.x) / s.zoom));
        const int py = int(std::floor((io.MousePos.y - o.y) / s.zoom));
        pixel = std::make_pair(px, py);
    }
    if (!compact_) {
        draw_inspector(v, pixel, over_input);
    } else if (pixel) {  // a side-by-side column has no room below its image: the values follow the mouse
        ImGui::BeginTooltip();
        draw_inspector(v, pixel, over_input);
        ImGui::EndTooltip();
    }
}

void OutputPanel::draw_inspector(OutputView& v, std::optional<std::pair<int, int>> pixel, bool over_input) {
    if (!pixel) {
        ImGui::TextDisabled("Hover the image to inspect a pixel; wheel zooms, drag pans.");
        return;
    }
    const auto [x, y] = *pixel;
    const render::BufferTexture* raw = over_input ? views_.input().raw.get() : v.raw.get();
    if (!raw || x < 0 || y < 0 || x >= raw->width() || y >= raw->height()) {
        ImGui::TextDisabled("(%d, %d) is outside the image", x, y);
        return;
    }
    const auto values = raw->read_element(x, y);
    const int comps = raw->format().data_components;
    const bool is_float = elem_info(raw->type()).is_float;
    std::string text;
    for (int c = 0; c < comps; ++c) text += (c ? ", " : "") + format_value(values[size_t(c)], is_float);
    ImGui::Text("(%d, %d)  %s %s = (%s)", x, y, over_input ? "input" : "output",
                over_input ? views_.input().buffer.c_str() : v.spec.buffer.c_str(), text.c_str());
    if (!over_input) ImGui::TextUnformatted(thread_of_pixel(x, y, v.width, v.grid, v.block).c_str());
    else ImGui::TextDisabled("input image %s", views_.input().path.c_str());
}

}  // namespace cp::ui
