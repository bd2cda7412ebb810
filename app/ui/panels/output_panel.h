// Output panel: every output view. Images with zoom (wheel) and pan (drag), nearest-neighbour texels at
// high zoom, display settings (colormap, channel, range), the input beside the output or under a split
// slider, and a pixel inspector (coordinates, every channel's value, the block and thread that the
// standard mapping assigns to the pixel). 1D outputs as a line plot with the launch as a strip along its
// bottom (blocks, warps, lanes, threads; output_series.cpp) and a table.
#pragma once

#include "ui/state/compare_state.h"
#include "ui/state/launch_overlay.h"
#include "ui/state/memory_view.h"
#include "ui/state/output_views.h"
#include "ui/panels/panel.h"

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace cp::ui {

// The standard mapping, in words: 2D launches give pixel (x, y) to threadIdx (x % bx, y % by) of blockIdx
// (x / bx, y / by); 1D launches index the image linearly (i = y * width + x).
std::string thread_of_pixel(int x, int y, int width, Dim3 grid, Dim3 block);

// Shared by the image and the 1D views: component names, and values as shown (floats with 6 digits).
extern const char* const kChannelNames[4];
std::string format_value(double v, bool is_float);

// What the workspace tells the panel about the run the views show.
struct OutputStatus {
    uint64_t run = 0;
    std::optional<bool> verified;   // against the CPU reference; nullopt: not checked
    std::string verification;       // "matches the CPU reference (max error 0)"
    std::string short_verdict;      // in a compact column heading: "matches its reference", "not checked: press F5"
    std::string failure;            // why the latest run gave no new output ("Compile error: ..."); empty if it did
    std::string on_purpose;         // non-empty: the lesson is buggy on purpose (`expect:`); what it must show
    std::optional<bool> as_expected;  // whether the latest run showed it; nullopt: not judged
    // A `devices:` run split over several devices: each part's first element and its device ("GPU 1").
    struct Part {
        uint64_t begin = 0;
        std::string device;
    };
    std::vector<Part> parts;
};

// Where an image was drawn in the last frame (screen pixels), for tests that crop screenshots.
struct DrawnImage {
    float x0 = 0, y0 = 0, x1 = 0, y1 = 0;           // the whole image, possibly beyond the canvas
    float clip_x0 = 0, clip_y0 = 0, clip_x1 = 0, clip_y1 = 0;  // the part of the screen it may cover
    float zoom = 0;
    bool valid = false;
    bool colour_bar = false;  // a colour bar was drawn beside it, for bar_min..bar_max
    double bar_min = 0, bar_max = 0;
    std::string preview_note{};  // "preview 667x401 of 1999x1201 - exact values on hover" (a preview is shown)
    std::string inspector{};   // the pixel inspector's lines, when the mouse was over the picture
    std::string message{};     // drawn in the picture's place: the display cannot show it (OutputView::display_problem)
    bool warp_outlined = false;  // the memory view's warp outlined (warp_x0.. its pixels' box, inclusive)
    int warp_x0 = 0, warp_y0 = 0, warp_x1 = 0, warp_y1 = 0;
};

// The 1D plot drawn in the last frame (tests, and the README's pictures): where, what, and the hovered value.
struct DrawnPlot {
    float x0 = 0, y0 = 0, x1 = 0, y1 = 0;  // the plot's frame on screen
    std::string x_label, y_label;
    bool bars = false;                     // bars (small integer series: counts) or a line
    size_t points = 0;                     // points (or buckets) plotted
    bool envelope = false;                 // a long series: a min..max band with the mean line
    size_t parts_marked = 0;               // a `devices:` run: the devices' parts marked on the plot
    std::string hover;                     // the tooltip's text when the mouse is over the plot
    bool valid = false;
    double x_min = 0, x_max = 0;           // the x axis' range (element indices) across x0..x1
    // The launch strip along the plot's bottom (owners coloured as the image overlay colours pixels).
    bool strip = false;
    float strip_y0 = 0, strip_y1 = 0;
    std::string strip_note;                // why there is no strip, when there is none
    bool warp_band = false;                // the memory view's warp marked: elements warp_first..warp_last
    uint64_t warp_first = 0, warp_last = 0;
};

class OutputPanel final : public Panel {
public:
    OutputPanel(OutputViews& views, const OutputStatus& status, CompareState& compare)
        : views_(views), status_(status), compare_(compare) {}
    const char* title() const override { return "Output"; }
    DockPlace dock_place() const override { return {DockSlot::Main, true}; }
    void draw() override;
    // The views without their display settings and details, for presentation mode.
    void draw_presenting() {
        presenting_ = true;
        draw();
        presenting_ = false;
    }

    const DrawnImage& drawn_output() const { return drawn_output_; }
    // The main picture's canvas in framebuffer pixels, as drawn last (0 x 0 before one was): the most a preview
    // needs (the workspace asks a remote server for previews no larger).
    std::pair<int, int> canvas_pixels() const { return canvas_pixels_; }
    const DrawnPlot& drawn_plot() const { return drawn_plot_; }
    // The memory view (issue 23): while its switch is on, hovering an element says which warp wrote it and a
    // click (without dragging) shows that warp in the Memory panel's picture. Null: never.
    void set_memory(MemoryViewState* memory) { memory_ = memory; }
    // Side by side (a lesson with `compare:`): one column per kernel, the main one first, as drawn last frame
    // (drawn_output() is then the main column's image).
    struct DrawnColumn {
        std::string kernel, verdict, error;
        float x0 = 0, x1 = 0;  // the column on screen
        DrawnImage image;      // its first image view, when it showed one
    };
    const std::vector<DrawnColumn>& drawn_columns() const { return drawn_columns_; }

private:
    void draw_status();                       // the main kernel's failure / verdict lines
    void draw_views(OutputViews& views);      // one kernel's views, as tabs
    void draw_side_by_side();                 // output_compare_columns.cpp
    void draw_image_view(OutputView& v);
    void draw_image_toolbar(OutputView& v, bool has_input);
    void draw_series_view(OutputView& v);  // output_series.cpp
    void draw_series_plot(OutputView& v, int channel);
    void draw_series_table(OutputView& v);
    void draw_display_settings(OutputView& v);
    void draw_compare_checkbox();  // "Compare side by side" (a lesson with `compare:`)  // the "Display" popover: channel, colormap, range
    // The hovered pixel's values and thread, one string a line (true: drawn dimmed).
    std::vector<std::pair<std::string, bool>> inspector_lines(OutputView& v, std::pair<int, int> pixel, bool over_input);
    // The warp the element under the mouse belongs to, and a click that picks it (memory view on only): the
    // inspector's line for it ("" when the view is off).
    std::string memory_pick(const std::optional<PixelOwner>& owner, const std::string& element, uint64_t byte_offset,
                            bool clicked);
    // The memory view's warp on the output (its switch on): the elements its threads own under the standard mapping.
    std::optional<WarpFootprint> memory_warp(const OutputView& v) const;

    struct PlotCache {
        uint64_t run = 0;
        int channel = 0;
        std::vector<double> xs, ys;  // long series: a bucket's middle and its mean
        std::vector<double> lo, hi;  // long series: each bucket's min and max (empty: one point an element)
        size_t per_point = 1;        // elements per bucket
    };

    MemoryViewState* memory_ = nullptr;
    bool presenting_ = false;
    bool compact_ = false;  // a side-by-side column: no display settings of its own (one row above the columns)
    OutputViews& views_;
    const OutputStatus& status_;
    CompareState& compare_;
    std::string column_key_;  // which column's views are drawn: keeps plot caches apart per column
    std::vector<DrawnColumn> drawn_columns_;
    DrawnImage drawn_output_;
    std::pair<int, int> canvas_pixels_{0, 0};
    DrawnPlot drawn_plot_;
    std::map<std::string, PlotCache> plots_;
    std::map<std::string, int> series_channel_;
    OverlaySettings strip_;  // the 1D views' launch strip: colour mode (None: off) and boundaries
};

}  // namespace cp::ui
