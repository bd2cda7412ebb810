// Colormap tables built by linear interpolation between a few control points of each map.
#include "core/data/colormap.h"

#include <algorithm>
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

}  // namespace cp
