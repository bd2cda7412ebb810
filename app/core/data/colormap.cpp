// Colormap tables built by linear interpolation between a few control points of each map; HSV colours.
#include "core/data/colormap.h"

#include <algorithm>
#include <cmath>
#include <map>

namespace cp {

namespace {

using Rgb = std::array<float, 3>;

// Control points sampled from the published maps (matplotlib's viridis/magma, Moreland's cool-warm).
const std::map<std::string, std::vector<Rgb>>& control_points() {
    static const std::map<std::string, std::vector<Rgb>> points = {
        {"gray", {{0, 0, 0}, {1, 1, 1}}},
        {"viridis",
         {{0.267f, 0.005f, 0.329f}, {0.283f, 0.141f, 0.458f}, {0.254f, 0.265f, 0.530f}, {0.207f, 0.372f, 0.553f},
          {0.164f, 0.471f, 0.558f}, {0.128f, 0.567f, 0.551f}, {0.135f, 0.659f, 0.518f}, {0.267f, 0.749f, 0.441f},
          {0.478f, 0.821f, 0.318f}, {0.741f, 0.873f, 0.150f}, {0.993f, 0.906f, 0.144f}}},
        {"magma",
         {{0.001f, 0.000f, 0.014f}, {0.078f, 0.054f, 0.212f}, {0.232f, 0.060f, 0.437f}, {0.390f, 0.100f, 0.502f},
          {0.550f, 0.161f, 0.506f}, {0.716f, 0.215f, 0.475f}, {0.868f, 0.288f, 0.409f}, {0.967f, 0.439f, 0.359f},
          {0.994f, 0.624f, 0.427f}, {0.995f, 0.812f, 0.573f}, {0.987f, 0.991f, 0.750f}}},
        {"coolwarm",
         {{0.230f, 0.299f, 0.754f}, {0.552f, 0.690f, 0.996f}, {0.865f, 0.865f, 0.865f}, {0.958f, 0.604f, 0.482f},
          {0.706f, 0.016f, 0.150f}}},
    };
    return points;
}

std::array<std::array<uint8_t, 4>, 256> build(const std::vector<Rgb>& pts) {
    std::array<std::array<uint8_t, 4>, 256> table{};
    const size_t segments = pts.size() - 1;
    for (int i = 0; i < 256; ++i) {
        const float t = float(i) / 255.0f * float(segments);
        const size_t k = std::min(segments - 1, size_t(t));
        const float f = t - float(k);
        for (int c = 0; c < 3; ++c) {
            const float v = pts[k][c] * (1 - f) + pts[k + 1][c] * f;
            table[i][c] = uint8_t(std::clamp(v * 255.0f + 0.5f, 0.0f, 255.0f));
        }
        table[i][3] = 255;
    }
    return table;
}

}  // namespace

const std::vector<std::string>& colormap_names() {
    static const std::vector<std::string> names = {"gray", "viridis", "magma", "coolwarm"};
    return names;
}

bool is_colormap(const std::string& name) { return control_points().count(name) != 0; }

const std::array<std::array<uint8_t, 4>, 256>& colormap_table(const std::string& name) {
    static const std::map<std::string, std::array<std::array<uint8_t, 4>, 256>> tables = [] {
        std::map<std::string, std::array<std::array<uint8_t, 4>, 256>> t;
        for (const auto& [n, pts] : control_points()) t[n] = build(pts);
        return t;
    }();
    auto it = tables.find(name);
    return it != tables.end() ? it->second : tables.at("gray");
}

std::array<uint8_t, 3> hsv_to_rgb8(double hue, double saturation, double value) {
    const double s = std::clamp(saturation, 0.0, 1.0), v = std::clamp(value, 0.0, 1.0);
    const double h = (hue - std::floor(hue)) * 6.0;  // which sixth of the circle, and how far into it
    const int sector = int(h);                       // 6 only when hue is a hair below a whole turn: red again
    const double f = h - sector, p = v * (1 - s), q = v * (1 - s * f), t = v * (1 - s * (1 - f));
    double r = v, g = t, b = p;
    switch (sector % 6) {
        case 1: r = q, g = v, b = p; break;
        case 2: r = p, g = v, b = t; break;
        case 3: r = p, g = q, b = v; break;
        case 4: r = t, g = p, b = v; break;
        case 5: r = v, g = p, b = q; break;
        default: break;
    }
    // Rounded, not truncated: a channel that is 1 up to rounding (q at a sector's end) is 255, not 254.
    const auto byte = [](double x) { return uint8_t(std::lround(std::clamp(x, 0.0, 1.0) * 255.0)); };
    return {byte(r), byte(g), byte(b)};
}

std::array<uint8_t, 3> index_colour(uint64_t index, double saturation, double value) {
    return hsv_to_rgb8(std::fmod(double(index) * 0.61803398875, 1.0), saturation, value);
}

}  // namespace cp
