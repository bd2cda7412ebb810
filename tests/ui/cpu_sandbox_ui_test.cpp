// The window on the real CPU backend survives kernels that crash, end the process or never finish: each is
// reported in the run's result, and the next edit runs (the sandboxed worker behind it was replaced).
#include "ui_test_support.h"

#include "core/cpu/cpu_backend.h"
#include "support/scoped_env.h"

#include <gtest/gtest.h>

#include <algorithm>

#include <chrono>
#include <cstdlib>

using namespace cp;
using namespace cp::uitest;

namespace {

class CpuSandboxWindow : public ::testing::Test {
protected:
    ScopedUserDir user_;
    std::unique_ptr<ui::AppHost> host_;
    std::string original_;
    std::vector<std::byte> first_output_;  // box_blur's verified output

    void SetUp() override {
        if (auto cpu = make_cpu_backend(); !cpu) FAIL() << "the CPU backend is needed here and could not be made: " << cpu.error().message;
        ui::AppOptions o = headless_options();
        o.backend = "cpu";
        auto h = ui::AppHost::create(o, {});
        ASSERT_TRUE(h.ok()) << h.error().full();
        host_ = std::move(*h);
        settle(*host_);
        ASSERT_TRUE(launched()) << error();
        ASSERT_EQ(ws().latest()->report.verified, std::optional<bool>(true));
        first_output_ = ws().latest()->report.outputs.at("dst").bytes;
        original_ = document_of(ws()).text();
    }
    ui::Workspace& ws() { return host_->workspace(); }
    bool launched() { return ws().latest() && ws().latest()->report.launched; }
    std::string error() {
        return ws().latest() && ws().latest()->report.error ? ws().latest()->report.error->full()
                                                            : std::string("(no error)");
    }
    // Replaces `from` by `to` in the original source, as an edit in the window, and waits for the run.
    void edit(const std::string& from, const std::string& to) {
        std::string text = original_;
        const size_t at = text.find(from);
        ASSERT_NE(at, std::string::npos) << from;
        text.replace(at, from.size(), to);
        ws().set_source(text, host_->seconds() - 5.0);
        settle(*host_);
    }
};

const std::string kStore = "    dst[y * width + x] = make_uchar4(";

TEST_F(CpuSandboxWindow, CrashExitAndHangAreReportedAndTheNextEditRuns) {
    const cp::test::ScopedEnv short_time_out("CUDA_PLAYGROUND_LAUNCH_TIMEOUT_S", "2");

    edit(kStore, "    dst[y * width + x + 1] = make_uchar4(");
    EXPECT_FALSE(launched());
    // The store's line in the lesson, counted here (the lesson's text above it may grow).
    const size_t store_at = original_.find(kStore);
    ASSERT_NE(store_at, std::string::npos);
    const long store_line = 1 + std::count(original_.begin(), original_.begin() + long(store_at), '\n');
    EXPECT_NE(error().find("wrote past the end of buffer `dst`: element "), std::string::npos) << error();
    EXPECT_NE(error().find(" (line " + std::to_string(store_line) + ")"), std::string::npos) << error();

    edit(kStore, "#ifdef __CUDA_PLAYGROUND_CPU__\n    if (x == 5 && y == 7) exit(2);\n#endif\n" + kStore);
    EXPECT_FALSE(launched());
    EXPECT_NE(error().find("thread (5,7,0) of block (0,0,0) called exit(2)"), std::string::npos) << error();
    EXPECT_NE(error().find("kernels cannot end the program"), std::string::npos) << error();

    const auto start = std::chrono::steady_clock::now();
    edit(kStore, "    for (volatile int spin = 1; spin;) {}\n" + kStore);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    EXPECT_FALSE(launched());
    EXPECT_NE(error().find("did not finish within 2 s (CUDA_PLAYGROUND_LAUNCH_TIMEOUT_S)"), std::string::npos)
        << error();
    EXPECT_LT(seconds, 15.0) << "compile + 2 s + a new worker";

    edit(kStore, "#ifdef __CUDA_PLAYGROUND_CPU__\n    if (x == 0 && y == 0) system(\"true\");\n#endif\n" + kStore);
    EXPECT_FALSE(launched());
    EXPECT_NE(error().find("tried to start a program"), std::string::npos) << error();

    // Back to the lesson: it runs and verifies, in the same window.
    ws().set_source(original_, host_->seconds() - 5.0);
    settle(*host_);
    ASSERT_TRUE(launched()) << error();
    // An edit's run is not checked, so its picture was read in place (no copy in the report): the texture shown
    // must hold the same pixels as the first, verified run.
    ASSERT_EQ(ws().outputs().views().size(), 1u);
    const ui::OutputView& view = ws().outputs().views()[0];
    ASSERT_TRUE(view.raw);
    std::string where;
    const int texels = view.raw->width() * view.raw->height();  // every one
    EXPECT_TRUE(view.raw->matches_host(first_output_.data(), first_output_.size(), texels, &where))
        << "the same pixels as the first run; first difference at " << where;
}

}  // namespace
