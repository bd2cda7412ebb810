// The Code panel's side of the workspace (workspace.h: update_code_view).
#include "ui/workspace.h"

#include "core/kernel_file/kernel_file.h"
#include "core/session/session.h"

namespace cp::ui {

void Workspace::update_code_view(double now) {
    if (!code_panel_ || !editor_panel_) return;
    // Drawn two frames running: a tab shown for one frame while the dock layout is built asks for nothing.
    code_drawn_frames_ = code_panel_->drawn_recently && code_panel_->visible ? code_drawn_frames_ + 1 : 0;
    const bool drawn = code_drawn_frames_ >= 2;
    code_panel_->drawn_recently = false;
    const std::shared_ptr<const MachineCode>& shown = code_view_.shown();
    // The editor counts each line's SASS instructions (PTX where there is no SASS) while the panel is drawn.
    const CodeListing* counted = !drawn || !shown || !shown->ok ? nullptr
                                 : shown->sass.instructions > 0 ? &shown->sass
                                                                : &shown->ptx;
    const ResourceUsage* usage = shown ? &shown->compile.usage : nullptr;
    const int spill_bytes = usage ? std::max(usage->spill_store_bytes, 0) + std::max(usage->spill_load_bytes, 0) : 0;
    const bool has = counted && counted->instructions > 0;
    editor_panel_->set_instruction_counts(has ? &counted->per_line : nullptr,
                                          counted == (shown ? &shown->sass : nullptr) ? "SASS" : "PTX",
                                          shown ? shown->arch : std::string(), has ? &counted->local_per_line : nullptr,
                                          spill_bytes);
    if (!drawn || !doc()) return;
    // The editor's line picks instructions; a click on one moves the editor to its line.
    if (editor_panel_->cursor_line() != code_cursor_seen_) {
        code_cursor_seen_ = editor_panel_->cursor_line();
        code_view_.picked_line = code_cursor_seen_;
    }
    if (code_view_.picked_serial != code_jump_serial_) {
        code_jump_serial_ = code_view_.picked_serial;
        editor_panel_->jump_to_line(code_view_.picked_line);
        code_cursor_seen_ = code_view_.picked_line;
    }
    // Still typing: the listing follows the pause (a file as opened, never edited, is listed at once).
    if (doc()->last_edit_time() > 0 && now - doc()->last_edit_time() < kCompilePause) return;
    MachineCodeRequest request;
    request.compile = kernel_compile_request(files_.parsed());
    request.arch = code_view_.arch.empty() ? (device_status_.device.arch.rfind("sm_", 0) == 0 ? device_status_.device.arch
                                                                                             : std::string("sm_90"))
                                           : code_view_.arch;
    const std::string key = CodeView::key_of(request);
    if (!code_current_ || CodeView::key_of(*code_current_) != key) {
        // A new text or architecture: the listing that compiled last is what "before this edit" compares with.
        if (code_good_ && CodeView::key_of(*code_good_) != key && code_good_->arch == request.arch) code_before_ = code_good_;
        code_current_ = request;
    }
    if (shown && shown->ok && code_view_.shown_is_latest()) code_good_ = code_current_;
    code_view_.request(request);
    code_requested_revision_ = doc()->revision();
    // The other side of the comparison, worked out again when the choice or this side changed.
    const std::string& with = code_view_.compare_with;
    const std::string against_key = with + '\n' + key + '\n' + (code_before_ ? CodeView::key_of(*code_before_) : "");
    if (against_key == code_against_key_) return;
    code_against_key_ = against_key;
    std::optional<MachineCodeRequest> other;
    if (with == "before") {
        other = code_before_;
    } else if (with.rfind("lesson:", 0) == 0) {
        auto lesson = load_kernel_file(kernels_dir() / (with.substr(7) + ".cu"));
        if (lesson) other = MachineCodeRequest{kernel_compile_request(*lesson), request.arch};
    } else if (with.rfind("sm_", 0) == 0) {
        other = request;
        other->arch = with;
    }
    code_view_.request_against(other);
}

}  // namespace cp::ui
