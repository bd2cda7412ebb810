// The real window (GLFW + OpenGL 4.5 core): opens on the default demo, shows its output, waits for events
// when idle instead of spinning, and remembers the font scale and layout. Needs a display: without one the
// test re-runs itself under xvfb-run when that exists (CI), else it is skipped with the command to use.
#include "ui_test_support.h"

#include "render/render_target.h"
#include "support/scoped_env.h"
#include "ui/state/settings.h"
#include "ui/state/user_dirs.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <ctime>
#include <dlfcn.h>
#include <functional>
#include <unistd.h>

using namespace cp;
using namespace cp::uitest;
namespace fs = std::filesystem;

namespace {

// -noreset: Xvfb otherwise resets when its last client disconnects, and the test opens a second window.
const char* kXvfb = "xvfb-run -a -s \"-screen 0 1920x1080x24 -noreset\"";

bool have_display() { return render::why_no_display().empty(); }

// Holds one X connection open for a test's lifetime. Xvfb (as xvfb-run starts it, without -noreset) resets
// when its last client disconnects, and a window opened during the reset fails; the test opens two in turn.
class KeepXServerUp {
public:
    KeepXServerUp() {
        lib_ = dlopen("libX11.so.6", RTLD_NOW | RTLD_LOCAL);
        if (!lib_) return;
        using Open = void* (*)(const char*);
        if (auto open = reinterpret_cast<Open>(dlsym(lib_, "XOpenDisplay"))) display_ = open(nullptr);
    }
    ~KeepXServerUp() {
        using Close = int (*)(void*);
        if (display_)
            if (auto close = reinterpret_cast<Close>(dlsym(lib_, "XCloseDisplay"))) close(display_);
        if (lib_) dlclose(lib_);
    }

private:
    void* lib_ = nullptr;
    void* display_ = nullptr;
};

// Where xvfb-run is on PATH, or empty.
std::string xvfb_run_path() {
    const char* path = std::getenv("PATH");
    std::string dirs = path ? path : "/usr/bin:/bin";
    for (size_t start = 0; start <= dirs.size();) {
        const size_t end = std::min(dirs.find(':', start), dirs.size());
        const fs::path candidate = fs::path(dirs.substr(start, end - start)) / "xvfb-run";
        if (access(candidate.c_str(), X_OK) == 0) return candidate.string();
        start = end + 1;
    }
    return {};
}

// The window tests of this binary, run again under a virtual X server. Returns false (skip) when impossible.
bool rerun_under_xvfb(std::string& output, int& exit_code) {
    const std::string xvfb_run = xvfb_run_path();
    if (std::getenv("CP_UI_UNDER_XVFB") || xvfb_run.empty()) return false;
    const std::string self = fs::read_symlink("/proc/self/exe").string();
    auto r = test::run_process({xvfb_run, "-a", "-s", "-screen 0 1920x1080x24 -noreset", self, "--gtest_filter=Window.*"},
                               {"CP_UI_UNDER_XVFB=1"});
    output = r.both();
    exit_code = r.exit_code;
    return true;
}

// CPU time this thread (the one running the event loop) has used.
double thread_cpu_seconds() {
    timespec t{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return double(t.tv_sec) + 1e-9 * double(t.tv_nsec);
}

// Draws frames, handing the window its events between them, until the workspace has nothing left to draw (no
// run in flight, no layout frames owed) and `done` holds. A condition, not a delay: the cap on frames is only
// there so that a broken build fails here instead of hanging.
bool settle_window(ui::AppHost& host, const std::function<bool()>& done = [] { return true; }) {
    ui::Workspace& ws = host.workspace();
    for (int i = 0; i < 2000; ++i) {
        if (!ws.run_in_flight() && !ws.needs_frame(host.seconds()) && done()) {
            host.frame();  // the settled state drawn once more, so what is read next is what the user sees
            return done();
        }
        host.frame();
        host.run_for(0.005);  // events: the X server's answer to a resize arrives as one
    }
    return false;
}

}  // namespace

TEST(Window, OpensOnTheDefaultDemoAndIdlesWithoutSpinning) {
    if (!have_display()) {
        std::string out;
        int code = -1;
        if (!rerun_under_xvfb(out, code))
            GTEST_SKIP() << "no display and no xvfb-run; run: " << kXvfb << " cp_ui_tests --gtest_filter=Window.*";
        EXPECT_EQ(code, 0) << out;
        EXPECT_NE(out.find("[  PASSED  ]"), std::string::npos) << out;
        EXPECT_EQ(out.find("[  SKIPPED ]"), std::string::npos) << "the window tests were skipped under Xvfb:\n" << out;
        return;
    }
    ScopedUserDir user;
    KeepXServerUp keep_x;
    ui::AppOptions o;  // what `cuda-playground` with no arguments does: the window, the default demo
    o.width = 1280;
    o.height = 800;
    auto host = ui::AppHost::create(o, host_kernels_factory());
    ASSERT_TRUE(host.ok()) << host.error().full();
    ui::Workspace& ws = (*host)->workspace();
    EXPECT_FALSE((*host)->target().headless());
    EXPECT_EQ(document_of(ws).original_path().filename(), "box_blur.cu");

    // Live: the first run finishes and its texture is drawn.
    ASSERT_TRUE(settle_window(**host, [&] { return ws.latest() && ws.latest()->report.launched; }))
        << "the first run never finished";
    auto shot = (*host)->screenshot();
    ASSERT_TRUE(shot.ok()) << shot.error().full();
    const Rect output = window_rect("Output");
    EXPECT_GT(distinct_colors(*shot, output), 500u) << "the photo should be visible in the Output panel";

    // Idle: settled (above), the workspace asks the loop to wait for events, not to draw...
    EXPECT_FALSE(ws.needs_frame((*host)->seconds()));
    EXPECT_GT(ws.idle_timeout((*host)->seconds()), 0.0);
    // ...and the loop does wait, in glfwWaitEventsTimeout: a loop that spins draws hundreds of frames in 2 s, or
    // polls without drawing and burns this thread's CPU time; one that waits does neither unless an event comes.
    // A loaded machine only lowers both figures.
    const double cpu_before = thread_cpu_seconds();
    const int frames = (*host)->run_for(2.0);
    const double cpu_used = thread_cpu_seconds() - cpu_before;
    std::printf("in 2 s of idling: %d frames drawn, %.3f s of CPU time\n", frames, cpu_used);
    EXPECT_LE(frames, 10);
    EXPECT_LT(cpu_used, 0.2) << "the idle loop kept the CPU busy instead of waiting for events";

    // Presentation mode (F11) makes the window cover its monitor (the 1920x1080 virtual screen), and back.
    auto screen_is = [&](int width, int height) {
        auto pixels = (*host)->screenshot();
        return pixels.ok() && pixels->width == width && pixels->height == height;
    };
    ws.set_presenting(true);
    EXPECT_TRUE(settle_window(**host, [&] { return screen_is(1920, 1080); }))
        << "presentation mode did not make the window 1920x1080";
    ws.set_presenting(false);
    EXPECT_TRUE(settle_window(**host, [&] { return screen_is(1280, 800); }))
        << "leaving presentation mode did not bring the window back to 1280x800";

    // Presentation is remembered: font scale (Ctrl +) and the docking layout (here: which tab is in front
    // under the output, and a closed panel).
    ws.adjust_font_scale(+0.2f);
    EXPECT_GT(window_rect("Launch").width(), 0) << "Launch is in front by default";
    EXPECT_EQ(window_rect("Timing").width(), 0);
    ws.show_panel("Timing");
    ws.hide_panel("Device");
    EXPECT_TRUE(settle_window(**host, [] { return window_rect("Timing").width() > 0; }))
        << "Timing never came to front";
    host->reset();
    const ui::Settings saved = ui::load_settings(ui::config_dir() / "settings.json");
    EXPECT_NEAR(saved.font_scale, 1.2f, 1e-4);
    EXPECT_NE(saved.last_kernel.find("box_blur.cu"), std::string::npos);
    const std::string ini = test::read_file(ui::config_dir() / "imgui.ini");
    EXPECT_NE(ini.find("[Docking][Data]"), std::string::npos) << ini;
    auto again = ui::AppHost::create(o, host_kernels_factory());
    ASSERT_TRUE(again.ok()) << again.error().full();
    EXPECT_NEAR((*again)->workspace().font_scale(), 1.2f, 1e-4);
    ASSERT_TRUE(settle_window(**again)) << "the reopened window never settled";
    EXPECT_GT(window_rect("Timing").width(), 0) << "the tab in front is remembered";
    EXPECT_EQ(window_rect("Launch").width(), 0);
    EXPECT_EQ(window_rect("Device").width(), 0) << "a closed panel stays closed";
    EXPECT_GT(window_rect("Console").width(), 0);

    // View > Reset layout: every panel back in its place.
    (*again)->workspace().reset_layout();
    ASSERT_TRUE(settle_window(**again)) << "the reset layout never settled";
    EXPECT_GT(window_rect("Launch").width(), 0);
    EXPECT_EQ(window_rect("Timing").width(), 0);
}

TEST(Window, WithoutADisplayTheErrorSaysWhatToDo) {
    auto target = [] {
        cp::test::ScopedEnv no_display;
        no_display.unset("DISPLAY");
        no_display.unset("WAYLAND_DISPLAY");
        return render::make_window_target({});
    }();
    ASSERT_FALSE(target.ok());
    EXPECT_NE(target.error().message.find("no display"), std::string::npos) << target.error().full();
    EXPECT_NE(target.error().hint.find("--headless"), std::string::npos) << target.error().full();
    EXPECT_NE(target.error().hint.find("xvfb-run"), std::string::npos) << target.error().full();
}
