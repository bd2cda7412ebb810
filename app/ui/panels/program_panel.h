// The Program panel (issue 36): a whole program (a file with its own main()) as it ran: how it ended, its own
// output, and the strip of its launches in order (kernel, grid x block, time, what the program saw).
#pragma once

#include "ui/panels/panel.h"
#include "ui/state/program_run.h"

namespace cp::ui {

class ProgramPanel final : public Panel {
public:
    explicit ProgramPanel(const ProgramRunState& state, const double& now) : state_(state), now_(now) {}
    const char* title() const override { return "Program"; }
    DockPlace dock_place() const override { return {DockSlot::Main, false}; }
    void draw() override;

private:
    const ProgramRunState& state_;
    const double& now_;
};

}  // namespace cp::ui
