// Settings as JSON, written atomically like the kernel edits.
#include "ui/state/settings.h"

#include "ui/state/text_file.h"

#include <nlohmann/json.hpp>

#include <algorithm>

namespace cp::ui {

Settings load_settings(const std::filesystem::path& file) {
    Settings s;
    auto text = read_text_file(file);
    if (!text) return s;
    const nlohmann::json j = nlohmann::json::parse(*text, nullptr, false);
    if (!j.is_object()) return s;
    s.font_scale = std::clamp(j.value("font_scale", 1.0f), Settings::kMinFontScale, Settings::kMaxFontScale);
    s.high_contrast = j.value("high_contrast", false);
    s.last_kernel = j.value("last_kernel", std::string());
    s.auto_compile = j.value("auto_compile", true);
    s.timing_repeats = std::clamp(j.value("timing_repeats", 5), 1, 1000);
    if (auto it = j.find("panels"); it != j.end() && it->is_object())
        for (auto& [k, v] : it->items())
            if (v.is_boolean()) s.panels[k] = v.get<bool>();
    return s;
}

Result<bool> save_settings(const std::filesystem::path& file, const Settings& s) {
    nlohmann::json j;
    j["font_scale"] = s.font_scale;
    j["high_contrast"] = s.high_contrast;
    j["last_kernel"] = s.last_kernel;
    j["auto_compile"] = s.auto_compile;
    j["timing_repeats"] = s.timing_repeats;
    j["panels"] = s.panels;
    return write_file_atomically(file, j.dump(2) + "\n");
}

}  // namespace cp::ui
