// Look and size: the dark and high-contrast themes, and the fonts (a TrueType sans for the interface and a mono
// for code, from the system; Dear ImGui rasterises them at whatever size the text is, so they stay crisp at
// any text size and display scale).
#pragma once

struct ImFont;

namespace cp::ui {

// Loads the fonts into the current ImGui context (once, before the first frame): DejaVu Sans and DejaVu Sans
// Mono (Debian: fonts-dejavu-core) when found, else Dear ImGui's embedded scalable font. Returns a line for
// the console saying which were used.
const char* load_fonts();
// The monospaced font (code, logs, numbers in tables); the default font when there is no mono one.
ImFont* mono_font();
// Base text height in pixels at text size 1.0.
constexpr float kBaseFontPixels = 16.0f;

struct Presentation {
    float font_scale = 1.0f;     // the user's choice (Ctrl +/-), saved between runs
    float content_scale = 1.0f;  // the display's (HiDPI), from the render target
    bool high_contrast = false;
    bool fullscreen = false;     // presentation mode: the window covers its monitor
};

// Applies colours, sizes and the text size to ImGui's style (between frames).
void apply_presentation(const Presentation& p);

}  // namespace cp::ui
