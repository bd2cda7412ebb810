// The kernel's outputs as things to show: one entry per view (image, plot, table), holding the GPU
// textures of image views (raw buffer texture + colormapped display texture), the host data of plots and
// tables, and the launch configuration of the run that produced them. Also the input image (for
// side-by-side and split comparison). Updated on the UI thread only after a run returned.
#pragma once

#include "core/session/session.h"
#include "render/colormap_pass.h"
#include "render/display_probe.h"
#include "render/device_copier.h"

#include <array>
#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace cp::ui {

class ConsoleLog;

enum class CompareMode { OutputOnly, SideBySide, Split };

// How one image view is looked at; kept across runs of the same kernel.
struct ImageViewState {
    bool fit = true;
    float zoom = 1.0f;
    float pan_x = 0, pan_y = 0;  // image top-left relative to the canvas top-left, screen pixels
    render::DisplaySettings display;
    CompareMode compare = CompareMode::OutputOnly;
    float split = 0.5f;
};

struct OutputView {
    ViewSpec spec;
    ElemType type = ElemType::Float;
    int width = 0, height = 0;                      // image views
    std::unique_ptr<render::BufferTexture> raw;     // the buffer, as stored
    render::Texture display;                        // what is drawn
    render::ValueRange range;                       // data range of the last update
    std::optional<HostBuffer> host;                 // plot/table data
    Dim3 grid, block;                               // the launch that produced it
    // One element per thread of the problem (vector_add's c): the element's owner is worth showing. Not so
    // for a histogram's bins or a reduction's total, which many threads add to.
    bool element_per_thread = false;
    bool problem_known = false;  // the file has a `problem:` line (element_per_thread is then its answer)
    uint64_t run = 0;                               // sequence number of that run (0: nothing yet)
    std::string path;                               // "device copy (CUDA-GL interop)" / "host upload"
    std::string problem;                            // why it shows nothing, if so
    // The screen checked (issue 41): how the display texture was coloured, the read-back that checks it, and why
    // the display cannot show the picture (then drawn as a message over the picture's place instead).
    enum class Shading { None, Gpu, Host } shading = Shading::None;
    std::unique_ptr<render::DisplayProbe> probe;
    std::vector<std::array<double, 4>> probe_values;  // the values at the probe's points, when the host had them
    render::DisplaySettings probe_settings;
    std::pair<double, double> probe_limits{0, 1};
    uint64_t checks_passed = 0;                       // probes that found the picture as its values make it
    // Probes are at most a few a second per view (a live picture changes every frame): one not started for that
    // reason is owed, and starts once the time has come.
    std::chrono::steady_clock::time_point probed_at{};
    std::chrono::steady_clock::duration probe_interval = std::chrono::milliseconds(250);  // grows where probes cost
    bool probe_owed = false;
    bool retried_fresh = false;  // the host's colours were tried again in a new texture (a GPU after a fault)
    std::string display_problem;
    ImageViewState state;
    // A picture that came as a preview (a remote backend: RunReport::output_previews): `raw` holds the box
    // filter, preview_width x preview_height, of the width x height values, stretched over the same place. The
    // inspector asks for the exact values (exact_wanted); the workspace fetches them off the UI thread.
    int preview_width = 0, preview_height = 0;      // 0: `raw` holds every value
    std::optional<HostBuffer> exact;                // this run's exact values, once fetched
    std::string exact_problem;                      // why they could not be fetched
    bool exact_wanted = false;                      // the inspector wants them (set while hovering)

    bool is_image() const { return spec.kind == ViewSpec::Kind::Image; }
    bool is_preview() const { return preview_width > 0; }
};

// The image-initialised input buffer, loaded from its file.
struct InputImage {
    std::string buffer, path;
    std::shared_ptr<const Image> pixels;  // as decoded: coloured on the host when the display pass is distrusted
    std::unique_ptr<render::BufferTexture> raw;
    render::Texture display;
    std::string problem;
};

// Reads component `c` of element `i` as a number.
double element_value(const HostBuffer& b, size_t i, int c);

class OutputViews {
public:
    // `backend_in_other_process`: the engine's device pointers are not valid here (the CUDA worker); only
    // IPC handles are used then.
    OutputViews(render::DeviceCopier* copier, render::ColormapPass* colormap, bool backend_in_other_process = true)
        : copier_(copier), colormap_(colormap), uses_ipc_(backend_in_other_process) {}

    // Whether a run must read buffers back to host memory for these views (plots, tables, no device path).
    bool needs_host_data(const KernelFile& file) const;
    bool has_device_path() const { return copier_ != nullptr; }

    // Takes the results of a finished run (engine idle; report.resolved set): the views and their sizes as the
    // session resolved them, the input image it loaded. Keeps each view's state when the kernel is the same.
    // Buffers imported from the worker stay open for the next run (the copier is shared by every column: the
    // workspace closes those no run uses any more, once all are updated).
    void update(const KernelFile& file, RunReport& report, uint64_t run, ConsoleLog& log);
    // Re-draws a view's display texture after its display settings changed (`host`: the view's values, when
    // at hand; the check compares the texture's texels with them too).
    void refresh_display(OutputView& view, const std::byte* host = nullptr);
    // Looks at the read-backs of the pictures drawn before (never waits): a picture that is not what its values
    // make is coloured on the host instead, and if that fails too its view says why (display_problem).
    void check_displays(ConsoleLog& log);
    // Whether a picture's check is on its way (started and not yet looked at).
    bool probing() const;
    // Seconds until a check owed to a picture may start (a few a second per view); huge when none is owed. The
    // window wakes then, where an idle window would not draw.
    double next_probe_due_s() const;
    // Forgets everything (another kernel was opened).
    void clear();
    // Shows the input image alone (nothing ran, e.g. nothing can run here): something to look at from the start.
    void show_input_image(const KernelFile& file, const ResolvedRun& resolved) { update_input_image(file, resolved); }

    std::vector<OutputView>& views() { return views_; }
    InputImage& input() { return input_; }
    const std::string& kernel_path() const { return kernel_path_; }

private:
    void update_input_image(const KernelFile& file, const ResolvedRun& resolved);
    void shade_input();
    void start_probe(OutputView& v, const std::byte* host);
    void display_failed(OutputView& v, const std::string& what, ConsoleLog& log);
    bool fill_image(OutputView& v, RunReport& report, uint64_t bytes, ConsoleLog& log);
    std::optional<uint64_t> device_address_of(const std::string& buffer, const RunReport& report, std::string& why);

    render::DeviceCopier* copier_;
    render::ColormapPass* colormap_;
    std::vector<OutputView> views_;
    InputImage input_;
    std::string kernel_path_;
    bool uses_ipc_;
    bool reported_interop_failure_ = false;
    uint64_t probes_started_ = 0;
};

}  // namespace cp::ui
