// Legend strips (image_legend.h): stb_easy_font gives each label as axis-aligned quads, filled here.
#include "core/data/image_legend.h"

#include <algorithm>
#include <cstring>

#include <stb_easy_font.h>

namespace cp {
namespace {

constexpr uint8_t kBackground[3] = {24, 24, 28};

void fill(Image& img, int x0, int y0, int x1, int y1, const uint8_t* rgb) {
    x0 = std::max(x0, 0), y0 = std::max(y0, 0), x1 = std::min(x1, img.width), y1 = std::min(y1, img.height);
    for (int y = y0; y < y1; ++y)
        for (int x = x0; x < x1; ++x) {
            uint8_t* p = img.pixels.data() + (size_t(y) * img.width + x) * 4;
            p[0] = rgb[0], p[1] = rgb[1], p[2] = rgb[2], p[3] = 255;
        }
}

// The label's quads at (x, y), each font unit `scale` pixels.
void text(Image& img, int x, int y, const std::string& label, int scale) {
    std::vector<char> buffer(label.size() * 270 + 64);  // stb_easy_font: at most ~270 bytes of quads a character
    std::vector<char> chars(label.begin(), label.end());
    chars.push_back('\0');
    const int quads = stb_easy_font_print(0, 0, chars.data(), nullptr, buffer.data(), int(buffer.size()));
    const uint8_t white[3] = {235, 235, 235};
    for (int q = 0; q < quads; ++q) {
        float v[4][4];  // x, y, z, colour bits per vertex
        std::memcpy(v, buffer.data() + size_t(q) * 64, 64);
        fill(img, x + int(v[0][0] * scale), y + int(v[0][1] * scale), x + int(v[2][0] * scale),
             y + int(v[2][1] * scale), white);
    }
}

}  // namespace

Image with_legend(const Image& image, const std::vector<LegendEntry>& entries) {
    const int scale = image.width >= 640 ? 2 : 1;
    const int line = 12 * scale, swatch = 8 * scale, pad = 4 * scale;
    int text_width = 0;
    for (const auto& e : entries) {
        std::vector<char> chars(e.label.begin(), e.label.end());
        chars.push_back('\0');
        text_width = std::max(text_width, stb_easy_font_width(chars.data()) * scale);
    }
    Image out;
    out.channels = 4;
    out.width = std::max(image.width, pad + swatch + pad + text_width + pad);
    out.height = image.height + pad + int(entries.size()) * line + pad;
    out.pixels.assign(size_t(out.width) * out.height * 4, 0);
    fill(out, 0, 0, out.width, out.height, kBackground);
    for (int y = 0; y < image.height; ++y)
        std::memcpy(out.pixels.data() + size_t(y) * out.width * 4, image.pixels.data() + size_t(y) * image.width * 4,
                    size_t(image.width) * 4);
    int y = image.height + pad;
    for (const auto& e : entries) {
        fill(out, pad, y + (line - swatch) / 2, pad + swatch, y + (line - swatch) / 2 + swatch, e.rgb.data());
        text(out, pad + swatch + pad, y + (line - 7 * scale) / 2 - scale, e.label, scale);
        y += line;
    }
    return out;
}

}  // namespace cp
