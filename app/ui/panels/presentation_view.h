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
#include <string>
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

// A part of the presentation that must fit its area on a projector, where nobody scrolls: the type it is drawn
// at, shrunk (down to kMinScale) while the last frame's content was taller than the area, and grown back when it
// is well short of it. Wrapped text's height goes with the square of its size, hence the square root.
struct FitScale {
    static constexpr float kMinScale = 0.45f;  // of the column's large type: about the docked panels' size
    float scale = 1.0f;
    bool settled = true;  // the last frame's content fitted (or could not shrink further)
    // Grows back in small steps while the content is well short of its area; a grow that made it overflow is
    // undone and no further grow is tried (for this lesson), so that the size never swings between two.
    bool grew = false, locked = false;
    float before_grow = 1.0f;
    void measure(float content_h, float area_h);
};

class PresentationView {
public:
    PresentationView(OutputPanel& output, EditorPanel& editor, LaunchPanel& launch, TimingPanel& timing, const KernelFile& file,
                     PresentationActions actions)
        : output_(output), editor_(editor), launch_(launch), timing_(timing), file_(file), actions_(std::move(actions)) {}

    // Fills the rectangle (the whole work area) with the view.
    void draw(float x, float y, float width, float height);

    bool editor_shown() const { return editor_shown_; }
    // Still fitting the lesson column or the `show:` panels to their areas: another frame is needed.
    bool fitting() const { return !column_fit_.settled || !stage_fit_.settled || stage_growing_; }
    float column_scale() const { return column_fit_.scale; }
    float stage_share() const { return stage_share_; }
    float stage_scale() const { return stage_fit_.scale; }
    // The last frame's content height over its area's (at most 1: it fitted): the lesson column's, the tallest
    // `show:` panel's (0 without any).
    float column_overflow() const { return column_overflow_; }
    float stage_overflow() const { return stage_overflow_; }
    // The lesson's `show:` panels (besides the output): drawn under the output, in large type.
    void set_stage(std::vector<Panel*> panels) { stage_ = std::move(panels); }
    const std::vector<Panel*>& stage() const { return stage_; }
    void toggle_editor() { editor_shown_ = !editor_shown_; }

    // The column's share of the width: narrow for the lesson, wider for code.
    static constexpr float kLessonWidth = 0.3f, kEditorWidth = 0.45f;
    // Type in the column, relative to the text size.
    static constexpr float kLargeType = 1.4f;
    // The share of the height the lesson's `show:` panels take under the output, and the most they grow to when
    // their content needs it (the output keeps the rest) before their type shrinks.
    static constexpr float kStageHeight = 0.45f, kStageMostHeight = 0.68f;

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
    FitScale column_fit_, stage_fit_;
    float stage_share_ = kStageHeight;
    bool stage_growing_ = false;
    float column_overflow_ = 0, stage_overflow_ = 0;
    std::string fitted_for_;  // the lesson the fits were made for: another starts again at full size
};

}  // namespace cp::ui
