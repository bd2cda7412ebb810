// Launch panel: grid and block x/y/z (defaults from the metadata's expressions, as the session resolved
// them), the session's refusals and warnings for the last run, derived figures, and a block size suggestion from the
// backend's occupancy API (asked by the workspace, see block_suggestion.h).
#pragma once

#include "core/session/session.h"
#include "ui/state/live_runner.h"
#include "ui/state/block_suggestion.h"
#include "ui/panels/panel.h"
#include "ui/state/run_inputs.h"

#include <optional>

namespace cp::ui {

class LaunchPanel final : public Panel {
public:
    LaunchPanel(RunInputs& inputs, const DeviceInfo& device, const KernelFile& file, const std::optional<RunOutcome>& latest,
                BlockSuggestionState& suggestion)
        : inputs_(inputs), device_(device), file_(file), latest_(latest), suggestion_(suggestion) {}
    const char* title() const override { return "Launch"; }
    PanelPlacement default_placement() const override { return {0.55f, 0.6f, 0.225f, 0.4f}; }
    void draw() override;

    // The configuration shown for editing: the user's override, else what the last run resolved.
    Dim3 effective_block() const;
    Dim3 effective_grid() const;

private:
    void draw_suggestion();
    void draw_refusals();
    void draw_steps();
    const ResolvedRun* resolved() const;

    RunInputs& inputs_;
    const DeviceInfo& device_;
    const KernelFile& file_;
    const std::optional<RunOutcome>& latest_;
    BlockSuggestionState& suggestion_;
};

}  // namespace cp::ui
