// Live re-runs launch once (issue 19: the frame budget): a launch or input change, or "re-run every frame",
// asks the backend for one timed launch without a warm-up; an edit warms up first; F5, opening a kernel and a
// comparison time the Timing panel's repeats after a warm-up. The launches are counted through the backend. The
// Timing panel's frame budget says where the worker's launch time went.
#include "ui_test_support.h"

#include "core/kernel_file/kernel_file.h"
#include "ui/panels/timing_panel.h"

#include <gtest/gtest.h>

#include <atomic>
#include <mutex>
#include <vector>

using namespace cp;
using namespace cp::uitest;

namespace {

// The host kernels, remembering the timing every launch request asked for.
class TimingRecorder final : public ForwardingBackend {
public:
    struct Log {
        std::mutex mutex;
        std::vector<TimingOptions> asked;
    };
    explicit TimingRecorder(std::shared_ptr<Log> log) : ForwardingBackend(make_host_kernels_backend()), log_(std::move(log)) {}
    LaunchResult launch(const LaunchRequest& r) override {
        {
            std::lock_guard lock(log_->mutex);
            log_->asked.push_back(r.timing);
        }
        return ForwardingBackend::launch(r);
    }

private:
    std::shared_ptr<Log> log_;
};

class LiveTiming : public ::testing::Test {
protected:
    ScopedUserDir user_;
    std::shared_ptr<TimingRecorder::Log> log_ = std::make_shared<TimingRecorder::Log>();
    std::unique_ptr<ui::AppHost> host_;

    void SetUp() override {
        auto factory = [log = log_]() -> Result<std::unique_ptr<Backend>> {
            return std::unique_ptr<Backend>(std::make_unique<TimingRecorder>(log));
        };
        auto h = ui::AppHost::create(headless_options("image/box_blur.cu"), factory);
        ASSERT_TRUE(h.ok()) << h.error().full();
        host_ = std::move(*h);
        settle(*host_);
    }
    ui::Workspace& ws() { return host_->workspace(); }
    // The launches asked for since the last call.
    std::vector<TimingOptions> taken() {
        std::lock_guard lock(log_->mutex);
        std::vector<TimingOptions> out = std::move(log_->asked);
        log_->asked.clear();
        return out;
    }
    static std::string text(const std::vector<TimingOptions>& v) {
        std::string s;
        for (const TimingOptions& t : v) s += "(warmup " + std::to_string(t.warmup) + ", repeats " + std::to_string(t.repeats) + ") ";
        return s;
    }
};

TEST_F(LiveTiming, LiveReRunsLaunchOnceAndF5TimesTheRepeats) {
    const int repeats = ws().inputs().timing.repeats;
    ASSERT_GT(repeats, 1) << "the default repeats";
    // Opening the kernel: warm-up and the repeats.
    std::vector<TimingOptions> asked = taken();
    ASSERT_FALSE(asked.empty());
    EXPECT_EQ(asked.back().warmup, 1) << text(asked);
    EXPECT_EQ(asked.back().repeats, repeats) << text(asked);

    // The launch changed (the block's slider): one launch, no warm-up.
    ws().inputs().choices.block = Dim3{32, 8, 1};
    ws().inputs().touch();
    settle(*host_);
    asked = taken();
    ASSERT_EQ(asked.size(), 1u) << text(asked);
    EXPECT_EQ(asked[0].warmup, 0);
    EXPECT_EQ(asked[0].repeats, 1);
    EXPECT_EQ(ws().latest()->report.timing.samples_ms.size(), 1u);

    // Every frame: each frame's run is one launch.
    ws().live().every_frame = true;
    for (int i = 0; i < 6; ++i) host_->frame();
    ws().live().every_frame = false;
    settle(*host_);
    asked = taken();
    ASSERT_GE(asked.size(), 2u) << text(asked);
    for (const TimingOptions& t : asked) EXPECT_TRUE(t.warmup == 0 && t.repeats == 1) << text(asked);

    // An edit: the new module warms up first, then one timed launch.
    ws().set_source("// a comment\n" + document_of(ws()).text(), host_->seconds() - 5.0);
    settle(*host_);
    asked = taken();
    ASSERT_EQ(asked.size(), 1u) << text(asked);
    EXPECT_EQ(asked[0].warmup, 1);
    EXPECT_EQ(asked[0].repeats, 1);

    // F5: the repeats again, after a warm-up.
    ws().request_run();
    settle(*host_);
    asked = taken();
    ASSERT_EQ(asked.size(), 1u) << text(asked);
    EXPECT_EQ(asked[0].warmup, 1);
    EXPECT_EQ(asked[0].repeats, repeats);
    EXPECT_EQ(ws().latest()->report.timing.samples_ms.size(), size_t(repeats));
}

// The host kernels, answering each launch with a worker's time and its phases as the CUDA worker does, while
// `measured` is set.
class PhasedBackend final : public ForwardingBackend {
public:
    explicit PhasedBackend(std::shared_ptr<std::atomic<bool>> measured)
        : ForwardingBackend(make_host_kernels_backend()), measured_(std::move(measured)) {}
    LaunchResult launch(const LaunchRequest& r) override {
        LaunchResult out = ForwardingBackend::launch(r);
        if (*measured_) {
            out.backend_ms = 0.5;
            out.phases = {0.125, 0.0625, 0.25, 0.03125, 0.1875};
        }
        return out;
    }

private:
    std::shared_ptr<std::atomic<bool>> measured_;
};

// The Timing panel's frame budget says, under the launch's row, where the worker's time went: its launch call's
// phases, in that order; a backend that measures none shows none.
TEST(FrameBudget, TheLaunchRowSaysWhereTheWorkersTimeWent) {
    ScopedUserDir user;
    auto measured = std::make_shared<std::atomic<bool>>(true);
    auto factory = [measured]() -> Result<std::unique_ptr<Backend>> {
        return std::unique_ptr<Backend>(std::make_unique<PhasedBackend>(measured));
    };
    auto host = start_settled(headless_options("image/box_blur.cu"), factory);
    ASSERT_TRUE(host);
    ui::Workspace& ws = host->workspace();
    ASSERT_TRUE(ws.latest() && ws.latest()->report.launched);
    ui::TimingPanel* panel = ws.timing_panel();
    ASSERT_NE(panel, nullptr);
    auto budget_rows = [&] {
        ws.show_panel("Timing");
        panel->open_budget();
        host->frame();
        host->frame();
        std::string rows;
        for (const std::string& r : panel->drawn_budget()) rows += r + "|";
        return rows;
    };
    const std::string launch_row = "launch (kernel + round trip)|";
    const std::string phases =
        "  of which in the worker process|    set-up (checks, arguments)|    launch calls|"
        "    waiting for the GPU|      the kernel on the GPU|    after (printf, guard zones, "
        "result)|";
    std::string rows = budget_rows();
    EXPECT_NE(rows.find(launch_row + phases), std::string::npos) << rows;
    const LaunchPhases& p = ws.latest()->report.stages.launch_phases;
    EXPECT_DOUBLE_EQ(p.wait_ms, 0.25) << "the run's report carries the backend's phases";

    *measured = false;
    ws.inputs().touch();
    settle(*host);
    rows = budget_rows();
    EXPECT_NE(rows.find(launch_row), std::string::npos) << rows;
    EXPECT_EQ(rows.find("waiting for the GPU"), std::string::npos) << rows;
    EXPECT_EQ(rows.find("in the worker process"), std::string::npos) << rows;
}

}  // namespace
