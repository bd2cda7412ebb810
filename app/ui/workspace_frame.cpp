// Workspace drawing: keyboard shortcuts, the menu bar, the banner (why nothing runs) and status bar, and the
// panels in their default layout (used until the user moves them; ImGui's ini file remembers that).
#include "ui/workspace.h"

#include "core/kernel_file/kernel_file.h"

#include <imgui.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <string>
#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>  // key codes only: the GLFW backend reports keys by these indices

namespace cp::ui {

void Workspace::frame(double now) {
    now_ = now;
    if (auto outcome = runner_->take_outcome()) apply_outcome(std::move(*outcome));
    if (doc_) {
        if (auto r = doc_->autosave_if_due(now); !r) console_.add(LogKind::Error, "Autosave failed: " + r.error().full());
        if (now - last_watch_check_ >= 0.5) {
            last_watch_check_ = now;
            if (doc_->reload_if_changed_on_disk(now))
                console_.add(LogKind::Info, "Reloaded " + doc_->shown_path().string() + " (changed outside the app)");
        }
    }
    reparse_if_changed();
    handle_shortcuts();
    draw_menu_bar();
    draw_banner_and_status();
    draw_panels();
    if (auto chosen = open_dialog_.draw()) open_kernel(*chosen);
    maybe_submit(now);
}

void Workspace::handle_shortcuts() {
    const ImGuiIO& io = ImGui::GetIO();
    const bool ctrl = io.KeyCtrl;
    if (ImGui::IsKeyPressed(GLFW_KEY_F5, false) ||
        (ctrl && (ImGui::IsKeyPressed(GLFW_KEY_ENTER, false) || ImGui::IsKeyPressed(GLFW_KEY_KP_ENTER, false)))) {
        save_now();
        request_run();
    }
    if (!ctrl) return;
    if (ImGui::IsKeyPressed(GLFW_KEY_S, false)) save_now();
    if (ImGui::IsKeyPressed(GLFW_KEY_O, false))
        open_dialog_.open(doc_ ? doc_->original_path().parent_path() : kernels_dir());
    if (ImGui::IsKeyPressed(GLFW_KEY_EQUAL) || ImGui::IsKeyPressed(GLFW_KEY_KP_ADD)) adjust_font_scale(+0.1f);
    if (ImGui::IsKeyPressed(GLFW_KEY_MINUS) || ImGui::IsKeyPressed(GLFW_KEY_KP_SUBTRACT)) adjust_font_scale(-0.1f);
    if (ImGui::IsKeyPressed(GLFW_KEY_0, false) || ImGui::IsKeyPressed(GLFW_KEY_KP_0, false)) adjust_font_scale(0);
}

void Workspace::draw_menu_bar() {
    if (!ImGui::BeginMainMenuBar()) return;
    if (ImGui::BeginMenu("File")) {
        if (ImGui::MenuItem("Open...", "Ctrl+O")) open_dialog_.open(doc_ ? doc_->original_path().parent_path() : kernels_dir());
        if (ImGui::MenuItem("Save", "Ctrl+S", false, doc_.has_value())) save_now();
        if (ImGui::MenuItem("Revert to stock", nullptr, false, doc_ && doc_->has_user_copy())) {
            if (auto r = doc_->revert_to_original(now_); !r) console_.add(LogKind::Error, r.error().full());
        }
        ImGui::Separator();
        if (ImGui::MenuItem("Quit")) target_.request_close();
        ImGui::EndMenu();
    }
    if (ImGui::BeginMenu("View")) {
        for (auto& p : panels_)
            if (ImGui::MenuItem(p->title(), nullptr, p->visible)) {
                p->visible = !p->visible;
                save_settings_if_persistent();
            }
        ImGui::Separator();
        if (ImGui::MenuItem("Larger text", "Ctrl +")) adjust_font_scale(+0.1f);
        if (ImGui::MenuItem("Smaller text", "Ctrl -")) adjust_font_scale(-0.1f);
        if (ImGui::MenuItem("Reset text size", "Ctrl 0")) adjust_font_scale(0);
        if (ImGui::MenuItem("High contrast", nullptr, settings_.high_contrast)) {
            settings_.high_contrast = presentation_.high_contrast = !settings_.high_contrast;
            presentation_dirty_ = true;
            save_settings_if_persistent();
        }
        if (ImGui::MenuItem("Reset layout")) reset_layout_ = true;
        ImGui::EndMenu();
    }
    if (ImGui::BeginMenu("Run")) {
        if (ImGui::MenuItem("Run", "F5 / Ctrl+Enter", false, doc_.has_value())) request_run();
        ImGui::MenuItem("Compile while typing", nullptr, &settings_.auto_compile);
        ImGui::MenuItem("Re-run every frame", nullptr, &live_.every_frame, can_run());
        if (ImGui::MenuItem("Verify every run", nullptr, &inputs_.verify)) inputs_.touch();
        ImGui::EndMenu();
    }
    if (doc_) {
        ImGui::Separator();
        ImGui::TextDisabled("%s", parsed_.spec.title.empty() ? doc_->original_path().filename().string().c_str()
                                                              : parsed_.spec.title.c_str());
    }
    ImGui::EndMainMenuBar();
}

// The work area: below the main menu bar, above the status bar. Computed here rather than read from the
// viewport's WorkPos, which only accounts for the menu bar from the second frame on (so windows placed on
// the first frame would cover it).
namespace {
struct WorkArea {
    float x, y, w, h;
};
WorkArea work_area() {
    const ImGuiViewport* vp = ImGui::GetMainViewport();
    const float menu = ImGui::GetFrameHeight();
    return {vp->Pos.x, vp->Pos.y + menu, vp->Size.x, vp->Size.y - menu};
}
std::string stage_title(RunStage s) {
    std::string name = run_stage_name(s);
    if (!name.empty()) name[0] = char(std::toupper(static_cast<unsigned char>(name[0])));
    return name;
}
}  // namespace

void Workspace::draw_banner_and_status() {
    const WorkArea vp = work_area();
    const ImGuiWindowFlags strip = ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoSavedSettings |
                                   ImGuiWindowFlags_NoFocusOnAppearing | ImGuiWindowFlags_NoBringToFrontOnFocus;
    // Status bar along the bottom: the latest run, the frame's CPU time, the backend.
    const float bar = ImGui::GetFrameHeight();
    ImGui::SetNextWindowPos(ImVec2(vp.x, vp.y + vp.h - bar));
    ImGui::SetNextWindowSize(ImVec2(vp.w, bar));
    ImGui::PushStyleVar(ImGuiStyleVar_WindowPadding, ImVec2(ImGui::GetStyle().FramePadding.x, 2));
    if (ImGui::Begin("##status", nullptr, strip)) {
        if (run_in_flight()) ImGui::TextUnformatted("running...");
        else if (latest_ && latest_->report.error)
            ImGui::TextColored(ImVec4(1, 0.45f, 0.4f, 1), "%s failed: %s", stage_title(latest_->report.failed_stage).c_str(),
                               latest_->report.error->message.c_str());
        else if (latest_ && latest_->report.launched && latest_->report.resolved)
            ImGui::Text("ran %s %s x %s in %.3f ms (median)", latest_->report.kernel.c_str(),
                        latest_->report.resolved->grid.str().c_str(), latest_->report.resolved->block.str().c_str(),
                        latest_->report.timing.median_ms);
        else if (latest_ && !can_run())
            ImGui::Text("compiled %s with NVRTC in %.0f ms; nothing runs here (no backend)", latest_->report.kernel.c_str(),
                        latest_->report.compile_ms);
        else ImGui::TextDisabled("ready");
        char right_text[96];
        std::snprintf(right_text, sizeof right_text, "frame %.2f ms CPU | %s", double(frame_cpu_ms_),
                      can_run() ? runner_->device().backend.c_str() : "no backend");
        const std::string right = right_text;
        ImGui::SameLine(std::max(ImGui::GetCursorPosX() + 20, ImGui::GetWindowWidth() - ImGui::CalcTextSize(right.c_str()).x - 12));
        ImGui::TextDisabled("%s", right.c_str());
    }
    ImGui::End();
    ImGui::PopStyleVar();

    if (can_run()) return;
    // Banner: why nothing runs. It stays: without a backend this is the one thing to know.
    const std::string text = "Nothing can run here: " + device_status_.why_nothing_runs +
                             ". The editor and the compiler still work; outputs, timing and verification need a "
                             "backend (an NVIDIA GPU, or the CPU backend).";
    const ImVec2 pad = ImGui::GetStyle().WindowPadding;
    banner_height_ = ImGui::CalcTextSize(text.c_str(), nullptr, false, vp.w - 2 * pad.x).y + 2 * pad.y;
    ImGui::SetNextWindowPos(ImVec2(vp.x, vp.y));
    ImGui::SetNextWindowSize(ImVec2(vp.w, banner_height_));
    ImGui::PushStyleColor(ImGuiCol_WindowBg, ImVec4(0.45f, 0.22f, 0.05f, 1));
    if (ImGui::Begin("##banner", nullptr, strip)) {
        ImGui::PushTextWrapPos(0.0f);
        ImGui::TextUnformatted(text.c_str());
        ImGui::PopTextWrapPos();
    }
    ImGui::End();
    ImGui::PopStyleColor();
}

void Workspace::draw_panels() {
    const WorkArea vp = work_area();
    const float top = vp.y + (can_run() ? 0.0f : banner_height_);
    const float height = vp.h - ImGui::GetFrameHeight() - (top - vp.y);
    const ImGuiCond cond = reset_layout_ ? ImGuiCond_Always : ImGuiCond_FirstUseEver;
    for (auto& p : panels_) {
        if (!p->visible) continue;
        const PanelPlacement at = p->default_placement();
        ImGui::SetNextWindowPos(ImVec2(vp.x + at.x * vp.w, top + at.y * height), cond);
        ImGui::SetNextWindowSize(ImVec2(at.w * vp.w, at.h * height), cond);
        bool open = true;
        if (ImGui::Begin(p->title(), &open)) p->draw();
        ImGui::End();
        if (!open) {
            p->visible = false;
            save_settings_if_persistent();
        }
    }
    reset_layout_ = false;
}

}  // namespace cp::ui
