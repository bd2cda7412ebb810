// Launch panel drawing and the effective launch configuration.
#include "ui/panels/launch_panel.h"

#include "core/engine/launch_validation.h"
#include "ui/panels/sanitize_controls.h"
#include "ui/widgets.h"

#include <imgui.h>

#include <algorithm>
#include <cmath>

namespace cp::ui {
namespace {

// x, y, z fields taking the row's width, less the label's and `reserve` (for a button after it).
bool edit_dim3(const char* label, Dim3& d, float reserve = 0) {
    uint32_t v[3] = {d.x, d.y, d.z};
    const ImGuiStyle& style = ImGui::GetStyle();
    const float label_w = ImGui::CalcTextSize(label).x + style.ItemInnerSpacing.x;
    ImGui::SetNextItemWidth(std::max(ImGui::GetContentRegionAvail().x - label_w - reserve, ImGui::GetFontSize() * 6));
    bool changed = ImGui::InputScalarN(label, ImGuiDataType_U32, v, 3, nullptr, nullptr, "%u",
                                       ImGuiInputTextFlags_CharsDecimal);
    if (changed) d = Dim3{v[0], v[1], v[2]};
    return changed;
}

}  // namespace

const ResolvedRun* LaunchPanel::resolved() const {
    return latest_ && latest_->report.resolved ? &*latest_->report.resolved : nullptr;
}

Dim3 LaunchPanel::effective_block() const {
    if (inputs_.choices.block) return *inputs_.choices.block;
    return resolved() ? resolved()->block : Dim3{};
}

Dim3 LaunchPanel::effective_grid() const {
    if (inputs_.choices.grid) return *inputs_.choices.grid;
    return resolved() ? resolved()->grid : Dim3{};
}

void LaunchPanel::draw() {
    draw_controls(false);
    // What was refused (or warned) comes right under the block and grid it is about, then the sanitizer, before
    // anything that could push them out of view in a short panel (the details, the steps, the figures).
    draw_refusals();
    draw_sanitize_controls(sanitize_);
    draw_details();
    draw_checks();
}

void LaunchPanel::draw_controls(bool compact) {
    Dim3 block = effective_block();
    Dim3 grid = effective_grid();

    const float presets_w = ImGui::GetFrameHeight() + ImGui::GetStyle().ItemSpacing.x;
    if (edit_dim3("block", block, presets_w)) {
        inputs_.choices.block = block;
        inputs_.touch();
    }
    static const Dim3 presets[] = {{32, 1, 1}, {64, 1, 1}, {128, 1, 1}, {256, 1, 1}, {512, 1, 1}, {1024, 1, 1},
                                   {8, 8, 1},  {16, 16, 1}, {32, 8, 1}, {32, 32, 1}};
    ImGui::SameLine();
    if (ImGui::BeginCombo("##presets", "presets", ImGuiComboFlags_NoPreview | ImGuiComboFlags_PopupAlignLeft)) {
        for (const Dim3& p : presets)
            if (ImGui::Selectable(p.str().c_str(), p == block)) {
                inputs_.choices.block = p;
                inputs_.touch();
            }
        ImGui::EndCombo();
    }


    bool grid_auto = !inputs_.choices.grid.has_value();
    ImGui::BeginDisabled(grid_auto);
    if (edit_dim3("grid", grid)) {
        inputs_.choices.grid = grid;
        inputs_.touch();
    }
    ImGui::EndDisabled();
    if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled))
        ImGui::SetTooltip("the file says: grid %s x %s x %s", file_.spec.launch.grid_expr[0].c_str(),
                          file_.spec.launch.grid_expr[1].c_str(), file_.spec.launch.grid_expr[2].c_str());
    if (ImGui::Checkbox("grid from the file", &grid_auto)) {
        if (grid_auto) inputs_.choices.grid.reset();
        else inputs_.choices.grid = grid;
        inputs_.touch();
    }
    if (compact) draw_thread_order();
}

// Below the refusals: what the file says where the launch differs from it (on hover otherwise), and the thread
// order.
void LaunchPanel::draw_details() {
    if (inputs_.choices.block || inputs_.choices.grid) {
        ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
        if (inputs_.choices.block)
            ImGui::TextWrapped("the file says: block %s x %s x %s", file_.spec.launch.block_expr[0].c_str(),
                               file_.spec.launch.block_expr[1].c_str(), file_.spec.launch.block_expr[2].c_str());
        if (inputs_.choices.grid)
            ImGui::TextWrapped("the file says: grid %s x %s x %s", file_.spec.launch.grid_expr[0].c_str(),
                               file_.spec.launch.grid_expr[1].c_str(), file_.spec.launch.grid_expr[2].c_str());
        ImGui::PopStyleColor();
        if (ImGui::Button("Reset to the file's launch")) {
            inputs_.choices.block.reset();
            inputs_.choices.grid.reset();
            inputs_.touch();
        }
    }
    draw_thread_order();
}

void LaunchPanel::draw_checks() {
    draw_steps();
    if (!resolved()) {
        // Sizes that come from images or parameters are known once a run resolved them.
        ImGui::Separator();
        ImGui::TextDisabled("Validation and figures appear once a run has resolved the sizes.");
        draw_suggestion();
        return;
    }
    LaunchCheck check;
    check.grid = resolved()->grid;
    check.block = resolved()->block;
    check.usage = latest_->report.usage;
    check.dynamic_shared_bytes = resolved()->dynamic_shared_bytes;
    check.problem = resolved()->problem;
    const LaunchFigures f = launch_figures(device_, check);
    ImGui::Separator();
    if (ImGui::BeginTable("##figures", 2, ImGuiTableFlags_SizingStretchProp)) {
        auto row = [](const char* name, const std::string& value) {
            ImGui::TableNextRow();
            ImGui::TableNextColumn();
            ImGui::TextUnformatted(name);
            ImGui::TableNextColumn();
            ImGui::TextUnformatted(value.c_str());
        };
        row("total threads", std::to_string(f.total_threads));
        row("blocks", std::to_string(f.blocks));
        row("warps per block", std::to_string(f.warps_per_block));
        row("threads beyond problem", std::to_string(f.threads_beyond_problem));
        if (!check.problem.empty()) {
            std::string p;
            for (uint64_t e : check.problem) p += (p.empty() ? "" : " x ") + std::to_string(e);
            row("problem size", p);
        }
        if (check.usage.registers >= 0) row("registers / thread", std::to_string(check.usage.registers));
        if (check.dynamic_shared_bytes) row("dynamic shared", std::to_string(check.dynamic_shared_bytes) + " B");
        ImGui::EndTable();
    }

    draw_suggestion();
}

// A file with `step:` lines: the steps in order with their launches (as the last run resolved them) and times.
void LaunchPanel::draw_steps() {
    if (file_.spec.steps.empty()) return;
    ImGui::Separator();
    ImGui::Text("%zu steps, run in order over the file's buffers:", file_.spec.steps.size());
    const ResolvedRun* r = resolved();
    // Steps after the one the user stopped at are not resolved (nor run): their launch shows as "?".
    const bool resolved_steps = r && r->steps_in_file == file_.spec.steps.size();
    ImGui::TextDisabled("Pick a step to see the buffers as it left them (the check runs after the last step).");
    if (!ImGui::BeginTable("##steps", 6, ImGuiTableFlags_SizingStretchProp | ImGuiTableFlags_RowBg)) return;
    ImGui::TableSetupColumn("show");
    ImGui::TableSetupColumn("step");
    ImGui::TableSetupColumn("grid");
    ImGui::TableSetupColumn("block");
    ImGui::TableSetupColumn("repeat");
    ImGui::TableSetupColumn("time");
    ImGui::TableHeadersRow();
    for (size_t i = 0; i < file_.spec.steps.size(); ++i) {
        const StepSpec& s = file_.spec.steps[i];
        ImGui::TableNextRow();
        ImGui::TableNextColumn();
        const int step = int(i) + 1;
        const bool last = i + 1 == file_.spec.steps.size();
        const bool shown = inputs_.choices.until_step ? *inputs_.choices.until_step == step : last;
        ImGui::PushID(step);
        if (ImGui::RadioButton("##after", shown) && !shown) {
            if (last) inputs_.choices.until_step.reset();
            else inputs_.choices.until_step = step;
            inputs_.touch();
        }
        if (ImGui::IsItemHovered())
            ImGui::SetTooltip("%s", last ? "Run every step (the result is checked)" : "Stop after this step and show the buffers");
        ImGui::PopID();
        ImGui::TableNextColumn();
        ImGui::Text("%zu. %s", i + 1, s.kernel.c_str());
        ImGui::TableNextColumn();
        const bool known = resolved_steps && i < r->steps.size();
        ImGui::TextUnformatted(known ? r->steps[i].grid.str().c_str() : "?");
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(known ? r->steps[i].block.str().c_str() : "?");
        ImGui::TableNextColumn();
        ImGui::Text("%s", known ? std::to_string(r->steps[i].repeat).c_str() : s.repeat_expr.c_str());
        ImGui::TableNextColumn();
        const StepReport* done = latest_ && i < latest_->report.steps.size() ? &latest_->report.steps[i] : nullptr;
        if (done && !done->timing.samples_ms.empty())
            ImGui::Text("%.4g ms", done->total_ms);
        else
            ImGui::TextDisabled("-");
    }
    ImGui::EndTable();
}

// The session's own checks on the last run: refusals of the launch settings entered (before compiling), then
// the device's and the kernel's limits (after compiling), and warnings.
void LaunchPanel::draw_refusals() {
    if (!latest_) return;
    const RunReport& r = latest_->report;
    bool any = false;
    auto line = [&any](bool error, const std::string& text) {
        any = true;
        ImGui::PushStyleColor(ImGuiCol_Text, error ? ImVec4(1, 0.4f, 0.35f, 1) : ImVec4(1, 0.8f, 0.2f, 1));
        ImGui::TextWrapped("%s %s", error ? "Refused:" : "Warning:", text.c_str());
        ImGui::PopStyleColor();
    };
    // A launch refused for the device's limits before compiling has its refusals among the launch issues too
    // (check_device_limits): they are drawn once, from there.
    if (r.failed_stage != RunStage::Validate)
        for (const InputProblem& p : r.input_problems)
            if (p.field == "block" || p.field == "grid" || p.field == "until_step") line(true, p.error.message);
    for (const LaunchIssue& issue : r.launch_issues) line(issue.severity == Severity::Error, issue.message);
    if (!any && r.resolved && r.failed_stage != RunStage::Resolve)
        ImGui::TextColored(ImVec4(0.4f, 0.9f, 0.4f, 1), "Launch configuration OK");
}

// The CPU backend runs a block's threads as fibers in the order chosen here: a missing __syncthreads() shows
// in some orders and hides in others. A GPU picks its own order, so there the combo is replaced by a note.
void LaunchPanel::draw_thread_order() {
    if (!device_.caps.launches) return;
    if (!device_.caps.thread_order) {
        ImGui::TextWrapped("thread order: the backend's own (it can be chosen on the CPU backend)");
        return;
    }
    static const char* kNames[] = {"backend default", "natural", "reversed", "shuffled"};
    const std::optional<ThreadOrderChoice>& chosen = inputs_.choices.thread_order;
    int current = chosen ? 1 + int(chosen->kind) : 0;
    const float label_w = ImGui::CalcTextSize("thread order").x + ImGui::GetStyle().ItemInnerSpacing.x;
    const float seed_w = current == 3 ? ImGui::GetFontSize() * 6 + ImGui::GetStyle().ItemSpacing.x : 0;
    ImGui::SetNextItemWidth(std::max(ImGui::GetContentRegionAvail().x - label_w - seed_w, ImGui::GetFontSize() * 8));
    if (ImGui::Combo("thread order", &current, kNames, 4)) {
        if (current == 0) inputs_.choices.thread_order.reset();
        else inputs_.choices.thread_order = ThreadOrderChoice{ThreadOrderChoice::Kind(current - 1), chosen ? chosen->seed : 1};
        inputs_.touch();
    }
    if (ImGui::IsItemHovered())
        ImGui::SetTooltip("The order a block's threads run in on the CPU backend. A missing __syncthreads()\n"
                          "gives wrong results in some orders and hides in others. Default: "
                          "$CUDA_PLAYGROUND_CPU_ORDER, else natural.");
    if (current == 3 && inputs_.choices.thread_order) {
        ImGui::SameLine();
        ImGui::SetNextItemWidth(ImGui::GetFontSize() * 6);
        uint64_t seed = inputs_.choices.thread_order->seed;
        if (ImGui::InputScalar("seed", ImGuiDataType_U64, &seed, nullptr, nullptr, "%llu", ImGuiInputTextFlags_CharsDecimal)) {
            inputs_.choices.thread_order->seed = seed;
            inputs_.touch();
        }
    }
}

// The button only asks; the workspace gets the answer off the UI thread and applies it (block_suggestion.h).
void LaunchPanel::draw_suggestion() {
    ImGui::Separator();
    ImGui::BeginDisabled(suggestion_.pending || suggestion_.requested);
    if (ImGui::Button("Suggest block size (occupancy)")) suggestion_.requested = true;
    ImGui::EndDisabled();
    if (suggestion_.pending || suggestion_.requested) {
        same_line_if_fits(ImGui::CalcTextSize("asking the occupancy API...").x);
        ImGui::TextDisabled("asking the occupancy API...");
    }
    if (!suggestion_.shown.empty()) ImGui::TextWrapped("%s", suggestion_.shown.c_str());
}

}  // namespace cp::ui
