// Device panel: what runs the kernels (backend, name, compute capability, SMs, memory, limits) and what
// draws them (OpenGL renderer, how outputs reach textures), or why nothing runs.
#pragma once

#include "core/types.h"
#include "ui/panels/panel.h"

#include <string>

namespace cp::ui {

struct DeviceStatus {
    bool has_engine = false;
    DeviceInfo device;
    std::string why_no_cuda;     // why the CUDA backend is not in use (empty when it is)
    std::string why_no_engine;   // why nothing runs (empty when something does)
    std::string renderer;        // the render target's description
    std::string output_path;     // "CUDA-GL interop" / "host upload (why)"
};

class DevicePanel final : public Panel {
public:
    explicit DevicePanel(const DeviceStatus& status) : status_(status) {}
    const char* title() const override { return "Device"; }
    DockPlace dock_place() const override { return {DockSlot::SideBottom, false}; }
    void draw() override;

private:
    const DeviceStatus& status_;
};

}  // namespace cp::ui
