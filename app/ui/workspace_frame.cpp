// Workspace drawing: keyboard shortcuts, the menu bar, the banner (why nothing runs) and status bar, and the
// panels docked in the layout the user made (ImGui's ini file remembers it) or the default one.
#include "ui/workspace.h"
#include "core/clock.h"

#include "core/kernel_file/kernel_file.h"
#include "ui/dock_layout.h"
#include "ui/state/user_dirs.h"

#include <imgui.h>
#include <imgui_internal.h>  // the dock builder and the viewport's work area of this frame

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <functional>
#include <cstdio>
#include <iterator>
#include <string>

namespace cp::ui {

void Workspace::frame(double now) {
    now_ = now;
    if (layout_frames_ > 0) --layout_frames_;
    if (!startup_show_.empty() && --startup_show_frames_ <= 0) {
        for (const std::string& title : startup_show_) show_panel(title);
        startup_show_.clear();
    }
    apply_ms_ = views_ms_ = 0;
    if (auto outcome = runner_->take_outcome()) {
        const auto started = std::chrono::steady_clock::now();
        apply_outcome(std::move(*outcome));
        apply_ms_ = ms_since(started);
        timing_.set_last_ui_apply_ms(apply_ms_);
    }
    if (auto checked = runner_->take_check()) apply_check(std::move(*checked));
    if (doc_) {
        const bool had_copy = doc_->has_user_copy();
        if (auto r = doc_->autosave_if_due(now); !r) console_.add(LogKind::Error, "Autosave failed: " + r.error().full());
        else if (doc_->from_library() && (*r || had_copy != doc_->has_user_copy()))
            edit_marks_.set(doc_->original_path(), EditMarks::read(doc_->original_path(), kernels_dir(), edits_dir()));
        if (now - last_watch_check_ >= 0.5) {
            last_watch_check_ = now;
            if (doc_->reload_if_changed_on_disk(now))
                console_.add(LogKind::Info, "Reloaded " + doc_->shown_path().string() + " (changed outside the app)");
        }
        // The library may be updated while the app runs (a git pull): the open lesson and the marks follow.
        if (now - last_marks_check_ >= 2.0) {
            last_marks_check_ = now;
            if (doc_->refresh_stock() && doc_->stock_changed())
                console_.add(LogKind::Warning, "The library's " + doc_->original_path().filename().string() +
                                                   " changed since you edited it: see the Editor.");
            refresh_edit_marks();
        }
    }
    reparse_if_changed();
    handle_shortcuts();
    if (presenting_) {
        // Nothing but the output and the lesson (and why nothing runs, when that is so).
        draw_banner();
        const ImRect work = static_cast<ImGuiViewportP*>(ImGui::GetMainViewport())->GetBuildWorkRect();
        presentation_view_->draw(work.Min.x, work.Min.y, work.GetWidth(), work.GetHeight());
    } else {
        draw_menu_bar();
        draw_status_bar();
        draw_banner();
        draw_panels();
    }
    if (auto chosen = open_dialog_.draw()) open_kernel(*chosen);
    connect_when_due(now);
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
    if (ImGui::IsKeyPressed(ImGuiKey_F11, false)) set_presenting(!presenting_);
    // Esc leaves presentation mode unless it is closing something else (a popup, typing in a field).
    if (presenting_ && ImGui::IsKeyPressed(ImGuiKey_Escape, false) && !io.WantTextInput &&
        !ImGui::IsPopupOpen(nullptr, ImGuiPopupFlags_AnyPopupId | ImGuiPopupFlags_AnyPopupLevel))
        set_presenting(false);
    if (!ctrl) return;
    if (presenting_ && ImGui::IsKeyPressed(ImGuiKey_E, false)) presentation_view_->toggle_editor();
    if (ImGui::IsKeyPressed(ImGuiKey_S, false)) save_now();
    if (ImGui::IsKeyPressed(ImGuiKey_O, false))
        open_dialog_.open(doc_ ? doc_->original_path().parent_path() : kernels_dir());
    if (ImGui::IsKeyPressed(ImGuiKey_Equal) || ImGui::IsKeyPressed(ImGuiKey_KeypadAdd)) adjust_font_scale(+0.1f);
    if (ImGui::IsKeyPressed(ImGuiKey_Minus) || ImGui::IsKeyPressed(ImGuiKey_KeypadSubtract)) adjust_font_scale(-0.1f);
    if (ImGui::IsKeyPressed(ImGuiKey_0, false) || ImGui::IsKeyPressed(ImGuiKey_Keypad0, false)) adjust_font_scale(0);
}

void Workspace::draw_menu_bar() {
    if (!ImGui::BeginMainMenuBar()) return;
    if (ImGui::BeginMenu("File")) {
        if (ImGui::MenuItem("Open...", "Ctrl+O")) open_dialog_.open(doc_ ? doc_->original_path().parent_path() : kernels_dir());
        if (ImGui::MenuItem("Save", "Ctrl+S", false, doc_.has_value())) save_now();
        if (ImGui::MenuItem("Revert to stock", nullptr, false, doc_ && doc_->has_user_copy())) take_stock();
        ImGui::Separator();
        if (ImGui::MenuItem("Quit")) target_.request_close();
        ImGui::EndMenu();
    }
    if (ImGui::BeginMenu("View")) {
        // A panel's entry shows it and brings it to the front of its tab group; on a visible one it hides it.
        for (auto& p : panels_)
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
        if (ImGui::MenuItem("Run", "F5 / Ctrl+Enter", false, doc_.has_value())) request_run();
        ImGui::MenuItem("Compile while typing", nullptr, &settings_.auto_compile);
        ImGui::MenuItem("Re-run every frame", nullptr, &live_.every_frame, can_run());
        if (ImGui::MenuItem("Verify every run", nullptr, &inputs_.verify)) inputs_.touch();
        ImGui::Separator();
        // Sanitize: one run under compute-sanitizer; where it cannot run, the items are off and the reason shown.
        if (ImGui::BeginMenu("Sanitize with")) {
            const bool can = sanitize_.unavailable.empty() && doc_ && !sanitize_.requested && !sanitize_.running;
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
    if (doc_) {
        ImGui::Separator();
        ImGui::TextDisabled("%s", parsed_.spec.title.empty() ? doc_->original_path().filename().string().c_str()
                                                              : parsed_.spec.title.c_str());
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
        if (run_in_flight() && link_.remote() && now_ - inflight_since_ >= 2) {
            // A slow or silent server: the window goes on; say what it waits for, and how long it has.
            std::snprintf(buf, sizeof buf, "waiting for the server `%s` (%.0f s)...", link_.prefix().c_str(),
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
    if (link_.lost()) {
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
    const double wait = link_.retry_in(now_);
    const int lost_for = int(now_ - link_.lost_since());
    if (link_.attempting() || run_in_flight())
        std::snprintf(head, sizeof head, "The server `%s` cannot be reached (for %d s): trying to reconnect now...",
                      link_.prefix().c_str(), lost_for);
    else if (link_.failed_attempts() == 0)  // only the try that found it lost: no retry has failed yet
        std::snprintf(head, sizeof head, "The server `%s` cannot be reached (for %d s): trying again in %.0f s.",
                      link_.prefix().c_str(), lost_for, std::ceil(wait));
    else
        std::snprintf(head, sizeof head,
                      "The server `%s` cannot be reached (for %d s; %d attempt%s to reconnect failed): trying again "
                      "in %.0f s.",
                      link_.prefix().c_str(), lost_for, link_.failed_attempts(),
                      link_.failed_attempts() == 1 ? "" : "s", std::ceil(wait));
    const std::string text = std::string(head) +
                             " Your edits are kept here; the kernel runs again when the server is back.\n" + link_.why();
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
        ImGui::BeginDisabled(link_.attempting() || run_in_flight());
        if (ImGui::Button("Reconnect")) link_.reconnect_now();
        ImGui::EndDisabled();
    }
    ImGui::End();
    ImGui::PopStyleColor();
}

// The panels in a dockspace filling what the menu, banner and status bars leave of the window. Its layout
// is the user's (saved in imgui.ini), or the default one on the first start and after View > Reset layout.
void Workspace::draw_panels() {
    ImGuiViewportP* vp = static_cast<ImGuiViewportP*>(ImGui::GetMainViewport());
    // This frame's work area (the viewport's WorkPos/WorkSize catch up with the bars only next frame).
    const ImRect work = vp->GetBuildWorkRect();
    ImGui::SetNextWindowPos(work.Min);
    ImGui::SetNextWindowSize(work.GetSize());
    ImGui::SetNextWindowViewport(vp->ID);
    const ImGuiWindowFlags host_flags = ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoDocking |
                                        ImGuiWindowFlags_NoBringToFrontOnFocus | ImGuiWindowFlags_NoNavFocus |
                                        ImGuiWindowFlags_NoBackground | ImGuiWindowFlags_NoSavedSettings;
    ImGui::PushStyleVar(ImGuiStyleVar_WindowRounding, 0.0f);
    ImGui::PushStyleVar(ImGuiStyleVar_WindowBorderSize, 0.0f);
    ImGui::PushStyleVar(ImGuiStyleVar_WindowPadding, ImVec2(0, 0));
    ImGui::Begin("##dock host", nullptr, host_flags);
    ImGui::PopStyleVar(3);
    const ImGuiID dockspace = ImGui::GetID("panels");
    if (reset_layout_ || !ImGui::DockBuilderGetNode(dockspace)) {
        build_default_layout(dockspace, work.Min, work.GetSize(), panels_, layout_stage_);
        // Windows take the focus when they first appear, and a focused docked window is its group's front tab:
        // the output gets the focus once they all have, so no other group changes its front tab.
        // (A new list rather than an insert at begin(): GCC 12 -O2 warns of a null dereference in that insert.)
        std::vector<std::string> order{"Output"};
        // The lesson's first `show:` panel last: the window focused last is its group's front tab.
        if (!layout_stage_.empty()) order.push_back(layout_stage_.front());
        order.insert(order.end(), std::make_move_iterator(bring_to_front_.begin()),
                     std::make_move_iterator(bring_to_front_.end()));
        bring_to_front_ = std::move(order);
        reset_layout_ = false;
    }
    ImGui::DockSpace(dockspace, ImVec2(0, 0));
    ImGui::End();

    for (auto& p : panels_) {
        if (!p->visible) continue;
        bool open = true;
        if (ImGui::Begin(p->title(), &open)) p->draw();
        ImGui::End();
        if (!open) {
            p->visible = false;
            save_settings_if_persistent();
        }
    }
    // One a frame: a dock node selects the tab of the window focused last, so two requests in one frame
    // would leave only the second group changed.
    if (!bring_to_front_.empty()) {
        ImGui::SetWindowFocus(bring_to_front_.front().c_str());
        bring_to_front_.erase(bring_to_front_.begin());
        layout_frames_ = std::max(layout_frames_, int(bring_to_front_.size()) + 2);
    }
}

void Workspace::show_panel(const std::string& title) {
    for (auto& p : panels_)
        if (title == p->title()) {
            p->visible = true;
            if (std::find(bring_to_front_.begin(), bring_to_front_.end(), title) == bring_to_front_.end())
                bring_to_front_.push_back(title);
            layout_frames_ = 2;
        }
}

void Workspace::hide_panel(const std::string& title) {
    for (auto& p : panels_)
        if (title == p->title()) p->visible = false;
    layout_frames_ = 2;
}

bool Workspace::set_panel_visible(const std::string& title, bool v) {
    for (auto& p : panels_)
        if (title == p->title()) {
            if (v) show_panel(title);
            else hide_panel(title);
            return true;
        }
    return false;
}

void Workspace::set_presenting(bool on) {
    if (on == presenting_) return;
    presenting_ = on;
    presentation_.fullscreen = on;
    presentation_dirty_ = true;
    layout_frames_ = 2;
}

void Workspace::reset_layout() {
    set_presenting(false);
    set_all_panels_visible(true);
    reset_layout_ = true;
    layout_frames_ = 2;
    save_settings_if_persistent();
}

}  // namespace cp::ui
