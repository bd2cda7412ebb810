// Sweep panel: times the kernel over block shapes (core/session/sweep.h) on the runner's thread, with a
// progress bar and cancel; a chart of median time per shape with the predicted occupancy, the fastest marked;
// one click applies a shape (the best, or any bar).
#pragma once

#include "ui/panels/panel.h"
#include "ui/state/run_inputs.h"
#include "ui/state/sweep_state.h"

namespace cp::ui {

class SweepPanel final : public Panel {
public:
    SweepPanel(SweepState& sweep, RunInputs& inputs) : sweep_(sweep), inputs_(inputs) {
        visible = false;  // opened from the View menu (the default layout has no free place for it yet)
    }
    const char* title() const override { return "Sweep"; }
    PanelPlacement default_placement() const override { return {0.55f, 0.6f, 0.45f, 0.4f}; }
    void draw() override;

private:
    void apply(const Dim3& block);
    SweepState& sweep_;
    RunInputs& inputs_;
};

}  // namespace cp::ui
