// Editor panel: the kernel source in a code editor widget (ImGuiColorTextEdit: CUDA highlighting, line
// numbers), compile, header and runtime errors marked on their lines (message on hover) and listed below
// (click to jump), and the file's state (stock or your copy, revert). Typing goes into the KernelDocument,
// which autosaves; compiling is the workspace's business (F5 or a pause in typing).
#pragma once

#include "core/types.h"
#include "ui/state/kernel_document.h"
#include "ui/state/line_diff.h"
#include "ui/state/debug_view.h"
#include "ui/state/memory_view.h"
#include "ui/panels/panel.h"

class TextEditor;

#include <algorithm>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace cp::ui {

struct EditorActions {
    std::function<void()> run;
    std::function<void()> save;
    std::function<void()> revert;
    std::function<double()> now;
    std::function<void()> describe;  // puts a header proposed from the kernel (signature and body) at the top of a header-less file
    std::function<void()> keep_mine;  // an edited lesson whose stock changed: keep the edits (`revert` takes the new)
    std::function<bool()> is_program;  // the document is a whole program (its own main()): it runs as written
};

// What the editor shows about the last compile.
struct CompileStatus {
    std::vector<Diagnostic> diagnostics;  // compiler and header messages, and a runtime error with its line
    std::string summary;    // "compiled in 95 ms (24 registers)", "2 errors"
    bool pending = false;   // text changed since the last compile
    // A line to bring into view once (a new runtime fault's): the editor scrolls when `reveal_serial` changes.
    int reveal_line = 0;
    uint64_t reveal_serial = 0;
};

// Whether the compile itself failed (the summary in red): an error of the compiler or of the header, not a run-time
// fault or a sanitizer finding marked in the editor (the kernel compiled; "compiled in 741 ms" was red after one).
bool compile_failed(const CompileStatus& status);

class EditorPanel final : public Panel {
public:
    EditorPanel(std::optional<KernelDocument>& doc, const CompileStatus& status, bool& auto_compile, EditorActions actions);
    ~EditorPanel() override;
    const char* title() const override { return "Editor"; }
    DockPlace dock_place() const override { return {DockSlot::Side, true}; }
    void draw() override;

    // Moves the cursor to a 1-based line (clicking a diagnostic).
    void jump_to_line(int line) { pending_jump_ = line; }
    bool text_active() const { return active_; }
    int cursor_line() const { return cursor_line_; }
    // Columns of code the last frame showed (at least kCodeColumns where the type could shrink to fit them), and the
    // code's type size then (pixels).
    int visible_columns() const { return visible_columns_; }
    float code_size() const { return code_size_; }
    static constexpr float kCodeColumns = 60, kSmallestCode = 0.6f;

    // Where a toolbar or notice button was drawn in the last frame, in screen pixels ("Describe", "Compare",
    // "Keep mine", "Take the new one"), for tests that click it; false when it was not drawn.
    struct ButtonRect {
        float x0 = 0, y0 = 0, x1 = 0, y1 = 0;
    };
    bool button_rect(const std::string& name, ButtonRect& out) const;

    // A line marked in the editor (tests, and the README's pictures): 1-based line, the hover text, and who said
    // its messages (one origin each, in the hover's order).
    struct Marker {
        int line = 0;
        Severity severity = Severity::Error;
        std::string message;
        std::vector<DiagnosticOrigin> origins;
        bool from(DiagnosticOrigin o) const { return std::find(origins.begin(), origins.end(), o) != origins.end(); }
    };
    const std::vector<Marker>& markers() const { return markers_; }
    // Where a line's number is drawn (its marker), in screen pixels; false when it is not on screen.
    bool line_number_rect(int line, float& x0, float& y0, float& x1, float& y1) const;
    // The marker text shown in the last frame because the mouse was over a marked line ("" if none).
    const std::string& hovered_marker() const { return hovered_marker_; }

    // The memory view's figures per access line (null: none): a badge per line in a column reserved at the
    // editor's right ("x8", "8-way"; its hover has the whole text), and the whole text after the code where the
    // line leaves room for it at full size (place_gutter_text). Neither ever covers code.
    void set_memory_marks(const std::vector<MemoryLineMark>* marks) { memory_marks_ = marks; }
    // The Code panel's instructions per source line (null: none), drawn dimmed in the same right-hand column where
    // there are no memory figures, `what` ("SASS", "PTX") and `arch` saying in the hover what they count.
    // `local`: of those, the instructions that reach local memory, per line, drawn in the warning colour; with
    // `spill_bytes` (ptxas's spill stores + loads) above 0 they are where the kernel spills.
    void set_instruction_counts(const std::map<int, int>* counts, std::string what, std::string arch,
                                const std::map<int, int>* local = nullptr, int spill_bytes = 0) {
        instruction_counts_ = counts;
        local_counts_ = local;
        spill_bytes_ = spill_bytes;
        counts_what_ = std::move(what);
        counts_arch_ = std::move(arch);
    }
    // The debugger's marks (null: none): a red dot on each breakpoint's line number, the lines where the watched
    // threads stand at the stop in yellow, the line a stepped block faulted on in red. A click on a line number
    // calls `toggle` with its line.
    void set_debug_marks(const DebugEditorMarks* marks, std::function<void(int)> toggle) {
        debug_marks_ = marks;
        toggle_breakpoint_ = std::move(toggle);
    }
    // The debugger's marks drawn in the last frame (tests): line -> what ("breakpoint", "stop", "fault").
    const std::multimap<int, std::string>& debug_drawn() const { return debug_drawn_; }
    // The gutter texts drawn in the last frame, with where (screen pixels), for tests.
    struct GutterText {
        int line = 0;      // the access line it is about
        int row = 0;       // the line it is drawn on (line, or line + 1 for "^ ...")
        std::string text;
        MemoryGrade grade = MemoryGrade::Ideal;
        bool badge = false;  // in the reserved column
        float x0 = 0, y0 = 0, x1 = 0, y1 = 0;
        float code_x0 = 0, code_x1 = 0;  // where the code of `row` is on screen (x1: its last character's end)
        float code_right = 0;            // the code area's right edge (the column starts past it)
    };
    const std::vector<GutterText>& gutter() const { return gutter_; }

private:
    void draw_toolbar();
    void draw_stock_changed();  // the notice for an edited lesson whose library version changed
    void draw_source();
    void draw_diagnostics();
    void update_markers();
    float memory_column_width() const;  // the reserved column's (0 without figures)
    // The code's type: the window's text size, made smaller (down to kSmallestCode of it, never under the base
    // size) where the panel would show fewer than kCodeColumns columns of code at it (large text on a projector).
    float code_font_size(float width) const;
    void draw_memory_gutter(float box_x1, float box_y0, float box_y1, float column_x0, float column_x1);
    void draw_debug_marks(float box_x1, float box_y0, float box_y1);
    const DebugEditorMarks* debug_marks_ = nullptr;
    std::function<void(int)> toggle_breakpoint_;
    std::multimap<int, std::string> debug_drawn_;

    std::optional<KernelDocument>& doc_;
    const CompileStatus& status_;
    bool& auto_compile_;
    EditorActions actions_;

    std::unique_ptr<TextEditor> editor_;
    uint64_t buffer_revision_ = ~0ull;  // the document revision the widget's text is
    std::string buffer_path_;
    bool edited_ = false;               // the widget's change callback fired: its text goes to the document
    bool comparing_ = false;            // the stock-changed notice shows the library's text against the user's
    bool confirm_take_ = false;
    std::map<std::string, ButtonRect> buttons_;  // button_rect(), this frame's
    void note_button(const std::string& name);  // the last item's rectangle as `name`
    std::vector<DiffLine> diff_;  // the comparison shown, of the texts below
    uint64_t diff_revision_ = ~0ull;
    std::string diff_stock_;
    std::vector<Marker> markers_;
    std::string markers_key_;           // what markers_ was built from
    std::string hovered_marker_;
    const std::vector<MemoryLineMark>* memory_marks_ = nullptr;
    const std::map<int, int>* instruction_counts_ = nullptr;
    const std::map<int, int>* local_counts_ = nullptr;
    int spill_bytes_ = 0;
    std::string counts_what_, counts_arch_;
    void draw_instruction_counts(float box_y0, float box_y1, float column_x0, float column_x1);
    std::vector<GutterText> gutter_;
    float text_x0_ = 0, text_y0_ = 0, number_x0_ = 0, number_x1_ = 0, line_h_ = 0;  // last frame's geometry
    float gutter_columns_ = 6;      // the line numbers' width, in columns of code (last frame's)
    int visible_columns_ = 0;       // columns of code the last frame showed
    float code_size_ = 0;           // the code's type size in the last frame
    float fitted_width_ = 0;        // the panel's width it was fitted to
    float code_box_width_ = 0;      // the code box's width in the last frame (line numbers, code; no scrollbar)
    int first_row_ = 0, last_row_ = -1;
    int pending_reveal_ = 0;  // a line (1-based) to scroll into view once this frame's rows are known
    int pending_jump_ = 0;
    uint64_t revealed_serial_ = 0;
    int cursor_line_ = 1, cursor_column_ = 1;
    bool active_ = false;
    bool confirm_revert_ = false;
};

}  // namespace cp::ui
