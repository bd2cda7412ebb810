// draw_device_split (device_split_view.h).
#include "ui/panels/device_split_view.h"

#include "core/session/device_split_check.h"
#include "ui/widgets.h"

#include <imgui.h>

namespace cp::ui {

DrawnSplit draw_device_split(const DeviceSplitReport& s) {
    DrawnSplit drawn{true, int(s.parts.size()), ImGui::GetCursorScreenPos().y, 0};
    ImGui::Separator();
    ImGui::TextWrapped("%s split over %ss, one part each:", s.param.c_str(), s.unit().c_str());
    ImGui::TextWrapped("%s", s.summary().c_str());
    // A table where the panel is wide enough for its six columns of numbers; else one wrapped line per device,
    // so a narrow column at large text shows every figure whole rather than cut cells.
    const float table_width = ImGui::CalcTextSize("1000000000 ").x * 6;
    if (ImGui::GetContentRegionAvail().x < table_width) {
        for (const DevicePart& p : s.parts) {
            const TransferTimes& t = p.times;
            ImGui::Bullet();
            ImGui::TextWrapped("%s %d: %llu elements; h->d %.3f ms, kernel %.3f ms, d->h %.3f ms; total %.3f ms",
                               s.unit().c_str(), p.ordinal, static_cast<unsigned long long>(p.end - p.begin),
                               t.upload_ms, t.kernel_ms, t.download_ms, t.total_ms());
            if (ImGui::IsItemHovered())
                ImGui::SetTooltip("%s: [%llu, %llu), grid %s; allocation %.4f ms included", p.name.c_str(),
                                  static_cast<unsigned long long>(p.begin), static_cast<unsigned long long>(p.end),
                                  p.grid.str().c_str(), t.allocate_ms);
        }
    } else if (ImGui::BeginTable("##devices", 6,
                                 ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingStretchProp | ImGuiTableFlags_BordersInnerV)) {
        ImGui::TableSetupColumn(s.gpu ? "GPU" : "worker");
        ImGui::TableSetupColumn("elements");
        ImGui::TableSetupColumn("h->d ms");
        ImGui::TableSetupColumn("kernel ms");
        ImGui::TableSetupColumn("d->h ms");
        ImGui::TableSetupColumn("total ms");
        ImGui::TableHeadersRow();
        for (const DevicePart& p : s.parts) {
            const TransferTimes& t = p.times;
            ImGui::TableNextRow();
            ImGui::TableNextColumn();
            ImGui::Text("%d", p.ordinal);
            if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", p.name.c_str());
            ImGui::TableNextColumn();
            ImGui::Text("%llu", static_cast<unsigned long long>(p.end - p.begin));
            if (ImGui::IsItemHovered())
                ImGui::SetTooltip("[%llu, %llu), grid %s", static_cast<unsigned long long>(p.begin),
                                  static_cast<unsigned long long>(p.end), p.grid.str().c_str());
            ImGui::TableNextColumn();
            ImGui::Text("%.4f", t.upload_ms);
            ImGui::TableNextColumn();
            ImGui::Text("%.4f", t.kernel_ms);
            ImGui::TableNextColumn();
            ImGui::Text("%.4f", t.download_ms);
            ImGui::TableNextColumn();
            ImGui::Text("%.4f", t.total_ms());
            if (ImGui::IsItemHovered()) ImGui::SetTooltip("allocation %.4f ms included", t.allocate_ms);
        }
        ImGui::EndTable();
    }
    drawn.y1 = ImGui::GetItemRectMax().y;  // the per-device lines end here; the speed-up follows
    if (s.parts.size() > 1) {
        ImGui::TextWrapped("all %zu at once: %.3f ms wall; one %s alone: %.3f ms; speed-up %.2fx", s.parts.size(),
                           s.split_ms, s.unit().c_str(), s.one_device_ms, s.speedup());
        text_disabled_wrapped("by the devices' own times: %.3f ms alone, %.3f ms the slowest part, %.2fx",
                              s.one_device.times.total_ms(), s.slowest_part_ms(), s.stage_speedup());
        if (!s.gpu)
            text_disabled_wrapped("CPU workers share this machine's cores, so this is not what GPUs would gain.");
        if (const std::string caveat = speedup_caveat(s); !caveat.empty()) ImGui::TextWrapped("%s", caveat.c_str());
    } else {
        text_disabled_wrapped("%.3f ms wall for the whole run on one %s", s.one_device_ms, s.unit().c_str());
    }
    return drawn;
}

}  // namespace cp::ui
