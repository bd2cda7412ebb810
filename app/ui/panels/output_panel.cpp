// Output panel drawing.
//   draw()               tabs, one per view, and the verification / stale-output line
//   draw_image_view()    canvas: zoom, pan, compare modes, texture filtering
//   draw_image_toolbar() one row: zoom, input/output, the Display popover
//   inspector_lines()    the hovered pixel's values and thread mapping
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
    // The comparison's checkbox: in the image toolbar's row when there is a picture (no row of its own), else here.
    const bool toolbar_row = std::any_of(views_.views().begin(), views_.views().end(),
                                         [](const OutputView& v) { return v.is_image() && v.display; });
    if (!compare_.listed.empty() && !presenting_ && !toolbar_row) draw_compare_checkbox();
    // Presentation mode shows the columns too (without their settings row): they are the comparison lessons' point.
    if (compare_.active() && !compare_.columns.empty()) {
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
    // One view (the common case) needs no tab bar: its row of height goes to the picture.
    if (views.size() == 1) {
        OutputView& v = views.front();
        if (!v.problem.empty()) ImGui::TextColored(ImVec4(1, 0.4f, 0.35f, 1), "%s", v.problem.c_str());
        if (v.is_image()) draw_image_view(v);
        else draw_series_view(v);
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

// One row: Fit, 1:1, the zoom, input/output, a "Display" button whose popover holds the channel, colormap and
// range, and what the image is (its path and the mouse's use on hover). The picture gets the rest of the height.
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
        same_line_if_fits(ImGui::CalcTextSize("input | output").x + ImGui::GetFrameHeight() * 2);
        const char* modes[] = {"output", "input | output", "split"};
        int mode = int(s.compare);
        ImGui::SetNextItemWidth(ImGui::CalcTextSize("input | output").x + ImGui::GetFrameHeight() * 2);
        if (ImGui::Combo("##compare", &mode, modes, 3)) s.compare = CompareMode(mode);
        if (s.compare == CompareMode::Split) {
            same_line_if_fits(ImGui::CalcTextSize("0.00").x * 4);
            ImGui::SetNextItemWidth(ImGui::CalcTextSize("0.00").x * 4);
            ImGui::SliderFloat("##split", &s.split, 0.0f, 1.0f, "%.2f");
        }
    }
    same_line_if_fits(ImGui::CalcTextSize("Display").x + ImGui::GetStyle().FramePadding.x * 2);
    if (ImGui::Button("Display")) ImGui::OpenPopup("##display");
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("Channel, colormap and value range");
    if (ImGui::BeginPopup("##display")) {
        draw_display_settings(v);
        ImGui::EndPopup();
    }
    // On the first picture's row only (the one draw() relies on), never twice.
    const auto first_image = std::find_if(views_.views().begin(), views_.views().end(),
                                          [](const OutputView& o) { return o.is_image() && o.display; });
    if (!compare_.listed.empty() && !presenting_ && first_image != views_.views().end() && &*first_image == &v) {
        same_line_if_fits(checkbox_width("Compare side by side"));
        draw_compare_checkbox();
    }
    // What the image is, where the row has room for it (else in the Display button's tooltip).
    char info[160];
    if (v.is_preview())  // the values are not all here: say so where the size is said
        std::snprintf(info, sizeof info, "preview %dx%d of %dx%d %s, run #%llu - exact values on hover", v.preview_width,
                      v.preview_height, v.width, v.height, elem_info(v.type).name, static_cast<unsigned long long>(v.run));
    else
        std::snprintf(info, sizeof info, "%dx%d %s, run #%llu", v.width, v.height, elem_info(v.type).name,
                      static_cast<unsigned long long>(v.run));
    ImGui::SameLine();
    if (ImGui::GetContentRegionAvail().x >= ImGui::CalcTextSize(info).x) {
        ImGui::TextDisabled("%s", info);
        if (ImGui::IsItemHovered())
            ImGui::SetTooltip("%s\nHover the image to inspect a pixel; the wheel zooms, dragging pans.", v.path.c_str());
    } else {
        ImGui::NewLine();
    }
}

void OutputPanel::draw_compare_checkbox() {
    ImGui::Checkbox("Compare side by side", &compare_.enabled);
    if (ImGui::IsItemHovered()) {
        std::string names;
        for (size_t i = 0; i < compare_.listed.size(); ++i) names += (i ? ", " : "") + compare_.listed[i];
        ImGui::SetTooltip("Run %s beside this kernel on the same inputs, each checked and timed", names.c_str());
    }
}

void OutputPanel::draw_display_settings(OutputView& v) {
    ImageViewState& s = v.state;
    bool changed = false;
    render::DisplaySettings& d = s.display;
    const int comps = v.raw ? v.raw->format().data_components : int(elem_info(v.type).components);
    if (comps > 1) {
        int ch = d.channel + 1;
        const char* items[] = {"all channels", kChannelNames[0], kChannelNames[1], kChannelNames[2], kChannelNames[3]};
        ImGui::SetNextItemWidth(ImGui::CalcTextSize("all channels").x + ImGui::GetFrameHeight() * 2);
        if (ImGui::Combo("channel", &ch, items, comps + 1)) {
            d.channel = ch - 1;
            changed = true;
        }
    }
    const bool scalar = comps == 1 || d.channel >= 0;
    ImGui::BeginDisabled(!scalar);
    int cmap = int(d.colormap);
    const auto& names = render::colormap_names();
    ImGui::SetNextItemWidth(ImGui::CalcTextSize("all channels").x + ImGui::GetFrameHeight() * 2);
    if (ImGui::BeginCombo("colormap", names[size_t(cmap)].c_str())) {
        for (size_t i = 0; i < names.size(); ++i)
            if (ImGui::Selectable(names[i].c_str(), int(i) == cmap)) {
                d.colormap = render::Colormap(i);
                changed = true;
            }
        ImGui::EndCombo();
    }
    ImGui::EndDisabled();
    changed |= ImGui::Checkbox("auto range", &d.auto_range);
    if (d.auto_range) {
        if (v.range.valid) {
            ImGui::SameLine();
            ImGui::TextDisabled("[%.4g, %.4g]", v.range.min, v.range.max);
        }
    } else {
        double r[2] = {d.range_min, d.range_max};
        ImGui::SetNextItemWidth(ImGui::CalcTextSize("-0.0000e+00").x * 2.5f);
        if (ImGui::InputScalarN("range", ImGuiDataType_Double, r, 2, nullptr, nullptr, "%.4g",
                                ImGuiInputTextFlags_EnterReturnsTrue)) {
            d.range_min = r[0];
            d.range_max = r[1];
            changed = true;
        }
    }
    if (comps == 4 && d.channel < 0) changed |= ImGui::Checkbox("alpha", &d.show_alpha);
    if (changed) views_.refresh_display(v);
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
    // The pixel inspector is drawn over the picture's bottom edge while the mouse is on it: no rows reserved.
    const float inspector_height = 0.0f;
    const ImVec2 avail = ImGui::GetContentRegionAvail();
    // Scalars (or one channel) are colormapped: a colour bar with the range stands beside them.
    const int comps = v.raw ? v.raw->format().data_components : int(elem_info(v.type).components);
    const bool colormapped = comps == 1 || s.display.channel >= 0;
    // A narrow side-by-side column (large type) leaves its colour bar out rather than halve the picture; the
    // columns share one range (the Display settings above them), and each hovered pixel shows its value.
    const bool bar = colormapped && (!compact_ || avail.x >= 4 * colour_bar_width());
    const float bar_w = bar ? colour_bar_width() + ImGui::GetStyle().ItemSpacing.x : 0.0f;
    const ImVec2 size(std::max(avail.x - bar_w, 64.0f), std::max(avail.y - inspector_height, 64.0f));
    const ImVec2 canvas = ImGui::GetCursorScreenPos();
    if (!compact_) {
        const ImVec2 scale = ImGui::GetIO().DisplayFramebufferScale;
        canvas_pixels_ = {int(std::ceil(size.x * std::max(scale.x, 1.0f))), int(std::ceil(size.y * std::max(scale.y, 1.0f)))};
    }
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
    if (!v.display_problem.empty()) {
        // The display cannot show it (the screen check failed on both paths): words in its place, never a blank or
        // stale picture under the verdict.
        const float pad = ImGui::GetFontSize();
        draw->AddRectFilled(canvas, canvas_end, IM_COL32(60, 24, 24, 255));
        draw->AddText(ImGui::GetFont(), ImGui::GetFontSize(), ImVec2(canvas.x + pad, canvas.y + pad),
                      IM_COL32(255, 220, 200, 255), v.display_problem.c_str(), nullptr,
                      std::max(size.x - 2 * pad, 8 * pad));
        drawn_output_ = {};
        drawn_output_.message = v.display_problem;
        return;
    }
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
    if (const auto fp = memory_warp(v)) {
        // The Memory panel's warp: its pixels' box, a bright outline at least a few pixels wide at any zoom.
        const float min_px = 6.0f;
        ImVec2 a(out0.x + float(fp->x0) * s.zoom, out0.y + float(fp->y0) * s.zoom);
        ImVec2 b(out0.x + float(fp->x1 + 1) * s.zoom, out0.y + float(fp->y1 + 1) * s.zoom);
        if (b.x - a.x < min_px) a.x -= (min_px - (b.x - a.x)) * 0.5f, b.x = a.x + min_px;
        if (b.y - a.y < min_px) a.y -= (min_px - (b.y - a.y)) * 0.5f, b.y = a.y + min_px;
        // Widened at a picture's edge: inside it, over the warp's own pixels.
        const float shift_x = std::max(0.0f, out0.x - a.x) - std::max(0.0f, b.x - (out0.x + float(v.width) * s.zoom));
        const float shift_y = std::max(0.0f, out0.y - a.y) - std::max(0.0f, b.y - (out0.y + float(v.height) * s.zoom));
        a.x += shift_x, b.x += shift_x, a.y += shift_y, b.y += shift_y;
        draw->PushClipRect(ImVec2(clip_x0, canvas.y), canvas_end, true);
        draw->AddRect(ImVec2(a.x - 2, a.y - 2), ImVec2(b.x + 2, b.y + 2), IM_COL32(0, 0, 0, 220), 0.0f, 4.0f);
        draw->AddRect(a, b, IM_COL32(80, 240, 255, 255), 0.0f, 2.5f);
        draw->PopClipRect();
        drawn_output_.warp_outlined = true;
        drawn_output_.warp_x0 = fp->x0, drawn_output_.warp_y0 = fp->y0;
        drawn_output_.warp_x1 = fp->x1, drawn_output_.warp_y1 = fp->y1;
    }
    if (v.is_preview()) {
        char note[128];
        std::snprintf(note, sizeof note, "preview %dx%d of %dx%d - exact values on hover", v.preview_width, v.preview_height,
                      v.width, v.height);
        drawn_output_.preview_note = note;
    }
    if (bar) {
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
    if (!pixel) return;
    if (compact_) {  // a side-by-side column is narrow: the values follow the mouse
        ImGui::BeginTooltip();
        for (const auto& [text, dim] : inspector_lines(v, *pixel, over_input))
            if (dim) ImGui::TextDisabled("%s", text.c_str());
            else ImGui::TextUnformatted(text.c_str());
        ImGui::EndTooltip();
        return;
    }
    // A strip over the canvas' bottom edge, on a dark band so it reads over any picture.
    auto lines = inspector_lines(v, *pixel, over_input);
    if (!over_input && pixel->first >= 0 && pixel->second >= 0 && pixel->first < v.width && pixel->second < v.height) {
        // A click that did not drag (a drag pans) picks the pixel's warp for the Memory panel.
        const bool clicked = ImGui::IsMouseReleased(ImGuiMouseButton_Left) && io.MouseDragMaxDistanceSqr[0] < 16.0f;
        const auto [x, y] = *pixel;
        const std::string pick =
            memory_pick(owner_of_pixel(x, y, v.width, v.grid, v.block),
                        v.spec.buffer + "(" + std::to_string(x) + ", " + std::to_string(y) + ")",
                        (uint64_t(y) * uint64_t(v.width) + uint64_t(x)) * elem_info(v.type).size, clicked);
        if (!pick.empty()) lines.push_back({pick, false});
    }
    for (const auto& line : lines) drawn_output_.inspector += line.first + "\n";
    const float line_h = ImGui::GetTextLineHeightWithSpacing(), pad = ImGui::GetStyle().FramePadding.x;
    const float band_y0 = canvas_end.y - line_h * float(lines.size()) - pad;
    draw->AddRectFilled(ImVec2(canvas.x, band_y0), canvas_end, IM_COL32(16, 16, 16, 215));
    float y = band_y0 + pad * 0.5f;
    draw->PushClipRect(canvas, canvas_end, true);
    for (const auto& [text, dim] : lines) {
        draw->AddText(ImVec2(canvas.x + pad, y), ImGui::GetColorU32(dim ? ImGuiCol_TextDisabled : ImGuiCol_Text), text.c_str());
        y += line_h;
    }
    draw->PopClipRect();
}

std::optional<WarpFootprint> OutputPanel::memory_warp(const OutputView& v) const {
    if (!memory_ || !memory_->enabled || !memory_->result || compact_) return std::nullopt;
    const WarpFootprint fp = warp_footprint(memory_->warp, v.grid, v.block, v.is_image() ? v.width : 0);
    if (!fp.valid) return std::nullopt;
    return fp;
}

std::string OutputPanel::memory_pick(const std::optional<PixelOwner>& owner, const std::string& element,
                                     uint64_t byte_offset, bool clicked) {
    if (!memory_ || !memory_->enabled) return "";
    const WarpPick pick = warp_pick(owner, element, byte_offset, memory_->result ? &*memory_->result : nullptr);
    if (clicked) memory_->pick(pick);
    return pick.text;
}

std::vector<std::pair<std::string, bool>> OutputPanel::inspector_lines(OutputView& v, std::pair<int, int> pixel,
                                                                      bool over_input) {
    const auto [x, y] = pixel;
    const render::BufferTexture* raw = over_input ? views_.input().raw.get() : v.raw.get();
    char buf[96];
    // A preview's texture is smaller than the picture it stands for: the picture's size decides.
    const int width = over_input || !raw ? (raw ? raw->width() : 0) : v.width;
    const int height = over_input || !raw ? (raw ? raw->height() : 0) : v.height;
    if (!raw || x < 0 || y < 0 || x >= width || y >= height) {
        std::snprintf(buf, sizeof buf, "(%d, %d) is outside the image", x, y);
        return {{buf, true}};
    }
    const int comps = raw->format().data_components;
    const bool is_float = elem_info(raw->type()).is_float;
    std::string text;
    std::string note;  // a preview's: the exact values are on their way, or why they are not
    if (!over_input && v.is_preview() && v.exact) {
        // The exact values fetched for this run (a preview only averages them).
        const size_t i = size_t(y) * size_t(v.width) + size_t(x);
        for (int c = 0; c < int(elem_info(v.exact->type).components); ++c)
            text += (c ? ", " : "") + format_value(element_value(*v.exact, i, c), is_float);
    } else {
        // A preview's texel covers several pixels: its values are their average until the exact ones come.
        const int tx = v.is_preview() && !over_input ? int(int64_t(x) * raw->width() / v.width) : x;
        const int ty = v.is_preview() && !over_input ? int(int64_t(y) * raw->height() / v.height) : y;
        const auto values = raw->read_element(tx, ty);
        for (int c = 0; c < comps; ++c) text += (c ? ", " : "") + format_value(values[size_t(c)], is_float);
        if (!over_input && v.is_preview()) {
            v.exact_wanted = v.exact_problem.empty();
            note = v.exact_problem.empty() ? "preview average; fetching the exact values..."
                                           : "preview average; the exact values could not be fetched: " + v.exact_problem;
        }
    }
    std::snprintf(buf, sizeof buf, "(%d, %d)  %s ", x, y, over_input ? "input" : "output");
    std::vector<std::pair<std::string, bool>> lines;
    lines.push_back({buf + (over_input ? views_.input().buffer : v.spec.buffer) + (note.empty() ? " = (" : " ~ (") +
                         text + ")",
                     false});
    if (!note.empty()) lines.push_back({note, true});
    if (!over_input) lines.push_back({thread_of_pixel(x, y, v.width, v.grid, v.block), false});
    else lines.push_back({"input image " + views_.input().path, true});
    return lines;
}

}  // namespace cp::ui
