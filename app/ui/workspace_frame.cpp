// Workspace drawing: keyboard shortcuts, the menu bar, the banner (why nothing runs) and status bar, and the
// panels docked in the layout the user made (ImGui's ini file remembers it) or the default one.
#include "ui/workspace.h"
#include "core/clock.h"

#include "core/kernel_file/kernel_file.h"
#include "ui/state/user_dirs.h"

#include <imgui.h>
#include <imgui_internal.h>  // the dock builder and the viewport's work area of this frame

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <functional>
#include <cstdio>
#include <string>

namespace cp::ui {

void Workspace::frame(double now) {
    now_ = now;
    layout_.begin_frame();
    apply_ms_ = views_ms_ = 0;
    if (auto outcome = runner_->take_outcome()) {
        const auto started = std::chrono::steady_clock::now();
        apply_outcome(std::move(*outcome));
        apply_ms_ = ms_since(started);
        timing_.set_last_ui_apply_ms(apply_ms_);
    }
    if (auto checked = runner_->take_check()) apply_check(std::move(*checked));
    // The pictures drawn before, read back: one that is not what its values make is redone on the host.
    for (OutputViews* v : pictures()) v->check_displays(console_);
    if (auto program = program_.take_finished()) apply_program(std::move(*program));
    program_.take_replay();
    if (auto recorded = program_.take_debug()) apply_debug(std::move(*recorded));
    files_.tick(now);
    reparse_if_changed();
    update_code_view(now);
    // The Debug panel counts as shown when it was drawn two frames running (a tab behind another is not drawn).
    if (debug_panel_) {
        debug_drawn_frames_ = debug_panel_->drawn_recently && debug_panel_->visible ? debug_drawn_frames_ + 1 : 0;
        debug_panel_->drawn_recently = false;
    }
    handle_shortcuts();
    follow_debug_stop();
    if (layout_.presenting()) {
        // Nothing but the output and the lesson (and why nothing runs, when that is so).
        draw_banner();
        const ImRect work = static_cast<ImGuiViewportP*>(ImGui::GetMainViewport())->GetBuildWorkRect();
        layout_.presentation_view().draw(work.Min.x, work.Min.y, work.GetWidth(), work.GetHeight());
    } else {
        draw_menu_bar();
        draw_status_bar();
        draw_banner();
        if (layout_.draw_docked()) save_settings_if_persistent();
    }
    if (auto chosen = open_dialog_.draw()) open_path(*chosen);
    if (auto folder = export_dialog_.draw()) export_program(*folder);
    if (open_after_frame_) {
        const std::filesystem::path path = std::move(*open_after_frame_);
        open_after_frame_.reset();
        open_kernel(path);
        layout_.show("Output");
    }
    render::RenderTarget* wake_target = &target_;
    if (auto made = connection_.poll(now, [wake_target] { wake_target->wake(); })) use_connected_backend(std::move(*made));
    maybe_submit(now);
}

void Workspace::handle_shortcuts() {
    const ImGuiIO& io = ImGui::GetIO();
    const bool ctrl = io.KeyCtrl;
    if (ImGui::IsKeyPressed(ImGuiKey_F5, false) ||
        (ctrl && (ImGui::IsKeyPressed(ImGuiKey_Enter, false) || ImGui::IsKeyPressed(ImGuiKey_KeypadEnter, false)))) {
        save_now();
        request_run();
    }
    if (ImGui::IsKeyPressed(ImGuiKey_F11, false)) set_presenting(!layout_.presenting());
    // The debugger: F9 a breakpoint at the editor's line; F10 a step (Shift: back), F8 on to a breakpoint, F7 to
    // the next __syncthreads(). The first of them shows the Debug panel, which records the block.
    const bool f9 = ImGui::IsKeyPressed(ImGuiKey_F9, false);
    const bool f10 = ImGui::IsKeyPressed(ImGuiKey_F10, true), f8 = ImGui::IsKeyPressed(ImGuiKey_F8, true),
               f7 = ImGui::IsKeyPressed(ImGuiKey_F7, true);
    if (f9 && editor_panel_) debug_.toggle_breakpoint(editor_panel_->cursor_line());
    if ((f9 || f10 || f8 || f7) && !debug_shown()) layout_.show("Debug");
    if (f10 && io.KeyShift) debug_.step_back();
    else if (f10) debug_.step_forward();
    if (f8) debug_.continue_to_breakpoint();
    if (f7) debug_.next_barrier();
    // Esc leaves presentation mode unless it is closing something else (a popup, typing in a field).
    if (layout_.presenting() && ImGui::IsKeyPressed(ImGuiKey_Escape, false) && !io.WantTextInput &&
        !ImGui::IsPopupOpen(nullptr, ImGuiPopupFlags_AnyPopupId | ImGuiPopupFlags_AnyPopupLevel))
        set_presenting(false);
    if (!ctrl) return;
    if (layout_.presenting() && ImGui::IsKeyPressed(ImGuiKey_E, false)) layout_.presentation_view().toggle_editor();
    if (ImGui::IsKeyPressed(ImGuiKey_S, false)) save_now();
    if (ImGui::IsKeyPressed(ImGuiKey_O, false))
        open_dialog_.open(doc() ? doc()->original_path().parent_path() : kernels_dir());
    if (ImGui::IsKeyPressed(ImGuiKey_Equal) || ImGui::IsKeyPressed(ImGuiKey_KeypadAdd)) adjust_font_scale(+0.1f);
    if (ImGui::IsKeyPressed(ImGuiKey_Minus) || ImGui::IsKeyPressed(ImGuiKey_KeypadSubtract)) adjust_font_scale(-0.1f);
    if (ImGui::IsKeyPressed(ImGuiKey_0, false) || ImGui::IsKeyPressed(ImGuiKey_Keypad0, false)) adjust_font_scale(0);
}

void Workspace::open_export_dialog() {
    if (!doc()) return;
    const std::string stem = doc()->original_path().stem().string();
    const std::string& title = files_.parsed().spec.title;
    export_dialog_.open(exports_dir() / stem, title.empty() ? stem : title);
}

void Workspace::draw_menu_bar() {
    if (!ImGui::BeginMainMenuBar()) return;
    if (ImGui::BeginMenu("File")) {
        if (ImGui::MenuItem("Open...", "Ctrl+O")) open_dialog_.open(doc() ? doc()->original_path().parent_path() : kernels_dir());
        if (ImGui::MenuItem("Save", "Ctrl+S", false, doc().has_value())) save_now();
        if (ImGui::MenuItem("Revert to stock", nullptr, false, doc() && doc()->has_user_copy())) take_stock();
        if (ImGui::MenuItem("Export as a program...", nullptr, false, doc() && files_.parsed().spec.has_metadata))
            open_export_dialog();
        ImGui::Separator();
        if (ImGui::MenuItem("Quit")) target_.request_close();
        ImGui::EndMenu();
    }
    if (ImGui::BeginMenu("View")) {
        // A panel's entry shows it and brings it to the front of its tab group; on a visible one it hides it.
        for (const auto& p : layout_.panels())
            if (ImGui::MenuItem(p->title(), nullptr, p->visible)) {
                if (p->visible) p->visible = false;
                else show_panel(p->title());
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
        if (ImGui::MenuItem("Reset layout")) reset_layout();
        if (ImGui::MenuItem("Presentation mode", "F11")) set_presenting(true);
        ImGui::EndMenu();
    }
    if (ImGui::BeginMenu("Run")) {
        if (ImGui::MenuItem("Run", "F5 / Ctrl+Enter", false, doc().has_value())) request_run();
        ImGui::MenuItem("Compile while typing", nullptr, &settings_.auto_compile);
        ImGui::MenuItem("Re-run every frame", nullptr, &live_.every_frame, can_run());
        if (ImGui::MenuItem("Verify every run", nullptr, &inputs_.verify)) inputs_.touch();
        ImGui::Separator();
        // Sanitize: one run under compute-sanitizer; where it cannot run, the items are off and the reason shown.
        if (ImGui::BeginMenu("Sanitize with")) {
            const bool can = sanitize_.unavailable.empty() && doc() && !sanitize_.requested && !sanitize_.running;
            for (const std::string& tool : sanitizer_tools())
                if (ImGui::MenuItem(tool.c_str(), nullptr, false, can)) request_sanitize(tool);
            if (!sanitize_.unavailable.empty()) {
                ImGui::PushTextWrapPos(ImGui::GetFontSize() * 28);
                ImGui::TextDisabled("%s", sanitize_.unavailable.c_str());
                ImGui::PopTextWrapPos();
            }
            ImGui::EndMenu();
        }
        ImGui::EndMenu();
    }
    if (doc()) {
        ImGui::Separator();
        ImGui::TextDisabled("%s", files_.parsed().spec.title.empty() ? doc()->original_path().filename().string().c_str()
                                                              : files_.parsed().spec.title.c_str());
    }
    ImGui::EndMainMenuBar();
}

namespace {
// The status bar and the banner: fixed strips, never docked, moved or saved.
constexpr ImGuiWindowFlags kStrip = ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoSavedSettings |
                                    ImGuiWindowFlags_NoFocusOnAppearing | ImGuiWindowFlags_NoBringToFrontOnFocus |
                                    ImGuiWindowFlags_NoDocking;
}  // namespace

// The status bar and the banner are side bars of the main viewport: the dockspace gets what they leave.
void Workspace::draw_status_bar() {
    ImGuiViewport* vp = ImGui::GetMainViewport();
    // Status bar along the bottom: the latest run, the frame's CPU time, the backend.
    ImGui::PushStyleVar(ImGuiStyleVar_WindowPadding, ImVec2(ImGui::GetStyle().FramePadding.x, 2));
    if (ImGui::BeginViewportSideBar("##status", vp, ImGuiDir_Down, ImGui::GetFrameHeight(), kStrip)) {
        // The right-hand readout first, so the left text knows where to stop: a long error is cut with "..."
        // before it (the whole text on hover, and in the Console) instead of running under it.
        char right_text[96];
        std::snprintf(right_text, sizeof right_text, "frame %.2f ms CPU | %s", double(frame_cpu_ms_),
                      can_run() ? runner_->device().backend.c_str() : "no backend");
        const float right_w = ImGui::CalcTextSize(right_text).x;
        const float right_x = std::max(ImGui::GetCursorPosX() + 20, ImGui::GetWindowWidth() - right_w - 12);
        const float left_max = right_x - ImGui::GetCursorPosX() - ImGui::GetFontSize();
        std::string left;
        ImVec4 colour = ImGui::GetStyle().Colors[ImGuiCol_Text];
        char buf[256];
        if (run_in_flight() && connection_.link().remote() && now_ - inflight_since_ >= 2) {
            // A slow or silent server: the window goes on; say what it waits for, and how long it has.
            std::snprintf(buf, sizeof buf, "waiting for the server `%s` (%.0f s)...", connection_.link().prefix().c_str(),
                          now_ - inflight_since_);
            left = buf;
            link_drawn_at_ = now_;
        } else if (run_in_flight()) left = "running...";
        else if (latest_ && latest_->report.error) {
            left = run_failure_text(latest_->report);
            colour = ImVec4(1, 0.45f, 0.4f, 1);
        } else if (latest_ && latest_->report.launched && latest_->report.resolved) {
            std::snprintf(buf, sizeof buf, "ran %s %s x %s in %.3f ms (median)", latest_->report.kernel.c_str(),
                          latest_->report.resolved->grid.str().c_str(), latest_->report.resolved->block.str().c_str(),
                          latest_->report.timing.median_ms);
            left = buf;
        } else if (latest_ && !can_run()) {
            std::snprintf(buf, sizeof buf, "compiled %s with NVRTC in %.0f ms; nothing runs here (no backend)",
                          latest_->report.kernel.c_str(), latest_->report.compile_ms);
            left = buf;
        } else {
            left = "ready";
            colour = ImGui::GetStyle().Colors[ImGuiCol_TextDisabled];
        }
        status_text_ = left;
        left = status_bar_fit(left, left_max, [](const std::string& t) { return ImGui::CalcTextSize(t.c_str()).x; });
        const ImVec2 start = ImGui::GetCursorScreenPos();
        ImGui::TextColored(colour, "%s", left.c_str());
        status_left_ = {start.x, start.y, start.x + ImGui::GetItemRectSize().x, start.y + ImGui::GetItemRectSize().y};
        if (ImGui::IsItemHovered() && latest_ && latest_->report.error)
            ImGui::SetTooltip("%s", run_failure_text(latest_->report).c_str());
        ImGui::SameLine(right_x);
        const ImVec2 rstart = ImGui::GetCursorScreenPos();
        ImGui::TextDisabled("%s", right_text);
        status_right_ = {rstart.x, rstart.y, rstart.x + ImGui::GetItemRectSize().x, rstart.y + ImGui::GetItemRectSize().y};
    }
    ImGui::End();
    ImGui::PopStyleVar();
}

std::string status_bar_fit(const std::string& text, float max_width, const std::function<float(const std::string&)>& width) {
    if (width(text) <= max_width) return text;
    // One line: the first line only, then shortened a character at a time (UTF-8 aware) until it fits with "...".
    std::string s = text.substr(0, text.find('\n'));
    while (!s.empty() && width(s + "...") > max_width) {
        while (!s.empty() && (static_cast<unsigned char>(s.back()) & 0xC0) == 0x80) s.pop_back();  // continuation bytes
        if (!s.empty()) s.pop_back();  // and the character's first byte
    }
    return s + "...";
}

void Workspace::draw_banner() {
    drawn_banner_.clear();
    if (connection_.link().lost()) {
        draw_link_banner();
        return;
    }
    if (can_run()) return;
    ImGuiViewport* vp = ImGui::GetMainViewport();
    // Banner: why nothing runs. It stays: without a backend this is the one thing to know.
    const std::string text = "Nothing can run here: " + device_status_.why_nothing_runs +
                             ". The editor and the compiler still work; outputs, timing and verification need a "
                             "backend (an NVIDIA GPU, or the CPU backend).";
    const ImVec2 pad = ImGui::GetStyle().WindowPadding;
    const float height = ImGui::CalcTextSize(text.c_str(), nullptr, false, vp->Size.x - 2 * pad.x).y + 2 * pad.y;
    ImGui::PushStyleColor(ImGuiCol_WindowBg, ImVec4(0.45f, 0.22f, 0.05f, 1));
    if (ImGui::BeginViewportSideBar("##banner", vp, ImGuiDir_Up, height, kStrip)) {
        ImGui::PushTextWrapPos(0.0f);
        ImGui::TextUnformatted(text.c_str());
        ImGui::PopTextWrapPos();
    }
    ImGui::End();
    ImGui::PopStyleColor();
}

// The server cannot be reached: which one, since when, the last words of its command (ssh's complaint, the
// worker's stderr), when the window tries again, and a button to try now. Everything else keeps working.
void Workspace::draw_link_banner() {
    link_drawn_at_ = now_;
    ImGuiViewport* vp = ImGui::GetMainViewport();
    char head[512];
    const double wait = connection_.link().retry_in(now_);
    const int lost_for = int(now_ - connection_.link().lost_since());
    if (connection_.link().attempting() || run_in_flight())
        std::snprintf(head, sizeof head, "The server `%s` cannot be reached (for %d s): trying to reconnect now...",
                      connection_.link().prefix().c_str(), lost_for);
    else if (connection_.link().failed_attempts() == 0)  // only the try that found it lost: no retry has failed yet
        std::snprintf(head, sizeof head, "The server `%s` cannot be reached (for %d s): trying again in %.0f s.",
                      connection_.link().prefix().c_str(), lost_for, std::ceil(wait));
    else
        std::snprintf(head, sizeof head,
                      "The server `%s` cannot be reached (for %d s; %d attempt%s to reconnect failed): trying again "
                      "in %.0f s.",
                      connection_.link().prefix().c_str(), lost_for, connection_.link().failed_attempts(),
                      connection_.link().failed_attempts() == 1 ? "" : "s", std::ceil(wait));
    const std::string text = std::string(head) +
                             " Your edits are kept here; the kernel runs again when the server is back.\n" + connection_.link().why();
    drawn_banner_ = text;
    const ImGuiStyle& style = ImGui::GetStyle();
    const float wrap = vp->Size.x - 2 * style.WindowPadding.x;
    const float height = ImGui::CalcTextSize(text.c_str(), nullptr, false, wrap).y + ImGui::GetFrameHeightWithSpacing() +
                         2 * style.WindowPadding.y;
    ImGui::PushStyleColor(ImGuiCol_WindowBg, ImVec4(0.50f, 0.12f, 0.10f, 1));
    if (ImGui::BeginViewportSideBar("##link banner", vp, ImGuiDir_Up, height, kStrip)) {
        ImGui::PushTextWrapPos(0.0f);
        ImGui::TextUnformatted(text.c_str());
        ImGui::PopTextWrapPos();
        ImGui::BeginDisabled(connection_.link().attempting() || run_in_flight());
        if (ImGui::Button("Reconnect")) connection_.link().reconnect_now();
        ImGui::EndDisabled();
    }
    ImGui::End();
    ImGui::PopStyleColor();
}

void Workspace::set_presenting(bool on) {
    if (!layout_.set_presenting(on)) return;
    if (on) record_memory_if_presented();
    presentation_.fullscreen = on;
    presentation_dirty_ = true;
}

void Workspace::reset_layout() {
    set_presenting(false);
    layout_.reset();
    save_settings_if_persistent();
}

}  // namespace cp::ui
