// Output panel, side by side: a lesson with `compare:` shows one column per kernel (the main one first), each
// with its name, median time, check verdict (or why it failed) and its own output views, and above them one
// line per variant with its speed ratio to the main kernel.
#include "ui/panels/output_panel.h"

#include <imgui.h>

namespace cp::ui {

namespace {

const ImVec4 kGood(0.4f, 0.9f, 0.4f, 1), kBad(1, 0.4f, 0.35f, 1);

void wrapped(const ImVec4& colour, const std::string& text) {
    ImGui::PushStyleColor(ImGuiCol_Text, colour);
    ImGui::TextWrapped("%s", text.c_str());
    ImGui::PopStyleColor();
}

}  // namespace

void OutputPanel::draw_side_by_side() {
    for (const VariantColumn& c : compare_.columns)
        if (!c.ratio.empty()) ImGui::TextWrapped("%s", c.ratio.c_str());
    const int columns = 1 + int(compare_.columns.size());
    const ImGuiTableFlags flags = ImGuiTableFlags_BordersInnerV | ImGuiTableFlags_Resizable | ImGuiTableFlags_SizingStretchSame;
    if (!ImGui::BeginTable("##side_by_side", columns, flags)) return;
    ImGui::TableNextRow();
    auto record = [&](DrawnColumn column, float x0) {
        column.x0 = x0;
        column.x1 = x0 + ImGui::GetContentRegionAvail().x;
        if (drawn_output_.valid) column.image = drawn_output_;
        drawn_columns_.push_back(std::move(column));
        drawn_output_.valid = false;
    };

    ImGui::TableSetColumnIndex(0);
    ImGui::PushID(0);
    float x0 = ImGui::GetCursorScreenPos().x;
    ImGui::TextWrapped("%s (this lesson)", compare_.main_kernel.c_str());
    if (compare_.main_median_ms) ImGui::Text("median %.4g ms", *compare_.main_median_ms);
    draw_status();
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
        ImGui::TextWrapped("%s", c.kernel.empty() ? c.name.c_str() : (c.kernel + "  (" + c.name + ")").c_str());
        if (c.median_ms) ImGui::Text("median %.4g ms", *c.median_ms);
        if (!c.error.empty()) wrapped(kBad, c.error);
        if (c.verified.has_value()) wrapped(*c.verified ? kGood : kBad, c.verdict);
        else if (!c.verdict.empty()) wrapped(ImVec4(1, 0.75f, 0.3f, 1), c.verdict);
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
}

}  // namespace cp::ui
