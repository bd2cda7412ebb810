// Launch panel: grid and block x/y/z (defaults from the metadata's expressions, as the session resolved
// them), the session's refusals and warnings for the last run, derived figures, and a block size suggestion from the
// backend's occupancy API (asked by the workspace, see block_suggestion.h), and Sanitize (sanitize_controls.h).
#pragma once

#include "core/session/session.h"
#include "ui/state/live_runner.h"
#include "ui/state/block_suggestion.h"
#include "ui/panels/panel.h"
#include "ui/state/run_inputs.h"
#include "ui/state/sanitize_state.h"

#include <optional>

namespace cp::ui {

class LaunchPanel final : public Panel {
public:
    LaunchPanel(RunInputs& inputs, const DeviceInfo& device, const KernelFile& file, const std::optional<RunOutcome>& latest,
                BlockSuggestionState& suggestion, SanitizeState& sanitize)
        : inputs_(inputs), device_(device), file_(file), latest_(latest), suggestion_(suggestion), sanitize_(sanitize) {}
    const char* title() const override { return "Launch"; }
    DockPlace dock_place() const override { return {DockSlot::BelowRight, true}; }
    void draw() override;

    // Block and grid fields with presets and "grid from the file" (compact: without the file's expressions
    // and the reset button; presentation mode).
    void draw_controls(bool compact);
    // The session's refusals and warnings of the last run.
    void draw_refusals();

    // The configuration shown for editing: the user's override, else what the last run resolved.
    Dim3 effective_block() const;
    Dim3 effective_grid() const;

private:
    void draw_checks();  // refusals, figures and the occupancy suggestion
    void draw_suggestion();
    void draw_details();       // the file's launch where it differs, the reset button, the thread order
    void draw_thread_order();  // the order of a block's threads, where the backend lets it be chosen
    void draw_steps();
    const ResolvedRun* resolved() const;

    RunInputs& inputs_;
    const DeviceInfo& device_;
    const KernelFile& file_;
    const std::optional<RunOutcome>& latest_;
    BlockSuggestionState& suggestion_;
    SanitizeState& sanitize_;
};

}  // namespace cp::ui
