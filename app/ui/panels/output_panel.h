// Output panel: every output view. Images with zoom (wheel) and pan (drag), nearest-neighbour texels at
// high zoom, display settings (colormap, channel, range), the input beside the output or under a split
// slider, and a pixel inspector (coordinates, every channel's value, the block and thread that the
// standard mapping assigns to the pixel). 1D outputs as a line plot and a table.
#pragma once

#include "ui/state/output_views.h"
#include "ui/panels/panel.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace cp::ui {

// The standard mapping, in words: 2D launches give pixel (x, y) to threadIdx (x % bx, y % by) of blockIdx
// (x / bx, y / by); 1D launches index the image linearly (i = y * width + x).
std::string thread_of_pixel(int x, int y, int width, Dim3 grid, Dim3 block);

// What the workspace tells the panel about the run the views show.
struct OutputStatus {
    uint64_t run = 0;
    std::optional<bool> verified;   // against the CPU reference; nullopt: not checked
    std::string verification;       // "matches the CPU reference (max error 0)"
    std::string stale;              // non-empty: the latest run failed, this is the last good output
    std::string on_purpose;         // non-empty: the lesson is buggy on purpose (`expect:`); what it must show
    std::optional<bool> as_expected;  // whether the latest run showed it; nullopt: not judged
};

// Where an image was drawn in the last frame (screen pixels), for tests that crop screenshots.
struct DrawnImage {
    float x0 = 0, y0 = 0, x1 = 0, y1 = 0;           // the whole image, possibly beyond the canvas
    float clip_x0 = 0, clip_y0 = 0, clip_x1 = 0, clip_y1 = 0;  // the part of the screen it may cover
    float zoom = 0;
    bool valid = false;
};

class OutputPanel final : public Panel {
public:
    OutputPanel(OutputViews& views, const OutputStatus& status) : views_(views), status_(status) {}
    const char* title() const override { return "Output"; }
    PanelPlacement default_placement() const override { return {0.55f, 0.0f, 0.45f, 0.6f}; }
    void draw() override;

    const DrawnImage& drawn_output() const { return drawn_output_; }

private:
    void draw_image_view(OutputView& v);
    void draw_image_toolbar(OutputView& v, bool has_input);
    void draw_series_view(OutputView& v);
    void draw_inspector(OutputView& v, std::optional<std::pair<int, int>> pixel, bool over_input);

    struct PlotCache {
        uint64_t run = 0;
        int channel = 0;
        std::vector<float> points;  // min/max pairs per bucket for long series
        size_t per_point = 1;       // elements per point
    };

    OutputViews& views_;
    const OutputStatus& status_;
    DrawnImage drawn_output_;
    std::map<std::string, PlotCache> plots_;
    std::map<std::string, int> series_channel_;
};

}  // namespace cp::ui
