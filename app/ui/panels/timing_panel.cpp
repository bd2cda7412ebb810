// Timing panel drawing.
#include "ui/panels/timing_panel.h"

#include <imgui.h>

#include <algorithm>
#include <vector>

namespace cp::ui {

namespace {

// One line per step of the run (allocation, host->device, kernel, device->host) with a bar of its share, so
// that a student sees at a glance whether the copies or the kernel cost more.
void draw_breakdown(const TransferTimes& t) {
    const double total = t.total_ms();
    if (total <= 0) return;
    ImGui::TextUnformatted("Where this run's time went:");
    struct Step {
        const char* label;
        double ms;
        uint64_t bytes;
        int count;
        const char* unit;  // what `count` counts
    };
    const Step steps[] = {{"allocate", t.allocate_ms, t.allocated_bytes, t.allocations, "buffers"},
                          {"host->device", t.upload_ms, t.upload_bytes, t.uploads, "copies"},
                          {"kernel (median)", t.kernel_ms, 0, 1, ""},
                          {"device->host", t.download_ms, t.download_bytes, t.downloads, "copies"}};
    const float bar_width = ImGui::GetFontSize() * 8;
    for (const Step& s : steps) {
        ImGui::ProgressBar(float(s.ms / total), ImVec2(bar_width, 0), "");
        ImGui::SameLine();
        if (s.bytes > 0 && s.count > 1)
            ImGui::Text("%-15s %9.4f ms  %d %s, %.2f MB, %.4f ms each", s.label, s.ms, s.count, s.unit,
                        double(s.bytes) / 1e6, s.ms / s.count);
        else if (s.bytes > 0)
            ImGui::Text("%-15s %9.4f ms  %.2f MB", s.label, s.ms, double(s.bytes) / 1e6);
        else if (s.count == 0)
            ImGui::Text("%-15s %9.4f ms  (kept from the last run)", s.label, s.ms);
        else
            ImGui::Text("%-15s %9.4f ms", s.label, s.ms);
    }
    ImGui::TextDisabled("total %.4f ms; host clock around each copy, %s host memory", total,
                        t.pinned ? "pinned" : "pageable");
}

}  // namespace

void TimingPanel::draw() {
    int repeats = inputs_.timing.repeats;
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 6);
    if (ImGui::InputInt("repeats", &repeats)) {
        inputs_.timing.repeats = std::clamp(repeats, 1, 1000);
        inputs_.touch();
    }
    ImGui::SameLine();
    if (ImGui::Checkbox("flush L2", &inputs_.timing.flush_l2)) inputs_.touch();
    ImGui::SameLine();
    ImGui::Checkbox("re-run every frame", &live_.every_frame);
    if (ImGui::Checkbox("verify every run (F5 always does)", &inputs_.verify)) inputs_.touch();
    int chunk = inputs_.upload_chunk_kib;
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 10);
    if (ImGui::SliderInt("copy in chunks of (KiB, 0 = one copy)", &chunk, 0, 4096, "%d", ImGuiSliderFlags_Logarithmic)) {
        inputs_.upload_chunk_kib = std::clamp(chunk, 0, 1 << 20);
        inputs_.touch();
    }
    if (device_.caps.gpu) {
        ImGui::SameLine();
        if (ImGui::Checkbox("pinned host memory", &inputs_.pinned_host)) inputs_.touch();
    }

    const TimingSample* last = history_.last();
    if (!last) {
        ImGui::TextDisabled("No timings yet.");
        return;
    }
    const TimingStats& t = last->stats;
    ImGui::Separator();
    const double last_ms = t.samples_ms.empty() ? 0 : t.samples_ms.back();
    ImGui::Text("last %.4f ms   median %.4f ms   min %.4f ms", last_ms, t.median_ms, t.min_ms);
    ImGui::TextDisabled("%zu repeats, %s | grid %s block %s", t.samples_ms.size(),
                        t.cpu_time ? "CPU clock" : "GPU events", last->grid.str().c_str(), last->block.str().c_str());
    if (last->bandwidth_gbps > 0) {
        if (last->bandwidth_fraction > 0)
            ImGui::Text("bandwidth %.1f GB/s = %.0f%% of copy bandwidth (%.0f GB/s)", last->bandwidth_gbps,
                        last->bandwidth_fraction * 100, device_.copy_bandwidth_gbps);
        else
            ImGui::Text("bandwidth %.1f GB/s", last->bandwidth_gbps);
    }
    draw_breakdown(last->transfers);

    const auto& samples = history_.samples();
    std::vector<float> medians;
    medians.reserve(samples.size());
    for (const TimingSample& s : samples) medians.push_back(float(s.stats.median_ms));
    ImGui::PlotLines("##history", medians.data(), int(medians.size()), 0, "median ms per run", 0.0f, FLT_MAX,
                     ImVec2(ImGui::GetContentRegionAvail().x, ImGui::GetFontSize() * 5));
    if (ImGui::IsItemHovered() && !samples.empty()) {
        const float f = (ImGui::GetIO().MousePos.x - ImGui::GetItemRectMin().x) / ImGui::GetItemRectSize().x;
        const size_t i = std::min(samples.size() - 1, size_t(std::clamp(f, 0.0f, 1.0f) * float(samples.size())));
        const TimingSample& s = samples[i];
        ImGui::SetTooltip("run #%llu %s\nmedian %.4f ms (min %.4f)\ngrid %s block %s\n%s",
                          static_cast<unsigned long long>(s.run), s.kernel.c_str(), s.stats.median_ms, s.stats.min_ms,
                          s.grid.str().c_str(), s.block.str().c_str(), s.params.c_str());
    }

    if (ImGui::SmallButton("Clear history")) {
        history_.clear();
        return;
    }
    const ImGuiTableFlags flags = ImGuiTableFlags_ScrollY | ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingStretchProp;
    if (!ImGui::BeginTable("##runs", 5, flags)) return;
    ImGui::TableSetupScrollFreeze(0, 1);
    ImGui::TableSetupColumn("run");
    ImGui::TableSetupColumn("grid");
    ImGui::TableSetupColumn("block");
    ImGui::TableSetupColumn("median ms");
    ImGui::TableSetupColumn("GB/s");
    ImGui::TableHeadersRow();
    for (auto it = samples.rbegin(); it != samples.rend(); ++it) {
        ImGui::TableNextRow();
        ImGui::TableNextColumn();
        ImGui::Text("%llu", static_cast<unsigned long long>(it->run));
        if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s\n%s", it->kernel.c_str(), it->params.c_str());
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(it->grid.str().c_str());
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(it->block.str().c_str());
        ImGui::TableNextColumn();
        ImGui::Text("%.4f", it->stats.median_ms);
        ImGui::TableNextColumn();
        ImGui::Text("%.1f", it->bandwidth_gbps);
    }
    ImGui::EndTable();
}

}  // namespace cp::ui
