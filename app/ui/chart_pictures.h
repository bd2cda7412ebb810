// The command line's pictures drawn by the window's charts (ui/charts.h): an offscreen OpenGL frame (headless
// EGL, no display needed) of a chosen size, one chart in it, read back as an image for a PNG. The CLI falls
// back to core's pixel pictures (core/session/launch_images.h) where no OpenGL context can be made.
#pragma once

#include "core/data/image_io.h"
#include "core/result.h"
#include "core/session/run_report.h"
#include "core/session/sweep.h"

#include <string>
#include <vector>

namespace cp::ui {

struct PictureOptions {
    int width = 1920;         // pixels; the height follows the chart (lanes, the map's shape)
    float text_size = 1.75f;  // as the window's text size: 1.75 reads from the back of a classroom at 1920 wide
    bool labels = true;       // false: the same chart without titles, axis labels, ticks or legend (tests)
};

struct ChartPicture {
    Image image;                     // RGBA8, top row first
    std::vector<std::string> texts;  // what the chart drew in text (heading, axis labels, ticks, legend)
};

// `run --trace`: one lane per SM or CPU worker, time in microseconds, blocks coloured by index with its scale.
Result<ChartPicture> timeline_picture(const LaunchTrace& trace, const PictureOptions& options = {});
// `sweep --png`: median time per block shape and the predicted occupancy.
Result<ChartPicture> sweep_picture(const SweepResult& sweep, const PictureOptions& options = {});
// `run --coverage`: `map` (core's render_coverage_image) on element axes with the coverage legend.
Result<ChartPicture> coverage_picture(const CoverageMap& coverage, const Image& map,
                                      const PictureOptions& options = {});
// A failed check: `map` (core's render_error_image) on element axes with the error's colour scale.
Result<ChartPicture> error_picture(const ErrorMap& errors, const Image& map, const PictureOptions& options = {});

// Why charts cannot be drawn here before trying (CUDA_PLAYGROUND_NO_GL is set), or empty.
std::string why_no_chart_pictures();

}  // namespace cp::ui
