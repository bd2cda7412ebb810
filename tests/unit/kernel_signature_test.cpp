// Finding the __global__ function in CUDA source, and checking it against the metadata header.
#include "core/kernel_file/kernel_file.h"
#include "core/kernel_file/kernel_file_parts.h"
#include "unit/diagnostics_text.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace cp {
namespace {

using test::dump;

std::optional<KernelSignature> sig_of(const std::string& source, std::vector<Diagnostic>& diags) {
    return parse_signature(source, "s.cu", diags);
}

TEST(Signature, ExternCLaunchBoundsMultiLineComments) {
    const std::string src =
        "#include <cuda_fp16.h>\n"                                   // 1
        "#define KERNEL_DOC \"__global__ void fake(int)\"\n"         // 2
        "// __global__ void commented(int x) {}\n"                   // 3
        "/* __global__ void block_commented() {} */\n"               // 4
        "__device__ float helper(float v) { return v * 2; }\n"       // 5
        "const char* s = \"__global__ void str(int q) {}\";\n"       // 6
        "extern \"C\" __global__ void __launch_bounds__(256, 2)\n"   // 7
        "scale(const float* __restrict__ in,  // the input\n"        // 8
        "      float *out, /* n: count */ unsigned int n,\n"         // 9
        "      float factor)\n"                                      // 10
        "{\n"
        "    if (threadIdx.x < n) out[threadIdx.x] = helper(in[threadIdx.x]) * factor;\n"
        "}\n";
    std::vector<Diagnostic> diags;
    auto sig = sig_of(src, diags);
    ASSERT_TRUE(sig) << dump(diags);
    EXPECT_TRUE(diags.empty()) << dump(diags);
    EXPECT_EQ(sig->name, "scale");
    EXPECT_EQ(sig->line, 8);
    ASSERT_EQ(sig->params.size(), 4u);
    EXPECT_EQ(sig->params[0].name, "in");
    EXPECT_EQ(sig->params[0].type_text, "const float* __restrict__");
    EXPECT_EQ(sig->params[0].base_type, "float");
    EXPECT_TRUE(sig->params[0].is_pointer);
    EXPECT_EQ(sig->params[0].line, 8);
    EXPECT_EQ(sig->params[1].name, "out");
    EXPECT_EQ(sig->params[1].type_text, "float*");
    EXPECT_TRUE(sig->params[1].is_pointer);
    EXPECT_EQ(sig->params[2].name, "n");
    EXPECT_EQ(sig->params[2].base_type, "unsigned int");
    EXPECT_FALSE(sig->params[2].is_pointer);
    EXPECT_EQ(sig->params[2].line, 9);
    EXPECT_EQ(sig->params[3].name, "factor");
    EXPECT_EQ(sig->params[3].line, 10);
}

// Blanking is read off the one tokenizer's tokens: a digit separator is part of its number (not a character
// literal that would blank the code after it), a raw string is blanked whole, and offsets and lines are kept.
TEST(Signature, DigitSeparatorsAndRawStringsAreReadAsTheCompilerReadsThem) {
    const std::string src =
        "constexpr int kMany = 1'000'000;\n"                                  // 1
        "const char* doc = R\"x(__global__ void fake(int q) { })x\";\n"      // 2
        "__global__ void count(float* out, int n) {\n"                       // 3
        "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
        "    if (i < n && i < kMany) out[i] = 1.5e-3f * i;\n"
        "}\n";
    std::vector<Diagnostic> diags;
    auto sig = sig_of(src, diags);
    ASSERT_TRUE(sig) << dump(diags);
    EXPECT_TRUE(diags.empty()) << dump(diags);
    EXPECT_EQ(sig->name, "count");
    EXPECT_EQ(sig->line, 3);
    ASSERT_EQ(sig->params.size(), 2u);
    EXPECT_EQ(sig->params[0].name, "out");
    EXPECT_EQ(sig->params[1].name, "n");
    const std::string blanked = blank_comments_and_strings(src);
    ASSERT_EQ(blanked.size(), src.size());
    EXPECT_NE(blanked.find("1'000'000"), std::string::npos) << blanked;
    EXPECT_EQ(blanked.find("fake"), std::string::npos) << blanked;
    EXPECT_EQ(std::count(blanked.begin(), blanked.end(), '\n'), std::count(src.begin(), src.end(), '\n'));
    EXPECT_EQ(blanked.find("__global__ void count"), src.find("__global__ void count"));
}

TEST(Signature, TemplateWithoutInstantiationSaysWhichLineToAdd) {
    std::vector<Diagnostic> diags;
    auto sig = sig_of("template <typename T, int B>\n__global__ void k(T* x) {}\n", diags);
    EXPECT_FALSE(sig);
    ASSERT_EQ(diags.size(), 1u);
    EXPECT_EQ(diags[0].line, 2);
    EXPECT_NE(diags[0].message.find("`kernel: k<float, 256>`"), std::string::npos) << diags[0].message;
    EXPECT_EQ(diags[0].message.find("replace"), std::string::npos) << diags[0].message;
}

TEST(Signature, InstantiationGivesTheParametersTheirTypes) {
    std::vector<Diagnostic> diags;
    auto sig = parse_signature("template <class T, unsigned int blockSize, class U = int>\n"
                               "__global__ void reduce(const T* __restrict__ in, T* out, U n) {}\n",
                               "s.cu", diags, "reduce<double, 128>", 3);
    ASSERT_TRUE(sig) << (diags.empty() ? "" : diags[0].message);
    EXPECT_EQ(sig->name, "reduce");
    EXPECT_EQ(sig->launch_name, "reduce<double, 128, int>");
    ASSERT_EQ(sig->params.size(), 3u);
    EXPECT_EQ(sig->params[0].base_type, "double");
    EXPECT_EQ(sig->params[0].type_text, "const double* __restrict__");
    EXPECT_EQ(sig->params[1].base_type, "double");
    EXPECT_EQ(sig->params[2].base_type, "int");
}

TEST(Signature, WrongNumberOfTemplateArgumentsIsReportedOnTheKernelLine) {
    std::vector<Diagnostic> diags;
    auto sig = parse_signature("template <int A, int B>\n__global__ void k(float* x) {}\n", "s.cu", diags, "k<16>", 4);
    EXPECT_FALSE(sig);
    ASSERT_EQ(diags.size(), 1u);
    EXPECT_EQ(diags[0].line, 4);
    EXPECT_NE(diags[0].message.find("gives 1 template argument"), std::string::npos) << diags[0].message;
}

TEST(Signature, KernelKeyPicksOneOfSeveral) {
    std::vector<Diagnostic> diags;
    auto sig = parse_signature("__global__ void a(int* x) {}\n__global__ void b(float* y, int n) {}\n", "s.cu", diags, "b", 2);
    ASSERT_TRUE(sig);
    EXPECT_EQ(sig->launch_name, "b");
    EXPECT_EQ(sig->params.size(), 2u);
}

TEST(Signature, TwoKernelsWithoutAChoiceAreRefusedNamingBoth) {
    std::vector<Diagnostic> diags;
    auto sig = sig_of("__global__ void first(int* a) {}\n\n__global__ void second(int* b) {}\n", diags);
    EXPECT_FALSE(sig);
    ASSERT_EQ(diags.size(), 1u);
    EXPECT_EQ(diags[0].line, 3);
    EXPECT_NE(diags[0].message.find("`first` (line 1)"), std::string::npos) << diags[0].message;
    EXPECT_NE(diags[0].message.find("`second` (line 3)"), std::string::npos);
    EXPECT_NE(diags[0].message.find("`kernel: first`"), std::string::npos) << diags[0].message;
    diags.clear();
    sig = parse_signature("__global__ void first(int* a) {}\n\n__global__ void second(int* b, int n) {}\n", "t.cu", diags,
                          "second", 4);
    ASSERT_TRUE(sig) << dump(diags);
    EXPECT_EQ(sig->name, "second");
    EXPECT_EQ(sig->params.size(), 2u);
}

TEST(Signature, DeclarationThenDefinitionIsOneKernel) {
    std::vector<Diagnostic> diags;
    auto sig = sig_of("__global__ void k(int* a);\nint x;\n__global__ void k(int* a) { a[0] = x; }\n", diags);
    ASSERT_TRUE(sig) << dump(diags);
    EXPECT_EQ(sig->line, 3);
    diags.clear();
    EXPECT_FALSE(sig_of("__global__ void k(int* a);\n", diags));
    ASSERT_EQ(diags.size(), 1u);
    EXPECT_NE(diags[0].message.find("declared but never defined"), std::string::npos);
}

TEST(Signature, NoKernel) {
    std::vector<Diagnostic> diags;
    EXPECT_FALSE(sig_of("__device__ int f() { return 1; }\n", diags));
    ASSERT_EQ(diags.size(), 1u);
    EXPECT_NE(diags[0].message.find("no `__global__` function"), std::string::npos);
}

TEST(Signature, UnnamedParameter) {
    std::vector<Diagnostic> diags;
    EXPECT_FALSE(sig_of("__global__ void k(float*, int n) {}\n", diags));
    ASSERT_EQ(diags.size(), 1u);
    EXPECT_NE(diags[0].message.find("parameter 1 of `k` (`float*`) has no name"), std::string::npos) << dump(diags);
}

TEST(Signature, VoidArraysAndOddSpacing) {
    std::vector<Diagnostic> diags;
    auto none = sig_of("__global__ void tick(void) {}\n", diags);
    ASSERT_TRUE(none) << dump(diags);
    EXPECT_TRUE(none->params.empty());
    auto arr = sig_of("__global__\nvoid\nk ( unsigned char *pix , int a[] , const uchar4 * const q ) { }\n", diags);
    ASSERT_TRUE(arr) << dump(diags);
    ASSERT_EQ(arr->params.size(), 3u);
    EXPECT_EQ(arr->line, 3);
    EXPECT_EQ(arr->params[0].base_type, "unsigned char");
    EXPECT_EQ(parse_elem_type(arr->params[0].base_type), ElemType::UChar);
    EXPECT_EQ(arr->params[1].name, "a");
    EXPECT_TRUE(arr->params[1].is_pointer);
    EXPECT_EQ(arr->params[1].base_type, "int");
    EXPECT_EQ(arr->params[2].name, "q");
    EXPECT_EQ(arr->params[2].base_type, "uchar4");
    EXPECT_TRUE(diags.empty()) << dump(diags);
}

// ---- cross-check with the metadata ----

KernelFile parse_with(const std::string& header_body, const std::string& code) {
    return parse_kernel_source("/*@playground\ntitle: T\n" + header_body + "grid: 1\n*/\n" + code, "x.cu");
}

const Diagnostic* only_error(const KernelFile& f) {
    const Diagnostic* found = nullptr;
    int errors = 0;
    for (const auto& d : f.diagnostics)
        if (d.severity == Severity::Error) found = &d, ++errors;
    EXPECT_EQ(errors, 1) << dump(f.diagnostics);
    return errors == 1 ? found : nullptr;
}

TEST(CrossCheck, MetadataBufferMissingFromSignature) {
    // line 3..6 are buffers/params, 7 grid, 8 */, then the kernel on line 9.
    const KernelFile f = parse_with("buffer src: uchar4[width * height] in\nbuffer out: uchar4[width * height] out\n"
                                    "param width: int = 4\nparam height: int = 4\n",
                                    "\nextern \"C\" __global__ void blur(const uchar4* src, uchar4* dst, int width, int height) {}\n");
    // The signature's `dst` has no metadata, and the metadata's `out` no parameter: two errors.
    int errors = 0;
    for (const auto& d : f.diagnostics) {
        if (d.severity != Severity::Error) continue;
        ++errors;
        if (d.line == 4) {
            EXPECT_EQ(d.message,
                      "metadata buffer `out` (line 4) is not a parameter of `blur` (line 10); its parameters are: "
                      "src, dst, width, height.");
        } else {
            EXPECT_EQ(d.line, 10);
            EXPECT_NE(d.message.find("parameter `dst` of `blur` (line 10) is not described"), std::string::npos) << d.message;
            EXPECT_NE(d.message.find("`buffer dst: uchar4[n] out zeros`"), std::string::npos) << d.message;
        }
    }
    EXPECT_EQ(errors, 2) << dump(f.diagnostics);
    EXPECT_FALSE(f.usable());
}

TEST(CrossCheck, SignatureParamMissingFromMetadataSuggestsALine) {
    const KernelFile f = parse_with("buffer a: float[n] inout\nparam n: int = 4\n",
                                    "__global__ void k(float* a, int n, float scale) {}\n");
    const Diagnostic* d = only_error(f);
    ASSERT_TRUE(d);
    EXPECT_EQ(d->line, 7);
    EXPECT_NE(d->message.find("`param scale: float = 1.0`"), std::string::npos) << d->message;
}

TEST(CrossCheck, PointerScalarMismatch) {
    const KernelFile f = parse_with("buffer a: float[4] inout\nbuffer n: int[1] in\n", "__global__ void k(float* a, int n) {}\n");
    const Diagnostic* d = only_error(f);
    ASSERT_TRUE(d);
    EXPECT_EQ(d->line, 4);
    EXPECT_NE(d->message.find("`n` is a buffer in the metadata (line 4) but the scalar `int n`"), std::string::npos) << d->message;

    const KernelFile g = parse_with("buffer a: float[n] inout\nparam n: int = 1\n", "__global__ void k(float* a, int* n) {}\n");
    const Diagnostic* e = only_error(g);
    ASSERT_TRUE(e);
    EXPECT_EQ(e->line, 4);
    EXPECT_NE(e->message.find("`n` is a param in the metadata (line 4) but the pointer `int* n`"), std::string::npos) << e->message;
    EXPECT_NE(e->message.find("buffer n: int[n] out zeros"), std::string::npos) << e->message;
}

TEST(CrossCheck, ElementTypeMismatch) {
    const KernelFile f = parse_with("buffer a: float[4] inout\n", "__global__ void k(int* a) {}\n");
    const Diagnostic* d = only_error(f);
    ASSERT_TRUE(d);
    EXPECT_EQ(d->line, 3);
    EXPECT_NE(d->message.find("buffer `a` holds float in the metadata (line 3) but `k` (line 6) declares `int* a`"),
              std::string::npos) << d->message;
}

TEST(CrossCheck, ScalarTypeMismatchAndUnsupportedTypes) {
    const KernelFile f = parse_with("param n: int = 4\n", "__global__ void k(float n) {}\n");
    const Diagnostic* d = only_error(f);
    ASSERT_TRUE(d);
    EXPECT_NE(d->message.find("param `n` is int in the metadata (line 3) but `float n`"), std::string::npos) << d->message;

    const KernelFile g = parse_with("param n: int = 4\n", "__global__ void k(long n) {}\n");
    const Diagnostic* e = only_error(g);
    ASSERT_TRUE(e);
    EXPECT_NE(e->message.find("scalar parameters may be int, unsigned int, float or double"), std::string::npos);

    const KernelFile h = parse_with("buffer p: float[4] in\n", "struct P { float x; };\n__global__ void k(const P* p) {}\n");
    const Diagnostic* x = only_error(h);
    ASSERT_TRUE(x);
    EXPECT_NE(x->message.find("points to `P`"), std::string::npos) << x->message;
}

TEST(CrossCheck, OutputBufferDeclaredConst) {
    const KernelFile f = parse_with("buffer c: float[4] out\n", "__global__ void k(const float* c) {}\n");
    const Diagnostic* d = only_error(f);
    ASSERT_TRUE(d);
    EXPECT_NE(d->message.find("cannot write it"), std::string::npos) << d->message;
    // A const pointer to writable data is fine.
    EXPECT_TRUE(parse_with("buffer c: float[4] out\n", "__global__ void k(float* const c) {}\n").diagnostics.empty());
}

TEST(CrossCheck, UnusedMetadataParamWarns) {
    const KernelFile f = parse_with("buffer c: float[4] out\nparam tile: int = 16\nparam unused: int = 3\n",
                                    "__global__ void k(float* c) {}\n");
    // `tile` is not used either; both warn, neither is an error.
    EXPECT_FALSE(has_errors(f.diagnostics)) << dump(f.diagnostics);
    EXPECT_EQ(f.diagnostics.size(), 2u) << dump(f.diagnostics);
    const KernelFile g = parse_with("buffer c: float[tile] out\nparam tile: int = 16\n", "__global__ void k(float* c) {}\n");
    EXPECT_TRUE(g.diagnostics.empty()) << dump(g.diagnostics);  // used in a size: fine
}

TEST(CrossCheck, PlainFileWithoutHeaderCompilesAsIs) {
    const KernelFile f = parse_kernel_source("#include <cstdio>\n__global__ void hello() { printf(\"hi\\n\"); }\n", "h.cu");
    EXPECT_FALSE(f.spec.has_metadata);
    EXPECT_TRUE(f.diagnostics.empty()) << dump(f.diagnostics);
    EXPECT_TRUE(f.usable());
}

}  // namespace
}  // namespace cp
