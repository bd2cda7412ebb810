// Pixel ownership and the overlay image (launch_overlay.h).
#include "ui/state/launch_overlay.h"

#include <algorithm>
#include <cmath>

namespace cp::ui {
namespace {

// Neighbouring indices get distant hues (golden-ratio steps), as the timeline PNG colours blocks.
void hue_colour(uint64_t index, uint8_t* rgb) {
    const double h = std::fmod(double(index) * 0.61803398875, 1.0) * 6.0;
    const int i = int(h);
    const double f = h - i, v = 1.0, s = 0.75, p = v * (1 - s), q = v * (1 - s * f), t = v * (1 - s * (1 - f));
    double r = v, g = t, b = p;
    switch (i % 6) {
        case 1: r = q, g = v, b = p; break;
        case 2: r = p, g = v, b = t; break;
        case 3: r = p, g = q, b = v; break;
        case 4: r = t, g = p, b = v; break;
        case 5: r = v, g = p, b = q; break;
        default: break;
    }
    rgb[0] = uint8_t(r * 255), rgb[1] = uint8_t(g * 255), rgb[2] = uint8_t(b * 255);
}

bool is_1d(Dim3 grid, Dim3 block) { return grid.y == 1 && grid.z == 1 && block.y == 1 && block.z == 1; }

}  // namespace

const char* overlay_colour_name(OverlayColour c) {
    switch (c) {
        case OverlayColour::None: return "none";
        case OverlayColour::Block: return "blockIdx";
        case OverlayColour::Warp: return "warp";
        case OverlayColour::Lane: return "lane";
        case OverlayColour::ThreadInBlock: return "thread in block";
        case OverlayColour::Sm: return "SM / worker";
        case OverlayColour::Coverage: return "coverage";
    }
    return "?";
}

std::optional<PixelOwner> owner_of_pixel(int x, int y, int width, Dim3 grid, Dim3 block, int warp_size) {
    if (x < 0 || y < 0 || width <= 0 || block.count() == 0) return std::nullopt;
    PixelOwner o;
    if (is_1d(grid, block)) {
        const uint64_t i = uint64_t(y) * uint64_t(width) + uint64_t(x);
        const uint64_t b = i / block.x;
        if (b >= grid.x) return std::nullopt;
        o.block_idx = Dim3{uint32_t(b), 0, 0};
        o.thread_idx = Dim3{uint32_t(i % block.x), 0, 0};
        o.linear_block = b;
        o.thread_in_block = o.thread_idx.x;
    } else {
        const uint64_t bx = uint64_t(x) / block.x, by = uint64_t(y) / block.y;
        if (bx >= grid.x || by >= grid.y) return std::nullopt;
        o.block_idx = Dim3{uint32_t(bx), uint32_t(by), 0};
        o.thread_idx = Dim3{uint32_t(x % block.x), uint32_t(y % block.y), 0};
        o.linear_block = bx + uint64_t(grid.x) * by;
        o.thread_in_block = o.thread_idx.x + block.x * o.thread_idx.y;
    }
    const uint32_t warp = uint32_t(std::max(warp_size, 1));
    o.warp = o.thread_in_block / warp;
    o.lane = o.thread_in_block % warp;
    return o;
}

std::vector<uint8_t> render_overlay(const OverlayInput& in, const OverlaySettings& s) {
    const int w = std::max(in.width, 0), h = std::max(in.height, 0);
    std::vector<uint8_t> rgba(size_t(w) * h * 4, 0);
    if (!w || !h || in.block.count() == 0) return rgba;
    const bool one_d = is_1d(in.grid, in.block);
    // Block index -> unit, for the SM view.
    std::vector<uint32_t> unit_of_block;
    if (s.colour == OverlayColour::Sm && in.trace) {
        unit_of_block.assign(in.grid.count(), UINT32_MAX);
        for (const BlockTrace& b : in.trace->blocks)
            if (b.block < unit_of_block.size()) unit_of_block[b.block] = b.unit;
    }
    // Colours per thread-in-block (warp, lane and thread modes repeat in every block): a small table.
    const uint32_t threads = uint32_t(std::min<uint64_t>(in.block.count(), 1024));
    std::vector<uint8_t> per_thread(size_t(threads) * 3);
    for (uint32_t t = 0; t < threads; ++t) {
        const uint32_t warp = uint32_t(std::max(in.warp_size, 1));
        uint64_t key = t;
        if (s.colour == OverlayColour::Warp) key = t / warp;
        if (s.colour == OverlayColour::Lane) key = t % warp;
        hue_colour(key, per_thread.data() + t * 3);
    }
    // A block's (or SM's) hue, computed once per run of equal keys along a row rather than per pixel: the
    // overlay of a 4K output is rebuilt on every change of launch and must stay well inside a frame.
    uint64_t hued_key = UINT64_MAX;
    uint8_t hued[3] = {0, 0, 0};
    const auto hue_of = [&](uint64_t key, uint8_t* rgb) {
        if (key != hued_key) {
            hue_colour(key, hued);
            hued_key = key;
        }
        rgb[0] = hued[0], rgb[1] = hued[1], rgb[2] = hued[2];
    };
    for (int y = 0; y < h; ++y) {
        uint8_t* row = rgba.data() + size_t(y) * w * 4;
        for (int x = 0; x < w; ++x) {
            uint8_t* p = row + size_t(x) * 4;
            const uint64_t element = uint64_t(y) * w + x;
            if (in.coverage && element < in.coverage->unwritten.size() && in.coverage->unwritten[element]) {
                const bool stripe = ((x + y) / 4) % 2 == 0;  // hatched red: never written
                p[0] = 255, p[1] = stripe ? 40 : 0, p[2] = stripe ? 40 : 0, p[3] = stripe ? 230 : 160;
                continue;
            }
            if (in.coverage && element < in.coverage->writers.size() && in.coverage->writers[element] > 1) {
                const bool stripe = ((x + h - y) / 4) % 2 == 0;  // hatched cyan the other way: several threads wrote it
                p[0] = stripe ? 40 : 0, p[1] = stripe ? 200 : 120, p[2] = 235, p[3] = stripe ? 230 : 160;
                continue;
            }
            uint64_t lb, tib;
            bool edge = false;
            if (one_d) {
                lb = element / in.block.x;
                tib = element % in.block.x;
                if (lb >= in.grid.x) continue;
                edge = tib == 0;
            } else {
                const uint32_t bx = uint32_t(x) / in.block.x, by = uint32_t(y) / in.block.y;
                if (bx >= in.grid.x || by >= in.grid.y) continue;
                const uint32_t tx = uint32_t(x) % in.block.x, ty = uint32_t(y) % in.block.y;
                lb = bx + uint64_t(in.grid.x) * by;
                tib = tx + uint64_t(in.block.x) * ty;
                edge = tx == 0 || ty == 0;
            }
            if (s.boundaries && edge) {
                p[0] = p[1] = p[2] = 255, p[3] = 200;
                continue;
            }
            uint8_t rgb[3] = {0, 0, 0};
            switch (s.colour) {
                case OverlayColour::None: continue;
                case OverlayColour::Coverage: p[0] = 40, p[1] = 200, p[2] = 80, p[3] = uint8_t(s.alpha / 2); continue;
                case OverlayColour::Block: hue_of(lb, rgb); break;
                case OverlayColour::Sm:
                    if (lb >= unit_of_block.size() || unit_of_block[lb] == UINT32_MAX) continue;
                    hue_of(unit_of_block[lb], rgb);
                    break;
                default: {
                    const uint8_t* c = per_thread.data() + std::min<uint64_t>(tib, threads - 1) * 3;
                    rgb[0] = c[0], rgb[1] = c[1], rgb[2] = c[2];
                }
            }
            p[0] = rgb[0], p[1] = rgb[1], p[2] = rgb[2], p[3] = s.alpha;
        }
    }
    return rgba;
}

std::optional<PixelOwner> owner_of_element(uint64_t i, bool element_per_thread, Dim3 grid, Dim3 block, int warp_size) {
    if (!element_per_thread || !is_1d(grid, block) || block.x == 0) return std::nullopt;
    if (i >= uint64_t(grid.x) * block.x) return std::nullopt;
    PixelOwner o;
    o.block_idx = Dim3{uint32_t(i / block.x), 0, 0};
    o.thread_idx = Dim3{uint32_t(i % block.x), 0, 0};
    o.linear_block = o.block_idx.x;
    o.thread_in_block = o.thread_idx.x;
    const uint32_t warp = uint32_t(std::max(warp_size, 1));
    o.warp = o.thread_in_block / warp;
    o.lane = o.thread_in_block % warp;
    return o;
}

void strip_element_rgba(const std::optional<PixelOwner>& owner, const OverlaySettings& s, uint8_t rgba[4]) {
    rgba[0] = rgba[1] = rgba[2] = rgba[3] = 0;
    if (!owner) return;
    uint64_t key = 0;
    switch (s.colour) {
        case OverlayColour::Block: key = owner->linear_block; break;
        case OverlayColour::Warp: key = owner->warp; break;
        case OverlayColour::Lane: key = owner->lane; break;
        case OverlayColour::ThreadInBlock: key = owner->thread_in_block; break;
        default: return;  // SM and coverage need a trace or a measurement: not in the strip
    }
    hue_colour(key, rgba);
    rgba[3] = s.alpha;
}

std::string describe_owner(const std::optional<PixelOwner>& o, bool two_d) {
    if (!o) return "no thread of this launch maps here";
    auto d = [](Dim3 v, bool two) {
        return "(" + std::to_string(v.x) + (two ? ", " + std::to_string(v.y) : std::string()) + ")";
    };
    const bool two = two_d;
    return "block " + d(o->block_idx, two) + " · thread " + d(o->thread_idx, two) + " · warp " + std::to_string(o->warp) +
           " · lane " + std::to_string(o->lane);
}

}  // namespace cp::ui
