// Presentation mode (F11): for a projector. The output fills the screen; a column beside it holds the lesson
// (the kernel's title and explanation), the launch controls with Run, and the timing, all in large type. A
// comparison lesson's columns are shown as in the Output panel, and the panels the lesson's `show:` names
// (the Streams timeline, the Console) share the output's side, below it.
// Ctrl+E swaps the column for the editor; F11 or Esc goes back to the docked panels. It draws the same
// panels' parts as the docked layout, so nothing is computed twice.
#pragma once

#include "core/kernel_file/kernel_file.h"
#include "ui/panels/editor_panel.h"
#include "ui/panels/launch_panel.h"
#include "ui/panels/output_panel.h"
#include "ui/panels/timing_panel.h"

#include <functional>
#include <vector>

namespace cp::ui {

struct PresentationActions {
    std::function<void()> run;
    std::function<void()> leave;
    // The document is a whole program (issue 36): its Program panel takes the output's place, and the launch and
    // timing controls, which a program does not read, are left out.
    std::function<bool()> is_program;
    Panel* program = nullptr;
};

class PresentationView {
public:
    PresentationView(OutputPanel& output, EditorPanel& editor, LaunchPanel& launch, TimingPanel& timing, const KernelFile& file,
                     PresentationActions actions)
        : output_(output), editor_(editor), launch_(launch), timing_(timing), file_(file), actions_(std::move(actions)) {}

    // Fills the rectangle (the whole work area) with the view.
    void draw(float x, float y, float width, float height);

    bool editor_shown() const { return editor_shown_; }
    // The lesson's `show:` panels (besides the output): drawn under the output, in large type.
    void set_stage(std::vector<Panel*> panels) { stage_ = std::move(panels); }
    const std::vector<Panel*>& stage() const { return stage_; }
    void toggle_editor() { editor_shown_ = !editor_shown_; }

    // The column's share of the width: narrow for the lesson, wider for code.
    static constexpr float kLessonWidth = 0.3f, kEditorWidth = 0.45f;
    // Type in the column, relative to the text size.
    static constexpr float kLargeType = 1.4f;
    // The share of the height the lesson's `show:` panels take under the output.
    static constexpr float kStageHeight = 0.45f;

private:
    void draw_lesson();
    bool presenting_program() const { return actions_.program && actions_.is_program && actions_.is_program(); }

    OutputPanel& output_;
    EditorPanel& editor_;
    LaunchPanel& launch_;
    TimingPanel& timing_;
    const KernelFile& file_;
    PresentationActions actions_;
    bool editor_shown_ = false;
    std::vector<Panel*> stage_;
};

}  // namespace cp::ui
