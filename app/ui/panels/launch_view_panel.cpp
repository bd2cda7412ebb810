// Launch view panel (launch_view_panel.h). The overlay is a CPU-made texture rebuilt only when the run or the
// settings change; the timeline is the chart of ui/charts.h (the one `run --trace` writes), its lanes sorted once per
// run.
#include "ui/panels/launch_view_panel.h"
#include "core/clock.h"

#include "core/session/launch_images.h"
#include "core/session/coverage.h"
#include "ui/charts.h"
#include "ui/widgets.h"

#include <imgui.h>

#include <algorithm>
#include <chrono>

namespace cp::ui {
void LaunchViewPanel::draw_options() {
    if (ImGui::Checkbox("Measure coverage", &inputs_.measure_coverage)) inputs_.touch();
    same_line_if_fits(checkbox_width("Trace blocks (SM / worker, start, end)"));
    if (ImGui::Checkbox("Trace blocks (SM / worker, start, end)", &inputs_.trace)) inputs_.touch();
    static const OverlayColour modes[] = {OverlayColour::None, OverlayColour::Block, OverlayColour::Warp,
                                          OverlayColour::Lane, OverlayColour::ThreadInBlock, OverlayColour::Sm,
                                          OverlayColour::Coverage};
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 9);
    if (ImGui::BeginCombo("colour by", overlay_colour_name(settings_.colour))) {
        for (OverlayColour m : modes)
            if (ImGui::Selectable(overlay_colour_name(m), m == settings_.colour)) settings_.colour = m;
        ImGui::EndCombo();
    }
    same_line_if_fits(checkbox_width("block edges"));
    ImGui::Checkbox("block edges", &settings_.boundaries);
    same_line_if_fits(ImGui::GetFontSize() * 6 + ImGui::CalcTextSize("opacity").x + ImGui::GetStyle().ItemInnerSpacing.x);
    int alpha = settings_.alpha;
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 6);
    if (ImGui::SliderInt("opacity", &alpha, 0, 255)) settings_.alpha = uint8_t(alpha);
    if (settings_.colour == OverlayColour::Sm && !inputs_.trace)
        text_disabled_wrapped("colour by SM needs a trace: tick \"Trace blocks\"");
}

void LaunchViewPanel::draw() {
    draw_options();
    if (!latest_ || !latest_->report.resolved || !latest_->report.launched) {
        ImGui::TextDisabled("Nothing has run yet.");
        return;
    }
    const RunReport& report = latest_->report;
    for (const CoverageMap& c : report.coverage) {
        const bool bad = c.not_measured.empty() && c.never_written > 0;
        ImGui::PushStyleColor(ImGuiCol_Text, bad ? ImVec4(1, 0.4f, 0.4f, 1) : ImVec4(0.6f, 0.9f, 0.6f, 1));
        ImGui::TextWrapped("%s: %s", c.buffer.c_str(), c.summary().c_str());
        ImGui::PopStyleColor();
        if (const std::string w = c.writers_summary(); !w.empty()) {
            const bool twice = c.writers_counted && c.written_more_than_once > 0;
            ImGui::PushStyleColor(ImGuiCol_Text, twice ? ImVec4(0.3f, 0.8f, 1, 1)
                                                       : c.writers_counted ? ImVec4(0.6f, 0.9f, 0.6f, 1)
                                                                           : ImGui::GetStyle().Colors[ImGuiCol_TextDisabled]);
            ImGui::TextWrapped("%s: %s", c.buffer.c_str(), w.c_str());
            ImGui::PopStyleColor();
        }
    }
    const OutputView* image = nullptr;
    for (const OutputView& v : views_.views())
        if (v.is_image() && v.display && v.width > 0 && !image) image = &v;
    if (image) draw_overlay(*image, report);
    else if (!views_.views().empty())
        text_disabled_wrapped("No image output to draw the launch over: the Output panel draws it as a strip under "
                              "each 1D plot (choose its colouring with the plot's \"launch strip\" setting).");
    else
        ImGui::TextDisabled("No image output to draw the launch over.");
    if (report.trace) draw_timeline(*report.trace);
}

void LaunchViewPanel::draw_overlay(const OutputView& view, const RunReport& report) {
    const CoverageMap* coverage = nullptr;
    for (const CoverageMap& c : report.coverage)
        if (c.buffer == view.spec.buffer && (c.not_measured.empty() || c.writers_counted)) coverage = &c;
    const bool measured = coverage || (report.trace && settings_.colour == OverlayColour::Sm);
    const Key key{measured ? latest_->job_id : 0, report.resolved->grid, report.resolved->block, settings_, view.width,
                  view.height};
    if (!(key == overlay_key_) || !overlay_) {
        const auto start = std::chrono::steady_clock::now();
        OverlayInput in{view.width, view.height, report.resolved->grid, report.resolved->block, device_.warp_size,
                        report.trace ? &*report.trace : nullptr, coverage};
        const std::vector<uint8_t> rgba = render_overlay(in, settings_);
        overlay_ = render::texture_from_rgba8(rgba.data(), view.width, view.height);
        overlay_key_ = key;
        rebuild_ms_ = ms_since(start);
    }
    // Fit the image to the panel's width (and at most 60% of its height when a timeline follows).
    const ImVec2 avail = ImGui::GetContentRegionAvail();
    const float max_h = report.trace ? avail.y * 0.6f : avail.y - ImGui::GetTextLineHeightWithSpacing() * 2;
    const float scale = std::max(0.01f, std::min(avail.x / float(view.width), max_h / float(view.height)));
    const ImVec2 size(float(view.width) * scale, float(view.height) * scale);
    const ImVec2 origin = ImGui::GetCursorScreenPos();
    ImGui::InvisibleButton("##overlay_canvas", ImVec2(std::max(size.x, 1.0f), std::max(size.y, 1.0f)));
    ImDrawList* draw = ImGui::GetWindowDrawList();
    const ImVec2 end(origin.x + size.x, origin.y + size.y);
    draw->AddImage(texture_id(view.display), origin, end);
    draw->AddImage(texture_id(overlay_), origin, end);

    const Dim3 grid = report.resolved->grid, block = report.resolved->block;
    const bool two_d = !(grid.y == 1 && grid.z == 1 && block.y == 1 && block.z == 1);
    auto outline_block = [&](uint64_t linear, ImU32 colour) {
        if (two_d) {
            const float bx = float(linear % grid.x) * float(block.x), by = float(linear / grid.x) * float(block.y);
            draw->AddRect(ImVec2(origin.x + bx * scale, origin.y + by * scale),
                          ImVec2(origin.x + (bx + float(block.x)) * scale, origin.y + (by + float(block.y)) * scale), colour, 0.0f, 2.5f);
        } else {  // 1D: the block's elements may wrap rows; mark its first and last row
            const uint64_t first = linear * block.x, last = first + block.x - 1;
            for (uint64_t e : {first, last}) {
                const float x = float(e % uint64_t(view.width)), y = float(e / uint64_t(view.width));
                draw->AddRect(ImVec2(origin.x + x * scale, origin.y + y * scale),
                              ImVec2(origin.x + (x + 1) * scale, origin.y + (y + 1) * scale), colour, 0.0f, 2.5f);
            }
        }
    };
    if (highlighted_block_) outline_block(*highlighted_block_, IM_COL32(255, 255, 0, 255));
    if (ImGui::IsItemHovered()) {
        const ImVec2 m = ImGui::GetIO().MousePos;
        const int x = int((m.x - origin.x) / scale), y = int((m.y - origin.y) / scale);
        if (x >= 0 && y >= 0 && x < view.width && y < view.height) {
            const auto owner = owner_of_pixel(x, y, view.width, grid, block, device_.warp_size);
            if (owner) outline_block(owner->linear_block, IM_COL32(255, 255, 255, 255));
            ImGui::BeginTooltip();
            ImGui::Text("pixel (%d, %d)", x, y);
            ImGui::TextUnformatted(describe_owner(owner, two_d).c_str());
            const uint64_t element = uint64_t(y) * uint64_t(view.width) + uint64_t(x);
            if (coverage && element < coverage->unwritten.size() && coverage->unwritten[element])
                ImGui::TextColored(ImVec4(1, 0.4f, 0.4f, 1), "no thread wrote this element");
            else if (coverage && element < coverage->writers.size() && coverage->writers[element] > 0)
                ImGui::TextColored(coverage->writers[element] > 1 ? ImVec4(0.3f, 0.8f, 1, 1) : ImVec4(0.6f, 0.9f, 0.6f, 1),
                                   "written by %u thread%s", coverage->writers[element],
                                   coverage->writers[element] > 1 ? "s" : "");
            if (owner && report.trace && owner->linear_block < report.trace->blocks.size()) {
                const BlockTrace& b = report.trace->blocks[owner->linear_block];
                ImGui::Text("ran on %s %u, %.1f us", report.trace->unit == "sm" ? "SM" : "worker", b.unit,
                            double(b.end_ns - b.start_ns) / 1e3);
            }
            ImGui::EndTooltip();
        }
    }
    text_disabled_wrapped("overlay: %s%s (rebuilt in %.1f ms on the last change; per frame: two textured quads)",
                        overlay_colour_name(settings_.colour),
                        !coverage                   ? ""
                        : coverage->writers_counted ? ", never-written elements hatched red, ones written by more than one thread cyan"
                                                    : ", never-written elements hatched red",
                        rebuild_ms_);
}

void LaunchViewPanel::draw_timeline(const LaunchTrace& trace) {
    if (timeline_job_ != latest_->job_id) {  // lanes sorted once per run, not per frame
        timeline_ = timeline_data(trace);
        timeline_job_ = latest_->job_id;
    }
    ImGui::TextWrapped("Timeline: %zu blocks on %u %s over %.3f ms", trace.blocks.size(), trace.units_used,
                       trace.unit == "sm" ? "SMs" : "CPU workers",
                       timeline_.t1 > timeline_.t0 ? double(timeline_.t1 - timeline_.t0) / 1e6 : 0.0);
    // The chart `run --trace` writes as timeline.png (ui/charts.h): lanes named, time in us, the block colours' scale.
    const ImVec2 avail = ImGui::GetContentRegionAvail();
    highlighted_block_ =
        timeline_chart(timeline_, ImVec2(std::max(avail.x, 50.0f), std::max(avail.y - 4, ImGui::GetFontSize() * 8)));
    if (!highlighted_block_ || *highlighted_block_ >= trace.blocks.size()) return;
    const BlockTrace& hit = trace.blocks[*highlighted_block_];
    ImGui::BeginTooltip();
    ImGui::Text("block %llu on %s %u", static_cast<unsigned long long>(hit.block), trace.unit == "sm" ? "SM" : "worker",
                hit.unit);
    ImGui::Text("%.2f .. %.2f us (%.2f us)", double(hit.start_ns - timeline_.t0) / 1e3,
                double(hit.end_ns - timeline_.t0) / 1e3, double(hit.end_ns - hit.start_ns) / 1e3);
    ImGui::EndTooltip();
}

}  // namespace cp::ui
