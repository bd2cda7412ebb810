// Look and size: the dark and high-contrast themes, and fonts rebuilt for the font scale x display scale
// (HiDPI). Rebuilding the font atlas must happen between frames.
#pragma once

namespace cp::ui {

struct Presentation {
    float font_scale = 1.0f;     // the user's choice (Ctrl +/-), saved between runs
    float content_scale = 1.0f;  // the display's (HiDPI), from the render target
    bool high_contrast = false;
};

// Applies colours and sizes to ImGui's style and rebuilds the font texture. Needs the OpenGL3 backend
// initialised.
void apply_presentation(const Presentation& p);

}  // namespace cp::ui
