// Pasted whole files: host globals and launchers left out of the compiled text, helper headers kept for the device,
// `constant` header lines written into __constant__ declarations, and the CPU backend's reachability rule.
#include "core/cpu/source_prep.h"
#include "core/kernel_file/constant_fill.h"
#include "core/kernel_file/host_code.h"
#include "core/kernel_file/kernel_file.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>

namespace cp {
namespace {

int lines(const std::string& s) {
    return int(std::count(s.begin(), s.end(), '\n'));
}

TEST(PastedHostCode, HostGlobalsAndTemplateLaunchersAreLeftOutConstantsKept) {
    const std::string src =
        "#include <vector>\n"
        "const int TILE = 16;\n"
        "constexpr float SCALE = 2.0f;\n"
        "std::vector<float> h_data(1024);\n"
        "float* d_buf = NULL;\n"
        "const char* name = \"x\";\n"
        "__device__ int d_counter;\n"
        "__constant__ float c_w[3];\n"
        "__global__ void k(float* p) { p[threadIdx.x] = TILE * SCALE + c_w[0]; }\n"
        "template <int B> void launch(float* p) { k<<<1, B>>>(p); }\n"
        "int main() { launch<32>(d_buf); return 0; }\n";
    const HostCodeScan scan = separate_host_code(src);
    EXPECT_EQ(lines(scan.kernel_source), lines(src));  // line numbers kept
    const std::string& out = scan.kernel_source;
    for (const char* kept : {"const int TILE = 16;", "constexpr float SCALE", "__device__ int d_counter;",
                             "__constant__ float c_w[3];", "__global__ void k"})
        EXPECT_NE(out.find(kept), std::string::npos) << kept << "\n" << out;
    for (const char* gone : {"h_data", "d_buf", "const char* name", "launch", "main", "#include <vector>"})
        EXPECT_EQ(out.find(gone), std::string::npos) << gone << "\n" << out;
    const Diagnostic note = host_code_note("f.cu", scan);
    EXPECT_NE(note.message.find("host global `h_data` (line 4)"), std::string::npos) << note.message;
    EXPECT_NE(note.message.find("`launch` (line 10)"), std::string::npos) << note.message;
}

// A program's host helpers written as templates (`template <class T> static T clamp_to(double)`, a `class` in its
// parameter list) are host functions like any other: left out of the device compile, as <limits> which they use and
// NVRTC does not have; a __device__ template and a template struct stay.
TEST(PastedHostCode, HostFunctionTemplatesAndLimitsAreLeftOutDeviceTemplatesKept) {
    const std::string src =
        "#include <limits>\n"
        "template <class C>\n"
        "static C clamp_to(double v) { return v > std::numeric_limits<C>::max() ? std::numeric_limits<C>::max() : C(v); }\n"
        "template <typename T, int N> void fill(T* p) { for (int i = 0; i < N; ++i) p[i] = clamp_to<T>(i); }\n"
        "template <class T> __device__ T twice(T x) { return 2 * x; }\n"
        "template <class T> struct Pair { T a, b; };\n"
        "__global__ void k(float* p) { Pair<float> q{1, 2}; p[0] = twice(q.a + q.b); }\n"
        "int main() { float h[4]; fill<float, 4>(h); return 0; }\n";
    const HostCodeScan scan = separate_host_code(src);
    const std::string& out = scan.kernel_source;
    EXPECT_EQ(lines(out), lines(src));
    for (const char* kept : {"__device__ T twice", "struct Pair", "__global__ void k"})
        EXPECT_NE(out.find(kept), std::string::npos) << kept << "\n" << out;
    for (const char* gone : {"clamp_to", "void fill", "main", "#include <limits>"})
        EXPECT_EQ(out.find(gone), std::string::npos) << gone << "\n" << out;
}

TEST(PastedHostCode, AKernelsOnlyPasteLosesItsHostIncludesButKeepsCstdlibWhenItCallsExit) {
    const std::string plain = "#include <stdlib.h>\n#include <vector>\n__global__ void k(int* p) { p[0] = 1; }\n";
    const HostCodeScan a = separate_host_code(plain);
    EXPECT_EQ(a.kernel_source.find("#include"), std::string::npos) << a.kernel_source;
    EXPECT_EQ(a.parts.size(), 2u);
    const std::string exits = "#include <cstdlib>\n__global__ void k(int* p) { if (p[0]) exit(1); }\n";
    EXPECT_NE(separate_host_code(exits).kernel_source.find("#include <cstdlib>"), std::string::npos);
}

TEST(PastedHostCode, AHelperHeaderKeepsDeviceCodeAndLosesHostFunctions) {
    const std::string header =
        "#include <cuda_runtime.h>\n#include <stdio.h>\n"
        "struct Blend { float w; };\n"
        "inline __host__ __device__ float4 operator+(float4 a, float4 b) { return a; }\n"
        "__device__ inline float twice(float v) { return 2 * v; }\n"
        "inline void show(float4 v) { printf(\"%f\", v.x); }\n";
    const std::string out = separate_host_code(header, true).kernel_source;
    EXPECT_NE(out.find("struct Blend"), std::string::npos);
    EXPECT_NE(out.find("operator+"), std::string::npos);
    EXPECT_NE(out.find("twice"), std::string::npos);
    EXPECT_EQ(out.find("show"), std::string::npos) << out;
    EXPECT_EQ(out.find("cuda_runtime.h"), std::string::npos) << out;
    // The samples' float4 operators: device code, kept.
    EXPECT_NE(separate_host_code("#include \"helper_math.h\"\n", true).kernel_source.find("helper_math.h"),
              std::string::npos);
}

KernelFile parsed(const std::string& text) {
    return parse_kernel_source(text, "c.cu");
}

TEST(ConstantFill, GaussianWeightsAreWrittenIntoTheDeclarationOnItsLine) {
    const std::string text =
        "/*@playground\ntitle: c\nparam n: int = 8\nparam sigma: float = 1.5\n"
        "buffer out: float[n] out\nconstant c_w: float[5] = gaussian(sigma)\n*/\n"
        "__constant__ float c_w[5];\n"
        "__global__ void k(float* out, int n, float sigma) { out[0] = c_w[0]; }\n";
    KernelFile f = parsed(text);
    EXPECT_FALSE(has_errors(f.diagnostics));
    EXPECT_EQ(lines(f.compile_source), lines(text));
    // Expected weights, computed here: exp(-d^2 / (2 sigma^2)) for d = -2..2, normalised.
    double w[5], total = 0;
    for (int i = 0; i < 5; ++i) total += w[i] = std::exp(-double((i - 2) * (i - 2)) / (2 * 1.5 * 1.5));
    const size_t at = f.compile_source.find("c_w[5] = {");
    ASSERT_NE(at, std::string::npos) << f.compile_source;
    const float first = std::strtof(f.compile_source.c_str() + at + 10, nullptr);
    EXPECT_NEAR(first, w[0] / total, 1e-7);
    // Another sigma: the session's values.
    auto other = fill_constants(f, {{"n", 8}, {"sigma", 0.5}});
    ASSERT_TRUE(other.ok());
    const float first_other = std::strtof(other->c_str() + other->find("c_w[5] = {") + 10, nullptr);
    EXPECT_NEAR(first_other, std::exp(-8.0) / (2 * std::exp(-8.0) + 2 * std::exp(-2.0) + 1), 1e-7);
}

TEST(ConstantFill, AnUnsetConstantWarnsAndAWrongLineIsAnError) {
    KernelFile unset = parsed(
        "/*@playground\ntitle: c\nparam n: int = 8\nbuffer out: float[n] out\n*/\n"
        "__constant__ float c_Kernel[17];\n__constant__ int c_set[2] = {1, 2};\n"
        "__global__ void k(float* out, int n) { out[0] = c_Kernel[0] + c_set[0]; }\n");
    const auto warning = std::find_if(unset.diagnostics.begin(), unset.diagnostics.end(), [](const Diagnostic& d) {
        return d.message.find("is never set") != std::string::npos;
    });
    ASSERT_NE(warning, unset.diagnostics.end());
    EXPECT_EQ(warning->line, 6);
    EXPECT_NE(warning->message.find("`c_Kernel` is never set: its values are all zero; set it in the header: constant "
                                    "c_Kernel: float[COUNT] = gaussian(2.0)"),
              std::string::npos)
        << warning->message;
    EXPECT_EQ(std::count_if(unset.diagnostics.begin(), unset.diagnostics.end(),
                            [](const Diagnostic& d) { return d.message.find("is never set") != std::string::npos; }),
              1);  // c_set has its own values

    KernelFile typed = parsed(
        "/*@playground\ntitle: c\nparam n: int = 8\nbuffer out: float[n] out\n"
        "constant c_w: int[2] = values(1, 2)\n*/\n__constant__ float c_w[2];\n"
        "__global__ void k(float* out, int n) { out[0] = c_w[0]; }\n");
    ASSERT_TRUE(has_errors(typed.diagnostics));
    EXPECT_TRUE(std::any_of(typed.diagnostics.begin(), typed.diagnostics.end(), [](const Diagnostic& d) {
        return d.severity == Severity::Error && d.line == 5 &&
               d.message.find("is declared `float`") != std::string::npos;
    }));
}

TEST(CpuSourcePrepReach, AnUnreachableTextureKernelIsLeftOutAndAReachableOneRefused) {
    const std::string src =
        "__device__ float fetch(cudaTextureObject_t t) { return tex2D<float>(t, 0.f, 0.f); }\n"
        "__global__ void viaTexture(cudaTextureObject_t t, float* o) { o[0] = fetch(t); }\n"
        "__device__ float plainHelper(const float* s) { return s[0]; }\n"
        "__global__ void plain(const float* s, float* o) { o[0] = plainHelper(s); }\n";
    const PreparedSource ok = prepare_kernel_source(src, "t.cu", "plain");
    EXPECT_FALSE(has_errors(ok.diagnostics));
    EXPECT_EQ(ok.text.find("tex2D"), std::string::npos);
    EXPECT_NE(ok.text.find("plainHelper"), std::string::npos);
    const PreparedSource refused = prepare_kernel_source(src, "t.cu", "viaTexture");
    ASSERT_TRUE(has_errors(refused.diagnostics));
    EXPECT_EQ(refused.diagnostics.front().line, 1);  // the helper it calls, on its own line
}

}  // namespace
}  // namespace cp
