// Output panel, side by side: a lesson with `compare:` shows one column per kernel (the main one first), each
// with its name, median time, check verdict (or why it failed) and its own output views, and above them one
// line per variant with its speed ratio to the main kernel.
#include "ui/panels/output_panel.h"

#include <imgui.h>

#include <cstdio>

namespace cp::ui {

namespace {

const ImVec4 kColumnGood(0.4f, 0.9f, 0.4f, 1), kColumnBad(1, 0.4f, 0.35f, 1);

void wrapped(const ImVec4& colour, const std::string& text) {
    ImGui::PushStyleColor(ImGuiCol_Text, colour);
    ImGui::TextWrapped("%s", text.c_str());
    ImGui::PopStyleColor();
}

// One line under a column's name: its median time and its verdict in short (the whole verdict on hover).
void heading_line(std::optional<double> median_ms, std::optional<bool> verified, const std::string& verdict,
                  const std::string& short_verdict) {
    char time[48] = "";
    if (median_ms) std::snprintf(time, sizeof time, "%.4g ms", *median_ms);
    const char* sep = median_ms ? " | " : "";
    // Checking, or not checked and why in short (report_text.h); the whole sentence on hover.
    const std::string words = verified == true         ? "matches its reference"
                              : verified == false      ? "WRONG: differs from its reference"
                              : !short_verdict.empty() ? short_verdict
                                                       : "not checked";
    wrapped(verified == true    ? kColumnGood
            : verified == false ? kColumnBad
                                : ImVec4(1, 0.75f, 0.3f, 1),
            std::string(time) + sep + words);
    if (!verdict.empty() && ImGui::IsItemHovered()) ImGui::SetTooltip("%s", verdict.c_str());
}

}  // namespace

void OutputPanel::draw_side_by_side() {
    for (const VariantColumn& c : compare_.columns) {
        if (c.ratio.empty()) continue;
        if (c.verified == false)
            ImGui::TextWrapped("%s (but its result is wrong)", c.ratio.c_str());
        else
            ImGui::TextWrapped("%s", c.ratio.c_str());
    }
    // One row of display settings for every column (the main kernel's first image view's), so that the same
    // values look the same side by side; the columns themselves stay compact.
    for (OutputView& main_view : views_.views()) {
        if (!main_view.is_image() || !main_view.display) continue;
        if (!presenting_) {
            ImGui::PushID("display");
            draw_image_toolbar(main_view, false);
            ImGui::PopID();
        }
        for (VariantColumn& c : compare_.columns) {
            if (!c.views) continue;
            for (OutputView& v : c.views->views()) {
                if (v.spec.buffer != main_view.spec.buffer || !v.is_image()) continue;
                const render::DisplaySettings& a = v.state.display;
                const render::DisplaySettings& b = main_view.state.display;
                const bool same = a.channel == b.channel && a.colormap == b.colormap && a.auto_range == b.auto_range &&
                                  a.range_min == b.range_min && a.range_max == b.range_max &&
                                  a.show_alpha == b.show_alpha;
                if (same) continue;
                v.state.display = b;
                c.views->refresh_display(v);
            }
        }
        break;
    }
    const int columns = 1 + int(compare_.columns.size());
    const ImGuiTableFlags flags =
        ImGuiTableFlags_BordersInnerV | ImGuiTableFlags_Resizable | ImGuiTableFlags_SizingStretchSame;
    if (!ImGui::BeginTable("##side_by_side", columns, flags)) return;
    ImGui::TableNextRow();
    compact_ = true;
    auto record = [&](DrawnColumn column, float x0) {
        column.x0 = x0;
        column.x1 = x0 + ImGui::GetContentRegionAvail().x;
        if (drawn_output_.valid || !drawn_output_.message.empty()) column.image = drawn_output_;  // or its message
        drawn_columns_.push_back(std::move(column));
        drawn_output_.valid = false;
    };

    ImGui::TableSetColumnIndex(0);
    ImGui::PushID(0);
    float x0 = ImGui::GetCursorScreenPos().x;
    ImGui::TextWrapped("%s (this lesson)", compare_.main_kernel.c_str());
    if (!status_.failure.empty()) {
        draw_status();
    } else {
        heading_line(compare_.main_median_ms, status_.verified, status_.verification, status_.short_verdict);
    }
    column_key_ = "main/";
    draw_views(views_);
    DrawnColumn main_column;
    main_column.kernel = compare_.main_kernel;
    main_column.verdict = status_.verification;
    main_column.error = status_.failure;
    record(main_column, x0);
    ImGui::PopID();

    for (size_t i = 0; i < compare_.columns.size(); ++i) {
        VariantColumn& c = compare_.columns[i];
        ImGui::TableSetColumnIndex(int(i) + 1);
        ImGui::PushID(int(i) + 1);
        x0 = ImGui::GetCursorScreenPos().x;
        ImGui::TextWrapped("%s", c.kernel.empty() ? c.name.c_str() : c.kernel.c_str());
        if (!c.kernel.empty() && c.kernel != c.name && ImGui::IsItemHovered()) ImGui::SetTooltip("%s", c.name.c_str());
        if (!c.error.empty())
            wrapped(kColumnBad, c.error);
        else
            heading_line(c.median_ms, c.verified, c.verdict, c.short_verdict);
        column_key_ = "variant" + std::to_string(i) + "/";
        if (c.views) draw_views(*c.views);
        DrawnColumn column;
        column.kernel = c.kernel.empty() ? c.name : c.kernel;
        column.verdict = c.verdict;
        column.error = c.error;
        record(std::move(column), x0);
        ImGui::PopID();
    }
    ImGui::EndTable();
    column_key_.clear();
    compact_ = false;
    // drawn_output() stays the main kernel's image, as without the comparison.
    drawn_output_ = drawn_columns_.front().image;
}

}  // namespace cp::ui
