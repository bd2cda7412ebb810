// The small interface every panel implements. The workspace wraps draw() in an ImGui window with the
// panel's title and builds the View menu from the list; each panel is constructed with references to
// only the state it reads or edits.
#pragma once

namespace cp::ui {

// Default placement as fractions of the work area (below the menu bar, above the status bar).
struct PanelPlacement {
    float x = 0, y = 0, w = 0.3f, h = 0.3f;
};

class Panel {
public:
    virtual ~Panel() = default;
    virtual const char* title() const = 0;
    virtual PanelPlacement default_placement() const = 0;
    // Draws the contents; the window is already begun.
    virtual void draw() = 0;

    bool visible = true;
};

}  // namespace cp::ui
