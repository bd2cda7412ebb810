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

std::string header_for(const std::string& source) {
    KernelFile file;
    file.path = "k.cu";
    file.source = source;
    auto header = propose_header(file);
    EXPECT_TRUE(header) << header.error().full();
    return header ? *header : std::string();
}

TEST(Describe, ExternSharedIsSizedFromHowItIsIndexed) {
    // The 2D linear index is one element per thread; `t + blockDim.x` and `2 * t` go past it.
    EXPECT_NE(header_for("__global__ void k(float* src, float* dst, int width, int height) {\n"
                         "  extern __shared__ float cache[];\n"
                         "  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;\n"
                         "  if (x >= width || y >= height) return;\n"
                         "  cache[threadIdx.y * blockDim.x + threadIdx.x] = src[y * width + x];\n"
                         "  dst[y * width + x] = cache[threadIdx.y * blockDim.x + threadIdx.x];\n}\n")
                  .find("\nshared: block.x * block.y * 4\n"),
              std::string::npos);
    for (const char* index : {"t + blockDim.x", "2 * t"}) {
        const std::string h = header_for(std::string("__global__ void k(int* in, int* out, int n) {\n"
                                                     "  extern __shared__ int s[]; int t = threadIdx.x;\n"
                                                     "  int i = blockIdx.x * blockDim.x + t;\n"
                                                     "  s[") +
                                         index +
                                         "] = i < n ? in[i] : 0;\n"
                                         "  if (i < n) out[i] = s[t];\n}\n");
        EXPECT_NE(h.find("\nshared: 2 * block.x * 4\n"), std::string::npos) << index << "\n" << h;
    }
}

// A tile filled several rows per thread (`threadIdx.y + j` for `j += BLOCK_ROWS`, as the transpose samples do)
// takes a TILE x BLOCK_ROWS block: a TILE x TILE one indexes past the tile (a GPU stops with an illegal address).
// Without the loop the tile still gives TILE x TILE.
TEST(Describe, ATileFilledSeveralRowsPerThreadTakesABlockOfThatManyRows) {
    const std::string kernel =
        "#define TILE_DIM 32\n#define BLOCK_ROWS 8\n"
        "__global__ void transpose(float* odata, const float* idata, int width, int height) {\n"
        "  __shared__ float tile[TILE_DIM][TILE_DIM + 1];\n"
        "  int x = blockIdx.x * TILE_DIM + threadIdx.x, y = blockIdx.y * TILE_DIM + threadIdx.y;\n"
        "  for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)\n"
        "    if (x < width && y + j < height) tile[threadIdx.y + j][threadIdx.x] = idata[(y + j) * width + x];\n"
        "  __syncthreads();\n"
        "  x = blockIdx.y * TILE_DIM + threadIdx.x; y = blockIdx.x * TILE_DIM + threadIdx.y;\n"
        "  for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)\n"
        "    if (x < height && y + j < width) odata[(y + j) * height + x] = tile[threadIdx.x][threadIdx.y + j];\n}\n";
    const std::string h = header_for(kernel);
    EXPECT_NE(h.find("\nblock: 32 x 8\n"), std::string::npos) << h;
    EXPECT_NE(h.find("filled 4 rows per thread (`threadIdx.y + j`, `j += BLOCK_ROWS`)"), std::string::npos) << h;
    const std::string one_row = header_for(
        "#define TILE 16\n__global__ void copy(float* out, const float* in, int width, int height) {\n"
        "  __shared__ float tile[TILE][TILE];\n"
        "  int x = blockIdx.x * TILE + threadIdx.x, y = blockIdx.y * TILE + threadIdx.y;\n"
        "  if (x < width && y < height) tile[threadIdx.y][threadIdx.x] = in[y * width + x];\n"
        "  __syncthreads();\n"
        "  if (x < width && y < height) out[y * width + x] = tile[threadIdx.y][threadIdx.x];\n}\n");
    EXPECT_NE(one_row.find("\nblock: 16 x 16\n"), std::string::npos) << one_row;
}

TEST(Describe, OneDimensionalPassOverAnImageCoversWidthTimesHeight) {
    const std::string h = header_for(
        "__global__ void brighten(unsigned char* img, unsigned char* out, int width, int height,"
        " float gain) {\n  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
        "  if (i < width * height) out[i] = min(255.0f, img[i] * gain);\n}\n");
    EXPECT_NE(h.find("\ngrid: ceil(width * height / block.x)\n"), std::string::npos) << h;
    EXPECT_NE(h.find("\nbuffer img: uchar[width * height] in image(\"chelsea.png\")\n"), std::string::npos) << h;
    EXPECT_NE(h.find("\nparam gain: float = 2.0 range -10..10 step 0.5\n"), std::string::npos) << h;
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
