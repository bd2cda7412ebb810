// Malformed metadata headers: each problem is reported on the right line (and column) with a message
// that says how to fix it. Well-formed variants parse into the expected spec.
#include "core/kernel_file/kernel_file.h"
#include "unit/diagnostics_text.h"

#include <gtest/gtest.h>

namespace cp {
namespace {

using test::dump;
using test::errors_of;

// A valid kernel whose header lines are numbered 2..8; tests replace or add lines.
std::vector<std::string> base_header() {
    return {
        "title: Test kernel",       // line 2
        "param n: int = 100",       // line 3
        "buffer a: float[n] in",    // line 4
        "buffer c: float[n] out",   // line 5
        "block: 256",               // line 6
        "grid: ceil(n / block.x)",  // line 7
        "problem: n",               // line 8
    };
}
const char* kSignature = "extern \"C\" __global__ void k(const float* a, float* c, int n) { }\n";

std::string make_source(const std::vector<std::string>& header, const std::string& code = kSignature) {
    std::string s = "/*@playground\n";
    for (const auto& l : header) s += l + "\n";
    return s + "*/\n" + code;
}

KernelFile parse(const std::vector<std::string>& header, const std::string& code = kSignature) {
    return parse_kernel_source(make_source(header, code), "test.cu");
}

// Exactly one error, on `line`, whose message contains every piece.
Diagnostic expect_error(const KernelFile& f, int line, std::initializer_list<std::string> pieces) {
    const std::vector<Diagnostic> errors = errors_of(f);
    EXPECT_EQ(errors.size(), 1u) << dump(f);
    if (errors.empty()) return {};
    EXPECT_EQ(errors[0].line, line) << dump(f);
    EXPECT_EQ(errors[0].file, "test.cu");
    for (const auto& piece : pieces) EXPECT_NE(errors[0].message.find(piece), std::string::npos) << "missing `" << piece << "` in:\n" << dump(f);
    return errors[0];
}

std::vector<std::string> with(std::vector<std::string> lines, size_t index, const std::string& replacement) {
    lines[index] = replacement;
    return lines;
}
std::vector<std::string> plus(std::vector<std::string> lines, const std::string& extra) {
    lines.push_back(extra);  // becomes line 9
    return lines;
}

TEST(KernelHeader, BaseIsClean) {
    const KernelFile f = parse(base_header());
    EXPECT_TRUE(f.diagnostics.empty()) << dump(f);
    EXPECT_TRUE(f.usable());
    EXPECT_EQ(f.spec.header_first_line, 1);
    EXPECT_EQ(f.spec.header_last_line, 9);
}

TEST(KernelHeader, UnknownKeySuggestsClosest) {
    const auto d = expect_error(parse(with(base_header(), 0, "titel: Test")), 2, {"unknown key `titel`", "Did you mean `title`?"});
    EXPECT_EQ(d.column, 1);
}

TEST(KernelHeader, MissingTitle) {
    auto h = base_header();
    h.erase(h.begin());
    expect_error(parse(h), 1, {"no `title:`", "title: "});
}

TEST(KernelHeader, MissingColon) {
    expect_error(parse(with(base_header(), 0, "title Test")), 2, {"missing `:` after `title`"});
    expect_error(parse(plus(base_header(), "this is prose")), 9, {"not of the form `key: value`"});
}

TEST(KernelHeader, DuplicateKey) {
    expect_error(parse(plus(base_header(), "block: 128")), 9, {"`block` is given twice (first on line 6)"});
}

TEST(KernelHeader, BadParamTypeListsValidOnes) {
    const auto d = expect_error(parse(with(base_header(), 1, "param n: integer = 100")), 3,
                                {"unknown param type `integer`", "int, uint, float, double"});
    EXPECT_EQ(d.column, 10);
}

TEST(KernelHeader, ParamWithoutDefault) {
    expect_error(parse(with(base_header(), 1, "param n: int")), 3, {"has no default", "param n: int = 1"});
}

TEST(KernelHeader, ParamDefaultOutsideRange) {
    expect_error(parse(with(base_header(), 1, "param n: int = 0 range 1..10")), 3, {"outside its range 1..10"});
    expect_error(parse(with(base_header(), 1, "param n: int = 2.5")), 3, {"not a whole number"});
    expect_error(parse(with(base_header(), 1, "param n: int = 5 range 10..1")), 3, {"range 10..1 is empty"});
    expect_error(parse(with(base_header(), 1, "param n: int = 5 range 1-10")), 3, {"range A..B"});
    expect_error(parse(with(base_header(), 1, "param n: int = 0 enum a=0 b=1e30")), 3, {"`b=1e30` must be", "(an int)"});
    expect_error(parse(with(base_header(), 1, "param n: int = 0 enum a=0 b=0.5")), 3, {"`b=0.5` must be"});
}

TEST(KernelHeader, ParamOptionsParse) {
    const KernelFile f = parse(plus(with(base_header(), 1, "param n: int = 100 range 1..1e6 step 2"),
                                    "param mode: int = gauss enum box=0 gauss=1 median=2"),
                               "extern \"C\" __global__ void k(const float* a, float* c, int n, int mode) { }\n");
    EXPECT_TRUE(f.diagnostics.empty()) << dump(f);
    const ParamSpec* n = f.param("n");
    ASSERT_NE(n, nullptr);
    EXPECT_EQ(n->min, 1.0);
    EXPECT_EQ(n->max, 1e6);
    EXPECT_EQ(n->step, 2.0);
    const ParamSpec* mode = f.param("mode");
    ASSERT_NE(mode, nullptr);
    EXPECT_EQ(mode->default_expr, "1");  // the label stands for its value
    ASSERT_EQ(mode->choices.size(), 3u);
    EXPECT_EQ(mode->choices[2], (std::pair<std::string, int64_t>{"median", 2}));
}

TEST(KernelHeader, BadBufferTypeSuggestsAndLists) {
    expect_error(parse(with(base_header(), 2, "buffer a: flaot[n] in")), 4,
                 {"unknown element type `flaot`", "Did you mean `float`?", "uchar4", "double"});
}

TEST(KernelHeader, CudaSpellingsOfElementTypes) {
    const KernelFile f = parse(with(with(base_header(), 2, "buffer a: unsigned int[n] in"), 3, "buffer c: unsigned char[n] out"),
                               "extern \"C\" __global__ void k(const unsigned * a, unsigned char* c, int n) { }\n");
    EXPECT_TRUE(f.diagnostics.empty()) << dump(f);
    EXPECT_EQ(f.buffer("a")->type, ElemType::UInt);
    EXPECT_EQ(f.buffer("c")->type, ElemType::UChar);
}

TEST(KernelHeader, BufferNeedsCountAndDirection) {
    expect_error(parse(with(base_header(), 2, "buffer a: float in")), 4, {"needs an element count", "float[n] in"});
    expect_error(parse(with(base_header(), 2, "buffer a: float[n]")), 4, {"needs a direction", "in, out or inout"});
    expect_error(parse(with(base_header(), 2, "buffer a: float[n] input")), 4, {"got `input`", "Did you mean `inout`?"});
    expect_error(parse(with(base_header(), 2, "buffer a: float[] in")), 4, {"empty count"});
    expect_error(parse(with(base_header(), 2, "buffer a: float[n in")), 4, {"never closed"});
}

TEST(KernelHeader, Initialisers) {
    const KernelFile f = parse(with(with(base_header(), 2, "buffer a: float[n] in random(seed=7, min=-2, max=3)"), 3,
                                    "buffer c: float[n] inout ramp(start=5, step=-0.5)"));
    EXPECT_TRUE(f.diagnostics.empty()) << dump(f);
    EXPECT_EQ(f.buffer("a")->init.kind, BufferInit::Kind::Random);
    EXPECT_EQ(f.buffer("a")->init.seed, 7u);
    EXPECT_EQ(f.buffer("a")->init.min, -2.0);
    EXPECT_EQ(f.buffer("a")->init.max, 3.0);
    EXPECT_EQ(f.buffer("c")->init.kind, BufferInit::Kind::Ramp);
    EXPECT_EQ(f.buffer("c")->init.start, 5.0);
    EXPECT_EQ(f.buffer("c")->init.step, -0.5);
    EXPECT_EQ(f.buffer("c")->direction, Direction::InOut);

    const KernelFile g = parse(with(base_header(), 2, "buffer a: float[n] in constant(0x10)"));
    EXPECT_TRUE(g.diagnostics.empty()) << dump(g);
    EXPECT_EQ(g.buffer("a")->init.constant, 16.0);
}

TEST(KernelHeader, BadInitialisers) {
    expect_error(parse(with(base_header(), 2, "buffer a: float[n] in rand(seed=1)")), 4,
                 {"unknown initialiser `rand`", "Did you mean `random`?", "ramp(start=A, step=B)"});
    expect_error(parse(with(base_header(), 2, "buffer a: float[n] in random(seed=1, mn=0)")), 4,
                 {"no argument `mn`", "Did you mean `min`?"});
    expect_error(parse(with(base_header(), 2, "buffer a: float[n] in random(min=3, max=1)")), 4, {"min above max"});
    // Values beyond the target type are refused before any cast (1e52 as a seed was undefined behaviour).
    expect_error(parse(with(base_header(), 2, "buffer a: float[n] in random(seed=1e52)")), 4, {"from 0 to 2^64-1"});
    expect_error(parse(with(base_header(), 2, "buffer a: float[n] in random(seed=-1)")), 4, {"from 0 to 2^64-1"});
    expect_error(parse(with(base_header(), 2, "buffer a: float[n] in random(seed=2.5)")), 4, {"from 0 to 2^64-1"});
    expect_error(parse(with(base_header(), 2, "buffer a: float[n] in constant()")), 4, {"one value"});
    expect_error(parse(with(base_header(), 2, "buffer a: float[n] in constant(x)")), 4, {"must be a number"});
    expect_error(parse(with(base_header(), 2, "buffer a: float[n] in zeros(1)")), 4, {"takes no arguments"});
    expect_error(parse(with(base_header(), 2, "buffer a: float[n] in image(\"a.png\", 2)")), 4, {"one file name"});
    expect_error(parse(with(base_header(), 2, "buffer a: double[n] in image(\"a.png\")")), 4,
                 {"an image cannot fill", "uchar4"});
}

TEST(KernelHeader, DuplicateNames) {
    expect_error(parse(plus(base_header(), "param a: int = 1")), 9, {"`a` is declared twice", "buffer on line 4"});
}

TEST(KernelHeader, ViewOfUnknownBuffer) {
    expect_error(parse(plus(base_header(), "view cc: plot")), 9, {"view `cc` names no buffer", "Did you mean `c`?", "Buffers are: a, c"});
}

TEST(KernelHeader, Views) {
    const KernelFile f = parse(plus(base_header(), "view c: image(n / 10, 10) colormap=magma range=-1..1"));
    EXPECT_TRUE(f.diagnostics.empty()) << dump(f);
    ASSERT_EQ(f.spec.views.size(), 1u);
    EXPECT_EQ(f.spec.views[0].kind, ViewSpec::Kind::Image);
    EXPECT_EQ(f.spec.views[0].width_expr, "n / 10");
    EXPECT_EQ(f.spec.views[0].height_expr, "10");
    EXPECT_EQ(f.spec.views[0].colormap, "magma");
    EXPECT_EQ(f.spec.views[0].range_min, -1.0);
    EXPECT_EQ(f.spec.views[0].range_max, 1.0);
    expect_error(parse(plus(base_header(), "view c: image(n, 1) colormap=virdis")), 9,
                 {"unknown colormap `virdis`", "Did you mean `viridis`?"});
    expect_error(parse(plus(base_header(), "view c: image(n)")), 9, {"two sizes"});
    expect_error(parse(plus(base_header(), "view c: histogram")), 9, {"unknown view", "image(width, height), plot, table"});
    expect_error(parse(plus(base_header(), "view c: table colormap=gray")), 9, {"unknown view option"});
    expect_error(parse(plus(plus(base_header(), "view c: plot"), "view c: table")), 10, {"already has a view (line 9)"});
}

TEST(KernelHeader, ReferenceNamesAFunctionInTheFile) {
    expect_error(parse(plus(base_header(), "reference: vec_add")), 9,
                 {"`reference: vec_add` names no function in this file", "#ifdef PLAYGROUND_REFERENCE",
                  "static void vec_add(const float* a, float* c, int n)"});
    expect_error(parse(plus(base_header(), "reference: vector add")), 9, {"names a function in this file"});
    const KernelFile ok = parse(plus(base_header(), "reference: vec_add"),
                                std::string(kSignature) + "#ifdef PLAYGROUND_REFERENCE\n"
                                "static void vec_add(const float* a, float* c, int n) {}\n#endif\n");
    EXPECT_TRUE(ok.usable()) << dump(ok);
}

TEST(KernelHeader, ExpectLearnAndKernelLines) {
    expect_error(parse(plus(base_header(), "expect: crash")), 9,
                 {"`expect:` says how this buggy-on-purpose lesson fails", "not `crash`"});
    expect_error(parse(plus(base_header(), "expect: mismatch")), 9, {"`expect: mismatch` needs a `reference:`"});
    expect_error(parse(plus(base_header(), "kernel: two words")), 9, {"`kernel:` names the `__global__` function"});
    expect_error(parse(plus(base_header(), "kernel: other")), 9,
                 {"`kernel: other` names no `__global__` function", "`k` (line"});
    auto lines = plus(plus(base_header(), "expect: fault"), "learn: threads past n write");
    lines.push_back("  out of bounds");
    const KernelFile f = parse(lines);
    EXPECT_TRUE(f.usable()) << dump(f);
    EXPECT_EQ(f.spec.expect, ExpectedOutcome::Fault);
    EXPECT_EQ(f.spec.learn, "threads past n write out of bounds");
    const KernelFile lone = parse(plus(base_header(), "learn: something"));
    ASSERT_FALSE(lone.diagnostics.empty());
    EXPECT_NE(lone.diagnostics[0].message.find("`learn:` goes with `expect:`"), std::string::npos) << dump(lone);
}

// `show:` names the panels that make the lesson's point: any case, stored as the window spells them; a name that
// is no panel is refused with a guess and the list of names; a name twice is refused.
TEST(KernelHeader, ShowNamesPanels) {
    const KernelFile f = parse(plus(base_header(), "show: streams,  Launch View"));
    EXPECT_TRUE(f.usable()) << dump(f);
    EXPECT_EQ(f.spec.show, (std::vector<std::string>{"Streams", "Launch view"}));
    EXPECT_TRUE(parse(base_header()).spec.show.empty());
    const Diagnostic d = expect_error(parse(plus(base_header(), "show: Console, Stream")), 9,
                                      {"`show:` names a panel that does not exist: `Stream`", "Did you mean `Streams`?",
                                       "Panels: Output, Compare, Console, Streams"});
    EXPECT_EQ(d.column, 16) << "the column of `Stream`";
    expect_error(parse(plus(base_header(), "show: Timing, timing")), 9, {"lists `Timing` twice"});
    expect_error(parse(plus(base_header(), "show: Timing,")), 9, {"`show:` has an empty name"});
}

// Whole numbers in messages print whole: a range of 1..1e6 reads "1..1000000", not "1..1e+06".
TEST(KernelHeader, RangesInMessagesPrintWholeNumbersWhole) {
    expect_error(parse(with(base_header(), 1, "param n: int = 2000000 range 1..1e6")), 3,
                 {"outside its range 1..1000000."});
    expect_error(parse(with(base_header(), 1, "param n: int = 1 range 2.5..900")), 3, {"outside its range 2.5..900."});
}

TEST(KernelHeader, Tolerance) {
    expect_error(parse(plus(base_header(), "tolerance: small")), 9, {"tolerance must be a number", "`small`"});
    expect_error(parse(plus(base_header(), "tolerance: -1")), 9, {"0 or more"});
    EXPECT_EQ(parse(plus(base_header(), "tolerance: 1e-3")).spec.tolerance, 1e-3);
}

TEST(KernelHeader, UnterminatedHeader) {
    const std::string source = "// a comment\n/*@playground\ntitle: T\nparam n: int = 1\n"
                               "extern \"C\" __global__ void k(int n) {}\n";
    const KernelFile f = parse_kernel_source(source, "test.cu");
    expect_error(f, 2, {"never closed", "*/"});
    EXPECT_FALSE(f.usable());
}

TEST(KernelHeader, ExpressionNamesChecked) {
    // Column points at the unknown name: "grid: ceil(" is 11 characters.
    const auto d = expect_error(parse(with(base_header(), 5, "grid: ceil(m / block.x)")), 7,
                                {"in the grid size in x", "unknown name `m`", "Did you mean `n`?"});
    EXPECT_EQ(d.column, 12);
    const auto s = expect_error(parse(with(base_header(), 5, "grid: ceil(n / block.x")), 7, {"never closed"});
    EXPECT_EQ(s.column, 11);
    expect_error(parse(with(base_header(), 2, "buffer a: float[n * sise] in")), 4, {"count of buffer `a`", "`sise`"});
    expect_error(parse(with(base_header(), 4, "block: block.x")), 6, {"cannot refer to itself"});
    expect_error(parse(with(base_header(), 6, "problem: n x grid.x")), 8, {"`grid.x` can be used only in `traffic:`"});
    expect_error(parse(with(base_header(), 6, "problem: block.x")), 8, {"`block.x` can be used only in"});
    EXPECT_TRUE(parse(plus(base_header(), "traffic: grid.x * block.x * 8")).diagnostics.empty());
    expect_error(parse(with(base_header(), 6, "problem: a")), 8, {"`a` is a buffer"});
}

TEST(KernelHeader, ParamDefaultsUseEarlierParams) {
    const std::string sig = "extern \"C\" __global__ void k(const float* a, float* c, int n, int m) { }\n";
    EXPECT_TRUE(parse(plus(base_header(), "param m: int = 2 * n"), sig).diagnostics.empty());
    auto h = base_header();
    h.insert(h.begin() + 1, "param m: int = 2 * n");  // line 3, before n on line 4
    auto f = parse(h, sig);
    expect_error(f, 3, {"`n` is declared later (line 4)"});
    expect_error(parse(with(base_header(), 1, "param n: int = n + 1")), 3, {"cannot default to itself"});
}

TEST(KernelHeader, ImageSizesAndDerivedParams) {
    const std::vector<std::string> h = {
        "title: Image",
        "param width: int = src.width",
        "param height: int = src.height",
        "param pixels: int = width * height",
        "param gain: float = 1.5",
        "buffer src: uchar4[width * height] in image(\"coffee.png\")",
        "buffer dst: uchar4[pixels] out",
        "block: 16 x 16",
        "grid: ceil(width / block.x) x ceil(height / block.y)",
    };
    const std::string sig = "extern \"C\" __global__ void f(const uchar4* src, uchar4* dst, int width, int height, "
                            "int pixels, float gain) {}\n";
    const KernelFile f = parse(h, sig);
    EXPECT_TRUE(f.diagnostics.empty()) << dump(f);
    EXPECT_TRUE(f.param("width")->derived);
    EXPECT_TRUE(f.param("pixels")->derived);  // through width and height
    EXPECT_FALSE(f.param("gain")->derived);
    EXPECT_EQ(f.spec.launch.grid_expr[1], "ceil(height / block.y)");

    // `.width` of a buffer that is not an image.
    auto bad = h;
    bad[1] = "param width: int = dst.width";
    expect_error(parse(bad, sig), 3, {"`dst.width` exists only for buffers filled from an image"});
    bad = h;
    bad[1] = "param width: int = src.size";
    expect_error(parse(bad, sig), 3, {"image buffers have `src.width` and `src.height`"});
}

TEST(KernelHeader, LaunchLines) {
    KernelFile f = parse(with(with(base_header(), 4, "block: 8x8x4"), 5, "grid: max(n, 2) x 2 x 3"));
    EXPECT_TRUE(f.diagnostics.empty()) << dump(f);
    EXPECT_EQ(f.spec.launch.block_expr[2], "4");
    EXPECT_EQ(f.spec.launch.grid_expr[0], "max(n, 2)");
    EXPECT_EQ(f.spec.launch.grid_expr[2], "3");
    f = parse(plus(base_header(), "shared: block.x * 4"));
    EXPECT_TRUE(f.diagnostics.empty()) << dump(f);
    EXPECT_EQ(f.spec.launch.shared_expr, "block.x * 4");
    expect_error(parse(with(base_header(), 4, "block: 2 x 2 x 2 x 2")), 6, {"1 to 3 sizes"});
    expect_error(parse(with(base_header(), 4, "block: 16 x ")), 6, {"empty size"});
}

TEST(KernelHeader, MissingGridWarns) {
    auto h = base_header();
    h.erase(h.begin() + 5);
    const KernelFile f = parse(h);
    ASSERT_EQ(f.diagnostics.size(), 1u) << dump(f);
    EXPECT_EQ(f.diagnostics[0].severity, Severity::Warning);
    EXPECT_NE(f.diagnostics[0].message.find("no `grid:`"), std::string::npos);
    EXPECT_TRUE(f.usable());  // a warning does not stop the run
}

TEST(KernelHeader, CommentsTagsAndAbout) {
    const KernelFile f = parse({"title: T", "# a comment line", "tags: a, b c ,d", "about: first line", "  second  line",
                                "     third", "category: Demos", "param n: int = 1", "buffer a: float[n] in",
                                "buffer c: float[n] out", "grid: 1"});
    EXPECT_TRUE(f.diagnostics.empty()) << dump(f);
    EXPECT_EQ(f.spec.about, "first line second line third");
    EXPECT_EQ(f.spec.tags, (std::vector<std::string>{"a", "b c", "d"}));
    EXPECT_EQ(f.spec.category, "Demos");
}

TEST(KernelHeader, NoHeaderIsNotAnError) {
    const KernelFile f = parse_kernel_source("__global__ void plain(float* x) { x[0] = 1; }\n", "plain.cu");
    EXPECT_FALSE(f.spec.has_metadata);
    EXPECT_TRUE(f.diagnostics.empty()) << dump(f);
    ASSERT_TRUE(f.signature);
    EXPECT_EQ(f.signature->name, "plain");
}

}  // namespace
}  // namespace cp
