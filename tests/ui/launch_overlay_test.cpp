// The launch overlay's ImGui-free parts: who owns a pixel (2D and 1D launches, pixels past the grid) and
// the overlay image (block edges, hatched never-written pixels, nothing drawn where no thread maps).
#include "ui/state/launch_overlay.h"

#include <gtest/gtest.h>

using namespace cp;
using namespace cp::ui;

TEST(LaunchOverlay, OwnerOfPixelIn2DAnd1DLaunches) {
    // 16x8 blocks: pixel (37, 21) is thread (5, 5) of block (2, 2); thread 5 + 16 * 5 = 85: warp 2, lane 21.
    auto o = owner_of_pixel(37, 21, 100, Dim3{3, 3, 1}, Dim3{16, 8, 1});
    ASSERT_TRUE(o.has_value());
    EXPECT_EQ(o->block_idx, (Dim3{2, 2, 0}));
    EXPECT_EQ(o->thread_idx, (Dim3{5, 5, 0}));
    EXPECT_EQ(o->linear_block, 2u + 3u * 2u);
    EXPECT_EQ(o->thread_in_block, 85u);
    EXPECT_EQ(o->warp, 2u);
    EXPECT_EQ(o->lane, 21u);
    EXPECT_FALSE(owner_of_pixel(48, 0, 100, Dim3{3, 3, 1}, Dim3{16, 8, 1}).has_value()) << "past the grid in x";
    EXPECT_EQ(describe_owner(std::nullopt, true), "no thread of this launch maps here");
    // 1D: element 511 of a 100-wide image is thread 255 of block 1; element 512 is past a 2-block grid.
    auto l = owner_of_pixel(11, 5, 100, Dim3{2, 1, 1}, Dim3{256, 1, 1});
    ASSERT_TRUE(l.has_value());
    EXPECT_EQ(l->block_idx.x, 1u);
    EXPECT_EQ(l->thread_idx.x, 255u);
    EXPECT_EQ(l->warp, 7u);
    EXPECT_EQ(l->lane, 31u);
    EXPECT_EQ(describe_owner(l, false), "block (1) · thread (255) · warp 7 · lane 31");
    EXPECT_FALSE(owner_of_pixel(12, 5, 100, Dim3{2, 1, 1}, Dim3{256, 1, 1}).has_value());
}

TEST(LaunchOverlay, EdgesCoverageAndUnmappedPixels) {
    const int w = 50, h = 20;
    CoverageMap coverage;
    coverage.buffer = "dst";
    coverage.elements = uint64_t(w) * h;
    coverage.unwritten.assign(coverage.elements, 0);
    for (int y = 0; y < h; ++y)
        for (int x = 32; x < w; ++x) coverage.unwritten[size_t(y) * w + x] = 1;  // a 2x3 grid of 16x8 reaches x < 32
    OverlayInput in{w, h, Dim3{2, 3, 1}, Dim3{16, 8, 1}, 32, nullptr, &coverage};
    OverlaySettings s;
    s.colour = OverlayColour::Block;
    s.alpha = 100;
    const std::vector<uint8_t> rgba = render_overlay(in, s);
    ASSERT_EQ(rgba.size(), size_t(w) * h * 4);
    auto px = [&](int x, int y) { return rgba.data() + (size_t(y) * w + x) * 4; };
    EXPECT_EQ(px(16, 3)[0], 255);  // block edge (tx == 0): white
    EXPECT_EQ(px(16, 3)[1], 255);
    EXPECT_EQ(px(5, 3)[3], 100);   // inside a block: the colour layer's alpha
    EXPECT_EQ(px(40, 3)[0], 255);  // never written: red
    EXPECT_LT(px(40, 3)[1], 50);
    EXPECT_GE(px(40, 3)[3], 160);
    // Different blocks get different colours.
    EXPECT_NE(std::vector<uint8_t>(px(5, 3), px(5, 3) + 3), std::vector<uint8_t>(px(21, 3), px(21, 3) + 3));
    // Without coverage, pixels no thread maps to stay transparent.
    in.coverage = nullptr;
    const std::vector<uint8_t> plain = render_overlay(in, s);
    EXPECT_EQ(plain[(size_t(3) * w + 40) * 4 + 3], 0);
}
