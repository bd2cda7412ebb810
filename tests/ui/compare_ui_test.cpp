// Comparisons in the window (issue 8 item 4): a lesson with `compare:` opens with its variants side by side, one
// column each with its own output view holding that kernel's values (read back from the textures and compared
// with values computed here, on a size that is not a multiple of the block), its verdict and time; a wrong
// variant says it differs in its own column, and one that does not compile shows its error there while the
// main kernel's output stays.
#include "ui_test_support.h"

#include "core/engine/backend.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <string>
#include "test_paths.h"
#include "core/backends/registry.h"

using namespace cp;
using namespace cp::uitest;

namespace {

const std::filesystem::path kScale = std::filesystem::path(CP_TEST_DATA_DIR) / "compare" / "scale.cu";
constexpr int kWidth = 37, kHeight = 23;  // blocks of 16 x 16: neither is a multiple

// The lesson's result, computed here: in = 0.5 i (a ramp), out = 2 in + x - y.
float expected(int x, int y) {
    return 2.0f * (0.5f * float(y * kWidth + x)) + float(x) - float(y);
}

// Every element of `v`'s texture against expected() (`skip_last_column`: the wrong variant's, which it never
// writes, must hold the zeros it started with). Returns the number of elements that disagree.
int wrong_elements(const ui::OutputView& v, bool skip_last_column) {
    EXPECT_TRUE(v.raw);
    if (!v.raw) return -1;
    EXPECT_EQ(v.width, kWidth);
    EXPECT_EQ(v.height, kHeight);
    int wrong = 0;
    for (int y = 0; y < kHeight; ++y) {
        for (int x = 0; x < kWidth; ++x) {
            const double want = skip_last_column && x == kWidth - 1 ? 0.0 : double(expected(x, y));
            if (std::abs(v.raw->read_element(x, y)[0] - want) > 1e-6) ++wrong;
        }
    }
    return wrong;
}

std::filesystem::path lesson_with(const std::filesystem::path& dir, const std::string& compare_line) {
    std::string text = test::read_file(kScale);
    text.replace(text.find("compare: scale_rows"), 19, compare_line);
    const auto path = dir / "scale.cu";
    std::ofstream(path) << text;
    return path;
}

void save(ui::AppHost& host, const char* name) {
    if (const char* d = std::getenv("CP_UI_TEST_SHOTS"))
        if (auto s = host.screenshot()) render::write_png(std::string(d) + "/" + name + ".png", *s);
}

std::unique_ptr<ui::AppHost> open_lesson(const std::filesystem::path& path) {
    ui::AppOptions o = headless_options();
    o.open_file = path.string();
    o.backend = "cpu";
    o.width = 1920;
    o.height = 1080;
    o.text_size = 1.75f;  // as on the projector
    return start_settled(o, {});
}

}  // namespace

// Live re-runs (no check) read every column's output in place on the CPU backend: each column still shows its own
// kernel's values, and the wrong variant's never-written last column still holds the zeros it started with,
// although the previous run's pixels lie in the same shared memory.
TEST(CompareWindow, LiveReRunsReadEachColumnInPlaceAndStillShowUnwrittenPixels) {
    ScopedUserDir user;
    if (auto cpu = find_backend("cpu")->make(); !cpu) FAIL() << "the CPU backend is needed here and could not be made: " << cpu.error().message;
    test::TempDir dir;
    auto host = open_lesson(lesson_with(dir.path(), "compare: scale_rows scale_wrong"));
    ASSERT_TRUE(host);
    ui::Workspace& ws = host->workspace();
    ASSERT_EQ(ws.compare().columns.size(), 2u);
    const uint64_t shown = ws.outputs().views().at(0).run;
    ws.inputs().verify = false;
    ws.inputs().touch();
    settle(*host);
    ASSERT_EQ(ws.outputs().views().size(), 1u);
    ASSERT_GT(ws.outputs().views()[0].run, shown) << "no new run was shown";
    EXPECT_FALSE(ws.latest()->report.verified.has_value()) << "this run was to go unchecked";
    EXPECT_EQ(ws.outputs().views()[0].path, "host upload (in place)");
    EXPECT_EQ(wrong_elements(ws.outputs().views()[0], false), 0) << "the main kernel's view";
    const ui::VariantColumn& rows = ws.compare().columns[0];
    ASSERT_TRUE(rows.views && rows.views->views().size() == 1u);
    EXPECT_EQ(rows.views->views()[0].path, "host upload (in place)");
    EXPECT_EQ(wrong_elements(rows.views->views()[0], false), 0) << "scale_rows' view";
    const ui::VariantColumn& wrong = ws.compare().columns[1];
    ASSERT_TRUE(wrong.views && wrong.views->views().size() == 1u);
    EXPECT_EQ(wrong.views->views()[0].path, "host upload (in place)");
    EXPECT_EQ(wrong_elements(wrong.views->views()[0], true), 0) << "scale_wrong's own output, last column unwritten";
    for (const ui::VariantOutcome& v : ws.latest()->variants) {
        ASSERT_TRUE(v.report);
        EXPECT_TRUE(v.report->outputs_in_place.empty()) << "kept pointers into " << v.name << "'s buffers";
    }
}

TEST(CompareWindow, VariantsSideBySideEachWithItsOwnValuesAndVerdict) {
    ScopedUserDir user;
    if (auto cpu = find_backend("cpu")->make(); !cpu) FAIL() << "the CPU backend is needed here and could not be made: " << cpu.error().message;
    test::TempDir dir;
    auto host = open_lesson(lesson_with(dir.path(), "compare: scale_rows scale_wrong"));
    ASSERT_TRUE(host);
    ui::Workspace& ws = host->workspace();
    ASSERT_TRUE(ws.compare().active()) << "on by default for a lesson with compare:";
    ASSERT_EQ(ws.compare().columns.size(), 2u);

    ASSERT_EQ(ws.outputs().views().size(), 1u);
    EXPECT_EQ(wrong_elements(ws.outputs().views()[0], false), 0) << "the main kernel's view";
    EXPECT_EQ(ws.output_status().verified, true);

    const ui::VariantColumn& rows = ws.compare().columns[0];
    EXPECT_EQ(rows.kernel, "scale_rows");
    EXPECT_EQ(rows.verified, true) << rows.verdict << rows.error;
    ASSERT_TRUE(rows.views && rows.views->views().size() == 1u);
    EXPECT_EQ(wrong_elements(rows.views->views()[0], false), 0) << "scale_rows' view";
    EXPECT_TRUE(rows.median_ms && *rows.median_ms > 0);
    EXPECT_NE(rows.ratio.find("scale_rows: "), std::string::npos) << rows.ratio;
    EXPECT_NE(rows.ratio.find(" than scale_2d"), std::string::npos) << rows.ratio;

    const ui::VariantColumn& wrong = ws.compare().columns[1];
    EXPECT_EQ(wrong.kernel, "scale_wrong");
    EXPECT_EQ(wrong.verified, false) << "a wrong picture never reads as matching";
    EXPECT_NE(wrong.verdict.find("Differs from its CPU reference: 23 mismatches"), std::string::npos) << wrong.verdict;
    ASSERT_TRUE(wrong.views && wrong.views->views().size() == 1u);
    EXPECT_EQ(wrong_elements(wrong.views->views()[0], true), 0) << "scale_wrong's own output, last column unwritten";

    // Drawn side by side: three columns left to right, each with its image inside it.
    host->frame();
    const auto& cols = ws.output_panel().drawn_columns();
    ASSERT_EQ(cols.size(), 3u);
    for (size_t i = 0; i < cols.size(); ++i) {
        EXPECT_TRUE(cols[i].image.valid) << "column " << i << " shows its image";
        EXPECT_GE(cols[i].image.clip_x0, cols[i].x0 - 1) << i;
        EXPECT_LE(cols[i].image.clip_x1, cols[i].x1 + 1) << i;
        if (i > 0) {
            EXPECT_LE(cols[i - 1].x1, cols[i].x0) << i;
        }
    }
    EXPECT_EQ(cols[1].kernel, "scale_rows");
    EXPECT_NE(cols[2].verdict.find("Differs"), std::string::npos);
    save(*host, "compare_side_by_side");

    // Off: the next run is the main kernel's alone, and the columns go.
    ws.compare().enabled = false;
    settle(*host);
    EXPECT_TRUE(ws.compare().columns.empty());
    EXPECT_EQ(ws.output_panel().drawn_columns().size(), 0u);
}

TEST(CompareWindow, AVariantThatDoesNotCompileShowsItsErrorInItsColumnAndTheMainOutputStays) {
    ScopedUserDir user;
    if (auto cpu = find_backend("cpu")->make(); !cpu) FAIL() << "the CPU backend is needed here and could not be made: " << cpu.error().message;
    test::TempDir dir;
    std::string broken = test::read_file(kScale);
    broken.replace(broken.find("kernel: scale_2d"), 16, "kernel: scale_rows");
    broken.replace(broken.find("compare: scale_rows\n"), 20, "");
    broken.replace(broken.find("if (y >= height) return;"), 24, "if (y >= height) return not_declared;");
    std::ofstream(dir.path() / "broken.cu") << broken;
    auto host = open_lesson(lesson_with(dir.path(), "compare: broken.cu"));
    ASSERT_TRUE(host);
    ui::Workspace& ws = host->workspace();
    ASSERT_EQ(ws.compare().columns.size(), 1u);
    const ui::VariantColumn& c = ws.compare().columns[0];
    EXPECT_FALSE(c.error.empty());
    EXPECT_NE(c.error.find("not_declared"), std::string::npos) << c.error;
    EXPECT_FALSE(c.verified.has_value());
    EXPECT_FALSE(c.median_ms.has_value());
    ASSERT_TRUE(c.views);
    EXPECT_TRUE(c.views->views().empty()) << "no picture under a failure";
    EXPECT_EQ(ws.output_status().verified, true);
    ASSERT_EQ(ws.outputs().views().size(), 1u);
    EXPECT_EQ(wrong_elements(ws.outputs().views()[0], false), 0);
    host->frame();
    ASSERT_EQ(ws.output_panel().drawn_columns().size(), 2u);
    EXPECT_TRUE(ws.output_panel().drawn_columns()[0].image.valid);
    EXPECT_FALSE(ws.output_panel().drawn_columns()[1].error.empty());
    save(*host, "compare_broken_variant");
}
