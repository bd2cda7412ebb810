// Pixel ownership and the overlay image (launch_overlay.h).
#include "ui/state/launch_overlay.h"

#include "core/data/colormap.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <thread>

namespace cp::ui {
namespace {

// Neighbouring indices get distant hues, as the timeline PNG colours blocks (core's index_colour).
void hue_colour(uint64_t index, uint8_t* rgb) {
    const std::array<uint8_t, 3> c = index_colour(index, 0.75, 1.0);
    std::memcpy(rgb, c.data(), 3);
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

namespace {

// One row of the overlay without coverage: block colours, thread colours and edges. `first` is the row's first
// element (1D launches) or its y (2D).
struct RowPainter {
    const OverlayInput& in;
    const OverlaySettings& s;
    bool one_d;
    const std::vector<uint32_t>& unit_of_block;
    const std::vector<uint8_t>& per_thread;
    uint32_t threads;

    void paint(uint8_t* p, uint64_t lb, uint64_t tib, bool edge, uint64_t& hued_key, uint8_t* hued) const {
        if (s.boundaries && edge) {
            p[0] = p[1] = p[2] = 255, p[3] = 200;
            return;
        }
        const uint8_t* c = nullptr;
        switch (s.colour) {
            case OverlayColour::None: return;
            case OverlayColour::Coverage: p[0] = 40, p[1] = 200, p[2] = 80, p[3] = uint8_t(s.alpha / 2); return;
            case OverlayColour::Block:
            case OverlayColour::Sm: {
                uint64_t key = lb;
                if (s.colour == OverlayColour::Sm) {
                    if (lb >= unit_of_block.size() || unit_of_block[lb] == UINT32_MAX) return;
                    key = unit_of_block[lb];
                }
                if (key != hued_key) hue_colour(key, hued), hued_key = key;  // once per run of equal keys
                c = hued;
                break;
            }
            default: c = per_thread.data() + std::min<uint64_t>(tib, threads - 1) * 3;
        }
        p[0] = c[0], p[1] = c[1], p[2] = c[2], p[3] = s.alpha;
    }

    void row(uint8_t* out, int y) const {
        const int w = in.width;
        uint64_t hued_key = UINT64_MAX;
        uint8_t hued[3] = {0, 0, 0};
        if (one_d) {
            // Counters instead of a division per pixel.
            const uint64_t first = uint64_t(y) * uint64_t(w);
            uint64_t lb = first / in.block.x, tib = first % in.block.x;
            for (int x = 0; x < w; ++x) {
                if (lb >= in.grid.x) return;  // past the grid: transparent from here on
                paint(out + size_t(x) * 4, lb, tib, tib == 0, hued_key, hued);
                if (++tib == in.block.x) tib = 0, ++lb;
            }
            return;
        }
        const uint32_t by = uint32_t(y) / in.block.y, ty = uint32_t(y) % in.block.y;
        if (by >= in.grid.y) return;
        uint32_t bx = 0, tx = 0;
        for (int x = 0; x < w; ++x) {
            if (bx >= in.grid.x) return;
            paint(out + size_t(x) * 4, bx + uint64_t(in.grid.x) * by, tx + uint64_t(in.block.x) * ty, tx == 0 || ty == 0,
                  hued_key, hued);
            if (++tx == in.block.x) tx = 0, ++bx;
        }
    }

    // A row of a 2D launch whose pixels equal an earlier row's: the row above inside the same block row (block
    // colours, below the edge row), or the same row of the block row above (colours per thread). -1: none.
    int same_as(int y) const {
        if (one_d || y == 0) return -1;
        const uint32_t by = uint32_t(y) / in.block.y, ty = uint32_t(y) % in.block.y;
        if (by >= in.grid.y) return -1;
        const bool per_block = s.colour == OverlayColour::None || s.colour == OverlayColour::Coverage ||
                               s.colour == OverlayColour::Block || s.colour == OverlayColour::Sm;
        if (per_block && ty >= 2) return y - 1;
        if (!per_block && by >= 1) return y - int(in.block.y);
        return -1;
    }
};

}  // namespace

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
    const RowPainter painter{in, s, one_d, unit_of_block, per_thread, threads};
    const size_t row_bytes = size_t(w) * 4;
    const CoverageMap* coverage = in.coverage;
    const bool any_unwritten = coverage && !coverage->unwritten.empty();
    // The count comes with the per-element figures (session_writers.cpp).
    const bool any_shared = coverage && !coverage->writers.empty() && coverage->written_more_than_once > 0;
    // Whether any of this row's elements was never written: eight flags at a time.
    const auto row_unwritten = [&](uint64_t first) {
        if (!any_unwritten || first >= coverage->unwritten.size()) return false;
        const size_t n = size_t(std::min<uint64_t>(uint64_t(w), coverage->unwritten.size() - first));
        const uint8_t* f = coverage->unwritten.data() + first;
        uint64_t any = 0;
        size_t i = 0;
        for (; i + 8 <= n; i += 8) {
            uint64_t word;
            std::memcpy(&word, f + i, 8);
            any |= word;
        }
        for (; i < n; ++i) any |= f[i];
        return any != 0;
    };
    // The overlay of a 4K output is rebuilt on every change of launch or setting and must stay well inside a
    // frame: rows that repeat an earlier one are copied, and bands of rows are drawn on several threads.
    const auto band = [&](int y0, int y1) {
        for (int y = y0; y < y1; ++y) {
            uint8_t* out = rgba.data() + size_t(y) * row_bytes;
            const int same = painter.same_as(y);
            if (same >= y0) std::memcpy(out, rgba.data() + size_t(same) * row_bytes, row_bytes);
            else painter.row(out, y);
        }
        // Coverage after all the band's colours (rows are copied from rows above, which must not carry it yet).
        for (int y = y0; y < y1; ++y) {
            uint8_t* out = rgba.data() + size_t(y) * row_bytes;
            const uint64_t first = uint64_t(y) * uint64_t(w);
            const bool unwritten_here = row_unwritten(first);
            if (!unwritten_here && !any_shared) continue;
            // Coverage over the colours: hatched red where no thread wrote, hatched cyan the other way where
            // several did.
            for (int x = 0; x < w; ++x) {
                const uint64_t element = first + uint64_t(x);
                uint8_t* p = out + size_t(x) * 4;
                if (unwritten_here && element < coverage->unwritten.size() && coverage->unwritten[element]) {
                    const bool stripe = ((x + y) / 4) % 2 == 0;
                    p[0] = 255, p[1] = stripe ? 40 : 0, p[2] = stripe ? 40 : 0, p[3] = stripe ? 230 : 160;
                } else if (any_shared && element < coverage->writers.size() && coverage->writers[element] > 1) {
                    const bool stripe = ((x + h - y) / 4) % 2 == 0;
                    p[0] = stripe ? 40 : 0, p[1] = stripe ? 200 : 120, p[2] = 235, p[3] = stripe ? 230 : 160;
                }
            }
        }
    };
    const size_t pixels = size_t(w) * h;
    const unsigned bands =
        pixels < (1u << 20) ? 1u : std::clamp(std::thread::hardware_concurrency(), 1u, std::min(8u, unsigned(h)));
    if (bands == 1) {
        band(0, h);
        return rgba;
    }
    std::vector<std::thread> helpers;
    const int rows_per_band = (h + int(bands) - 1) / int(bands);
    for (unsigned b = 1; b < bands; ++b)
        if (int(b) * rows_per_band < h)
            helpers.emplace_back(band, int(b) * rows_per_band, std::min(h, int(b + 1) * rows_per_band));
    band(0, std::min(h, rows_per_band));
    for (auto& t : helpers) t.join();
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
