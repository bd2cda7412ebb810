// Rendering coverage maps, timelines and error maps to RGBA images (launch_images.h).
#include "core/session/launch_images.h"

#include "core/data/colormap.h"
#include "core/session/coverage.h"

#include <algorithm>
#include <cmath>
#include <map>

namespace cp {
namespace {

Image blank(int w, int h, uint8_t r, uint8_t g, uint8_t b) {
    Image img;
    img.width = w;
    img.height = h;
    img.channels = 4;
    img.pixels.resize(size_t(w) * h * 4);
    for (size_t i = 0; i < img.pixels.size(); i += 4) {
        img.pixels[i] = r;
        img.pixels[i + 1] = g;
        img.pixels[i + 2] = b;
        img.pixels[i + 3] = 255;
    }
    return img;
}

void put(Image& img, int x, int y, const uint8_t* rgb) {
    if (x < 0 || y < 0 || x >= img.width || y >= img.height) return;
    uint8_t* p = img.pixels.data() + (size_t(y) * img.width + x) * 4;
    p[0] = rgb[0];
    p[1] = rgb[1];
    p[2] = rgb[2];
    p[3] = 255;
}

}  // namespace

ElementLayout element_layout(uint64_t elements, int view_width, int view_height) {
    if (view_width > 0 && view_height > 0 && uint64_t(view_width) * uint64_t(view_height) <= elements)
        return {view_width, view_height};
    const int w = int(std::clamp<uint64_t>(elements, 1, 1024));
    return {w, int(std::max<uint64_t>(1, (elements + w - 1) / w))};
}

Image render_coverage_image(const CoverageMap& c, ElementLayout layout, const Image* underlay) {
    Image img = blank(layout.width, layout.height, 0, 0, 0);
    const bool blend = underlay && underlay->width == layout.width && underlay->height == layout.height &&
                       underlay->channels == 4;
    const uint64_t n = std::min<uint64_t>(std::max(c.unwritten.size(), c.writers.size()), uint64_t(layout.width) * layout.height);
    for (uint64_t i = 0; i < n; ++i) {
        uint8_t* p = img.pixels.data() + i * 4;
        if (i < c.unwritten.size() && c.unwritten[i]) {
            p[0] = kNeverWrittenRgb[0], p[1] = kNeverWrittenRgb[1], p[2] = kNeverWrittenRgb[2];
        } else if (i < c.writers.size() && c.writers[i] > 1) {
            p[0] = kWrittenTwiceRgb[0], p[1] = kWrittenTwiceRgb[1], p[2] = kWrittenTwiceRgb[2];
        } else if (blend) {
            const uint8_t* u = underlay->pixels.data() + i * 4;
            for (int k = 0; k < 3; ++k) p[k] = uint8_t(30 + u[k] * 90 / 255);
        } else {
            p[0] = p[1] = p[2] = 64;
        }
    }
    return img;
}

std::vector<LegendEntry> coverage_legend(const CoverageMap& c) {
    const auto rgb = [](const uint8_t* v) { return std::array<uint8_t, 3>{v[0], v[1], v[2]}; };
    std::vector<LegendEntry> entries;
    if (c.not_measured.empty())
        entries.push_back({rgb(kNeverWrittenRgb), "never written: " + with_thousands(c.never_written) + " of " +
                                                      with_thousands(c.elements)});
    if (c.writers_counted)
        entries.push_back({rgb(kWrittenTwiceRgb), "written by more than one thread: " +
                                                      with_thousands(c.written_more_than_once) +
                                                      (c.written_more_than_once ? " (up to " + std::to_string(c.max_writers) + ")" : "")});
    else if (!c.writers_not_measured.empty())
        entries.push_back({{24, 24, 28}, "written more than once: not measured"});
    entries.push_back({{64, 64, 64}, c.writers_counted ? "written by one thread" : "written"});
    return entries;
}

Image render_timeline_image(const LaunchTrace& trace, int width) {
    std::map<uint32_t, int> lane;  // unit -> lane, in unit order
    uint64_t t0 = UINT64_MAX, t1 = 0;
    for (const auto& b : trace.blocks) {
        if (b.end_ns == 0 && b.start_ns == 0) continue;  // a block that recorded nothing
        lane[b.unit] = 0;
        t0 = std::min(t0, b.start_ns);
        t1 = std::max(t1, b.end_ns);
    }
    int next = 0;
    for (auto& [unit, l] : lane) l = next++;
    const int lanes = std::max(1, next);
    const int lane_h = std::clamp(900 / lanes, 3, 24);
    const int height = lanes * lane_h;
    Image img = blank(width, height, 24, 24, 28);
    for (int l = 1; l < lanes; l += 2)  // alternate lane shading
        for (int y = l * lane_h; y < (l + 1) * lane_h; ++y)
            for (int x = 0; x < width; ++x) {
                uint8_t* p = img.pixels.data() + (size_t(y) * width + x) * 4;
                p[0] = p[1] = 32, p[2] = 38;
            }
    if (t1 <= t0) return img;
    const double scale = double(width - 1) / double(t1 - t0);
    for (const auto& b : trace.blocks) {
        if (b.end_ns == 0 && b.start_ns == 0) continue;
        const int l = lane.at(b.unit);
        const int x0 = int((b.start_ns - t0) * scale), x1 = std::max(x0, int((b.end_ns - t0) * scale));
        const std::array<uint8_t, 3> rgb = index_colour(b.block, 0.65, 0.95);  // neighbouring blocks differ
        uint8_t edge[3];
        for (int k = 0; k < 3; ++k) edge[k] = uint8_t(rgb[k] / 3);
        const int y0 = l * lane_h + (lane_h > 4 ? 1 : 0), y1 = (l + 1) * lane_h - (lane_h > 4 ? 1 : 0);
        for (int y = y0; y < y1; ++y)
            for (int x = x0; x <= x1; ++x) put(img, x, y, (x == x0 && x1 - x0 > 2) ? edge : rgb.data());
    }
    return img;
}

Image render_error_image(const ErrorMap& m, ElementLayout layout) {
    Image img = blank(layout.width, layout.height, 0, 0, 0);
    const auto& table = colormap_table("magma");
    const double top = m.max_abs_error > 0 ? m.max_abs_error : 1;
    const uint64_t n = std::min<uint64_t>(m.abs_error.size(), uint64_t(layout.width) * layout.height);
    for (uint64_t i = 0; i < n; ++i) {
        const double e = m.abs_error[i];
        int k = int(std::lround(std::clamp(e / top, 0.0, 1.0) * 255));
        if (e > m.tolerance) k = std::max(k, 140);  // beyond the tolerance: always visibly red
        uint8_t* p = img.pixels.data() + i * 4;
        p[0] = table[k][0], p[1] = table[k][1], p[2] = table[k][2];
    }
    return img;
}

Image render_sweep_chart(const SweepResult& sweep, int width, int height) {
    Image img = blank(width, height, 24, 24, 28);
    const size_t n = sweep.configs.size();
    if (n == 0) return img;
    double top = 0;
    for (const SweepConfig& c : sweep.configs)
        if (c.timed()) top = std::max(top, c.median_ms);
    if (top <= 0) top = 1;
    const uint8_t grid_rgb[3] = {60, 60, 66};
    for (int k = 1; k < 4; ++k)
        for (int x = 0; x < width; ++x) put(img, x, height - k * height / 4, grid_rgb);
    const double bar = double(width) / double(n);
    for (size_t i = 0; i < n; ++i) {
        const SweepConfig& c = sweep.configs[i];
        const int x0 = int(double(i) * bar) + 1, x1 = std::max(x0, int(double(i + 1) * bar) - 2);
        const int h = c.timed() ? std::max(1, int(c.median_ms / top * (height - 10))) : height / 20;
        uint8_t rgb[3] = {80, 140, 220};
        if (!c.timed()) rgb[0] = rgb[1] = rgb[2] = 90;
        if (int(i) == sweep.best) rgb[0] = 250, rgb[1] = 190, rgb[2] = 40;
        for (int y = height - h; y < height; ++y)
            for (int x = x0; x <= x1; ++x) put(img, x, y, rgb);
        const int oy = height - 1 - int(c.predicted.occupancy * (height - 6));
        const uint8_t white[3] = {255, 255, 255};
        for (int y = oy - 1; y <= oy + 1; ++y)
            for (int x = x0; x <= x1; ++x) put(img, x, y, white);
    }
    return img;
}

}  // namespace cp
