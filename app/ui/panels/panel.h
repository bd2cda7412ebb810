// The small interface every panel implements. The workspace wraps draw() in a dockable ImGui window with the
// panel's title and builds the View menu and the default layout from the list; each panel is constructed
// with references to only the state it reads or edits.
#pragma once

namespace cp::ui {

// Where a panel goes in the default layout (dock_layout.cpp):
//   +------------+------------------------+
//   | Side       | Main (the output)      |
//   |            |                        |
//   +------------+-----------+------------+
//   | SideBottom | BelowLeft | BelowRight |
//   +------------+-----------+------------+
enum class DockSlot { Side, SideBottom, Main, BelowLeft, BelowRight };
struct DockPlace {
    DockSlot slot = DockSlot::Main;
    bool in_front = false;  // the tab shown first when several panels share the slot
};

class Panel {
public:
    virtual ~Panel() = default;
    virtual const char* title() const = 0;
    virtual DockPlace dock_place() const = 0;
    // Draws the contents; the window is already begun.
    virtual void draw() = 0;
    // Drawn under the output in presentation mode (a lesson's `show:` panel): what makes the point, without
    // settings. By default the whole panel.
    virtual void draw_presented() { draw(); }
    // Whether the window takes the focus (and so its tab group's front) when it appears again, e.g. after
    // presentation mode: a panel added to the output's group says no, or it would hide the output.
    virtual bool focus_on_appearing() const { return true; }

    bool visible = true;
};

}  // namespace cp::ui
