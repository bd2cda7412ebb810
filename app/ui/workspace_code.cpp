// The Code panel's side of the workspace (workspace.h: update_code_view).
#include "ui/workspace.h"

#include "core/session/session.h"

namespace cp::ui {

void Workspace::update_code_view(double now) {
    if (!code_panel_ || !editor_panel_) return;
    const bool drawn = code_panel_->drawn_recently && code_panel_->visible;
    code_panel_->drawn_recently = false;
    const std::shared_ptr<const MachineCode>& shown = code_view_.shown();
    // The editor counts each line's SASS instructions (PTX where there is no SASS) while the panel is drawn.
    const CodeListing* counted = !drawn || !shown || !shown->ok ? nullptr
                                 : shown->sass.instructions > 0 ? &shown->sass
                                                                : &shown->ptx;
    editor_panel_->set_instruction_counts(counted && counted->instructions > 0 ? &counted->per_line : nullptr,
                                          counted == (shown ? &shown->sass : nullptr) ? "SASS" : "PTX",
                                          shown ? shown->arch : std::string());
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
    if (now - doc()->last_edit_time() < kCompilePause) return;  // still typing: the listing follows the pause
    MachineCodeRequest request;
    request.compile = kernel_compile_request(files_.parsed());
    request.arch = code_view_.arch.empty() ? (device_status_.device.arch.rfind("sm_", 0) == 0 ? device_status_.device.arch
                                                                                             : std::string("sm_90"))
                                           : code_view_.arch;
    code_view_.request(request);
    code_requested_revision_ = doc()->revision();
}

}  // namespace cp::ui
