// Sweep panel (sweep_panel.h): the controls and the chart of ui/charts.h (bars for the median time, gold: the
// fastest; a line for the predicted occupancy on its own axis), the same chart `sweep --png` writes.
#include "ui/panels/sweep_panel.h"

#include "ui/charts.h"
#include "ui/widgets.h"

#include <imgui.h>
#include <implot.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

namespace cp::ui {

void SweepPanel::apply(const Dim3& block) {
    inputs_.choices.block = block;
    inputs_.choices.grid.reset();  // the file's grid expression follows the block
    inputs_.touch();
}

void SweepPanel::draw() {
    if (sweep_.running) {
        const size_t done = sweep_.progress->done, total = std::max<size_t>(sweep_.progress->total, 1);
        char label[64];
        std::snprintf(label, sizeof label, "%zu of %zu shapes", done, size_t(sweep_.progress->total));
        ImGui::ProgressBar(float(done) / float(total),
                           ImVec2(-ImGui::CalcTextSize("Cancel").x - ImGui::GetStyle().FramePadding.x * 2 -
                                      ImGui::GetStyle().ItemSpacing.x,
                                  0),
                           label);
        ImGui::SameLine();
        if (ImGui::Button("Cancel")) sweep_.progress->cancel = true;
    } else {
        if (ImGui::Button("Sweep block sizes")) sweep_.requested = true;
        same_line_if_fits(ImGui::GetFontSize() * 7 + ImGui::CalcTextSize("repeats").x +
                          ImGui::GetStyle().ItemInnerSpacing.x);
        ImGui::SetNextItemWidth(ImGui::GetFontSize() * 7);
        ImGui::SliderInt("repeats", &sweep_.repeats, 1, 50);
    }
    if (!sweep_.result) {
        text_disabled_wrapped("Times the kernel for each usual block shape; the grid follows the file's expression.");
        return;
    }
    if (!sweep_.result->ok()) {
        ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1, 0.4f, 0.4f, 1));
        ImGui::TextWrapped("%s", sweep_.result->error().full().c_str());
        ImGui::PopStyleColor();
        return;
    }
    const SweepResult& r = sweep_.result->value();
    if (r.best >= 0) {
        const SweepConfig& best = r.configs[size_t(r.best)];
        ImGui::TextWrapped("fastest: block %s, %.4f ms median (%.0f%% predicted occupancy)%s", best.block.str().c_str(),
                           best.median_ms, best.predicted.occupancy * 100, r.cancelled ? " - cancelled early" : "");
        if (ImGui::Button("Apply best")) apply(best.block);
    }
    if (r.configs.empty()) return;
    // The chart (ui/charts.h, shared with `sweep --png`); shapes not timed have no bar (hover says why).
    const float height =
        std::max(ImGui::GetContentRegionAvail().y - ImGui::GetTextLineHeightWithSpacing(), ImGui::GetFontSize() * 8);
    const int hovered = sweep_chart(r, ImVec2(-1, height));
    if (hovered >= 0) {
        const SweepConfig& c = r.configs[size_t(hovered)];
        if (c.timed())
            ImGui::SetTooltip(
                "block %s (grid %s): median %.4f ms, min %.4f\npredicted %d blocks/SM, %.0f%% occupancy "
                "(%s)\nclick to use it",
                c.block.str().c_str(), c.grid.str().c_str(), c.median_ms, c.min_ms, c.predicted.blocks_per_sm,
                c.predicted.occupancy * 100, c.predicted.limited_by.c_str());
        else
            ImGui::SetTooltip("block %s: %s", c.block.str().c_str(), c.skipped.c_str());
        if (ImGui::IsMouseClicked(ImGuiMouseButton_Left) && c.timed()) apply(c.block);
    }
    text_disabled_wrapped(
        "bars: median time per block shape (gold: fastest); line: predicted occupancy; click a bar to use it");
}

}  // namespace cp::ui
