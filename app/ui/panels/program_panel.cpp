// Program panel drawing.
#include "ui/panels/program_panel.h"

#include "core/text_util.h"
#include "ui/theme.h"
#include "ui/widgets.h"

#include <imgui.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>

namespace cp::ui {
namespace {

const ImVec4 kGood{0.45f, 0.85f, 0.45f, 1}, kBad{1.0f, 0.4f, 0.35f, 1}, kWarn{1.0f, 0.8f, 0.2f, 1};

// "120" for 120x1x1, "16x8" for 16x8x1: a launch's shape as the program wrote it.
std::string shape(const Dim3& d) {
    if (d.y == 1 && d.z == 1) return std::to_string(d.x);
    if (d.z == 1) return std::to_string(d.x) + "x" + std::to_string(d.y);
    return d.str();
}

std::string end_words(const ProgramRun& r) {
    switch (r.end) {
        case ProgramRun::End::Returned: return "main() returned " + std::to_string(r.exit_status);
        case ProgramRun::End::Exited: return "it called exit(" + std::to_string(r.exit_status) + ")";
        case ProgramRun::End::Aborted: return "it aborted (exit status 134)";
        case ProgramRun::End::Crashed: return "its host code crashed";
        case ProgramRun::End::Stopped: return "the time limit stopped it";
        case ProgramRun::End::NotRun: return r.compiled ? "it could not start" : "it did not compile";
    }
    return "";
}

}  // namespace

void ProgramPanel::draw() {
    const bool running = state_.running();
    if (!state_.last() && !running) {
        text_disabled_wrapped("Open a file with its own main() (File > Open) to run it as written: its output, its exit "
                              "status and every launch it makes appear here.");
        return;
    }
    if (running) {
        ImGui::TextColored(kWarn, "Running %s ... (%.1f s)",
                           std::filesystem::path(state_.started_path()).filename().string().c_str(),
                           now_ - state_.started_at);
    }
    if (!state_.last()) return;
    const ProgramRun& r = *state_.last();
    const bool clean = (r.end == ProgramRun::End::Returned || r.end == ProgramRun::End::Exited) && r.exit_status == 0;
    size_t faulted = 0;
    for (const ProgramLaunch& l : r.launches) faulted += l.error.has_value();
    ImGui::PushTextWrapPos(0.0f);
    ImGui::TextColored(clean && !faulted ? kGood : kBad, "%s: %s; %s on %s%s",
                       std::filesystem::path(state_.last_path()).filename().string().c_str(), end_words(r).c_str(),
                       count_text(r.launches.size(), "launch", "launches").c_str(), r.device.c_str(),
                       faulted ? (", " + std::to_string(faulted) + " with an error").c_str() : "");
    if (r.error) ImGui::TextColored(kBad, "%s", r.error->message.c_str());
    ImGui::PopTextWrapPos();

    // Its natural height: a wrapped message takes the lines it needs; the panel scrolls past many launches.
    if (!r.launches.empty() &&
        ImGui::BeginTable("##launches", 6,
                          ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV | ImGuiTableFlags_SizingFixedFit)) {
        ImGui::TableSetupColumn("#");
        ImGui::TableSetupColumn("Kernel");
        ImGui::TableSetupColumn("Line");
        ImGui::TableSetupColumn("Grid x block");
        ImGui::TableSetupColumn("Time");
        ImGui::TableSetupColumn("Result", ImGuiTableColumnFlags_WidthStretch);
        ImGui::TableHeadersRow();
        for (size_t i = 0; i < r.launches.size(); ++i) {
            const ProgramLaunch& l = r.launches[i];
            ImGui::TableNextRow();
            ImGui::TableNextColumn();
            ImGui::Text("%zu", i + 1);
            ImGui::TableNextColumn();
            ImGui::TextUnformatted(l.kernel.c_str());
            ImGui::TableNextColumn();
            ImGui::Text("%d", l.line);
            ImGui::TableNextColumn();
            ImGui::Text("%s x %s", shape(l.grid).c_str(), shape(l.block).c_str());
            ImGui::TableNextColumn();
            if (l.error && l.error->kind == ErrorKind::LaunchRefused) ImGui::TextDisabled("-");
            else ImGui::Text("%.2f ms", l.ms);
            ImGui::TableNextColumn();
            if (!l.error) {
                ImGui::TextColored(kGood, "ok");
            } else {
                ImGui::PushTextWrapPos(0.0f);
                ImGui::TextColored(kBad, "%s", l.error->message.c_str());
                ImGui::PopTextWrapPos();
                if (l.cuda_error) ImGui::TextDisabled("the program saw %s", cuda_error_name(l.cuda_error).c_str());
            }
        }
        ImGui::EndTable();
    }
    ImGui::SeparatorText("Its output");
    const float lines = ImGui::GetTextLineHeightWithSpacing();
    ImGui::BeginChild("##program_output", ImVec2(0, std::max(ImGui::GetContentRegionAvail().y, 6 * lines)),
                      ImGuiChildFlags_Borders);
    ImGui::PushFont(mono_font(), 0.0f);
    ImGui::PushTextWrapPos(0.0f);
    if (r.stdout_text.empty() && r.stderr_text.empty()) ImGui::TextDisabled("(it printed nothing)");
    ImGui::TextUnformatted(r.stdout_text.c_str());
    if (!r.stderr_text.empty()) ImGui::TextColored(kWarn, "%s", r.stderr_text.c_str());
    ImGui::PopTextWrapPos();
    ImGui::PopFont();
    ImGui::EndChild();
}

}  // namespace cp::ui
