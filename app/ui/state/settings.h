// What the app remembers between runs (settings.json in config_dir(); the window layout is ImGui's own
// imgui.ini next to it): font scale, theme, last kernel, panel visibility, run options.
#pragma once

#include "core/result.h"

#include <filesystem>
#include <map>
#include <string>

namespace cp::ui {

struct Settings {
    float font_scale = 1.0f;
    bool high_contrast = false;
    std::string last_kernel;               // path of the last opened kernel (original, not the user copy)
    bool auto_compile = true;              // compile after a pause in typing
    int timing_repeats = 5;
    std::map<std::string, bool> panels;    // panel title -> visible

    static constexpr float kMinFontScale = 0.6f, kMaxFontScale = 3.0f;
};

// Missing or unreadable files give the defaults (a broken settings file must not stop the app).
Settings load_settings(const std::filesystem::path& file);
Result<bool> save_settings(const std::filesystem::path& file, const Settings& settings);

}  // namespace cp::ui
