// PictureWriter (chart_output.h): a chart where possible, the pixel picture where not.
#include "cli/chart_output.h"

#include "core/session/coverage.h"

#ifdef CP_HAVE_GUI
#include "ui/chart_pictures.h"
#endif

#include <cstdlib>
#include <iostream>

namespace cp::cli {
namespace {

// CUDA_PLAYGROUND_CHART_TEXT=1: each chart's drawn text on stderr (what the tests read to see the labels).
void report_text(const std::filesystem::path& path, const std::vector<std::string>& texts) {
    const char* v = std::getenv("CUDA_PLAYGROUND_CHART_TEXT");
    if (!v || !*v || std::string(v) == "0") return;
    std::cerr << "chart text " << path.filename().string() << ":";
    for (const std::string& t : texts) std::cerr << " [" << t << "]";
    std::cerr << "\n";
}

}  // namespace

void PictureWriter::fall_back(const std::string& why) {
    if (no_charts_) return;
    // One line: the first line of the reason (EGL's list of what it tried can run long).
    no_charts_ = why.substr(0, why.find('\n'));
    std::cerr << "note: pictures drawn without axes, labels or legend (no OpenGL for charts: " << *no_charts_ << ")\n";
}

template <typename Draw>
bool PictureWriter::chart_written(const std::filesystem::path& path, Draw draw, Result<bool>& saved) {
    if (no_charts_) return false;
    auto chart = draw();
    if (!chart) {
        fall_back(chart.error().message);
        return false;
    }
    saved = save_png(path, chart->image);
    if (saved) report_text(path, chart->texts);
    return true;
}

#ifdef CP_HAVE_GUI
// A chart where this binary can draw one (the lambda names the ui function only in a build that has it).
#define CP_CHART(path, call)                      \
    if (Result<bool> saved = true; chart_written( \
            path, [&] { return call; }, saved))   \
        return saved;
#else
#define CP_CHART(path, call) fall_back("this build has no window (built without the GUI)");
#endif

Result<bool> PictureWriter::timeline(const std::filesystem::path& path, const LaunchTrace& trace) {
    CP_CHART(path, ui::timeline_picture(trace))
    return save_png(path, render_timeline_image(trace));
}

Result<bool> PictureWriter::sweep(const std::filesystem::path& path, const SweepResult& sweep) {
    CP_CHART(path, ui::sweep_picture(sweep))
    return save_png(path, render_sweep_chart(sweep));
}

Result<bool> PictureWriter::coverage(const std::filesystem::path& path, const CoverageMap& c, ElementLayout layout) {
    const Image map = render_coverage_image(c, layout);
    CP_CHART(path, ui::coverage_picture(c, map))
    return save_png(path, with_legend(map, coverage_legend(c)));
}

Result<bool> PictureWriter::error(const std::filesystem::path& path, const ErrorMap& m, ElementLayout layout) {
    const Image map = render_error_image(m, layout);
    CP_CHART(path, ui::error_picture(m, map))
    return save_png(path, map);
}

}  // namespace cp::cli
