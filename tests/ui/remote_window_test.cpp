// The window with its kernels on a server (--remote, issue 24): live runs of a large picture come as previews the
// size of the Output view, the inspector shows the exact values (fetched off the UI thread); a server that stops
// answering never stops the frames, and a lost one shows a banner, keeps the edits and reconnects by itself.
// The worker is a real `cuda-playground worker --stdio` (CPU backend) started through `env` or a real sshd.
#include "ui_test_support.h"

#include "core/kernel_file/kernel_file.h"
#include "core/remote/remote_backend.h"
#include "support/ssh_server.h"
#include "test_paths.h"
#include "ui/panels/output_panel.h"
#include "ui/state/remote_link.h"

#include <gtest/gtest.h>

#include <dirent.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <fstream>
#include <mutex>
#include <sstream>
#include <thread>

using namespace cp;
using namespace cp::uitest;

namespace {

using Clock = std::chrono::steady_clock;

// Every worker these tests start carries a tag of its own in its environment, so the test can find (and stop,
// or kill) exactly its worker, wherever the prefix started it.
std::string unique_tag() {
    static int n = 0;
    return "CP_TEST_WORKER_TAG=w" + std::to_string(getpid()) + "_" + std::to_string(++n);
}

std::vector<pid_t> processes_with_env(const std::string& entry) {
    std::vector<pid_t> found;
    DIR* proc = opendir("/proc");
    if (!proc) return found;
    while (dirent* e = readdir(proc)) {
        const pid_t pid = pid_t(std::atoi(e->d_name));
        if (pid <= 0 || pid == getpid()) continue;
        std::ifstream in(std::string("/proc/") + e->d_name + "/environ", std::ios::binary);
        std::string item;
        while (std::getline(in, item, '\0'))
            if (item == entry) {
                found.push_back(pid);
                break;
            }
    }
    closedir(proc);
    return found;
}

// The `worker --stdio` processes among them (the CPU backend's own worker processes inherit the tag).
std::vector<pid_t> stdio_workers_with_env(const std::string& entry) {
    std::vector<pid_t> found;
    for (pid_t pid : processes_with_env(entry)) {
        std::ifstream in("/proc/" + std::to_string(pid) + "/cmdline", std::ios::binary);
        std::string arg;
        while (std::getline(in, arg, '\0'))
            if (arg == "--stdio") {
                found.push_back(pid);
                break;
            }
    }
    return found;
}

ui::BackendFactory remote_factory(const std::string& prefix) {
    return [prefix]() -> Result<std::unique_ptr<Backend>> {
        RemoteOptions options;
        options.prefix = prefix;
        options.program = CP_BINARY;
        // The CPU backend on the far side (no GPU needed); CP_TEST_REMOTE_BACKEND=cuda runs the same on a GPU.
        const char* backend = std::getenv("CP_TEST_REMOTE_BACKEND");
        options.backend = backend && *backend ? backend : "cpu";
        return make_remote_backend(options);
    };
}

// The prefix's compile cache is this test's (ssh passes no environment); `tag` marks the worker.
std::string worker_env(const std::string& tag) {
    const char* cache = std::getenv("CUDA_PLAYGROUND_CACHE_DIR");
    return std::string("env ") + (cache ? std::string("CUDA_PLAYGROUND_CACHE_DIR=") + cache + " " : "") + tag;
}

// box_blur's output at (x, y), computed here from the input: the mean of the 3x3 neighbourhood (edges repeated),
// rounded to nearest.
std::array<int, 4> blurred(const Image& src, int x, int y) {
    std::array<int, 4> sum{};
    for (int dy = -1; dy <= 1; ++dy)
        for (int dx = -1; dx <= 1; ++dx) {
            const int sx = std::clamp(x + dx, 0, src.width - 1), sy = std::clamp(y + dy, 0, src.height - 1);
            for (int c = 0; c < 4; ++c)
                sum[size_t(c)] += src.pixels[(size_t(sy) * size_t(src.width) + size_t(sx)) * 4 + size_t(c)];
        }
    for (int& s : sum) s = (s + 4) / 9;
    return sum;
}

// Frames until `done` or `seconds` pass, never waiting for a run; the frames drawn.
int frames_until(ui::AppHost& host, double seconds, const std::function<bool()>& done) {
    const auto end = Clock::now() + std::chrono::duration<double>(seconds);
    int frames = 0;
    while (!done() && Clock::now() < end) {
        host.draw_frame();
        ++frames;
    }
    return frames;
}

// The shown picture (a full-size texture: a checked run) holds box_blur of `src` at a spread of pixels.
void expect_picture_is_blur_of(ui::Workspace& ws, const Image& src) {
    auto& views = ws.outputs().views();
    ASSERT_FALSE(views.empty());
    const ui::OutputView& v = views[0];
    ASSERT_TRUE(v.raw);
    ASSERT_FALSE(v.is_preview());
    ASSERT_EQ(v.raw->width(), src.width);
    for (int y = 0; y < src.height; y += 37)
        for (int x = 0; x < src.width; x += 53) {
            const auto got = v.raw->read_element(x, y);
            const auto want = blurred(src, x, y);
            for (int c = 0; c < 4; ++c)
                ASSERT_EQ(int(got[size_t(c)]), want[size_t(c)]) << "pixel (" << x << ", " << y << ") channel " << c;
        }
}

}  // namespace

// A picture larger than the Output view, re-run live through the link: the texture is a preview no larger than the
// view, the bytes a frame received are below the raw picture's, and the inspector shows the exact value.
TEST(RemoteWindow, LiveRunsOfALargePictureComeAsPreviewsAndTheInspectorShowsExactValues) {
    ScopedUserDir user;
    // A picture larger than the view and not a multiple of the block (16 x 16), with a pattern that a box filter
    // changes everywhere.
    constexpr int W = 1999, H = 1201;
    Image big;
    big.width = W;
    big.height = H;
    big.pixels.resize(size_t(W) * H * 4);
    for (int y = 0; y < H; ++y)
        for (int x = 0; x < W; ++x) {
            uint8_t* p = &big.pixels[(size_t(y) * W + size_t(x)) * 4];
            p[0] = uint8_t((x * 7 + y * 3) & 255);
            p[1] = uint8_t((x * y) & 255);
            p[2] = uint8_t((x + 2 * y) % 251);
            p[3] = uint8_t(255 - (x & 15));
        }
    const std::filesystem::path photo = user.path() / "big.png";
    ASSERT_TRUE(save_png(photo, big));

    auto host = start_settled(headless_options("image/box_blur.cu"), remote_factory(worker_env(unique_tag())));
    ASSERT_TRUE(host);
    ui::Workspace& ws = host->workspace();
    ASSERT_TRUE(ws.can_run()) << ws.device_status().why_nothing_runs;
    ASSERT_TRUE(ws.remote_link().remote()) << ws.device_status().device.where;

    // A live re-run (a change of the inputs: not checked) of the large picture.
    ws.inputs().choices.images["src"] = photo.string();
    ws.inputs().touch();
    const uint64_t received_before = remote_traffic().received;
    settle(*host);
    const uint64_t received = remote_traffic().received - received_before;
    ASSERT_TRUE(ws.latest() && ws.latest()->report.ok()) << (ws.latest() ? run_failure_text(ws.latest()->report) : "");
    ASSERT_FALSE(ws.outputs().views().empty());
    ui::OutputView& v = ws.outputs().views()[0];
    ASSERT_EQ(v.width, W);
    ASSERT_EQ(v.height, H);
    ASSERT_TRUE(v.is_preview()) << v.path;

    // The preview is the largest box filter that fits the view's canvas (at most 1920 x 1080).
    const auto [canvas_w, canvas_h] = ws.output_panel().canvas_pixels();
    ASSERT_GT(canvas_w, 0);
    const auto [limit_w, limit_h] = ws.preview_limit();
    EXPECT_EQ(limit_w, uint32_t(std::clamp(canvas_w, 64, 1920)));
    EXPECT_EQ(limit_h, uint32_t(std::clamp(canvas_h, 64, 1080)));
    const int f = std::max((W + int(limit_w) - 1) / int(limit_w), (H + int(limit_h) - 1) / int(limit_h));
    ASSERT_GT(f, 1) << "the picture must be larger than the view for this test";
    EXPECT_EQ(v.raw->width(), (W + f - 1) / f);
    EXPECT_EQ(v.raw->height(), (H + f - 1) / f);
    EXPECT_LT(received, uint64_t(W) * H * 4) << "a frame received more than the raw picture";
    EXPECT_LT(received, uint64_t(v.raw->width()) * v.raw->height() * 4 + 64 * 1024);
    host->frame();
    EXPECT_NE(ws.output_panel().drawn_output().preview_note.find("of 1999x1201"), std::string::npos)
        << ws.output_panel().drawn_output().preview_note;

    // Hover a pixel: the preview's average first, then the exact value, fetched through the runner.
    const int px = 1234, py = 777;
    const auto want = blurred(big, px, py);
    std::string expected = "(" + std::to_string(px) + ", " + std::to_string(py) + ")  output dst = (";
    for (int c = 0; c < 4; ++c) expected += (c ? ", " : "") + ui::format_value(want[size_t(c)], false);
    expected += ")";
    // At 100% (ImGui floors the mouse to whole screen pixels: at the fitted zoom one covers several), the pixel
    // in the canvas' middle.
    v.state.fit = false;
    v.state.zoom = 1.0f;
    v.state.pan_x = float(canvas_w / 2 - px);
    v.state.pan_y = float(canvas_h / 2 - py);
    host->frame();
    const ui::DrawnImage& d = ws.output_panel().drawn_output();
    ImGui::GetIO().AddMousePosEvent(d.x0 + float(px) + 0.5f, d.y0 + float(py) + 0.5f);
    const auto end = Clock::now() + std::chrono::seconds(60);
    while (ws.output_panel().drawn_output().inspector.find(expected) == std::string::npos && Clock::now() < end)
        host->frame();
    EXPECT_NE(ws.output_panel().drawn_output().inspector.find(expected), std::string::npos)
        << "inspector: " << ws.output_panel().drawn_output().inspector << "\nexpected: " << expected
        << (v.exact_problem.empty() ? "" : "\nfetch: " + v.exact_problem);
    EXPECT_TRUE(v.exact.has_value());
    EXPECT_TRUE(ws.outputs().views()[0].is_preview()) << "fetching the values must not replace the preview";

    // Side by side (the lesson's `compare:`), the columns get every value: no preview for the main picture either.
    ws.inputs().choices.images.erase("src");
    ws.compare().enabled = true;
    ws.inputs().touch();
    settle(*host);
    ASSERT_TRUE(ws.latest() && ws.latest()->report.ok()) << run_failure_text(ws.latest()->report);
    ASSERT_FALSE(ws.outputs().views().empty());
    EXPECT_FALSE(ws.outputs().views()[0].is_preview()) << "a compare run's main picture";
    ASSERT_FALSE(ws.compare().columns.empty());
    for (const auto& column : ws.compare().columns) {
        ASSERT_TRUE(column.views && !column.views->views().empty()) << column.name << ": " << column.error;
        EXPECT_FALSE(column.views->views()[0].is_preview()) << column.name;
    }
}

// A local backend gets every value, as before: no preview is asked for.
TEST(RemoteWindow, ALocalBackendAsksForNoPreview) {
    ScopedUserDir user;
    auto host = start_settled(headless_options("image/box_blur.cu"), host_kernels_factory());
    ASSERT_TRUE(host);
    EXPECT_FALSE(host->workspace().remote_link().remote());
    EXPECT_EQ(host->workspace().preview_limit(), (std::pair<uint32_t, uint32_t>{0, 0}));
    ASSERT_FALSE(host->workspace().outputs().views().empty());
    EXPECT_FALSE(host->workspace().outputs().views()[0].is_preview());
}

// The worker stops answering (SIGSTOP): frames go on and the editor takes edits; killed, the link is lost: the
// banner names the server, the edits stay, and the window reconnects by itself and runs the edited text.
TEST(RemoteWindow, AServerThatStopsAnsweringNeverStopsTheFramesAndALostOneReconnectsByItself) {
    ScopedUserDir user;
    const std::string tag = unique_tag();
    const std::string prefix = worker_env(tag);
    auto host = start_settled(headless_options("image/box_blur.cu"), remote_factory(prefix));
    ASSERT_TRUE(host);
    ui::Workspace& ws = host->workspace();
    ASSERT_TRUE(ws.can_run()) << ws.device_status().why_nothing_runs;
    const std::vector<pid_t> workers = stdio_workers_with_env(tag);
    ASSERT_EQ(workers.size(), 1u) << "the worker of this test";
    const pid_t worker = workers[0];

    ASSERT_EQ(kill(worker, SIGSTOP), 0);
    ws.request_run();
    host->draw_frame();  // submits the run, which now waits on a worker that does not answer
    ASSERT_TRUE(ws.run_in_flight());
    const std::string edited = document_of(ws).text() + "\n// typed while the server did not answer\n";
    ws.set_source(edited, host->seconds());
    // A guard, not a synchronisation: should a frame wait for the stopped worker, this ends the wait (it kills the
    // worker) after 20 s, so that the test fails on the frame's time instead of hanging for the transfer timeout.
    std::mutex guard_mutex;
    std::condition_variable guard_cv;
    bool guard_released = false;
    std::thread guard([&] {
        std::unique_lock lock(guard_mutex);
        if (!guard_cv.wait_for(lock, std::chrono::seconds(20), [&] { return guard_released; })) kill(worker, SIGKILL);
    });
    double slowest_ms = 0;
    const auto hung_since = Clock::now();
    int frames = 0;
    while (Clock::now() - hung_since < std::chrono::milliseconds(2500)) {
        const auto t0 = Clock::now();
        host->draw_frame();
        slowest_ms = std::max(slowest_ms, std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
        ++frames;
    }
    {
        std::lock_guard lock(guard_mutex);
        guard_released = true;
    }
    guard_cv.notify_all();
    guard.join();
    EXPECT_TRUE(ws.run_in_flight()) << "the stopped worker answered";
    EXPECT_NE(ws.status_text().find("waiting for the server `" + prefix + "`"), std::string::npos) << ws.status_text();
    EXPECT_GE(frames, 10);
    EXPECT_LT(slowest_ms, 1000) << "a frame waited for the network";
    EXPECT_EQ(document_of(ws).text(), edited);

    // Killed (the link ends): lost, said in the banner, edits kept, frames still drawn.
    for (pid_t p : processes_with_env(tag)) kill(p, SIGKILL);  // the worker and any of its own processes
    frames_until(*host, 30, [&] { return ws.remote_link().lost(); });
    ASSERT_TRUE(ws.remote_link().lost()) << "the lost worker was not noticed";
    host->draw_frame();
    EXPECT_NE(ws.drawn_banner().find(prefix), std::string::npos) << ws.drawn_banner();
    EXPECT_NE(ws.drawn_banner().find("cannot be reached"), std::string::npos) << ws.drawn_banner();
    EXPECT_EQ(document_of(ws).text(), edited);

    // `env` always starts a new worker: the next attempt (after 1 s) reconnects and runs the edited text, checked.
    const uint64_t runs = ws.runs_applied();
    frames_until(*host, 60,
                 [&] { return !ws.remote_link().lost() && ws.runs_applied() > runs && !ws.run_in_flight(); });
    ASSERT_FALSE(ws.remote_link().lost()) << ws.remote_link().why();
    host->frame();  // and its check
    settle(*host);
    ASSERT_TRUE(ws.latest() && ws.latest()->report.ok()) << run_failure_text(ws.latest()->report);
    EXPECT_EQ(ws.latest()->report.verified, std::optional<bool>(true));
    EXPECT_TRUE(ws.drawn_banner().empty());
    EXPECT_EQ(document_of(ws).text(), edited);
    auto coffee = load_image(assets_dir() / "coffee.png");
    ASSERT_TRUE(coffee);
    expect_picture_is_blur_of(ws, *coffee);
    EXPECT_EQ(stdio_workers_with_env(tag).size(), 1u) << "one new worker";
}

// Through a real sshd: stopped (and the session's worker gone), the window says the server cannot be reached with
// ssh's own words, keeps drawing and keeps the edits; started again, it reconnects by itself.
TEST(RemoteWindow, ThroughSshAStoppedServerIsSaidAndTheWindowReconnectsWhenItIsBack) {
    test::SshServer sshd;
    if (!sshd.running()) GTEST_SKIP() << sshd.why_not();
    ScopedUserDir user;
    const std::string tag = unique_tag();
    const std::string prefix = sshd.prefix() + " " + worker_env(tag);
    auto host = start_settled(headless_options("image/box_blur.cu"), remote_factory(prefix));
    ASSERT_TRUE(host);
    ui::Workspace& ws = host->workspace();
    ASSERT_TRUE(ws.can_run()) << ws.device_status().why_nothing_runs;
    ASSERT_EQ(ws.remote_link().prefix(), prefix);

    sshd.stop();
    for (pid_t p : processes_with_env(tag)) kill(p, SIGKILL);  // the session's worker, if sshd left it
    const std::string edited = document_of(ws).text() + "\n// typed while the server was down\n";
    ws.set_source(edited, host->seconds());
    ws.request_run();
    // Lost, and at least one attempt to reconnect failed (ssh's connection refused is in the banner).
    const int frames =
        frames_until(*host, 60, [&] { return ws.remote_link().failed_attempts() >= 1 && !ws.run_in_flight(); });
    ASSERT_TRUE(ws.remote_link().lost());
    ASSERT_GE(ws.remote_link().failed_attempts(), 1) << ws.remote_link().why();
    EXPECT_GE(frames, 10);
    host->draw_frame();
    EXPECT_NE(ws.drawn_banner().find(sshd.prefix()), std::string::npos) << ws.drawn_banner();
    EXPECT_NE(ws.drawn_banner().find("Connection refused"), std::string::npos) << ws.drawn_banner();
    EXPECT_EQ(document_of(ws).text(), edited);

    ASSERT_TRUE(sshd.restart()) << sshd.why_not();
    const uint64_t runs = ws.runs_applied();
    frames_until(*host, 90,
                 [&] { return !ws.remote_link().lost() && ws.runs_applied() > runs && !ws.run_in_flight(); });
    ASSERT_FALSE(ws.remote_link().lost()) << ws.remote_link().why();
    settle(*host);
    ASSERT_TRUE(ws.latest() && ws.latest()->report.ok()) << run_failure_text(ws.latest()->report);
    EXPECT_EQ(ws.latest()->report.verified, std::optional<bool>(true));
    EXPECT_EQ(document_of(ws).text(), edited);
    auto coffee = load_image(assets_dir() / "coffee.png");
    ASSERT_TRUE(coffee);
    expect_picture_is_blur_of(ws, *coffee);
}

// A server that cannot be reached when the window starts is treated as one lost later: the banner names it with
// the command's own words, edits are kept, attempts follow by themselves with the same backoff, and when the
// server answers the window runs (and checks) the edited text there. The prefix is a gate that fails as ssh does
// (exit 255) until a file exists, and counts its calls.
TEST(RemoteWindow, AServerUnreachableAtStartIsTriedAgainAndTheWindowRunsWhenItIsUp) {
    ScopedUserDir user;
    const std::filesystem::path gate = user.path() / "gate.sh", open_flag = user.path() / "server-up",
                                calls = user.path() / "calls";
    {
        std::ofstream script(gate);
        script << "#!/bin/sh\n"
               << "echo call >> '" << calls.string() << "'\n"
               << "if [ ! -e '" << open_flag.string() << "' ]; then\n"
               << "  echo 'ssh: connect to host gpu01 port 22: Connection refused' >&2\n"
               << "  exit 255\n"
               << "fi\n"
               << "exec \"$@\"\n";
    }
    std::filesystem::permissions(gate, std::filesystem::perms::owner_all);
    auto count_calls = [&] {
        std::ifstream in(calls);
        int n = 0;
        for (std::string line; std::getline(in, line);) ++n;
        return n;
    };
    const std::string tag = unique_tag();
    const std::string prefix = gate.string() + " " + worker_env(tag);
    ui::AppOptions options = headless_options("image/box_blur.cu");
    options.remote = prefix;  // what --remote sets
    auto made = ui::AppHost::create(options, remote_factory(prefix));
    ASSERT_TRUE(made.ok()) << made.error().full();
    ui::AppHost& host = **made;
    ui::Workspace& ws = host.workspace();
    EXPECT_EQ(count_calls(), 1) << "the window's first try";
    ASSERT_TRUE(ws.remote_link().remote());
    ASSERT_TRUE(ws.remote_link().lost()) << "an unreachable server at start must show as a lost link";
    EXPECT_FALSE(ws.can_run());
    host.draw_frame();
    EXPECT_NE(ws.drawn_banner().find(prefix), std::string::npos) << ws.drawn_banner();
    EXPECT_NE(ws.drawn_banner().find("Connection refused"), std::string::npos) << ws.drawn_banner();
    // No retry has run yet: the banner claims no failed attempts ("0 failed attempts" read as a contradiction).
    EXPECT_EQ(ws.drawn_banner().find("attempt"), std::string::npos) << ws.drawn_banner();
    const std::string edited = document_of(ws).text() + "\n// typed before the server was up\n";
    ws.set_source(edited, host.seconds());

    // The first attempt by itself (1 s after the start), failed; the next one waits twice as long.
    frames_until(host, 30, [&] { return ws.remote_link().failed_attempts() >= 1 && !ws.remote_link().attempting(); });
    ASSERT_EQ(ws.remote_link().failed_attempts(), 1) << ws.remote_link().why();
    EXPECT_EQ(count_calls(), 2) << "one attempt by itself, through the command";
    EXPECT_TRUE(ws.remote_link().lost());
    const double wait = ws.remote_link().retry_in(host.seconds());
    EXPECT_GT(wait, 0.5);
    EXPECT_LE(wait, 2.0);
    host.draw_frame();
    EXPECT_NE(ws.drawn_banner().find("1 attempt to reconnect failed"), std::string::npos) << ws.drawn_banner();
    EXPECT_EQ(document_of(ws).text(), edited);

    // The server comes up: the next attempt connects, and the edited text runs there, checked.
    std::ofstream(open_flag) << "up\n";
    frames_until(host, 60, [&] { return !ws.remote_link().lost() && ws.runs_applied() > 0 && !ws.run_in_flight(); });
    ASSERT_FALSE(ws.remote_link().lost()) << ws.remote_link().why();
    ASSERT_TRUE(ws.can_run()) << ws.device_status().why_nothing_runs;
    settle(host);
    ASSERT_TRUE(ws.latest() && ws.latest()->report.ok()) << (ws.latest() ? run_failure_text(ws.latest()->report) : "");
    EXPECT_EQ(ws.latest()->report.verified, std::optional<bool>(true));
    EXPECT_TRUE(ws.drawn_banner().empty()) << ws.drawn_banner();
    EXPECT_EQ(ws.remote_link().prefix(), prefix);
    EXPECT_NE(ws.device_status().device.where.find("remote: `" + prefix + "`"), std::string::npos)
        << ws.device_status().device.where;
    EXPECT_EQ(document_of(ws).text(), edited);
    auto coffee = load_image(assets_dir() / "coffee.png");
    ASSERT_TRUE(coffee);
    expect_picture_is_blur_of(ws, *coffee);
    EXPECT_EQ(stdio_workers_with_env(tag).size(), 1u) << "one worker";
}

// Closing the window while the server does not answer (its worker stopped mid-request) ends the link at once:
// the app is gone in well under the request's time limit (minutes), and so is the stopped worker.
TEST(RemoteWindow, ClosingTheWindowDuringAHungRequestReturnsPromptly) {
    ScopedUserDir user;
    const std::string tag = unique_tag();
    auto host = start_settled(headless_options("image/box_blur.cu"), remote_factory(worker_env(tag)));
    ASSERT_TRUE(host);
    ui::Workspace& ws = host->workspace();
    ASSERT_TRUE(ws.can_run()) << ws.device_status().why_nothing_runs;
    const std::vector<pid_t> workers = stdio_workers_with_env(tag);
    ASSERT_EQ(workers.size(), 1u);
    const pid_t worker = workers[0];
    ASSERT_EQ(kill(worker, SIGSTOP), 0);
    ws.request_run();
    host->draw_frame();
    ASSERT_TRUE(ws.run_in_flight());
    // A guard, not a synchronisation: without the fix the close waits for the request's time limit; this ends
    // that wait after 30 s (it kills the worker), so the test fails on the time measured below instead of hanging.
    std::mutex guard_mutex;
    std::condition_variable guard_cv;
    bool guard_released = false;
    std::thread guard([&] {
        std::unique_lock lock(guard_mutex);
        if (!guard_cv.wait_for(lock, std::chrono::seconds(30), [&] { return guard_released; })) kill(worker, SIGKILL);
    });
    const auto t0 = Clock::now();
    host.reset();  // what closing the window does: the host, its workspace and runner go
    const double closed_s = std::chrono::duration<double>(Clock::now() - t0).count();
    {
        std::lock_guard lock(guard_mutex);
        guard_released = true;
    }
    guard_cv.notify_all();
    guard.join();
    EXPECT_LT(closed_s, 5.0) << "closing waited for the stopped server";
    EXPECT_TRUE(stdio_workers_with_env(tag).empty()) << "the stopped worker was left behind";
    for (pid_t p : processes_with_env(tag)) {
        kill(p, SIGCONT);
        kill(p, SIGKILL);
    }
}

// Sanitize over the link: another link to the same server, `worker --stdio --sanitize memcheck`, whose
// compute-sanitizer log comes back as the link closes and becomes findings on their lines, as locally. No GPU
// here: the server's sanitizer stands in as a recorded log (CUDA_PLAYGROUND_PRETEND_SANITIZER_LOG on the far
// side); the link, the goodbye frame and the window's findings are the real ones.
TEST(RemoteWindow, SanitizeRunsOnTheServerAndItsFindingsMarkTheLines) {
    ScopedUserDir user;
    const std::filesystem::path recorded = user.path() / "server-side.log";
    const std::string prefix =
        "env CUDA_PLAYGROUND_PRETEND_SANITIZER_LOG=" + recorded.string() + " " + worker_env(unique_tag()).substr(4);
    ui::AppOptions o = headless_options("basics/vector_add.cu");
    o.sets = {{"n", "1000"}};
    auto host = start_settled(o, remote_factory(prefix));
    ASSERT_TRUE(host);
    ui::Workspace& ws = host->workspace();
    ASSERT_TRUE(ws.can_run()) << ws.device_status().why_nothing_runs;
    ASSERT_TRUE(ws.sanitize().unavailable.empty()) << ws.sanitize().unavailable;
    const std::string text = document_of(ws).text();
    const size_t at = text.find("    c[i] = a[i] + b[i];");
    ASSERT_NE(at, std::string::npos);
    const int line = 1 + int(std::count(text.begin(), text.begin() + long(at), '\n'));
    std::ofstream(recorded) << "========= COMPUTE-SANITIZER\n"
                               "========= Invalid __global__ write of size 4 bytes\n"
                               "=========     at vector_add+0xe0 in vector_add.cu:"
                            << line
                            << "\n"
                               "=========     by thread (231,0,0) in block (3,0,0)\n"
                               "=========     Access to 0x7f69fc801fa0 is out of bounds\n"
                               "=========     and is 1 bytes after the nearest allocation at 0x7f69fc801000 of size "
                               "4,000 bytes\n"
                               "=========\n"
                               "========= ERROR SUMMARY: 1 error\n";
    const uint64_t received_before = remote_traffic().received;
    const uint64_t live_runs = ws.runs_applied();
    ASSERT_TRUE(ws.request_sanitize("memcheck"));
    frames_until(*host, 60, [&] { return !ws.sanitize().requested && !ws.sanitize().running; });
    const ui::SanitizeState& s = ws.sanitize();
    EXPECT_FALSE(s.failed) << s.summary;
    EXPECT_EQ(s.summary, "memcheck: 1 finding");
    ASSERT_EQ(s.findings.size(), 1u);
    EXPECT_EQ(s.findings[0].line, line);
    EXPECT_EQ(ws.runs_applied(), live_runs) << "the sanitized run is not a live run";
    bool said_where = false;
    for (const auto& e : ws.console().entries())
        said_where = said_where || e.text.find("under compute-sanitizer --tool memcheck on the server `" + prefix +
                                               "`") != std::string::npos;
    EXPECT_TRUE(said_where) << "the console does not say the sanitized run is on the server";
    // The log came over the link (its goodbye frame), not from a file this process read on its own.
    EXPECT_GT(remote_traffic().received - received_before, uint64_t(300));
    settle(*host);
    const auto& markers = ws.editor_panel().markers();
    ASSERT_EQ(markers.size(), 1u);
    EXPECT_EQ(markers[0].line, line);
    EXPECT_NE(markers[0].message.find("memcheck: Invalid __global__ write"), std::string::npos) << markers[0].message;
    // The live link still runs.
    ws.request_run();
    settle(*host);
    ASSERT_TRUE(ws.latest() && ws.latest()->report.ok()) << run_failure_text(ws.latest()->report);
}

// A server that cannot sanitize (here: its worker serves the CPU backend; on a GPU server, one without
// compute-sanitizer) refuses in its greeting, and the window shows that refusal with the server's host name.
TEST(RemoteWindow, SanitizeOnAServerThatCannotShowsItsRefusal) {
    ScopedUserDir user;
    auto host = start_settled(headless_options("basics/vector_add.cu"), remote_factory(worker_env(unique_tag())));
    ASSERT_TRUE(host);
    ui::Workspace& ws = host->workspace();
    ASSERT_TRUE(ws.can_run()) << ws.device_status().why_nothing_runs;
    if (const char* b = std::getenv("CP_TEST_REMOTE_BACKEND"); b && std::string(b) == "cuda")
        GTEST_SKIP() << "the far side serves the CUDA backend: the refusal needs a server without a sanitizer";
    ASSERT_TRUE(ws.request_sanitize("memcheck")) << ws.sanitize().unavailable;
    frames_until(*host, 60, [&] { return !ws.sanitize().requested && !ws.sanitize().running; });
    host->draw_frame();
    const ui::SanitizeState& s = ws.sanitize();
    EXPECT_TRUE(s.failed);
    char name[256] = {};
    gethostname(name, sizeof name - 1);
    EXPECT_NE(s.summary.find("memcheck could not run: the remote worker on host " + std::string(name) +
                             " cannot serve: --sanitize runs compute-sanitizer, which needs the CUDA backend"),
              std::string::npos)
        << s.summary;
    EXPECT_TRUE(s.findings.empty());
    // The live link is unaffected.
    ws.request_run();
    settle(*host);
    ASSERT_TRUE(ws.latest() && ws.latest()->report.ok()) << run_failure_text(ws.latest()->report);
    EXPECT_FALSE(ws.remote_link().lost());
}

// The link's own rules: lost on WorkerLost, the next attempt after 1 s, then 2, 4 ... 30 s after each failed one;
// Reconnect makes it due at once; a success ends it.
TEST(RemoteLink, BacksOffFromOneToThirtySecondsAndReconnectMakesAnAttemptDueAtOnce) {
    ui::RemoteLink local;
    local.failed("gone", 0);
    EXPECT_FALSE(local.lost()) << "a local backend has no link to lose";

    ui::RemoteLink link("ssh gpu01");
    EXPECT_FALSE(link.lost());
    link.failed("the remote worker `ssh gpu01 ...` ended", 100);
    ASSERT_TRUE(link.lost());
    EXPECT_FALSE(link.attempt_due(100.5));
    EXPECT_TRUE(link.attempt_due(101));
    double now = 101;
    const double expected_waits[] = {2, 4, 8, 16, 30, 30};
    for (double wait : expected_waits) {
        link.attempt_started();
        EXPECT_FALSE(link.attempt_due(now + 1000)) << "an attempt is in flight";
        link.failed("ssh: connect to host gpu01 port 22: Connection refused", now);
        EXPECT_DOUBLE_EQ(link.retry_in(now), wait);
        EXPECT_FALSE(link.attempt_due(now + wait - 0.01));
        now += wait;
        EXPECT_TRUE(link.attempt_due(now));
    }
    EXPECT_EQ(link.failed_attempts(), 6);
    EXPECT_EQ(link.why(), "ssh: connect to host gpu01 port 22: Connection refused");
    EXPECT_DOUBLE_EQ(link.lost_since(), 100);

    link.attempt_started();
    link.failed("still down", now);
    EXPECT_FALSE(link.attempt_due(now + 1));
    link.reconnect_now();  // the button
    EXPECT_TRUE(link.attempt_due(now + 1));
    link.attempt_started();
    EXPECT_TRUE(link.succeeded()) << "it was lost";
    EXPECT_FALSE(link.lost());
    EXPECT_FALSE(link.succeeded());

    link.failed("lost again", 500);  // a new loss starts from 1 s
    EXPECT_DOUBLE_EQ(link.retry_in(500), 1);
    EXPECT_EQ(link.failed_attempts(), 0);
}

TEST(RemoteLink, ThePrefixComesFromWhereTheBackendSaysItRuns) {
    EXPECT_EQ(ui::remote_prefix_of("remote: `ssh -p 2222 gpu01` -> host gpu01 (cpu backend, x)"), "ssh -p 2222 gpu01");
    EXPECT_EQ(ui::remote_prefix_of("local"), "");
    EXPECT_EQ(ui::remote_prefix_of("remote: `unclosed"), "");
}
