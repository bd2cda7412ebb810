// The one __global__ scan (kernel_scan.h) on tricky source: kernels in comments, strings, raw strings and macros
// are not kernels; templates, __launch_bounds__, extern "C", declarations and several kernels are read right;
// broken input is reported, not guessed; and hostile input takes linear time.
#include "core/kernel_file/kernel_scan.h"

#include <gtest/gtest.h>

#include <string>

namespace cp {
namespace {

std::vector<std::string> names(const KernelScan& scan) {
    std::vector<std::string> out;
    for (const ScannedKernel& k : scan.kernels) out.push_back(k.name);
    return out;
}

TEST(KernelScan, SkipsCommentsStringsAndPreprocessorLines) {
    const std::string src =
        "// __global__ void in_line_comment(int n) {}\n"
        "/* __global__ void in_block_comment(int n) {}\n"
        "   still the comment */\n"
        "const char* s = \"__global__ void in_string(int n) {}\";\n"
        "const char* r = R\"x(__global__ void in_raw(int n) {} )\" )x\";\n"
        "const char c = '\\'';\n"
        "#define KERNEL_DECL __global__ void in_macro(int n)\n"
        "#define LONG_MACRO \\\n"
        "    __global__ void in_continued_macro(int n)\n"
        "__global__ void real(int n) {}\n";
    const KernelScan scan = scan_kernels(src);
    EXPECT_EQ(names(scan), std::vector<std::string>{"real"});
    EXPECT_TRUE(scan.problems.empty());
    ASSERT_EQ(scan.kernels.size(), 1u);
    EXPECT_EQ(scan.kernels[0].line, 10);
}

TEST(KernelScan, ReadsTemplatesBoundsExternCAndEachPart) {
    const std::string src =
        "template <class T, unsigned int BlockSize = 256>\n"
        "__global__ void reduce(const T* in, T* out, int n) { out[0] = in[0]; }\n"
        "extern \"C\" __global__ void __launch_bounds__(128, 2)\n"
        "    bounded(float* v, int n)\n"
        "{\n"
        "    if (n > 0) { v[0] = 1; }\n"
        "}\n"
        "extern \"C\" {\n"
        "__global__ void in_block(int* p /* a, b */, int q) {}\n"
        "}\n";
    const KernelScan scan = scan_kernels(src);
    ASSERT_EQ(names(scan), (std::vector<std::string>{"reduce", "bounded", "in_block"}));

    const ScannedKernel& t = scan.kernels[0];
    EXPECT_TRUE(t.is_template);
    EXPECT_EQ(t.template_text, "template <class T, unsigned int BlockSize = 256>");
    EXPECT_EQ(src.substr(t.template_open, t.template_close - t.template_open + 1),
              "<class T, unsigned int BlockSize = 256>");
    EXPECT_EQ(t.params_text, "const T* in, T* out, int n");
    EXPECT_TRUE(t.launch_bounds.empty());
    EXPECT_EQ(t.line, 2);

    const ScannedKernel& b = scan.kernels[1];
    EXPECT_FALSE(b.is_template);  // the template line belongs to the declaration before
    EXPECT_EQ(b.launch_bounds, "__launch_bounds__(128, 2)");
    EXPECT_EQ(src.substr(b.launch_bounds_at, b.launch_bounds.size()), b.launch_bounds);
    EXPECT_EQ(b.line, 4);
    EXPECT_EQ(src.substr(b.global_at, 10), "__global__");
    EXPECT_EQ(src.substr(b.name_at, 7), "bounded");
    EXPECT_EQ(b.params_text, "float* v, int n");
    ASSERT_TRUE(b.definition);
    // The body is the whole of it, past the inner braces.
    EXPECT_EQ(src.substr(b.body_open, b.body_close - b.body_open + 1), "{\n    if (n > 0) { v[0] = 1; }\n}");

    EXPECT_EQ(scan.kernels[2].params_text, "int* p /* a, b */, int q");
}

TEST(KernelScan, DeclarationsSpecialisationsAndDefinitions) {
    const std::string src =
        "__global__ void later(int n);\n"
        "template <typename T> __global__ void k(T* v);\n"
        "template <> __global__ void k<float>(float* v) {}\n"
        "__global__ void later(int n) { }\n"
        "__global__ void other(int n) { }\n";
    const KernelScan scan = scan_kernels(src);
    EXPECT_EQ(names(scan), (std::vector<std::string>{"later", "k", "later", "other"}));
    EXPECT_FALSE(scan.kernels[0].definition);
    EXPECT_FALSE(scan.kernels[1].definition);
    EXPECT_TRUE(scan.kernels[1].is_template);
    EXPECT_TRUE(scan.kernels[2].definition);
    const std::vector<ScannedKernel> defined = defined_kernels(scan);
    ASSERT_EQ(defined.size(), 2u);
    EXPECT_EQ(defined[0].name, "later");
    EXPECT_EQ(defined[0].line, 4);
    EXPECT_EQ(defined[1].name, "other");
}

TEST(KernelScan, ReportsWhatItCannotRead) {
    const KernelScan not_function = scan_kernels("__global__ int x;\n__global__ void fine(int n) {}\n");
    ASSERT_EQ(not_function.problems.size(), 1u);
    EXPECT_EQ(not_function.problems[0].kind, KernelScanProblem::NotAFunction);
    EXPECT_EQ(not_function.problems[0].line, 1);
    EXPECT_EQ(names(not_function), std::vector<std::string>{"fine"});

    const KernelScan unclosed = scan_kernels("\n__global__ void open(int n, float* v {\n}\n");
    ASSERT_EQ(unclosed.problems.size(), 1u);
    EXPECT_EQ(unclosed.problems[0].kind, KernelScanProblem::ParamsNeverClosed);
    EXPECT_EQ(unclosed.problems[0].name, "open");
    EXPECT_EQ(unclosed.problems[0].line, 2);
    EXPECT_TRUE(unclosed.kernels.empty());
}

TEST(KernelScan, HostileInputIsReadInOnePass) {
    // Shapes that make a scan which searches again from each `__global__` quadratic: many `__global__` with no
    // function, one template list that never closes before many kernels, many `(` that never close. At this
    // size a quadratic scan takes minutes and the test run's timeout fails it; no clock is read here.
    std::string globals, templated = "template <", parens = "__global__ void k";
    for (int i = 0; i < 200000; ++i) {
        globals += "__global__ ";
        templated += "__global__ void f(int n) ";
        parens += "(";
    }
    const KernelScan g = scan_kernels(globals);
    EXPECT_TRUE(g.kernels.empty());
    ASSERT_EQ(g.problems.size(), 1u);  // one `__global__` not followed by a function; the rest are words of it
    const KernelScan t = scan_kernels(templated);
    EXPECT_EQ(t.kernels.size(), 200000u);
    EXPECT_FALSE(t.kernels.back().is_template);  // the `<` never closes: no template list
    const KernelScan p = scan_kernels(parens);
    ASSERT_EQ(p.problems.size(), 1u);
    EXPECT_EQ(p.problems[0].kind, KernelScanProblem::ParamsNeverClosed);
}

}  // namespace
}  // namespace cp
