// Support for the UI tests: a temporary user folder, a backend that runs the library's kernels on the host
// (compiling with the real NVRTC, so compile errors are real), and screenshot helpers.
#pragma once

#include "core/engine/backend.h"
#include "core/data/image_io.h"
#include "ui/app_host.h"

#include "support/process.h"
#include "support/scoped_env.h"

#include <gtest/gtest.h>
#include <imgui.h>

#include <algorithm>
#include <memory>
#include <functional>
#include <string>

namespace cp::uitest {

// Points CUDA_PLAYGROUND_USER_DIR (edits, settings) at a fresh temporary folder, and the compile cache at the
// ctest run's shared cache of the lessons (support/test_cache.h), or at a fresh folder outside ctest.
class ScopedUserDir {
public:
    ScopedUserDir();
    const std::filesystem::path& path() const { return dir_.path(); }

private:
    test::TempDir dir_;
    test::ScopedEnv env_;  // puts both variables back as they were
};

// The 1-based line of `text` on which `needle` first starts; 0 when it is not there.
inline int line_of(const std::string& text, const std::string& needle) {
    const size_t at = text.find(needle);
    if (at == std::string::npos) return 0;
    return 1 + int(std::count(text.begin(), text.begin() + long(at), '\n'));
}

// What cp_ui_test_helper die-saving saves first and second: different sizes and bytes, so that half of one, or
// a mix of both, is told apart from either.
inline const std::string kOldContents(size_t(1) << 20, 'a');
inline const std::string kNewContents((size_t(1) << 20) + 4099, 'b');

// Runs box_blur, grayscale, vector_add and thread_ids on the host over exactly the launched grid (threads
// outside it write nothing, as on a GPU). Reports BackendKind::Cpu, so outputs take the host path.
std::unique_ptr<Backend> make_host_kernels_backend();
ui::BackendFactory host_kernels_factory();
ui::BackendFactory no_backend_factory(const std::string& why);

// A backend that hands every request to `inner`: tests derive from it and override only what they change (a
// capability in info(), a scripted occupancy answer).
class ForwardingBackend : public Backend {
public:
    explicit ForwardingBackend(std::unique_ptr<Backend> inner) : inner_(std::move(inner)) {}
    InfoResult info() override { return inner_->info(); }
    CompileResult compile(const CompileRequest& r) override { return inner_->compile(r); }
    AllocateResult allocate(const AllocateRequest& r) override { return inner_->allocate(r); }
    UploadResult upload(const UploadRequest& r) override { return inner_->upload(r); }
    LaunchResult launch(const LaunchRequest& r) override { return inner_->launch(r); }
    ReadBackResult read_back(const ReadBackRequest& r) override { return inner_->read_back(r); }
    ReleaseResult release(const ReleaseRequest& r) override { return inner_->release(r); }
    OccupancyResult occupancy(const OccupancyRequest& r) override { return inner_->occupancy(r); }
    StreamsResult streams(const StreamsRequest& r) override { return inner_->streams(r); }

private:
    std::unique_ptr<Backend> inner_;
};

struct Rect {
    int x0 = 0, y0 = 0, x1 = 0, y1 = 0;  // [x0, x1) x [y0, y1)
    int width() const { return x1 - x0; }
    int height() const { return y1 - y0; }
};

// The screen rectangle of an ImGui window by title (after a frame); empty when there is none or it is a tab
// hidden behind another in its dock group.
Rect window_rect(const char* title);
// Number of distinct colours in a region (a blank or single-colour region has 1).
size_t distinct_colors(const Image& image, Rect r);
// Reddish pixels over `line`'s number in the editor (its error marker); -1 when the line is not in view.
int marker_red_pixels(const Image& shot, const ui::EditorPanel& editor, int line);

// Input through Dear ImGui's event queue, as the GLFW backend feeds it: a key press (with Ctrl when asked)
// released a frame later; a left click at a screen position (move, press, release, one frame each).
void press_key(ui::AppHost& host, ImGuiKey key, bool ctrl = false);
void click(ui::AppHost& host, float x, float y);

// Frames until no run is in flight or pending (each headless frame first waits for a running job).
// Fails the test, saying so, when a run is still in flight after 40 frames.
void settle(ui::AppHost& host);
// Whether a Console entry contains `text` (tests that the window said something of a kind they also check).
bool console_has(ui::Workspace& ws, const std::string& text);
// Draws frames until `done()` holds, at most `max_frames`. When the cap is hit the test fails with what it waited
// for and, from `seen()`, what it saw instead; returns whether `done()` held.
bool frames_until(ui::AppHost& host, const std::function<bool()>& done, const std::string& waited_for,
                  int max_frames, const std::function<std::string()>& seen = {});
// The same bounded by the wall clock instead of a frame count, for what the window does on a clock of its own (a
// picture's check, owed until its interval has passed: on a fast GPU machine 200 frames take 0.3 s).
bool frames_until_seconds(ui::AppHost& host, const std::function<bool()>& done, const std::string& waited_for,
                          double max_seconds, const std::function<std::string()>& seen = {});
// Shows the first output view at 100% from its top-left corner, and draws a frame.
void show_output_at_100_percent(ui::AppHost& host);
// Compares the on-screen output image (RGB) with an RGBA8 buffer the kernel wrote; failures name pixels.
// Returns how many pixels were compared (the visible part).
size_t expect_screen_matches_output(ui::AppHost& host, const HostBuffer& dst, int width);
// The same for a one-component buffer shown through `colormap` with the automatic range (its own min..max,
// computed here from the buffer): each pixel within 2 levels per channel of the interpolated table colour.
size_t expect_screen_matches_colormapped(ui::AppHost& host, const HostBuffer& values, int width,
                                         const std::string& colormap);

// Waits (a GL fence, at most `seconds`) until the GPU has finished the GL work issued so far on the current
// context. Read-backs go through this first so that a GPU that no longer finishes work fails with the
// likely cause instead of hanging or handing back texture memory no draw wrote: seen on the NVIDIA machine
// after earlier processes' kernels had faulted (dmesg: NVRM Xid 13/31, then Xid 109 CTX SWITCH TIMEOUT).
::testing::AssertionResult gpu_finishes_within(double seconds);

// The open document; throws (failing the test) when there is none.
ui::KernelDocument& document_of(ui::Workspace& ws);

// Headless app options for tests: a fixed size, a given kernel.
ui::AppOptions headless_options(const std::string& kernel_relative = "image/box_blur.cu");
// As a class sees it: `file` (a path) on the CPU backend at 1920x1080 with text size 1.75.
ui::AppOptions projector_options(const std::string& file);

// A headless app with `options` and `factory`, settled (its first run shown); null, with a test failure, when
// it cannot start.
std::unique_ptr<ui::AppHost> start_settled(const ui::AppOptions& options, const ui::BackendFactory& factory);

}  // namespace cp::uitest
