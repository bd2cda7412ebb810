// The side-by-side comparison of a lesson with `compare:`: whether it is on, and per variant its output views,
// check verdict, median time and speed ratio to the main kernel, as the Output and Timing panels show them.
// Filled on the UI thread from a finished run (workspace_compare.cpp).
#pragma once

#include "ui/state/output_views.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace cp::ui {

struct VariantColumn {
    std::string name;    // as `compare:` lists it
    std::string kernel;  // the kernel that ran (`matmul_tiled`)
    std::string title;   // its lesson's title
    std::unique_ptr<OutputViews> views;
    std::optional<bool> verified;  // against its own CPU reference; nullopt: not checked
    std::string verdict;           // "Matches its CPU reference", "Differs from its CPU reference: ..."
    std::string short_verdict;     // the heading's words: "matches its reference", "not checked: press F5"
    std::string error;             // could not be read, compiled or launched: why (its views may be older)
    std::optional<double> median_ms;
    std::string ratio;  // "matmul_tiled: 4.3x faster than matmul_naive"
};

struct CompareState {
    std::vector<std::string> listed;  // the open lesson's `compare:` variants (empty: nothing to compare)
    bool enabled = true;              // the Output panel's "Compare" toggle
    std::string main_kernel;          // the main kernel's name and time, for the columns' heading
    std::optional<double> main_median_ms;
    std::vector<VariantColumn> columns;  // as of the last compare run

    bool active() const { return enabled && !listed.empty(); }
};

}  // namespace cp::ui
