// Once CUDA-GL interop is caught leaving a texture stale (after a kernel faulted on the GPU), no picture of the
// process goes through it again: the compare columns after it come from host memory without a copy being
// tried (a texture registration may spin in the driver for minutes then), and runs read their outputs back.
// A fake copier that "copies" nothing stands in for the driver; the run is a real one on the CPU backend.
#include "ui_test_support.h"

#include "core/cuda/cuda_backend_factory.h"
#include "core/engine/backend.h"
#include "core/kernel_file/kernel_file.h"
#include "render/colormap_pass.h"
#include "render/render_target.h"
#include "ui/state/console_log.h"
#include "ui/state/output_views.h"

#include <gtest/gtest.h>

#include "test_paths.h"
#include "core/backends/registry.h"

using namespace cp;

namespace {

// Reports every copy as done and leaves the texture as it was: what the driver did after a fault.
class StaleCopier : public render::DeviceCopier {
public:
    int copies = 0;
    Result<bool> copy_to_texture(uint64_t, size_t, size_t, unsigned) override {
        ++copies;
        return true;
    }
    void forget(unsigned) override {}
    Result<uint64_t> import_ipc(const std::vector<uint8_t>&) override { return uint64_t(0x10000); }
    void keep_only(const std::vector<std::vector<uint8_t>>&) override {}
    std::string describe() const override { return "stale copier (test)"; }
};

struct TrustAgain {
    ~TrustAgain() {
        render::trust_interop_again_for_tests();
        forget_gpu_faults_in_this_process_for_tests();
    }
};

// box_blur run for real on the CPU backend, its outputs handed over as if they were the CUDA worker's.
struct BlurRun {
    std::optional<KernelFile> file;
    RunReport report;
};
BlurRun blur_run() {
    BlurRun out;
    auto backend = find_backend("cpu")->make();
    if (!backend) return out;
    Engine engine(std::move(*backend));
    KernelSession session(engine);
    auto file = load_kernel_file(std::string(CP_SOURCE_DIR) + "/kernels/image/box_blur.cu");
    if (!file) return out;
    session.set_kernel(*file);
    out.report = session.run();
    for (const auto& [name, host] : out.report.outputs) out.report.ipc_handles[name] = {1, 2, 3};
    out.file = std::move(*file);
    return out;
}

}  // namespace

TEST(InteropDistrust, AStaleCopySendsEveryLaterPictureThroughHostMemory) {
    auto target = render::make_headless_target({64, 64, ""});
    if (!target) GTEST_SKIP() << "no headless OpenGL: " << target.error().full();
    auto colormap = render::ColormapPass::create();
    ASSERT_TRUE(colormap.ok()) << colormap.error().full();
    auto backend = find_backend("cpu")->make();
    if (!backend) FAIL() << "the CPU backend is needed here and could not be made: " << backend.error().message;
    Engine engine(std::move(*backend));
    KernelSession session(engine);
    auto file = load_kernel_file(std::string(CP_SOURCE_DIR) + "/kernels/image/box_blur.cu");
    ASSERT_TRUE(file.ok()) << file.error().full();
    session.set_kernel(*file);
    RunReport report = session.run();
    ASSERT_TRUE(report.ok()) << report.error->full();
    ASSERT_TRUE(report.resolved);
    ASSERT_FALSE(report.outputs.empty());
    // As if the buffers were the CUDA worker's: every view has a handle to import.
    for (const auto& [name, host] : report.outputs) report.ipc_handles[name] = {1, 2, 3};

    const TrustAgain restore;
    render::trust_interop_again_for_tests();
    StaleCopier copier;
    ui::ConsoleLog log;
    ui::OutputViews main_views(&copier, colormap->get()), column_views(&copier, colormap->get());
    EXPECT_FALSE(main_views.needs_host_data(*file)) << "an image view goes device to device while interop is trusted";

    main_views.update(*file, report, 1, log);
    EXPECT_EQ(copier.copies, 1);
    ASSERT_EQ(main_views.views().size(), 1u);
    EXPECT_EQ(main_views.views()[0].path, "host upload") << "the stale texture is replaced from host memory";
    EXPECT_TRUE(render::interop_distrusted());
    bool warned = false;
    for (const ui::LogEntry& e : log.entries())
        warned |= e.text.find("from now on this window shows every output from host memory") != std::string::npos;
    EXPECT_TRUE(warned);

    column_views.update(*file, report, 1, log);  // a compare column after it: no copy is even tried
    EXPECT_EQ(copier.copies, 1);
    ASSERT_EQ(column_views.views().size(), 1u);
    EXPECT_EQ(column_views.views()[0].path, "host upload");
    EXPECT_TRUE(main_views.needs_host_data(*file)) << "later runs must read their outputs back";

    // The picture is the buffer the run read back.
    const auto& host = report.outputs.begin()->second.bytes;
    std::string where;
    EXPECT_TRUE(column_views.views()[0].raw->matches_host(host.data(), host.size(), 64, &where)) << where;
}

// A kernel that faulted in this process's CUDA worker: the next pictures come from host memory without a copy
// being tried (it would stall in the driver, or leave the texture stale). The window's Console says why
// (FaultThenDisplay.SameWindowAfterAFault, on a GPU).
TEST(InteropDistrust, AFaultInThisProcessSendsEveryLaterPictureThroughHostMemory) {
    auto target = render::make_headless_target({64, 64, ""});
    if (!target) GTEST_SKIP() << "no headless OpenGL: " << target.error().full();
    auto colormap = render::ColormapPass::create();
    ASSERT_TRUE(colormap.ok()) << colormap.error().full();
    BlurRun run = blur_run();
    ASSERT_TRUE(run.file && run.report.ok());
    ASSERT_FALSE(run.report.outputs.empty());

    const TrustAgain restore;
    render::trust_interop_again_for_tests();
    forget_gpu_faults_in_this_process_for_tests();
    StaleCopier copier;
    ui::ConsoleLog log;
    ui::OutputViews views(&copier, colormap->get());
    EXPECT_FALSE(views.needs_host_data(*run.file));
    EXPECT_FALSE(render::interop_distrusted());

    const uitest::ScopedUserDir user;  // where the fault would be remembered on a machine with a GPU
    remember_gpu_fault();
    EXPECT_TRUE(render::interop_distrusted());
    EXPECT_TRUE(views.needs_host_data(*run.file)) << "runs after the fault must read their outputs back";
    views.update(*run.file, run.report, 1, log);
    views.update(*run.file, run.report, 2, log);
    EXPECT_EQ(copier.copies, 0) << "no texture may be copied through interop after a fault";
    ASSERT_EQ(views.views().size(), 1u);
    EXPECT_EQ(views.views()[0].path, "host upload");
    const auto& host = run.report.outputs.begin()->second.bytes;
    std::string where;
    EXPECT_TRUE(views.views()[0].raw->matches_host(host.data(), host.size(), 64, &where)) << where;
}
