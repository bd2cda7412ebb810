// Parameters panel: widgets generated from the metadata (sliders for ranged numbers, drags otherwise,
// checkboxes for 0..1 ints, combos for enums; derived parameters read-only), the image chooser for
// image-initialised buffers (assets/ plus any path), and each buffer's size as the last run resolved it. A
// value the session refused is shown red where it was entered, with the reason.
#pragma once

#include "core/session/session.h"
#include "ui/state/live_runner.h"
#include "ui/panels/panel.h"
#include "ui/state/run_inputs.h"

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace cp::ui {

class ParametersPanel final : public Panel {
public:
    ParametersPanel(RunInputs& inputs, const KernelFile& file, const std::optional<RunOutcome>& latest)
        : inputs_(inputs), file_(file), latest_(latest) {}
    const char* title() const override { return "Parameters"; }
    PanelPlacement default_placement() const override { return {0.0f, 0.45f, 0.2f, 0.3f}; }
    void draw() override;

    // Image files in assets/ (png, jpg, jpeg, bmp, tga), sorted.
    static std::vector<std::string> asset_images();

private:
    void draw_param(const ParamSpec& p);
    void draw_image_choice(const BufferSpec& b);
    void draw_buffers();
    // The session's refusal of what was entered in `field` (a parameter or image buffer), if any: drawn red.
    void draw_refusal(const std::string& field) const;
    const ResolvedRun* resolved() const { return latest_ && latest_->report.resolved ? &*latest_->report.resolved : nullptr; }

    RunInputs& inputs_;
    const KernelFile& file_;
    const std::optional<RunOutcome>& latest_;
    std::vector<std::string> assets_;
    bool assets_scanned_ = false;
    std::map<std::string, std::string> path_text_;  // buffer -> the "any path" field's text
};

}  // namespace cp::ui
