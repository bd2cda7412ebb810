// The thread order chosen in the window (issue 10 item 8): the shared-memory-sum lesson without the barrier
// inside its loop fails in natural and shuffled order and passes in reversed order, as its lesson text says;
// the Launch panel offers the choice because the CPU backend advertises it.
#include "ui_test_support.h"

#include "core/engine/backend.h"
#include "core/backends/registry.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

using namespace cp;
using namespace cp::uitest;

namespace {

std::optional<bool> verified_with(ui::AppHost& host, std::optional<ThreadOrderChoice> order) {
    ui::Workspace& ws = host.workspace();
    ws.inputs().choices.thread_order = order;  // as the Launch panel's combo sets it
    ws.inputs().touch();
    settle(host);
    if (!ws.latest() || !ws.latest()->report.launched) {
        ADD_FAILURE() << "it did not run: " << ws.output_status().failure;
        return std::nullopt;
    }
    const auto& resolved = ws.latest()->report.resolved;
    EXPECT_TRUE(resolved && resolved->thread_order == order);
    return ws.latest()->report.verified;
}

}  // namespace

TEST(ThreadOrderUi, TheMissingBarrierPassesOrFailsByTheChosenOrderAsTheLessonSays) {
    if (auto cpu = find_backend("cpu")->make(); !cpu) FAIL() << "the CPU backend is needed here and could not be made: " << cpu.error().message;
    ScopedUserDir user;
    ui::AppOptions o = headless_options("reduction/shared_memory_sum.cu");
    o.width = 1920;
    o.height = 1080;
    o.text_size = 1.75f;  // as on the projector
    o.backend = "cpu";
    o.sets = {{"n", "1000"}};
    auto made = ui::AppHost::create(o, {});
    ASSERT_TRUE(made.ok()) << made.error().full();
    ui::AppHost& host = **made;
    ui::Workspace& ws = host.workspace();
    settle(host);
    ASSERT_TRUE(ws.can_run());
    ASSERT_TRUE(ws.latest() && ws.latest()->report.verified == true) << ws.output_status().failure;
    // The lesson says which orders show the bug: natural and shuffled, not reversed.
    ASSERT_NE(document_of(ws).text().find("natural or shuffled thread order (reversed"), std::string::npos);

    std::string text = document_of(ws).text();
    const size_t barrier = text.find("__syncthreads();", text.find("for (int stride"));
    ASSERT_NE(barrier, std::string::npos);
    text.erase(barrier, std::string("__syncthreads();").size());
    ws.set_source(text, host.seconds() - 5.0);
    ws.inputs().verify = true;  // every run checked, as Run > Verify every run
    settle(host);

    using K = ThreadOrderChoice::Kind;
    EXPECT_EQ(verified_with(host, ThreadOrderChoice{K::Natural, 1}), std::optional<bool>(false));
    EXPECT_EQ(verified_with(host, ThreadOrderChoice{K::Reversed, 1}), std::optional<bool>(true));
    EXPECT_EQ(verified_with(host, ThreadOrderChoice{K::Shuffled, 7}), std::optional<bool>(false));
    EXPECT_EQ(verified_with(host, ThreadOrderChoice{K::Reversed, 1}), std::optional<bool>(true));
    ws.show_panel("Launch");
    settle(host);
    if (const char* dir = std::getenv("CP_UI_TEST_SHOTS"))
        if (auto shot = host.screenshot()) render::write_png(std::string(dir) + "/thread_order.png", *shot);
}
