// The Code panel in the window (issue 38): the editor's line lights its instructions in the PTX and SASS on
// screen, the editor counts each line's instructions, a click on an instruction moves the editor to its line,
// and another architecture is listed on request. No GPU: NVRTC and nvdisasm only.
#include "ui_test_support.h"

#include "ui/panels/code_panel.h"
#include "ui/workspace.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>

#include "test_paths.h"

using namespace cp;
using namespace cp::uitest;

namespace {

std::string read_text(const std::string& path) {
    std::ifstream in(path);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

// Whether the listing for `arch` is shown; first waits (on the listing's thread, up to 30 s) for one being made, so
// that the frame count of a wait does not depend on how fast this machine compiles.
bool listed(ui::Workspace& ws, const std::string& arch) {
    ws.code_view().wait_idle(30);
    const auto& shown = ws.code_view().shown();
    return shown && shown->arch == arch && ws.code_view().shown_is_latest() && !ws.code_view().busy();
}

// Pixels of the highlight (a blue band over the dark listing) inside a row's rectangle.
int band_pixels(const Image& shot, const ui::CodePanel::DrawnRow& r) {
    int n = 0;
    for (int y = int(r.y0) + 1; y < int(r.y1) - 1; ++y)
        for (int x = int(r.x0) + 1; x < int(r.x1) - 1; ++x) {
            const uint8_t* p = shot.pixels.data() + (size_t(y) * size_t(shot.width) + size_t(x)) * 4;
            if (p[2] > p[0] + 25 && p[2] > 90 && p[2] < 170) ++n;  // the band's blue, not text
        }
    return n;
}

}  // namespace

TEST(CodePanel, TheEditorsLineLightsItsInstructionsOnScreenAndAClickedInstructionMovesTheEditor) {
    ScopedUserDir user;
    const std::string path = std::string(CP_SOURCE_DIR) + "/kernels/matrix/matmul_register_blocked.cu";
    const std::string text = read_text(path);
    const int fma_line = line_of(text, "acc[i][j] += ra[i] * rb[j]");
    ASSERT_GT(fma_line, 0);
    std::smatch m;
    ASSERT_TRUE(std::regex_search(text, m, std::regex(R"(#define BK (\d+))")));
    const int bk = std::stoi(m[1]);
    ui::AppOptions o = headless_options("matrix/matmul_register_blocked.cu");
    o.backend = "cpu";
    o.show = {"Code"};
    o.line = fma_line;
    o.width = 1920;
    o.height = 1080;
    o.text_size = 1.75f;
    auto host = start_settled(o, {});
    ASSERT_TRUE(host);
    ui::Workspace& ws = host->workspace();
    const auto seen = [&] {
        const auto& s = ws.code_view().shown();
        return s ? "listing for " + s->arch + (ws.code_view().busy() ? " (busy)" : "") : std::string("no listing");
    };
    ASSERT_TRUE(frames_until(*host, [&] { return listed(ws, "sm_90") && !ws.code_panel().highlighted_sass().empty(); },
                             "the SASS for sm_90 with line " + std::to_string(fma_line) + " lit", 600, seen));
    host->frame();
    const MachineCode& code = *ws.code_view().shown();
    ASSERT_TRUE(code.ok);
    ASSERT_EQ(code.sass_missing, "");
    // The line's instructions: 8 x 8 multiply-adds per k of a tile, all unrolled, in both listings.
    int sass_fma = 0, ptx_fma = 0;
    for (const CodeLine& l : code.sass.lines) sass_fma += l.opcode == "FFMA" && !l.lines.empty() && l.lines.front() == fma_line;
    for (const CodeLine& l : code.ptx.lines) ptx_fma += l.opcode == "fma.rn.f32" && !l.lines.empty() && l.lines.front() == fma_line;
    EXPECT_EQ(sass_fma, 8 * 8 * bk);
    EXPECT_EQ(ptx_fma, 8 * 8 * bk);
    // What is lit is exactly the instructions of that line.
    const ui::CodePanel& panel = ws.code_panel();
    EXPECT_EQ(panel.highlighted_sass(), code.sass.lines_of(fma_line));
    EXPECT_EQ(panel.highlighted_ptx(), code.ptx.lines_of(fma_line));
    // On screen: the rows drawn of that line carry the band, the others not.
    auto shot = host->screenshot();
    ASSERT_TRUE(shot.ok());
    int lit_rows = 0, lit_with_band = 0, other_rows = 0, other_with_band = 0;
    for (int which : {0, 1}) {
        const CodeListing& listing = which == 0 ? code.ptx : code.sass;
        for (const auto& r : panel.drawn_rows(which)) {
            const auto& ls = listing.lines[r.index].lines;
            const bool of_line = std::find(ls.begin(), ls.end(), fma_line) != ls.end();
            const bool band = band_pixels(*shot, r) > int((r.x1 - r.x0) * (r.y1 - r.y0) * 0.2f);
            (of_line ? lit_rows : other_rows)++;
            (of_line ? lit_with_band : other_with_band) += band;
        }
    }
    EXPECT_GT(lit_rows, 4);
    EXPECT_EQ(lit_with_band, lit_rows);
    EXPECT_EQ(other_with_band, 0);
    // The editor counts the line's SASS instructions beside it.
    bool counted = false;
    for (const auto& g : ws.editor_panel().gutter())
        if (g.line == fma_line) counted = g.text == std::to_string(code.sass.per_line.at(fma_line));
    EXPECT_TRUE(counted);

    // A click on a row of another line moves the editor's cursor there, and that line is lit.
    const ui::CodePanel::DrawnRow* target = nullptr;
    int target_line = 0;
    for (const auto& r : panel.drawn_rows(1)) {
        const auto& ls = code.sass.lines[r.index].lines;
        if (!ls.empty() && ls.front() != fma_line) {
            target = &r;
            target_line = ls.front();
            break;
        }
    }
    ASSERT_NE(target, nullptr) << "no row of another line on screen";
    const ui::CodePanel::DrawnRow row = *target;
    click(*host, (row.x0 + row.x1) / 2, (row.y0 + row.y1) / 2);
    ASSERT_TRUE(frames_until(*host, [&] { return ws.editor_panel().cursor_line() == target_line; },
                             "the editor on line " + std::to_string(target_line), 30,
                             [&] { return "cursor on line " + std::to_string(ws.editor_panel().cursor_line()); }));
    host->frame();
    EXPECT_EQ(ws.code_panel().highlighted_sass(), code.sass.lines_of(target_line));
}

TEST(CodePanel, AnotherArchitectureIsListedOnRequestAndTheFirstIsKept) {
    ScopedUserDir user;
    ui::AppOptions o = headless_options("patterns/map_square.cu");
    o.backend = "cpu";
    o.show = {"Code"};
    auto host = start_settled(o, {});
    ASSERT_TRUE(host);
    ui::Workspace& ws = host->workspace();
    ASSERT_TRUE(frames_until(*host, [&] { return listed(ws, "sm_90"); }, "the sm_90 listing", 600));
    const auto first = ws.code_view().shown();
    ws.code_view().arch = "sm_75";
    ASSERT_TRUE(frames_until(*host, [&] { return listed(ws, "sm_75"); }, "the sm_75 listing", 600));
    EXPECT_GT(ws.code_view().shown()->sass.instructions, 0);
    // Back to the device's: the kept listing, shown at the next frame without compiling again.
    ws.code_view().arch = "";
    host->frame();
    host->frame();
    EXPECT_EQ(ws.code_view().shown(), first);
}

TEST(CodePanel, ComparedWithARegisterBlockedVariantAndWithTheVersionBeforeAnEdit) {
    ScopedUserDir user;
    ui::AppOptions o = headless_options("matrix/matmul_naive.cu");
    o.backend = "cpu";
    o.show = {"Code"};
    auto host = start_settled(o, {});
    ASSERT_TRUE(host);
    ui::Workspace& ws = host->workspace();
    ASSERT_TRUE(frames_until(*host, [&] { return listed(ws, "sm_90"); }, "the sm_90 listing", 600));
    const auto naive = ws.code_view().shown();
    // A compare variant of the lesson.
    ws.code_view().compare_with = "lesson:matrix/matmul_register_blocked";
    ASSERT_TRUE(frames_until(*host, [&] { return ws.code_view().wait_idle(30) && ws.code_view().against(); },
                             "the register-blocked multiply's listing", 600));
    host->frame();
    const auto blocked = ws.code_view().against();
    ASSERT_TRUE(blocked->ok);
    int naive_ffma = 0, blocked_ffma = 0;
    for (const CodeLine& l : naive->sass.lines) naive_ffma += l.opcode == "FFMA";
    for (const CodeLine& l : blocked->sass.lines) blocked_ffma += l.opcode == "FFMA";
    EXPECT_GT(blocked_ffma, naive_ffma);
    EXPECT_GT(blocked->compile.usage.registers, naive->compile.usage.registers);
    // On screen, the rows only the register-blocked one has are tinted green.
    auto shot = host->screenshot();
    ASSERT_TRUE(shot.ok());
    if (const char* d = std::getenv("CP_UI_TEST_SHOTS"); d && *d) (void)save_png(std::string(d) + "/code_compare.png", *shot);
    const Rect code = window_rect("Code");
    ASSERT_GT(code.width(), 0);
    int green = 0;
    for (int y = code.y0; y < code.y1; ++y)
        for (int x = code.x0; x < code.x1; ++x) {
            const uint8_t* p = shot->pixels.data() + (size_t(y) * size_t(shot->width) + size_t(x)) * 4;
            green += p[1] > p[0] + 30 && p[1] > p[2] + 20 && p[1] < 140;
        }
    EXPECT_GT(green, 1000);

    // The version before an edit: the listing of the text as it was.
    ws.code_view().compare_with = "before";
    std::string text = document_of(ws).text();
    const std::string term = "sum += a[row * k + i]";
    const size_t at = text.find(term);
    ASSERT_NE(at, std::string::npos);
    text.replace(at, term.size(), "sum += 1.0001f * a[row * k + i]");
    ws.set_source(text, host->seconds() - 10);  // as if typed a while ago: the listing need not wait for the pause
    ASSERT_TRUE(frames_until(*host, [&] { return ws.code_view().shown() != naive && listed(ws, "sm_90") && ws.code_view().against(); },
                             "the edited text's listing and the one before", 600));
    host->frame();
    ASSERT_TRUE(ws.code_view().shown()->ok);
    EXPECT_EQ(ws.code_view().against(), naive);
    // The edit added a multiply per iteration: more floating-point multiplies (fused or not) than before.
    const auto multiplies = [](const MachineCode& c) {
        int n = 0;
        for (const CodeLine& l : c.sass.lines) n += l.opcode == "FMUL" || l.opcode == "FFMA";
        return n;
    };
    EXPECT_GT(multiplies(*ws.code_view().shown()), multiplies(*naive));
}

// A kernel that spills (48 live values under __launch_bounds__(1024, 2): 32 registers): the editor marks the lines
// whose SASS stores and reloads them "spill", in the warning colour on screen, and the panel names those lines.
// The spills come from the code, not from n: n = 1100 (not a multiple of the block) keeps the CPU backend's run
// of its n * n * 48 multiplies, which the window starts on opening, to a fraction of a second (n = 5000 took 15 s).
TEST(CodePanel, TheLinesThatSpillAreMarkedInTheEditor) {
    ScopedUserDir user;
    const std::string source = R"(/*@playground
title: Too many live values
param n: int = 1100
buffer x: float[n] in random(seed=3)
buffer y: float[n] out zeros
block: 1024
grid: ceil(n / block.x)
*/
extern "C" __global__ void __launch_bounds__(1024, 2) many_sums(const float* x, float* y, int n)
{
    float acc[48];
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
#pragma unroll
    for (int k = 0; k < 48; ++k) acc[k] = x[(i + k * 977) % n];
    for (int round = 0; round < n; ++round)
#pragma unroll
        for (int k = 0; k < 48; ++k) acc[k] = acc[k] * acc[(k + 1) % 48] + x[(round + k) % n];
    float s = 0;
#pragma unroll
    for (int k = 0; k < 48; ++k) s += acc[k];
    y[i] = s;
}
)";
    test::TempDir dir;
    const auto path = dir.write("spills.cu", source);
    ui::AppOptions o = headless_options();
    o.open_file = path.string();
    o.backend = "cpu";
    o.show = {"Code"};
    o.width = 1920;
    o.height = 1080;
    o.text_size = 1.75f;
    o.line = line_of(source, "acc[k] = acc[k] * acc");
    auto host = start_settled(o, {});
    ASSERT_TRUE(host);
    ui::Workspace& ws = host->workspace();
    ASSERT_TRUE(frames_until(*host, [&] { return listed(ws, "sm_90"); }, "the sm_90 listing", 600));
    host->frame();
    host->frame();
    const MachineCode& code = *ws.code_view().shown();
    ASSERT_GT(code.compile.usage.spill_store_bytes, 0) << "32 registers should not hold 48 values";
    ASSERT_FALSE(code.sass.local_per_line.empty());
    auto shot = host->screenshot();
    ASSERT_TRUE(shot.ok());
    if (const char* d = std::getenv("CP_UI_TEST_SHOTS"); d && *d) (void)save_png(std::string(d) + "/code_spills.png", *shot);
    int spill_marks = 0, orange_marks = 0;
    std::string marks_seen;
    for (const auto& g : ws.editor_panel().gutter()) {
        const bool local = code.sass.local_per_line.count(g.line) != 0;
        const bool says_spill = g.text.size() > 6 && g.text.substr(g.text.size() - 6) == " spill";
        EXPECT_EQ(says_spill, local) << "line " << g.line << ": " << g.text;
        if (!says_spill) continue;
        ++spill_marks;
        EXPECT_EQ(g.text, std::to_string(code.sass.per_line.at(g.line)) + " spill");
        // The mark's pixels: orange text (red and green high, blue low) on the dark gutter.
        int orange = 0;
        for (int y = int(g.y0); y < int(g.y1); ++y)
            for (int x = int(g.x0); x < int(g.x1); ++x) {
                const uint8_t* p = shot->pixels.data() + (size_t(y) * size_t(shot->width) + size_t(x)) * 4;
                orange += p[0] > 180 && p[1] > 110 && p[2] < 110;
            }
        orange_marks += orange > 10;
        marks_seen += "line " + std::to_string(g.line) + " at y " + std::to_string(int(g.y0)) + ".." +
                      std::to_string(int(g.y1)) + ": " + std::to_string(orange) + " orange pixels; ";
    }
    EXPECT_GT(spill_marks, 0) << "no spilling line is on screen";
    EXPECT_EQ(orange_marks, spill_marks) << marks_seen << "screen height " << shot->height;
}
