// Parameters panel drawing: one widget per parameter, image choosers, buffer sizes.
#include "ui/panels/parameters_panel.h"

#include "core/kernel_file/constant_fill.h"
#include "core/kernel_file/kernel_file.h"

#include <imgui.h>
#include <imgui_stdlib.h>

#include <algorithm>
#include <cmath>

namespace cp::ui {
namespace {

std::string human_bytes(uint64_t b) {
    char buf[32];
    if (b >= (1ull << 30)) std::snprintf(buf, sizeof buf, "%.2f GiB", double(b) / double(1ull << 30));
    else if (b >= (1ull << 20)) std::snprintf(buf, sizeof buf, "%.2f MiB", double(b) / double(1ull << 20));
    else if (b >= (1ull << 10)) std::snprintf(buf, sizeof buf, "%.1f KiB", double(b) / 1024.0);
    else std::snprintf(buf, sizeof buf, "%llu B", static_cast<unsigned long long>(b));
    return buf;
}

}  // namespace

std::vector<std::string> ParametersPanel::asset_images() {
    std::vector<std::string> out;
    std::error_code ec;
    for (const auto& e : std::filesystem::directory_iterator(assets_dir(), ec)) {
        std::string ext = e.path().extension().string();
        std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return char(std::tolower(c)); });
        if (ext == ".png" || ext == ".jpg" || ext == ".jpeg" || ext == ".bmp" || ext == ".tga")
            out.push_back(e.path().filename().string());
    }
    std::sort(out.begin(), out.end());
    return out;
}

void ParametersPanel::draw() {
    if (!assets_scanned_) {
        assets_ = asset_images();
        assets_scanned_ = true;
    }
    if (file_.spec.params.empty()) ImGui::TextDisabled("This kernel has no parameters.");
    for (const ParamSpec& p : file_.spec.params) draw_param(p);
    // `constant` lines (read-only here: edit the header, or the params they use, to change them).
    for (const std::string& c : constant_lines_text(file_)) ImGui::TextDisabled("__constant__ %s", c.c_str());
    for (const BufferSpec& b : file_.spec.buffers)
        if (b.init.kind == BufferInit::Kind::Image) draw_image_choice(b);
    if (!inputs_.choices.params.empty() && ImGui::Button("Reset parameters")) {
        inputs_.choices.params.clear();
        inputs_.touch();
    }
    // A refusal no single field explains (e.g. the file's own launch line), and the run's error when it
    // stopped before resolving: shown here too, where the values are.
    draw_refusal("");
    draw_buffers();
}

void ParametersPanel::draw_refusal(const std::string& field) const {
    if (!latest_) return;
    for (const InputProblem& p : latest_->report.input_problems) {
        // Launch refusals (block, grid, the file's launch line) are the Launch panel's to show.
        if (p.field != field || latest_->report.failed_stage == RunStage::Validate) continue;
        ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1, 0.4f, 0.35f, 1));
        ImGui::PushTextWrapPos(0.0f);
        ImGui::Text("Refused: %s", p.error.message.c_str());
        if (!p.error.hint.empty()) ImGui::TextDisabled("%s", p.error.hint.c_str());
        ImGui::PopTextWrapPos();
        ImGui::PopStyleColor();
    }
}

void ParametersPanel::draw_param(const ParamSpec& p) {
    ImGui::PushID(p.name.c_str());
    // What the user entered, else what the last run used; before any run resolved, the default's text.
    const ResolvedRun* run = resolved();
    const auto entered = inputs_.choices.params.find(p.name);
    const bool has_value = entered != inputs_.choices.params.end() || (run && run->params.count(p.name));
    double current = entered != inputs_.choices.params.end() ? entered->second : has_value ? run->params.at(p.name) : 0;
    bool refused = false;
    if (latest_)
        for (const InputProblem& problem : latest_->report.input_problems) refused = refused || problem.field == p.name;
    if (refused) {
        ImGui::PushStyleColor(ImGuiCol_FrameBg, ImVec4(0.55f, 0.12f, 0.1f, 1));
        ImGui::PushStyleColor(ImGuiCol_FrameBgHovered, ImVec4(0.65f, 0.16f, 0.12f, 1));
    }

    const bool is_int = p.type == ScalarType::Int || p.type == ScalarType::UInt;
    const float width = ImGui::GetContentRegionAvail().x * 0.6f;
    bool changed = false;
    double value = current;
    if (!has_value) {
        ImGui::TextDisabled("%s = %s (known once the kernel's sizes are resolved)", p.name.c_str(), p.default_expr.c_str());
    } else if (p.derived) {
        ImGui::BeginDisabled();
        ImGui::SetNextItemWidth(width);
        ImGui::InputDouble(p.name.c_str(), &value, 0, 0, is_int ? "%.0f" : "%g", ImGuiInputTextFlags_ReadOnly);
        ImGui::EndDisabled();
        if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled))
            ImGui::SetTooltip("derived: %s", p.default_expr.c_str());
    } else if (!p.choices.empty()) {
        std::string preview = std::to_string(int64_t(current));
        for (const auto& [label, v] : p.choices)
            if (double(v) == current) preview = label;
        ImGui::SetNextItemWidth(width);
        if (ImGui::BeginCombo(p.name.c_str(), preview.c_str())) {
            for (const auto& [label, v] : p.choices)
                if (ImGui::Selectable(label.c_str(), double(v) == current)) {
                    value = double(v);
                    changed = true;
                }
            ImGui::EndCombo();
        }
    } else if (is_int && p.min && p.max && *p.min == 0 && *p.max == 1) {
        bool on = current != 0;
        if (ImGui::Checkbox(p.name.c_str(), &on)) {
            value = on ? 1 : 0;
            changed = true;
        }
    } else if (p.min && p.max) {
        ImGui::SetNextItemWidth(width);
        // Wide integer ranges (sizes) are easier on a logarithmic slider.
        const bool log_scale = *p.min > 0 && *p.max / *p.min >= 1000;
        const ImGuiSliderFlags flags = log_scale ? ImGuiSliderFlags_Logarithmic : ImGuiSliderFlags_None;
        if (is_int) {
            int64_t v = int64_t(current), lo = int64_t(*p.min), hi = int64_t(*p.max);
            changed = ImGui::SliderScalar(p.name.c_str(), ImGuiDataType_S64, &v, &lo, &hi, "%lld", flags);
            value = double(v);
        } else {
            changed = ImGui::SliderScalar(p.name.c_str(), ImGuiDataType_Double, &value, &*p.min, &*p.max, "%.4g", flags);
        }
    } else {
        ImGui::SetNextItemWidth(width);
        const float speed = p.step ? float(*p.step) : is_int ? 1.0f : float(std::max(std::abs(current) * 0.01, 0.001));
        if (is_int) {
            int64_t v = int64_t(current);
            changed = ImGui::DragScalar(p.name.c_str(), ImGuiDataType_S64, &v, speed, nullptr, nullptr, "%lld");
            value = double(v);
        } else {
            changed = ImGui::DragScalar(p.name.c_str(), ImGuiDataType_Double, &value, speed, nullptr, nullptr, "%.4g");
        }
    }
    if (refused) ImGui::PopStyleColor(2);
    if (changed && value != current) {
        if (p.step && *p.step > 0 && p.min) value = *p.min + std::round((value - *p.min) / *p.step) * *p.step;
        inputs_.choices.params[p.name] = value;
        inputs_.touch();
    }
    if (!p.derived && inputs_.choices.params.count(p.name)) {
        ImGui::SameLine();
        if (ImGui::SmallButton("default")) {
            inputs_.choices.params.erase(p.name);
            inputs_.touch();
        }
    }
    draw_refusal(p.name);
    ImGui::PopID();
}

void ParametersPanel::draw_image_choice(const BufferSpec& b) {
    ImGui::PushID(b.name.c_str());
    auto it = inputs_.choices.images.find(b.name);
    const std::string current = it != inputs_.choices.images.end() ? it->second : b.init.image;
    ImGui::SetNextItemWidth(ImGui::GetContentRegionAvail().x * 0.6f);
    const std::string label = "image " + b.name;
    if (ImGui::BeginCombo(label.c_str(), current.c_str())) {
        for (const std::string& a : assets_)
            if (ImGui::Selectable(a.c_str(), a == current)) {
                inputs_.choices.images[b.name] = a;
                inputs_.touch();
            }
        ImGui::EndCombo();
    }
    std::string& text = path_text_[b.name];
    ImGui::SetNextItemWidth(ImGui::GetContentRegionAvail().x * 0.6f);
    if (ImGui::InputTextWithHint("any path", "/path/to/image.png", &text, ImGuiInputTextFlags_EnterReturnsTrue) &&
        !text.empty()) {
        inputs_.choices.images[b.name] = text;
        inputs_.touch();
    }
    draw_refusal(b.name);
    ImGui::PopID();
}

void ParametersPanel::draw_buffers() {
    ImGui::Separator();
    ImGui::TextUnformatted("Buffers");
    // Sizes as the last run resolved them; until then, the expressions.
    std::map<std::string, uint64_t> counts;
    if (const ResolvedRun* run = resolved()) counts = run->buffer_counts;
    if (!ImGui::BeginTable("##buffers", 4, ImGuiTableFlags_SizingStretchProp | ImGuiTableFlags_RowBg)) return;
    ImGui::TableSetupColumn("name");
    ImGui::TableSetupColumn("type");
    ImGui::TableSetupColumn("elements");
    ImGui::TableSetupColumn("size");
    ImGui::TableHeadersRow();
    for (const BufferSpec& b : file_.spec.buffers) {
        ImGui::TableNextRow();
        ImGui::TableNextColumn();
        ImGui::Text("%s (%s)", b.name.c_str(), direction_name(b.direction));
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(elem_info(b.type).name);
        ImGui::TableNextColumn();
        if (auto count = counts.find(b.name); count != counts.end()) {
            ImGui::Text("%llu", static_cast<unsigned long long>(count->second));
            if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", b.count_expr.c_str());
            ImGui::TableNextColumn();
            ImGui::TextUnformatted(human_bytes(count->second * elem_info(b.type).size).c_str());
        } else {
            ImGui::TextDisabled("%s", b.count_expr.c_str());
            ImGui::TableNextColumn();
            ImGui::TextDisabled("?");
        }
    }
    ImGui::EndTable();
}

}  // namespace cp::ui
