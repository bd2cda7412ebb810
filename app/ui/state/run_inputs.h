// The user's choices in the window (core's RunChoices: parameters, images, block, grid) plus how the window
// runs: timing and whether every run is checked. Panels edit these; every edit bumps `revision`, and the
// workspace re-runs when it moved. The session checks the choices; nothing here validates them.
#pragma once

#include "core/engine/engine_api.h"
#include "core/session/run_choices.h"

namespace cp::ui {

struct RunInputs {
    RunChoices choices;
    TimingOptions timing{1, 5, false};
    bool pinned_host = false;  // copies from/to pinned host memory (CUDA)
    int upload_chunk_kib = 0;  // > 0: inputs go host->device in copies of this many KiB
    bool verify = false;  // every run: compare with the CPU reference (a read-back); opening a kernel and F5 always do
    bool measure_coverage = false;  // every run: which output elements no thread wrote (two extra launches)
    bool trace = false;             // every run: an instrumented launch records where and when each block ran
    uint64_t revision = 0;

    void touch() { ++revision; }
    void reset_for_new_kernel() {
        // The thread order is the emulator's, not the kernel's: it stays for the next lesson.
        const auto order = choices.thread_order;
        choices = RunChoices();
        choices.thread_order = order;
        touch();
    }
};

}  // namespace cp::ui
