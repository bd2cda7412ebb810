// On a CUDA device: outputs reach their textures through CUDA-GL interop (device memory straight into the
// texture), proven by comparing the screenshot's output region with the kernel's output read back, and by
// a live update with no read-back at all. Skipped (with the reason) where there is no CUDA device.
#include "ui_test_support.h"

#include "core/cuda/cuda_backend_factory.h"

#include <gtest/gtest.h>

using namespace cp;
using namespace cp::uitest;

namespace {

bool interop_cuda_usable(std::string& why) {
    auto backend = make_cuda_backend();
    if (!backend) why = backend.error().message;
    return backend.ok();
}

ui::AppOptions interop_cuda_options(const std::string& kernel) {
    ui::AppOptions o = headless_options(kernel);
    o.backend = "cuda";
    return o;
}

}  // namespace

// Both ways a CUDA backend can run: in the CUDA worker process (the default: buffers come over as IPC
// handles) and in this process (device pointers used as they are).
class GpuInterop : public ::testing::TestWithParam<bool> {
protected:
    static ui::BackendFactory factory() {
        if (!GetParam()) return {};  // make_backend: the worker process
        return [] { return make_cuda_backend_in_process(); };
    }
};

INSTANTIATE_TEST_SUITE_P(Backends, GpuInterop, ::testing::Values(false, true),
                         [](const ::testing::TestParamInfo<bool>& p) { return p.param ? "InProcess" : "WorkerProcess"; });

TEST_P(GpuInterop, ScreenshotOutputRegionEqualsTheKernelOutputReadBack) {
    std::string why;
    if (!interop_cuda_usable(why)) GTEST_SKIP() << "no CUDA device: " << why;
    ScopedUserDir user;
    auto host = ui::AppHost::create(interop_cuda_options("image/box_blur.cu"), factory());
    ASSERT_TRUE(host.ok()) << host.error().full();
    ui::Workspace& ws = (*host)->workspace();
    ASSERT_TRUE(ws.interop_active()) << ws.device_status().output_path;
    settle(**host);
    ASSERT_TRUE(ws.latest() && ws.latest()->report.launched) << (ws.latest() && ws.latest()->report.error ? ws.latest()->report.error->full() : "");
    const RunReport& r = ws.latest()->report;
    EXPECT_EQ(r.backend, "cuda");
    EXPECT_EQ(r.verified, std::optional<bool>(true));
    ASSERT_EQ(r.outputs.count("dst"), 1u) << "the first run reads back (to verify)";
    ASSERT_FALSE(ws.outputs().views().empty());
    EXPECT_EQ(ws.outputs().views()[0].path, "device copy (CUDA-GL interop)") << "the texture must come from device memory";
    show_output_at_100_percent(**host);
    const size_t compared = expect_screen_matches_output(**host, r.outputs.at("dst"), 600);
    EXPECT_GT(compared, 200u * 200u);
}

TEST_P(GpuInterop, LiveChangesUpdateTheTextureWithoutReadingBack) {
    std::string why;
    if (!interop_cuda_usable(why)) GTEST_SKIP() << "no CUDA device: " << why;
    ScopedUserDir user;
    auto host = ui::AppHost::create(interop_cuda_options("basics/thread_ids.cu"), factory());
    ASSERT_TRUE(host.ok()) << host.error().full();
    ui::Workspace& ws = (*host)->workspace();
    settle(**host);
    ASSERT_TRUE(ws.latest() && ws.latest()->report.launched);
    auto& view = ws.outputs().views().at(0);
    EXPECT_EQ(view.raw->read_element(100, 150)[0], 150.0 * 333 + 100);

    // A grid too small for the problem: with verification off nothing is read back, yet the texture
    // (read here from GL) shows the untouched elements' constant(-1).
    ws.inputs().verify = false;
    ws.inputs().choices.grid = Dim3{2, 2, 1};
    ws.inputs().touch();
    settle(**host);
    ASSERT_TRUE(ws.latest()->report.launched);
    EXPECT_TRUE(ws.latest()->report.outputs.empty()) << "a live run must not read outputs back to the host";
    EXPECT_EQ(ws.outputs().views().at(0).path, "device copy (CUDA-GL interop)");
    EXPECT_EQ(ws.outputs().views().at(0).raw->read_element(10, 20)[0], 20.0 * 333 + 10);
    EXPECT_EQ(ws.outputs().views().at(0).raw->read_element(100, 150)[0], -1.0);
}

TEST_P(GpuInterop, SourceChangeGivesNewPixels) {
    std::string why;
    if (!interop_cuda_usable(why)) GTEST_SKIP() << "no CUDA device: " << why;
    ScopedUserDir user;
    auto host = ui::AppHost::create(interop_cuda_options("image/box_blur.cu"), factory());
    ASSERT_TRUE(host.ok()) << host.error().full();
    ui::Workspace& ws = (*host)->workspace();
    settle(**host);
    const auto before = ws.outputs().views().at(0).raw->read_element(300, 200);
    // Invert the red channel in the source.
    std::string text = document_of(ws).text();
    const std::string from = "make_uchar4((sum[0] + 4) / 9,", to = "make_uchar4(255 - (sum[0] + 4) / 9,";
    ASSERT_NE(text.find(from), std::string::npos);
    text.replace(text.find(from), from.size(), to);
    ws.set_source(text, (*host)->seconds() - 5.0);
    settle(**host);
    ASSERT_TRUE(ws.latest()->report.launched) << (ws.latest()->report.error ? ws.latest()->report.error->full() : "");
    const auto after = ws.outputs().views().at(0).raw->read_element(300, 200);
    EXPECT_EQ(after[0], 255.0 - before[0]);
    EXPECT_EQ(after[1], before[1]);
    // And a compile error keeps those pixels.
    ws.set_source(text + "\nthis does not compile\n", (*host)->seconds() - 5.0);
    settle(**host);
    EXPECT_EQ(ws.latest()->report.failed_stage, RunStage::Compile);
    EXPECT_EQ(ws.outputs().views().at(0).raw->read_element(300, 200)[0], after[0]);
}
