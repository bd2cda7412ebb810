// The Launch panel's occupancy suggestion in the headless window: the request goes to the session on the
// runner's thread and the engine's answer is applied in the kernel's dimensionality, shown with its
// method and logged; a backend without an occupancy API and no backend at all fall back to the estimate.
// (The tests set the request flag the panel's button sets; ImGui 1.86 offers no way to find a button's
// position to click it.)
#include "ui_test_support.h"

#include "ui/state/block_suggestion.h"
#include "ui/workspace.h"

#include <gtest/gtest.h>

#include <atomic>

using namespace cp;
using namespace cp::uitest;

namespace {

// The host-kernels backend plus an occupancy API with a fixed answer (or, `fails`, an error), counting the
// questions. It says it has the API (its capabilities), as the CUDA backend does.
class OccupancyAnsweringBackend final : public ForwardingBackend {
public:
    OccupancyAnsweringBackend(std::atomic<int>& asked, bool fails = false)
        : ForwardingBackend(make_host_kernels_backend()), asked_(asked), fails_(fails) {}
    InfoResult info() override {
        InfoResult r = ForwardingBackend::info();
        r.device.caps.occupancy_api = true;
        return r;
    }
    OccupancyResult occupancy(const OccupancyRequest& r) override {
        ++asked_;
        OccupancyResult out;
        if (fails_ || r.module == 0 || r.kernel_name.empty()) {
            out.error = EngineError{"", fails_ ? "the driver said no (test)" : "no module", "", false};
            return out;
        }
        out.block_size = 768;
        out.active_blocks_per_sm = 2;
        out.occupancy = 0.75;
        out.min_grid_size = 8;
        out.method = "cuOccupancyMaxPotentialBlockSize";
        return out;
    }

private:
    std::atomic<int>& asked_;
    bool fails_;
};

class BlockSuggestionUi : public ::testing::Test {
protected:
    ScopedUserDir user_;
    std::unique_ptr<ui::AppHost> host_;

    void start(const std::string& kernel, const ui::BackendFactory& factory) {
        auto h = ui::AppHost::create(headless_options(kernel), factory);
        ASSERT_TRUE(h.ok()) << h.error().full();
        host_ = std::move(*h);
        settle(*host_);
    }
    ui::Workspace& ws() { return host_->workspace(); }
    void press_suggest() {
        ws().block_suggestion().requested = true;
        settle(*host_);
    }
};

TEST_F(BlockSuggestionUi, TheOccupancyApisAnswerIsAppliedIn2DShownAndLogged) {
    std::atomic<int> asked{0};
    start("image/box_blur.cu", [&asked]() -> Result<std::unique_ptr<Backend>> {
        return std::unique_ptr<Backend>(std::make_unique<OccupancyAnsweringBackend>(asked));
    });
    ASSERT_TRUE(ws().latest() && ws().latest()->report.launched);
    press_suggest();
    EXPECT_EQ(asked.load(), 1);
    EXPECT_FALSE(ws().block_suggestion().pending);
    // 768 threads for a 2D image filter: rows of a warp, 24 of them.
    EXPECT_EQ(ws().inputs().choices.block, std::optional<Dim3>(Dim3{32, 24, 1}));
    EXPECT_EQ(ws().block_suggestion().shown, "CUDA occupancy API: 768 threads as 32x24x1, 2 blocks/SM, 75% occupancy");
    EXPECT_TRUE(console_has(ws(), "CUDA occupancy API: 768 threads"));
    // The suggestion re-ran the kernel with it.
    ASSERT_TRUE(ws().latest() && ws().latest()->report.launched);
    EXPECT_EQ(ws().latest()->report.resolved->block, (Dim3{32, 24, 1}));
    EXPECT_EQ(ws().latest()->report.resolved->grid, (Dim3{19, 17, 1}));  // ceil(600/32) x ceil(400/24)
}

TEST_F(BlockSuggestionUi, OneDimensionalKernelsKeepARow) {
    std::atomic<int> asked{0};
    start("basics/vector_add.cu", [&asked]() -> Result<std::unique_ptr<Backend>> {
        return std::unique_ptr<Backend>(std::make_unique<OccupancyAnsweringBackend>(asked));
    });
    press_suggest();
    EXPECT_EQ(ws().inputs().choices.block, std::optional<Dim3>(Dim3{768, 1, 1}));
    ASSERT_TRUE(ws().latest());
    EXPECT_EQ(ws().latest()->report.resolved->block, (Dim3{768, 1, 1}));
}

TEST_F(BlockSuggestionUi, ABackendWithoutTheApiIsNotAskedAndTheEstimateSaysSo) {
    start("image/box_blur.cu", host_kernels_factory());  // its capabilities: no occupancy API
    press_suggest();
    const std::string& shown = ws().block_suggestion().shown;
    EXPECT_EQ(shown.rfind("estimate from resource usage (the cpu backend has no occupancy API): ", 0), 0u) << shown;
    EXPECT_TRUE(console_has(ws(), "has no occupancy API")) << "the reason is logged";
    ASSERT_TRUE(ws().inputs().choices.block.has_value());
    EXPECT_GT(ws().inputs().choices.block->y, 1u) << "a 2D kernel gets a 2D block: " << ws().inputs().choices.block->str();
    EXPECT_EQ(ws().inputs().choices.block->count() % 32, 0u);
}

TEST_F(BlockSuggestionUi, WhenTheApiFailsTheEstimateStandsInAndTheReasonIsLogged) {
    std::atomic<int> asked{0};
    start("image/box_blur.cu", [&asked]() -> Result<std::unique_ptr<Backend>> {
        return std::unique_ptr<Backend>(std::make_unique<OccupancyAnsweringBackend>(asked, true));
    });
    press_suggest();
    EXPECT_EQ(asked.load(), 1);
    const std::string& shown = ws().block_suggestion().shown;
    EXPECT_EQ(shown.rfind("estimate from resource usage (the backend could not answer): ", 0), 0u) << shown;
    EXPECT_TRUE(console_has(ws(), "Occupancy API unavailable: the driver said no (test)")) << "the reason is logged";
    ASSERT_TRUE(ws().inputs().choices.block.has_value());
    EXPECT_GT(ws().inputs().choices.block->y, 1u) << "a 2D kernel gets a 2D block: " << ws().inputs().choices.block->str();
    EXPECT_EQ(ws().inputs().choices.block->count() % 32, 0u);
}

TEST_F(BlockSuggestionUi, WithoutABackendTheEstimateSaysSo) {
    start("image/box_blur.cu", no_backend_factory("no NVIDIA driver found (test)"));
    press_suggest();
    const std::string& shown = ws().block_suggestion().shown;
    EXPECT_NE(shown.find("estimate from resource usage (nothing runs kernels here"), std::string::npos) << shown;
    EXPECT_TRUE(console_has(ws(), "estimate from resource usage"));
    ASSERT_TRUE(ws().inputs().choices.block.has_value());
    EXPECT_GT(ws().inputs().choices.block->y, 1u) << ws().inputs().choices.block->str();
}

}  // namespace
