// `describe`'s reading of a kernel body (kernel_body.h) on what the CLI tests do not show: directions from
// uses that are easy to misread, and hostile bodies, which it reads without failing or taking long.
#include "core/kernel_file/describe.h"
#include "core/kernel_file/kernel_body.h"

#include <gtest/gtest.h>

namespace cp {
namespace {

KernelBody body_of(const std::string& source, const std::vector<std::string>& pointers,
                   const std::vector<std::string>& scalars) {
    const KernelScan scan = scan_kernels(source);
    EXPECT_EQ(defined_kernels(scan).size(), 1u) << source;
    return read_kernel_body(source, defined_kernels(scan).at(0), pointers, scalars);
}

TEST(KernelBody, ComparisonsAndCompoundAssignmentsAreNotPlainWrites) {
    const KernelBody b = body_of(
        "__global__ void k(float* a, float* b, float* c, int* d, int n) {\n"
        "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
        "  if (i < n && a[i] == 0.0f) b[i] += 1.0f;\n"
        "  if (i < n) { c[i] = a[i]; d[i]++; }\n}\n",
        {"a", "b", "c", "d"}, {"n"});
    ASSERT_TRUE(b.found);
    EXPECT_TRUE(b.guarded);
    EXPECT_TRUE(b.pointers.at("a").read);
    EXPECT_FALSE(b.pointers.at("a").written);                            // `a[i] == 0` compares
    EXPECT_TRUE(b.pointers.at("b").read && b.pointers.at("b").written);  // `+=` reads and writes
    EXPECT_TRUE(b.pointers.at("c").written);
    EXPECT_FALSE(b.pointers.at("c").read);
    EXPECT_TRUE(b.pointers.at("d").read && b.pointers.at("d").written);  // `++`
    EXPECT_EQ(b.axis.at("i"), 0);
    EXPECT_EQ(words_text(b.bounds.at("i")), "n");
}

TEST(KernelBody, SharedTilesAndConstantsAreRead) {
    const KernelBody b = body_of(
        "#define TILE 8\nconst int PAD = 1;\n"
        "__global__ void k(float* out, int w) {\n"
        "  __shared__ float tile[TILE][TILE + PAD];\n"
        "  extern __shared__ double scratch[];\n"
        "  scratch[threadIdx.x + blockDim.x] = 1;\n"
        "  out[threadIdx.y * w + threadIdx.x] = tile[threadIdx.y][threadIdx.x];\n}\n",
        {"out"}, {"w"});
    ASSERT_EQ(b.shared.size(), 2u);
    EXPECT_EQ(b.shared[0].name, "tile");
    EXPECT_EQ(leading_constant(b.shared[0].dims[1], b.constants), 8);
    EXPECT_TRUE(b.shared[1].is_extern);
    EXPECT_EQ(b.shared[1].type, "double");
    EXPECT_EQ(words_text(b.shared[1].indexes.at(0)), "threadIdx.x + blockDim.x");
    EXPECT_TRUE(b.two_d);
    EXPECT_EQ(b.constants.at("PAD"), 1);
}

TEST(KernelBody, AHostileBodyIsReadAndDescribed) {
    std::string source = "__global__ void k(float* p, int n) {";
    for (int i = 0; i < 20000; ++i) source += "p[";
    for (int i = 0; i < 20000; ++i) source += "]";
    for (int i = 0; i < 2000; ++i) source += "__shared__ float a[1]; extern __shared__ float e[]; x = ";
    for (int i = 0; i < 20000; ++i) source += "if (i < (";
    source += "}";
    KernelFile file;
    file.path = "hostile.cu";
    file.source = source;
    auto header = propose_header(file);
    ASSERT_TRUE(header) << header.error().full();
    EXPECT_NE(header->find("buffer p: float["), std::string::npos) << *header;
}

}  // namespace
}  // namespace cp
