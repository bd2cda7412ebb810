// Occupancy panel: for the last run's kernel and block, registers per thread, shared memory per block, active
// blocks and warps per SM, the theoretical occupancy and the limit that binds; a chart of occupancy against
// threads per block with the current choice marked (click a bar to use that block size).
#pragma once

#include "ui/panels/panel.h"
#include "ui/state/live_runner.h"
#include "ui/state/run_inputs.h"

#include <optional>

namespace cp::ui {

class OccupancyPanel final : public Panel {
public:
    OccupancyPanel(const std::optional<RunOutcome>& latest, RunInputs& inputs, const DeviceInfo& device)
        : latest_(latest), inputs_(inputs), device_(device) {
        visible = false;  // opened from the View menu (the default layout has no free place for it yet)
    }
    const char* title() const override { return "Occupancy"; }
    PanelPlacement default_placement() const override { return {0.0f, 0.45f, 0.2f, 0.55f}; }
    void draw() override;

private:
    const std::optional<RunOutcome>& latest_;
    RunInputs& inputs_;
    const DeviceInfo& device_;
};

}  // namespace cp::ui
