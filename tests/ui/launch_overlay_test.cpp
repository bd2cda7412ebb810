// The launch overlay's ImGui-free parts: who owns a pixel (2D and 1D launches, pixels past the grid) and
// the overlay image (block edges, hatched never-written pixels, nothing drawn where no thread maps).
#include "ui/state/launch_overlay.h"

#include <gtest/gtest.h>

#include <array>
#include <cstring>
#include <string>

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

// The overlay, pixel by pixel, against what the test derives from owner_of_pixel and the colour rules: 2D and
// 1D launches whose grids stop short of the image or run past it, blocks that do not divide the image, every
// colour mode, edges on and off, and coverage (never written, written by several threads) on top. Images of
// over a million pixels are drawn in bands on several threads; rows are copied where they repeat.
TEST(LaunchOverlay, EveryPixelAsItsOwnerSays) {
    struct Case {
        int w, h;
        Dim3 grid, block;
    };
    const Case cases[] = {
        {203, 77, Dim3{10, 9, 1}, Dim3{16, 8, 1}},     // grid short of the image in x and y
        {203, 77, Dim3{14, 11, 1}, Dim3{16, 8, 1}},    // grid past the image
        {203, 77, Dim3{7, 77, 1}, Dim3{32, 1, 1}},     // 2D grid of one-row blocks
        {203, 77, Dim3{100, 1, 1}, Dim3{128, 1, 1}},   // 1D, short of the image
        {1283, 1041, Dim3{81, 131, 1}, Dim3{16, 8, 1}},  // over a million pixels: bands
        {1283, 1041, Dim3{5000, 1, 1}, Dim3{256, 1, 1}},  // 1D, bands
    };
    const OverlayColour modes[] = {OverlayColour::None, OverlayColour::Block, OverlayColour::Warp, OverlayColour::Lane,
                                   OverlayColour::ThreadInBlock, OverlayColour::Coverage};
    for (const Case& c : cases) {
        CoverageMap coverage;
        coverage.elements = uint64_t(c.w) * c.h;
        coverage.unwritten.assign(coverage.elements, 0);
        coverage.writers.assign(coverage.elements, 1);
        for (uint64_t i = 0; i < coverage.elements; i += 37) coverage.unwritten[i] = 1, coverage.writers[i] = 0;
        for (uint64_t i = 5; i < coverage.elements; i += 53)
            if (!coverage.unwritten[i]) coverage.writers[i] = 2, ++coverage.written_more_than_once;
        for (const bool with_coverage : {false, true})
            for (const OverlayColour mode : modes)
                for (const bool edges : {false, true}) {
                    OverlaySettings s;
                    s.colour = mode;
                    s.boundaries = edges;
                    s.alpha = 150;
                    const OverlayInput in{c.w, c.h, c.grid, c.block, 32, nullptr, with_coverage ? &coverage : nullptr};
                    const std::vector<uint8_t> rgba = render_overlay(in, s);
                    ASSERT_EQ(rgba.size(), size_t(c.w) * c.h * 4);
                    const bool one_d = c.grid.y == 1 && c.block.y == 1;
                    size_t wrong = 0;
                    std::string first_wrong;
                    for (int y = 0; y < c.h; ++y)
                        for (int x = 0; x < c.w; ++x) {
                            const uint64_t e = uint64_t(y) * c.w + x;
                            uint8_t want[4] = {0, 0, 0, 0};
                            const auto owner = owner_of_pixel(x, y, c.w, c.grid, c.block, 32);
                            if (with_coverage && coverage.unwritten[e]) {
                                const bool stripe = ((x + y) / 4) % 2 == 0;
                                want[0] = 255, want[1] = want[2] = stripe ? 40 : 0, want[3] = stripe ? 230 : 160;
                            } else if (with_coverage && coverage.writers[e] > 1) {
                                const bool stripe = ((x + c.h - y) / 4) % 2 == 0;
                                want[0] = stripe ? 40 : 0, want[1] = stripe ? 200 : 120, want[2] = 235;
                                want[3] = stripe ? 230 : 160;
                            } else if (owner) {
                                const bool edge = one_d ? owner->thread_idx.x == 0
                                                        : owner->thread_idx.x == 0 || owner->thread_idx.y == 0;
                                if (edges && edge) {
                                    want[0] = want[1] = want[2] = 255, want[3] = 200;
                                } else if (mode == OverlayColour::Coverage) {
                                    want[0] = 40, want[1] = 200, want[2] = 80, want[3] = 75;
                                } else {
                                    strip_element_rgba(owner, s, want);  // the hue of the block, warp, lane or thread
                                }
                            }
                            const uint8_t* got = rgba.data() + e * 4;
                            if (std::memcmp(got, want, 4) != 0 && wrong++ == 0)
                                first_wrong = "(" + std::to_string(x) + ", " + std::to_string(y) + ")";
                        }
                    EXPECT_EQ(wrong, 0u) << c.w << "x" << c.h << " mode " << overlay_colour_name(mode) << " edges "
                                         << edges << " coverage " << with_coverage << ": first at " << first_wrong;
                }
    }
}

// The SM view: a block's pixels take its unit's colour (blocks on one unit share it), blocks the trace does
// not list stay transparent; 1283x1041 is drawn in bands.
TEST(LaunchOverlay, SmViewColoursBlocksByTheirUnit) {
    const int w = 1283, h = 1041;
    const Dim3 grid{81, 131, 1}, block{16, 8, 1};
    LaunchTrace trace;
    for (uint64_t b = 0; b + 1 < grid.count(); ++b) trace.blocks.push_back(BlockTrace{b, uint32_t(b % 5), 0, 0});
    OverlaySettings s;
    s.colour = OverlayColour::Sm;
    s.boundaries = false;
    s.alpha = 150;
    const std::vector<uint8_t> rgba = render_overlay(OverlayInput{w, h, grid, block, 32, &trace, nullptr}, s);
    std::vector<std::array<uint8_t, 4>> colour_of_unit(5);
    std::vector<bool> seen(5, false);
    size_t wrong = 0;
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            const auto owner = owner_of_pixel(x, y, w, grid, block, 32);
            std::array<uint8_t, 4> got;
            std::memcpy(got.data(), rgba.data() + (size_t(y) * w + x) * 4, 4);
            if (!owner || owner->linear_block + 1 == grid.count()) {
                wrong += got[3] != 0;  // past the grid, or the one block not in the trace
                continue;
            }
            const uint32_t unit = uint32_t(owner->linear_block % 5);
            if (!seen[unit]) seen[unit] = true, colour_of_unit[unit] = got;
            wrong += got != colour_of_unit[unit] || got[3] != 150;
        }
    EXPECT_EQ(wrong, 0u);
    for (uint32_t a = 0; a < 5; ++a)
        for (uint32_t b = a + 1; b < 5; ++b) EXPECT_NE(colour_of_unit[a], colour_of_unit[b]) << a << " " << b;
}
