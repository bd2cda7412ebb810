// Console panel: compile logs, device printf, errors and notes with timestamps, filterable by kind.
#pragma once

#include "ui/state/console_log.h"
#include "ui/panels/panel.h"

#include <string>

namespace cp::ui {

class ConsolePanel final : public Panel {
public:
    explicit ConsolePanel(ConsoleLog& log) : log_(log) {}
    const char* title() const override { return "Console"; }
    DockPlace dock_place() const override { return {DockSlot::SideBottom, true}; }
    void draw() override;

private:
    ConsoleLog& log_;
    bool show_[5] = {true, true, true, true, true};  // per LogKind
    std::string filter_;
    uint64_t seen_ = 0;
};

}  // namespace cp::ui
