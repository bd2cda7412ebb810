// The user's choices layered over a kernel file's metadata: parameter values, launch overrides, images,
// timing. Panels edit these; every edit bumps `revision`, and the app re-runs when it moved.
#pragma once

#include "core/engine/engine_api.h"

#include <map>
#include <optional>
#include <string>

namespace cp::ui {

struct RunInputs {
    std::map<std::string, double> params;          // overrides by name (absent: the metadata's default)
    std::optional<Dim3> block, grid;                // absent: from the metadata's expressions
    std::map<std::string, std::string> images;      // image-initialised buffer -> path as the user chose it
    TimingOptions timing{1, 5, false};
    bool verify = false;                            // every run: compare with the CPU reference (a read-back);
                                                    // opening a kernel and F5 always do
    uint64_t revision = 0;

    void touch() { ++revision; }
    // Drops choices that refer to names the kernel no longer has is the session's job; here: all of them.
    void reset_for_new_kernel() {
        params.clear();
        block.reset();
        grid.reset();
        images.clear();
        touch();
    }
};

}  // namespace cp::ui
