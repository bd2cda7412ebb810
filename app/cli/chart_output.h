// The pictures `run` and `sweep` write (timeline.png, the sweep chart, coverage and error maps): the window's
// ImPlot charts drawn offscreen (ui/chart_pictures.h) when this binary has the window and an OpenGL context can
// be made; otherwise core's plain pixel pictures, and one line on stderr says so.
#pragma once

#include "core/session/launch_images.h"
#include "core/result.h"

#include <filesystem>
#include <optional>
#include <string>

namespace cp::cli {

class PictureWriter {
public:
    Result<bool> timeline(const std::filesystem::path& path, const LaunchTrace& trace);
    Result<bool> sweep(const std::filesystem::path& path, const SweepResult& sweep);
    Result<bool> coverage(const std::filesystem::path& path, const CoverageMap& coverage, ElementLayout layout);
    Result<bool> error(const std::filesystem::path& path, const ErrorMap& errors, ElementLayout layout);

private:
    // Why charts are not drawn (set by the first failure, then every picture is a pixel one), noted once.
    std::optional<std::string> no_charts_;
    void fall_back(const std::string& why);
    // Saves the chart `draw` makes and returns true, or returns false (falling back) when it cannot be drawn.
    template <typename Draw>
    bool chart_written(const std::filesystem::path& path, Draw draw, Result<bool>& saved);
};

}  // namespace cp::cli
