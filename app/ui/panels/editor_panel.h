// Editor panel: the kernel source with line numbers, diagnostics marked on their lines and listed below
// (click to jump), and the file's state (stock or edited copy, revert). Typing goes into the
// KernelDocument, which autosaves; compiling is the workspace's business (F5 or a pause in typing).
#pragma once

#include "core/types.h"
#include "ui/state/kernel_document.h"
#include "ui/panels/panel.h"

struct ImGuiInputTextCallbackData;

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace cp::ui {

struct EditorActions {
    std::function<void()> run;
    std::function<void()> save;
    std::function<void()> revert;
    std::function<double()> now;
    std::function<void()> describe;  // puts a header proposed from the signature at the top of a header-less file
};

// What the editor shows about the last compile.
struct CompileStatus {
    std::vector<Diagnostic> diagnostics;
    std::string summary;    // "compiled in 95 ms (24 registers)", "2 errors"
    bool pending = false;   // text changed since the last compile
};

class EditorPanel final : public Panel {
public:
    EditorPanel(std::optional<KernelDocument>& doc, const CompileStatus& status, bool& auto_compile, EditorActions actions)
        : doc_(doc), status_(status), auto_compile_(auto_compile), actions_(std::move(actions)) {}
    const char* title() const override { return "Editor"; }
    PanelPlacement default_placement() const override { return {0.2f, 0.0f, 0.35f, 0.7f}; }
    void draw() override;

    // Moves the cursor to a 1-based line (clicking a diagnostic).
    void jump_to_line(int line) { pending_jump_ = line; }
    bool text_active() const { return active_; }
    int cursor_line() const { return cursor_line_; }

private:
    void draw_toolbar();
    void draw_source();
    void draw_diagnostics();
    static int text_callback(::ImGuiInputTextCallbackData* data);

    std::optional<KernelDocument>& doc_;
    const CompileStatus& status_;
    bool& auto_compile_;
    EditorActions actions_;

    std::string buffer_;            // the text as ImGui edits it
    uint64_t buffer_revision_ = ~0ull;
    std::string buffer_path_;
    int pending_jump_ = 0;
    int cursor_line_ = 1, cursor_column_ = 1;
    bool active_ = false;
    bool confirm_revert_ = false;
};

}  // namespace cp::ui
