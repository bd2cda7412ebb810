// The launch drawn over an output (ImGui-free): who owns each pixel under the standard mapping (2D launches:
// pixel (x, y) is thread (x % bx, y % by) of block (x / bx, y / by); 1D launches index the image linearly),
// and an RGBA overlay image coloured by block, warp, lane, thread within the block, SM (from a trace) or
// coverage, with block boundaries. Built once per run or setting (a 4K image takes tens of ms on one core) and
// drawn as a texture, so the live loop pays one textured quad per frame.
#pragma once

#include "core/session/run_report.h"
#include "core/types.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace cp::ui {

enum class OverlayColour { None, Block, Warp, Lane, ThreadInBlock, Sm, Coverage };
const char* overlay_colour_name(OverlayColour c);

struct PixelOwner {
    Dim3 block_idx, thread_idx;
    uint64_t linear_block = 0;
    uint32_t thread_in_block = 0, warp = 0, lane = 0;
};

// nullopt: no thread of the launch maps to this pixel.
std::optional<PixelOwner> owner_of_pixel(int x, int y, int width, Dim3 grid, Dim3 block, int warp_size = 32);

struct OverlaySettings {
    OverlayColour colour = OverlayColour::Block;
    bool boundaries = true;  // block edges
    uint8_t alpha = 110;     // of the colour layer
    bool operator==(const OverlaySettings&) const = default;
};

// What the overlay is drawn from.
struct OverlayInput {
    int width = 0, height = 0;
    Dim3 grid, block;
    int warp_size = 32;
    const LaunchTrace* trace = nullptr;     // for OverlayColour::Sm
    const CoverageMap* coverage = nullptr;  // for OverlayColour::Coverage (and never-written pixels always)
};

// RGBA8, width x height, straight alpha, to blend over the output. Never-written pixels (when `coverage` is
// given) are striped red whatever the colour mode, so they never pass for data; pixels written by more than
// one thread (when counted) are striped cyan the other way.
std::vector<uint8_t> render_overlay(const OverlayInput& input, const OverlaySettings& settings);

// A 1D output's launch strip (the 1D views' counterpart of the image overlay). Element i's owner under the
// standard mapping (i = blockIdx.x * blockDim.x + threadIdx.x), or nullopt where that mapping names no
// thread: past the launch's threads, or when `element_per_thread` is false (a histogram bin or a total that
// many threads add to). Where the launch has fewer threads than elements, a grid-stride loop may write the
// rest: those get no owner rather than a false one, as in the 1D table.
std::optional<PixelOwner> owner_of_element(uint64_t i, bool element_per_thread, Dim3 grid, Dim3 block, int warp_size = 32);

// Element i's strip colour (RGBA, straight alpha; alpha 0 where it has no owner) in `settings`' mode (block,
// warp, lane or thread in block).
void strip_element_rgba(const std::optional<PixelOwner>& owner, const OverlaySettings& settings, uint8_t rgba[4]);

// "block (3, 1) · thread (5, 12) · warp 6 · lane 5" or "no thread of this launch maps here".
std::string describe_owner(const std::optional<PixelOwner>& owner, bool two_d);

}  // namespace cp::ui
