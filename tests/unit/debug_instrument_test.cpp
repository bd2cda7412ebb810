// The debugger's probes (core/cpu/debug_instrument.h), placed from clang's syntax tree: before each statement of
// the kernel's blocks with the variables in scope there, unbraced bodies braced, `#pragma unroll` loops and macros
// left whole, lambdas untouched, the user's line numbers and the text's line count kept.
#include "core/cpu/debug_instrument.h"
#include "core/cpu/host_compiler.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace {

std::vector<std::string> names_at(const cp::DebugInstrumented& d, int line) {
    for (const cp::DebugProbeSite& s : d.sites)
        if (s.line == line) return s.variables;
    return {"<no probe>"};
}

bool probed(const cp::DebugInstrumented& d, int line) {
    return std::any_of(d.sites.begin(), d.sites.end(), [&](const cp::DebugProbeSite& s) { return s.line == line; });
}

}  // namespace

TEST(DebugInstrument, ProbesEveryStatementWithTheVariablesInScope) {
    auto shim = cp::find_shim();
    ASSERT_TRUE(shim) << shim.error().message;
    // Line 10 of the user's file is the kernel's first line.
    const std::string text =
        "#define CHECK(c) do { if (!(c)) return; } while (0)\n"
        "#line 10 \"/tmp/k.cu\"\n"
        "__global__ void k(float* out, int n, const float& ref) {\n"   // 10
        "    int i = threadIdx.x;\n"                                    // 11
        "    CHECK(i < n);\n"                                           // 12
        "    float acc[4] = {0, 0, 0, 0};\n"                            // 13
        "    for (int j = 0; j < 4; ++j) acc[j] += j;\n"                // 14
        "    if (i % 2) out[i] = acc[1]; else if (i) out[i] = 0;\n"     // 15
        "    auto twice = [&](int v) { return 2 * v; };\n"              // 16
        "    switch (i) { case 0: out[0] = 1; break; default: break; }\n"  // 17
        "#pragma unroll\n"                                              // 18
        "    for (int r = 0; r < 2; ++r) { int i = r; out[i] += twice(i); }\n"  // 19
        "}\n";                                                          // 20
    auto d = cp::instrument_kernel_for_debug(text, "k", *shim);
    ASSERT_TRUE(d) << d.error().message;
    EXPECT_EQ(std::count(d->text.begin(), d->text.end(), '\n'), std::count(text.begin(), text.end(), '\n'));
    EXPECT_EQ(names_at(*d, 11), (std::vector<std::string>{"out", "n"})) << "references are left out";
    EXPECT_EQ(names_at(*d, 12), (std::vector<std::string>{"out", "n", "i"}));
    EXPECT_EQ(names_at(*d, 14), (std::vector<std::string>{"out", "n", "i", "acc"}));
    EXPECT_TRUE(probed(*d, 15));
    EXPECT_TRUE(probed(*d, 17));
    EXPECT_TRUE(probed(*d, 20)) << "the body's closing brace";
    EXPECT_FALSE(probed(*d, 18)) << "nothing goes on the pragma's line";
    // Inside the unrolled loop: the inner `i` hides the outer one; the lambda is a variable like any other.
    bool inner_i = false;
    for (const cp::DebugProbeSite& s : d->sites)
        if (s.line == 19 && std::count(s.variables.begin(), s.variables.end(), "i") == 1 &&
            std::find(s.variables.begin(), s.variables.end(), "r") != s.variables.end())
            inner_i = true;
    EXPECT_TRUE(inner_i);
    // The unbraced loop body and both branches got braces and a probe each: 3 probes on 14 and 15's lines at least.
    EXPECT_GE(std::count_if(d->sites.begin(), d->sites.end(), [](const cp::DebugProbeSite& s) { return s.line == 14; }), 2);
    EXPECT_GE(std::count_if(d->sites.begin(), d->sites.end(), [](const cp::DebugProbeSite& s) { return s.line == 15; }), 3);
    // The lambda's body has no probe: the text between its braces is unchanged.
    EXPECT_NE(d->text.find("[&](int v) { return 2 * v; }"), std::string::npos);
    // The macro's use is probed as one statement, its expansion untouched.
    EXPECT_NE(d->text.find("CHECK(i < n);"), std::string::npos);
}

TEST(DebugInstrument, AKernelWithoutItsBodyInTheFileIsAUserError) {
    auto shim = cp::find_shim();
    ASSERT_TRUE(shim);
    const std::string text = "#line 1 \"/tmp/k.cu\"\n__global__ void k(int* out);\n";
    auto d = cp::instrument_kernel_for_debug(text, "k", *shim);
    ASSERT_FALSE(d);
    EXPECT_EQ(d.error().kind, cp::ErrorKind::UserInput);
}

TEST(DebugInstrument, JsonThatIsNotClangsIsAnInternalError) {
    auto d = cp::instrument_for_debug("__global__ void k() {}\n", "k", "not json");
    ASSERT_FALSE(d);
    EXPECT_EQ(d.error().kind, cp::ErrorKind::Internal);
}

// A line is one step: simple statements after the first on the same line get no probe of their own, and the next
// line's probe has the variables they declared; a loop's body on that line is still a step of its own.
TEST(DebugInstrument, StatementsSharingALineAreOneStep) {
    auto shim = cp::find_shim();
    ASSERT_TRUE(shim) << shim.error().message;
    const std::string text =
        "#line 1 \"/tmp/k.cu\"\n"
        "__global__ void k(int* out) {\n"                          // 1
        "    int a = 1; int b = a + 1; out[0] = b;\n"               // 2
        "    int c = b; for (int j = 0; j < 2; ++j) c += j;\n"      // 3
        "    out[1] = c;\n"                                         // 4
        "}\n";                                                      // 5
    auto d = cp::instrument_kernel_for_debug(text, "k", *shim);
    ASSERT_TRUE(d) << d.error().message;
    EXPECT_EQ(std::count_if(d->sites.begin(), d->sites.end(), [](const cp::DebugProbeSite& s) { return s.line == 2; }), 1);
    EXPECT_EQ(names_at(*d, 3), (std::vector<std::string>{"out", "a", "b"}));
    // Line 3: the declaration's probe (the loop's start runs in its step) and the loop body's, with `j`.
    std::vector<std::vector<std::string>> on3;
    for (const cp::DebugProbeSite& s : d->sites)
        if (s.line == 3) on3.push_back(s.variables);
    EXPECT_EQ(on3, (std::vector<std::vector<std::string>>{{"out", "a", "b"}, {"out", "a", "b", "c", "j"}}));
    EXPECT_EQ(names_at(*d, 4), (std::vector<std::string>{"out", "a", "b", "c"}));
}
