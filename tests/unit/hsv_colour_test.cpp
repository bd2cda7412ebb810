// The one HSV conversion (core/data/colormap.h) that colours blocks, warps, lanes and units in the overlay, the
// timeline PNG and the Memory panel: known colours, and an independent formula (chroma and offset) over a grid.
#include "core/data/colormap.h"

#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <set>

namespace cp {
namespace {

using Rgb = std::array<uint8_t, 3>;

uint8_t byte(double x) { return uint8_t(std::lround(x * 255.0)); }

// The textbook's other form: chroma C = v*s, the second-largest channel X = C*(1 - |h' mod 2 - 1|), all three
// lifted by m = v - C. It shares no code or intermediate values with hsv_to_rgb8's p/q/t form.
Rgb chroma_reference(double hue, double s, double v) {
    const double h = (hue - std::floor(hue)) * 6.0;
    const double c = v * s, x = c * (1 - std::fabs(std::fmod(h, 2.0) - 1)), m = v - c;
    double r = 0, g = 0, b = 0;
    if (h < 1) r = c, g = x;
    else if (h < 2) r = x, g = c;
    else if (h < 3) g = c, b = x;
    else if (h < 4) g = x, b = c;
    else if (h < 5) r = x, b = c;
    else r = c, b = x;
    return {byte(r + m), byte(g + m), byte(b + m)};
}

// The six corners of the colour wheel, at full saturation and value: each sector starts on one.
const std::array<Rgb, 7> kCorners = {{{255, 0, 0},
                                      {255, 255, 0},
                                      {0, 255, 0},
                                      {0, 255, 255},
                                      {0, 0, 255},
                                      {255, 0, 255},
                                      {255, 0, 0}}};  // a whole turn: red again

TEST(HsvColour, PureHuesAreTheWheelsCorners) {
    for (int k = 0; k <= 6; ++k) EXPECT_EQ(hsv_to_rgb8(k / 6.0, 1.0, 1.0), kCorners[size_t(k)]) << "hue " << k << "/6";
}

// Just before and just after each sector boundary the colour is the corner's (to the nearest level): the sector
// is chosen by the hue, and a channel that is 1 up to rounding is 255, not 254.
TEST(HsvColour, EachSectorBoundaryIsContinuous) {
    for (int k = 0; k <= 6; ++k) {
        for (double d : {-1e-12, 1e-12}) {
            const Rgb got = hsv_to_rgb8(k / 6.0 + d, 1.0, 1.0);
            EXPECT_EQ(got, kCorners[size_t(k)]) << "hue " << k << "/6 " << (d < 0 ? "-" : "+") << " 1e-12";
        }
    }
}

TEST(HsvColour, MiddleOfASectorMixesItsCorners) {
    // Half way from red to yellow: green half on (127.5 rounds up); with value 0.5 every channel halves.
    EXPECT_EQ(hsv_to_rgb8(1 / 12.0, 1.0, 1.0), (Rgb{255, byte(0.5), 0}));
    EXPECT_EQ(hsv_to_rgb8(7 / 12.0, 1.0, 0.5), (Rgb{0, byte(0.25), byte(0.5)}));  // between cyan and blue
}

TEST(HsvColour, NoSaturationIsGreyOfTheValueWhateverTheHue) {
    for (double v : {0.0, 0.2, 0.5, 0.95, 1.0})
        for (double hue : {0.0, 0.3, 0.71, 0.999}) {
            const uint8_t grey = byte(v);
            EXPECT_EQ(hsv_to_rgb8(hue, 0.0, v), (Rgb{grey, grey, grey})) << "hue " << hue << " value " << v;
        }
    EXPECT_EQ(hsv_to_rgb8(0.4, 1.0, 0.0), (Rgb{0, 0, 0}));  // no value: black at any saturation
}

TEST(HsvColour, HueWrapsAndOutOfRangeSaturationAndValueAreClamped) {
    EXPECT_EQ(hsv_to_rgb8(1.25, 0.6, 0.8), hsv_to_rgb8(0.25, 0.6, 0.8));
    EXPECT_EQ(hsv_to_rgb8(-0.25, 0.6, 0.8), hsv_to_rgb8(0.75, 0.6, 0.8));
    EXPECT_EQ(hsv_to_rgb8(0.5, 2.0, 3.0), hsv_to_rgb8(0.5, 1.0, 1.0));
    EXPECT_EQ(hsv_to_rgb8(0.5, -1.0, -1.0), (Rgb{0, 0, 0}));
}

// A grid of 97 hues (not a multiple of 6: points inside sectors) by saturations and values, against the chroma
// form; the two roundings may differ by one level where the exact value is a half.
TEST(HsvColour, AgreesWithTheChromaFormulaOverAGrid) {
    int compared = 0;
    for (int i = 0; i < 97; ++i)
        for (double s : {0.0, 0.3, 0.45, 0.65, 0.75, 1.0})
            for (double v : {0.1, 0.5, 0.95, 1.0}) {
                const double hue = i / 97.0;
                const Rgb got = hsv_to_rgb8(hue, s, v), want = chroma_reference(hue, s, v);
                for (int c = 0; c < 3; ++c)
                    EXPECT_LE(std::abs(int(got[size_t(c)]) - int(want[size_t(c)])), 1)
                        << "hue " << hue << " s " << s << " v " << v << " channel " << c;
                ++compared;
            }
    EXPECT_EQ(compared, 97 * 6 * 4);
}

// index_colour steps the hue by the golden ratio's fraction: its colour is that hue's, and consecutive indices
// (blocks next to each other) never share a colour.
TEST(HsvColour, IndexColoursStepByTheGoldenRatioAndNeighboursDiffer) {
    const double phi_fraction = (std::sqrt(5.0) - 1) / 2;  // 0.618...
    for (uint64_t i : {0ull, 1ull, 2ull, 7ull, 1000ull}) {
        const double hue = std::fmod(double(i) * phi_fraction, 1.0);
        EXPECT_EQ(index_colour(i, 0.75, 1.0), hsv_to_rgb8(hue, 0.75, 1.0)) << i;
    }
    EXPECT_EQ(index_colour(0, 0.65, 0.95), (Rgb{byte(0.95), byte(0.95 * 0.35), byte(0.95 * 0.35)}));  // red
    std::set<Rgb> first_ten;
    for (uint64_t i = 0; i < 64; ++i) {
        EXPECT_NE(index_colour(i, 0.75, 1.0), index_colour(i + 1, 0.75, 1.0)) << i;
        if (i < 10) first_ten.insert(index_colour(i, 0.75, 1.0));
    }
    EXPECT_EQ(first_ten.size(), 10u);
}

}  // namespace
}  // namespace cp
