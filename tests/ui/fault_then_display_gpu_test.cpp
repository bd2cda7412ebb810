// After a kernel faults on the GPU, the next good kernel's picture is right (issue 10, item 4): in the same
// window (the worker is replaced), and in a new process after another process's kernel faulted. The
// screenshot's output region must equal the output read back; a texture the interop copy left stale must be
// caught (the view then says "host upload") rather than shown under "Matches the CPU reference".
// Skipped (with the reason) where there is no CUDA device. Run these before other GPU tests on a fresh GPU.
#include "ui_test_support.h"

#include "core/cuda/cuda_backend_factory.h"
#include "support/process.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include "test_paths.h"

using namespace cp;
using namespace cp::uitest;

namespace {

bool cuda_usable(std::string& why) {
    auto backend = make_cuda_backend();
    if (!backend) why = backend.error().message;
    return backend.ok();
}

// thread_ids' kernel, but writing 2^36 floats past its buffer: CUDA_ERROR_ILLEGAL_ADDRESS.
std::string faulting(std::string text) {
    const size_t brace = text.find('{', text.find("__global__"));
    text.insert(brace + 1, "\n    if (threadIdx.x == 0) ((float*)0)[1ull << 36] = 1.0f;\n");
    return text;
}

// What the window said, for a person reading a failure (and the screen, where CP_UI_TEST_SHOTS names a folder).
void dump_state(ui::AppHost& host, ui::Workspace& ws, const char* name) {
    for (const auto& e : ws.console().entries()) std::printf("console: %s\n", e.text.c_str());
    if (const char* dir = std::getenv("CP_UI_TEST_SHOTS"))
        if (auto shot = host.screenshot(); shot.ok()) render::write_png(std::string(dir) + "/" + name + ".png", *shot);
}

void expect_good_picture(ui::AppHost& host, ui::Workspace& ws) {
    settle(host);
    const std::string test = ::testing::UnitTest::GetInstance()->current_test_info()->name();
    dump_state(host, ws, test.c_str());
    ASSERT_TRUE(ws.latest() && ws.latest()->report.launched)
        << (ws.latest() && ws.latest()->report.error ? ws.latest()->report.error->full() : "");
    const RunReport& r = ws.latest()->report;
    EXPECT_EQ(r.verified, std::optional<bool>(true))
        << "outcome " << r.outcome << "; " << (r.error ? r.error->full() : "no error") << "; " << r.mismatch_detail;
    ASSERT_EQ(r.outputs.count("ids"), 1u) << "outputs read back: " << r.outputs.size();
    std::printf("output path: %s\n", ws.outputs().views().at(0).path.c_str());
    show_output_at_100_percent(host);
    // thread_ids' `ids` are ints shown through viridis: each pixel must be the colour of the value read back.
    const size_t compared = expect_screen_matches_colormapped(host, r.outputs.at("ids"), 333, "viridis");
    EXPECT_GT(compared, 100u * 100u);
}

ui::AppOptions cuda_options(const std::string& kernel) {
    ui::AppOptions o = headless_options(kernel);
    o.backend = "cuda";
    return o;
}

}  // namespace

TEST(FaultThenDisplay, SameWindowAfterAFault) {
    std::string why;
    if (!cuda_usable(why)) GTEST_SKIP() << "no CUDA device: " << why;
    ScopedUserDir user;
    auto host = ui::AppHost::create(cuda_options("basics/thread_ids.cu"));
    ASSERT_TRUE(host.ok()) << host.error().full();
    ui::Workspace& ws = (*host)->workspace();
    settle(**host);
    const std::string good = document_of(ws).text();
    ws.set_source(faulting(good), (*host)->seconds() - 5.0);
    settle(**host);
    ASSERT_TRUE(ws.latest());
    EXPECT_FALSE(ws.latest()->report.launched && ws.latest()->report.verified == std::optional<bool>(true))
        << "the faulting kernel must not pass";
    ws.set_source(good, (*host)->seconds() - 5.0);
    settle(**host);
    // A run after an edit is not checked unless asked ("verify every run"); Run (F5) always reads back and checks.
    ws.request_run();
    expect_good_picture(**host, ws);
}

TEST(FaultThenDisplay, NewProcessAfterAnotherProcessFaulted) {
    std::string why;
    if (!cuda_usable(why)) GTEST_SKIP() << "no CUDA device: " << why;
    test::TempDir dir;
    std::ifstream in(std::string(CP_SOURCE_DIR) + "/kernels/basics/thread_ids.cu");
    std::stringstream text;
    text << in.rdbuf();
    const auto bad = dir.path() / "thread_ids_fault.cu";
    std::ofstream(bad) << faulting(text.str());
    const test::ProcessResult r = test::run_process({CP_BINARY, "run", bad.string(), "--backend", "cuda", "--repeat", "1"});
    EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
    ScopedUserDir user;
    auto host = ui::AppHost::create(cuda_options("basics/thread_ids.cu"));
    ASSERT_TRUE(host.ok()) << host.error().full();
    expect_good_picture(**host, (*host)->workspace());
}
