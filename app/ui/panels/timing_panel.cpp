// Timing panel drawing (a `devices:` run's per-device table: device_split_view.cpp).
#include "ui/panels/timing_panel.h"

#include "core/session/report_text.h"
#include "core/text_util.h"
#include "ui/panels/device_split_view.h"
#include "ui/widgets.h"

#include <imgui.h>
#include <implot.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

namespace cp::ui {

namespace {

// One line per step of the run (allocation, host->device, kernel, device->host) with a bar of its share under
// it, so that a student sees at a glance whether the copies or the kernel cost more. The lines wrap, so the
// panel never needs to be wider than its dock column, at any text size.
void draw_breakdown(const TransferTimes& t) {
    const double total = t.total_ms();
    if (total <= 0) return;
    ImGui::Separator();
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
    const float bar_height = std::max(4.0f, ImGui::GetFontSize() * 0.35f);
    for (const Step& s : steps) {
        const int percent = int(std::lround(s.ms / total * 100));
        if (s.bytes > 0 && s.count > 1)
            ImGui::TextWrapped("%s: %.4f ms (%d%%), %d %s, %.2f MB, %.4f ms each", s.label, s.ms, percent, s.count,
                               s.unit, double(s.bytes) / 1e6, s.ms / s.count);
        else if (s.bytes > 0)
            ImGui::TextWrapped("%s: %.4f ms (%d%%), %.2f MB", s.label, s.ms, percent, double(s.bytes) / 1e6);
        else if (s.count == 0)
            ImGui::TextWrapped("%s: %.4f ms (%d%%), kept from the last run", s.label, s.ms, percent);
        else
            ImGui::TextWrapped("%s: %.4f ms (%d%%)", s.label, s.ms, percent);
        ImGui::ProgressBar(float(s.ms / total), ImVec2(-1, bar_height), "");
    }
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
    ImGui::TextWrapped("total %.4f ms; host clock around each copy, %s host memory", total,
                       t.pinned ? "pinned" : "pageable");
    ImGui::PopStyleColor();
}

}  // namespace

void TimingPanel::draw() {
    int repeats = inputs_.timing.repeats;
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 6);
    if (ImGui::InputInt("repeats", &repeats)) {
        inputs_.timing.repeats = std::clamp(repeats, 1, 1000);
        inputs_.touch();
    }
    same_line_if_fits(checkbox_width("flush L2"));
    if (ImGui::Checkbox("flush L2", &inputs_.timing.flush_l2)) inputs_.touch();
    same_line_if_fits(checkbox_width("re-run every frame"));
    ImGui::Checkbox("re-run every frame", &live_.every_frame);
    if (ImGui::Checkbox("verify every run (F5 always does)", &inputs_.verify)) inputs_.touch();
    int chunk = inputs_.upload_chunk_kib;
    ImGui::TextUnformatted("copy in chunks of");
    same_line_if_fits(ImGui::GetFontSize() * 10);
    ImGui::SetNextItemWidth(std::min(ImGui::GetFontSize() * 12, ImGui::GetContentRegionAvail().x));
    if (ImGui::SliderInt("##chunk", &chunk, 0, 4096, chunk == 0 ? "one copy" : "%d KiB",
                         ImGuiSliderFlags_Logarithmic)) {
        inputs_.upload_chunk_kib = std::clamp(chunk, 0, 1 << 20);
        inputs_.touch();
    }
    if (device_.caps.gpu) {
        same_line_if_fits(checkbox_width("pinned host memory"));
        if (ImGui::Checkbox("pinned host memory", &inputs_.pinned_host)) inputs_.touch();
    }

    ImGui::Separator();
    draw_presented();
}

void TimingPanel::draw_presented() {
    if (!draw_summary()) return;
    if (compare_.active() && !compare_.columns.empty()) draw_comparison();
    // A split run's devices first: in a short panel they are what the lesson is about.
    drawn_split_ = {};
    if (const TimingSample* last = history_.last(); last && last->devices) drawn_split_ = draw_device_split(*last->devices);
    draw_history();
    if (const TimingSample* last = history_.last()) {
        draw_breakdown(last->transfers);
        draw_budget(*last);
    }
}

static const char* const kLaunchRow = "launch (kernel + round trip)";

// Where the last run's wall time went, stage by stage (what cp_ui_bench prints): folded until asked for.
void TimingPanel::draw_budget(const TimingSample& last) {
    drawn_budget_.clear();
    if (open_budget_) ImGui::SetNextItemOpen(true);
    open_budget_ = false;
    if (!ImGui::CollapsingHeader("Frame budget of the last run")) return;
    const StageTimes& s = last.stages;
    const LaunchPhases& p = s.launch_phases;
    // A sub-row of the launch's: dimmed, indented by its depth; `why` on hover.
    auto sub_row = [&](const char* name, double ms, const char* why) {
        ImGui::TableNextRow();
        ImGui::TableNextColumn();
        ImGui::TextDisabled("%s", name);
        if (why && ImGui::IsItemHovered()) ImGui::SetTooltip("%s", why);
        ImGui::TableNextColumn();
        ImGui::TextDisabled("%.3f ms", ms);
        drawn_budget_.push_back(name);
    };
    const std::pair<const char*, double> rows[] = {
        {"resolve", s.resolve_ms},       {"compile", s.compile_ms},   {"upload / prepare", s.prepare_ms},
        {"coverage / trace", s.insight_ms}, {kLaunchRow, s.launch_ms},
        {"read-back", s.read_back_ms},   {"check", s.check_ms},       {"compare variants", s.variants_ms},
        {"window: textures + columns", last.ui_apply_ms}};
    if (!ImGui::BeginTable("##budget", 2, ImGuiTableFlags_SizingStretchProp)) return;
    for (const auto& [name, ms] : rows) {
        ImGui::TableNextRow();
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(name);
        ImGui::TableNextColumn();
        ImGui::Text("%.3f ms", ms);
        drawn_budget_.push_back(name);
        if (name != kLaunchRow) continue;
        // Where the launch's time was spent: in the worker process, and there in the backend's launch call.
        const std::string said = launch_phases_text(s.launch_backend_ms, p);
        if (s.launch_backend_ms > 0)
            sub_row("  of which in the worker process", s.launch_backend_ms, said.empty() ? nullptr : said.c_str());
        if (!p.measured()) continue;
        sub_row("    set-up (checks, arguments)", p.setup_ms,
                "Before the first launch: the kernel looked up, the configuration and arguments checked, copies of the "
                "inputs for the repeats, printf capture.");
        sub_row(
            "    launch calls", p.launch_calls_ms,
            "cuLaunchKernel and its timing events for every launch, with the inputs' restores and L2 flushes between "
            "repeats.");
        sub_row("    waiting for the GPU", p.wait_ms,
                "The synchronise after each launch. Beyond the kernel's own time (below), the GPU was busy with other "
                "work: this window's drawing shares it.");
        sub_row("      the kernel on the GPU", p.kernel_ms,
                "Every launch of this request added (warm-ups too), by the GPU's events.");
        sub_row("    after (printf, guard zones, result)", p.after_ms, nullptr);
    }
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    ImGui::TextUnformatted("session total (with variants)");
    ImGui::TableNextColumn();
    ImGui::Text("%.3f ms", s.total_ms + s.variants_ms);
    ImGui::EndTable();
    // What was redone and why ("launch (scalar n changed)"), and what came from the run before.
    if (const std::string said = stage_runs_text(last.stage_runs); !said.empty())
        ImGui::TextWrapped("%s", said.c_str());
}

bool TimingPanel::draw_summary() {
    const TimingSample* last = history_.last();
    if (!last) {
        ImGui::TextDisabled("No timings yet.");
        return false;
    }
    const TimingStats& t = last->stats;
    const double last_ms = t.samples_ms.empty() ? 0 : t.samples_ms.back();
    ImGui::TextWrapped("last %.4f ms   median %.4f ms   min %.4f ms", last_ms, t.median_ms, t.min_ms);
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
    // A live re-run launches once (Workspace::live_timing): say so, and how to get the repeats.
    const std::string launches =
        t.samples_ms.size() == 1 && inputs_.timing.repeats > 1
            ? "1 launch (live; F5 times " + std::to_string(inputs_.timing.repeats) + ")"
            : std::to_string(t.samples_ms.size()) + (t.samples_ms.size() == 1 ? " launch" : " repeats");
    ImGui::TextWrapped("%s, %s | grid %s block %s", launches.c_str(), t.cpu_time ? "CPU clock" : "GPU events",
                       last->grid.str().c_str(), last->block.str().c_str());
    ImGui::PopStyleColor();
    if (!device_.caps.gpu) {
        // Said wherever the times are shown: a CPU runs the threads a few at a time, so which kernel is faster
        // here (tiled or naive, coalesced or not) says nothing about a GPU.
        ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1, 0.75f, 0.3f, 1));
        ImGui::TextWrapped("%s", kCpuTimesNote);
        ImGui::PopStyleColor();
        if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", kCpuTimesWhy);
    }
    if (last->bandwidth_gbps > 0) {
        if (last->bandwidth_fraction > 0)
            ImGui::TextWrapped("bandwidth %s = %.0f%% of copy bandwidth (%.0f GB/s)",
                               bandwidth_text(last->bandwidth_gbps).c_str(), last->bandwidth_fraction * 100,
                               device_.copy_bandwidth_gbps);
        else
            ImGui::TextWrapped("bandwidth %s", bandwidth_text(last->bandwidth_gbps).c_str());
    }
    return true;
}

void TimingPanel::draw_comparison() {
    ImGui::Separator();
    ImGui::TextUnformatted("Side by side (median of each):");
    double longest = compare_.main_median_ms.value_or(0);
    for (const VariantColumn& c : compare_.columns) longest = std::max(longest, c.median_ms.value_or(0));
    const float bar_height = std::max(4.0f, ImGui::GetFontSize() * 0.35f);
    auto row = [&](const std::string& name, std::optional<double> ms, const std::string& note) {
        if (ms)
            ImGui::TextWrapped("%s: %.4g ms%s%s", name.c_str(), *ms, note.empty() ? "" : ", ", note.c_str());
        else
            ImGui::TextWrapped("%s: not timed%s%s", name.c_str(), note.empty() ? "" : ", ", note.c_str());
        if (ms && longest > 0) ImGui::ProgressBar(float(*ms / longest), ImVec2(-1, bar_height), "");
    };
    row(compare_.main_kernel + " (this lesson)", compare_.main_median_ms, "");
    for (const VariantColumn& c : compare_.columns) {
        std::string note;
        if (!c.error.empty()) note = "failed (see its column)";
        else if (c.median_ms && compare_.main_median_ms && *c.median_ms > 0) {
            char text[64];
            const double ratio = *compare_.main_median_ms / *c.median_ms;
            if (ratio >= 1) std::snprintf(text, sizeof text, "%.3gx faster", ratio);
            else std::snprintf(text, sizeof text, "%.3gx slower", 1 / ratio);
            note = text;
        }
        if (c.verified == false) note += note.empty() ? "WRONG RESULT" : ", WRONG RESULT";
        row(c.kernel.empty() ? c.name : c.kernel, c.median_ms, note);
    }
}

void TimingPanel::draw_history() {
    const auto& samples = history_.samples();
    drawn_history_ = {};
    std::vector<double> runs, medians, mins;
    double top = 0;
    for (const TimingSample& s : samples) {
        runs.push_back(double(s.run));
        medians.push_back(s.stats.median_ms);
        mins.push_back(s.stats.min_ms);
        top = std::max(top, s.stats.median_ms);
    }
    const int n = int(samples.size());
    if (n > 0 && ImPlot::BeginPlot("##history", ImVec2(-1, ImGui::GetFontSize() * 10))) {
        // Time from zero (a change in speed reads as a change in height), each run a step on the x axis.
        ImPlot::SetupAxes("run #", "time (ms)");
        ImPlot::SetupAxisLimits(ImAxis_X1, runs.front() - 0.5, runs.back() + 0.5, ImPlotCond_Always);
        ImPlot::SetupAxisLimits(ImAxis_Y1, 0, top > 0 ? top * 1.2 : 1, ImPlotCond_Always);
        ImPlot::SetupAxisFormat(ImAxis_X1, "%.0f");
        // A few runs: one tick per run (ImPlot's own ticks would fall on halves and print "2" twice).
        if (runs.back() - runs.front() <= 12) ImPlot::SetupAxisTicks(ImAxis_X1, runs.front(), runs.back(), n);
        ImPlot::SetupLegend(ImPlotLocation_South, ImPlotLegendFlags_Horizontal);
        const float marker = ImGui::GetFontSize() * 0.25f;
        ImPlot::PlotLine("median", runs.data(), medians.data(), n,
                         ImPlotSpec(ImPlotProp_Marker, ImPlotMarker_Circle, ImPlotProp_MarkerSize, marker));
        ImPlot::PlotLine("min", runs.data(), mins.data(), n,
                         ImPlotSpec(ImPlotProp_Marker, ImPlotMarker_Square, ImPlotProp_MarkerSize, marker * 0.8f));
        drawn_history_.valid = true;
        drawn_history_.points = size_t(n);
        const ImVec2 pos = ImPlot::GetPlotPos(), size = ImPlot::GetPlotSize();
        drawn_history_.x0 = pos.x;
        drawn_history_.y0 = pos.y;
        drawn_history_.x1 = pos.x + size.x;
        drawn_history_.y1 = pos.y + size.y;
        if (ImPlot::IsPlotHovered()) {
            // The run nearest the mouse, with the launch configuration it came from.
            const double x = ImPlot::GetPlotMousePos().x;
            size_t i = 0;
            for (size_t k = 1; k < samples.size(); ++k)
                if (std::abs(runs[k] - x) < std::abs(runs[i] - x)) i = k;
            const TimingSample& s = samples[i];
            char text[512];
            std::snprintf(text, sizeof text, "run #%llu %s\nmedian %.4f ms (min %.4f)\ngrid %s block %s\n%s",
                          static_cast<unsigned long long>(s.run), s.kernel.c_str(), s.stats.median_ms, s.stats.min_ms,
                          s.grid.str().c_str(), s.block.str().c_str(), s.params.c_str());
            drawn_history_.hover = text;
            ImGui::SetTooltip("%s", text);
        }
        ImPlot::EndPlot();
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
