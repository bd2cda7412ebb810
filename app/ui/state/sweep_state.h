// The window's block-size sweep (ImGui-free): the Sweep panel asks for one, the workspace submits it to the
// runner like a run (KernelSession::sweep on the runner's thread), progress and cancel cross threads through
// atomics, and the result stays for the chart until the next sweep.
#pragma once

#include "core/result.h"
#include "core/session/sweep.h"

#include <atomic>
#include <memory>
#include <optional>

namespace cp::ui {

struct SweepProgress {
    std::atomic<size_t> done{0}, total{0};
    std::atomic<bool> cancel{false};
};

struct SweepState {
    bool requested = false;  // the panel's button; the workspace submits when the runner is idle
    bool running = false;
    int repeats = 10;
    std::shared_ptr<SweepProgress> progress = std::make_shared<SweepProgress>();
    std::optional<Result<SweepResult>> result;
};

}  // namespace cp::ui
