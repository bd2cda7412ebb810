// Live re-runs launch once (issue 19: the frame budget): a launch or input change, or "re-run every frame",
// asks the backend for one timed launch without a warm-up; an edit warms up first; F5, opening a kernel and a
// comparison time the Timing panel's repeats after a warm-up. The launches are counted through the backend.
#include "ui_test_support.h"

#include "core/kernel_file/kernel_file.h"

#include <gtest/gtest.h>

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

}  // namespace
