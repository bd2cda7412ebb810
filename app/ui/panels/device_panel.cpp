// Device panel drawing.
#include "ui/panels/device_panel.h"

#include <imgui.h>

namespace cp::ui {

void DevicePanel::draw() {
    const DeviceStatus& s = status_;
    if (!s.can_run) {
        ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1, 0.6f, 0.3f, 1));
        ImGui::TextWrapped("No backend: %s", s.why_nothing_runs.c_str());
        ImGui::PopStyleColor();
    }
    if (ImGui::BeginTable("##device", 2, ImGuiTableFlags_RowBg)) {
        ImGui::TableSetupColumn("what", ImGuiTableColumnFlags_WidthFixed);
        ImGui::TableSetupColumn("value", ImGuiTableColumnFlags_WidthStretch);
        auto row = [](const char* name, const std::string& value) {
            ImGui::TableNextRow();
            ImGui::TableNextColumn();
            ImGui::TextUnformatted(name);
            ImGui::TableNextColumn();
            ImGui::TextWrapped("%s", value.c_str());
        };
        const DeviceInfo& d = s.device;
        if (s.can_run) {
            row("backend", d.backend);
            row("runs on", d.where.empty() ? std::string("this machine") : d.where);
            row("device", d.name);
            row("compute capability", std::to_string(d.cc_major) + "." + std::to_string(d.cc_minor) + " (" + d.arch + ")");
            row("SMs", std::to_string(d.sm_count));
            // What a `devices:` file splits over.
            row("devices", std::to_string(d.device_count) + " (this is device " + std::to_string(d.ordinal) + ")");
            row("memory", std::to_string(d.total_memory >> 20) + " MiB");
            row("threads / block", std::to_string(d.max_threads_per_block));
            row("max block", d.max_block.str());
            row("max grid", d.max_grid.str());
            row("shared / block", std::to_string(d.max_shared_per_block) + " B (opt-in " +
                                      std::to_string(d.max_shared_per_block_optin) + " B)");
            row("registers / SM", std::to_string(d.regs_per_sm));
            row("threads / SM", std::to_string(d.max_threads_per_sm));
            row("warp size", std::to_string(d.warp_size));
            if (d.l2_bytes) row("L2", std::to_string(d.l2_bytes >> 20) + " MiB");
            if (d.copy_bandwidth_gbps > 0) row("copy bandwidth", std::to_string(int(d.copy_bandwidth_gbps)) + " GB/s");
            if (!d.driver_version.empty()) row("driver", d.driver_version);
            if (!d.notes.empty()) row("notes", d.notes);
        }
        if (!s.passed_over.empty()) row("not used", s.passed_over);
        row("renderer", s.renderer);
        row("outputs", s.output_path);
        ImGui::EndTable();
    }
}

}  // namespace cp::ui
