// Pictures of what a launch did, for `run --coverage/--trace --out-dir`, the README and slides: the coverage
// map, the timeline (one lane per SM or CPU worker, blocks as bars) and the error map. The window draws the
// same data live; these are the files.
#pragma once

#include "core/data/image_io.h"
#include "core/data/image_legend.h"
#include "core/session/run_report.h"
#include "core/session/sweep.h"

namespace cp {

// An element's place in a picture: the view's width x height when it has one, else a strip of rows.
struct ElementLayout {
    int width = 0, height = 0;
};
ElementLayout element_layout(uint64_t elements, int view_width, int view_height);

// Written elements dark grey, never-written ones red, ones written by more than one thread (when counted)
// cyan; `underlay` (the output as shown, same size, optional) is blended in dimly so the picture can be read
// against the image.
Image render_coverage_image(const CoverageMap& coverage, ElementLayout layout, const Image* underlay = nullptr);
inline constexpr uint8_t kNeverWrittenRgb[3] = {235, 40, 40};
inline constexpr uint8_t kWrittenTwiceRgb[3] = {40, 200, 235};
// The coverage image's legend: each colour with its count ("never written: 4,096 of 1,048,576").
std::vector<LegendEntry> coverage_legend(const CoverageMap& coverage);

// One lane per unit (SM or worker) in unit order, time left to right; each block a bar coloured by its
// linear block index (neighbouring blocks differ), with a dark edge so back-to-back blocks can be told apart.
Image render_timeline_image(const LaunchTrace& trace, int width = 1600);

// |output - reference| per element through magma (0 black, the largest error bright); elements beyond the
// tolerance are never darker than a visible red, so a single mismatch shows.
Image render_error_image(const ErrorMap& map, ElementLayout layout);

// The sweep as a chart: one bar per shape (height: median time, the fastest gold, shapes not timed grey) and
// the predicted occupancy of each as a white tick (the top edge is 100%).
Image render_sweep_chart(const SweepResult& sweep, int width = 1200, int height = 400);

}  // namespace cp
