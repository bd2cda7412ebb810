// Device panel: what runs the kernels (backend, name, compute capability, SMs, memory, limits) and what
// draws them (OpenGL renderer, how outputs reach textures), or why nothing runs.
#pragma once

#include "core/types.h"
#include "ui/panels/panel.h"

#include <string>

namespace cp::ui {

struct DeviceStatus {
    bool can_run = false;          // a backend that launches kernels is in use
    DeviceInfo device;
    std::string passed_over;       // backends preferred over this one that cannot run here, and why
    std::string why_nothing_runs;  // when nothing can run kernels (only compiling works)
    std::string renderer;        // the render target's description
    std::string output_path;     // "CUDA-GL interop" / "host upload (why)"
};

class DevicePanel final : public Panel {
public:
    explicit DevicePanel(const DeviceStatus& status) : status_(status) {}
    const char* title() const override { return "Device"; }
    PanelPlacement default_placement() const override { return {0.0f, 0.75f, 0.2f, 0.25f}; }
    void draw() override;

private:
    const DeviceStatus& status_;
};

}  // namespace cp::ui
