// Kernels pasted from elsewhere (tests/data/pasted: our own versions of the kinds of kernels public CUDA
// samples hold): templates, several kernels in a file, cooperative groups, local headers, host code, and
// `describe` on files without a header. All run on the CPU backend and are checked against references.
#include "cli_support.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <regex>
#include "test_paths.h"

using cp::test::cli;
using cp::test::ProcessResult;
using cp::test::TempDir;

namespace {

std::string pasted(const std::string& name) { return std::string(CP_SOURCE_DIR) + "/tests/data/pasted/" + name; }

// Runs FILE on the CPU backend and expects it to verify against its reference.
void expect_verifies(const std::string& file) {
    auto r = cli({"run", file, "--backend", "cpu", "--repeat", "1", "--json", "-"});
    ASSERT_EQ(r.exit_code, 0) << file << "\n" << r.both();
    auto result = nlohmann::json::parse(r.out);
    EXPECT_EQ(result["verified"], true) << result.dump(2);
    EXPECT_EQ(result["mismatches"], 0);
}

// A copy of `name` in `dir` with its `kernel:` line replaced.
std::filesystem::path with_kernel(const TempDir& dir, const std::string& name, const std::string& kernel) {
    std::string text = cp::test::read_file(pasted(name));
    text = std::regex_replace(text, std::regex("kernel: [^\n]*"), "kernel: " + kernel);
    return dir.write(name, text);
}

}  // namespace

TEST(Pasted, TemplatedReductionWithCooperativeGroupsVerifies) { expect_verifies(pasted("reduce_cg.cu")); }

TEST(Pasted, OtherInstantiationsOfTheReductionVerify) {
    for (const char* k : {"reduce<int, 64>", "reduce<int, 128>"}) {
        TempDir dir;
        std::string text = cp::test::read_file(pasted("reduce_cg.cu"));
        text = std::regex_replace(text, std::regex("kernel: [^\n]*"), std::string("kernel: ") + k);
        text = std::regex_replace(text, std::regex("block: 256"), std::string("block: ") + (k[12] == '6' ? "64" : "128"));
        expect_verifies(dir.write("reduce_cg.cu", text).string());
    }
}

TEST(Pasted, TemplatedMatrixMultiplyVerifies) { expect_verifies(pasted("matrix_mul_template.cu")); }

TEST(Pasted, EveryTransposeOfTheEightKernelFileVerifies) {
    for (const char* k : {"transposeNaive", "transposeCoalesced", "transposeNoBankConflicts", "transposeDiagonal"}) {
        TempDir dir;
        expect_verifies(with_kernel(dir, "transpose_kernels.cu", k).string());
    }
}

TEST(Pasted, TheCopyKernelIsNotATransposeAndFailsItsCheck) {
    TempDir dir;
    auto r = cli({"run", with_kernel(dir, "transpose_kernels.cu", "copy").string(), "--backend", "cpu", "--repeat", "1"});
    EXPECT_EQ(r.exit_code, 2) << r.both();  // the check can fail: width != height, so a copy is no transpose
}

TEST(Pasted, AKernelNameThatIsNotInTheFileListsTheKernels) {
    TempDir dir;
    auto r = cli({"run", with_kernel(dir, "transpose_kernels.cu", "transposeNaiv").string(), "--backend", "cpu"});
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.both().find("names no `__global__` function"), std::string::npos) << r.both();
    EXPECT_NE(r.both().find("transposeNaive"), std::string::npos) << r.both();
}

TEST(Pasted, LocalHeaderWorksOnTheCpuBackend) { expect_verifies(pasted("histogram_local_include.cu")); }

TEST(Pasted, HostCodeIsExplainedOnceAndTheKernelRuns) {
    expect_verifies(pasted("vector_add_with_main.cu"));
    auto r = cli({"compile", pasted("vector_add_with_main.cu")});
    EXPECT_EQ(r.exit_code, 0) << r.both();
    const std::string all = r.both();
    size_t notes = 0;
    for (size_t at = all.find("host code"); at != std::string::npos; at = all.find("host code", at + 1)) ++notes;
    EXPECT_GE(notes, 1u) << all;
    EXPECT_EQ(all.find("error"), std::string::npos) << all;
    EXPECT_NE(all.find("`main` (lines"), std::string::npos) << all;
}

TEST(Pasted, TemplateWithoutInstantiationSaysWhatToAdd) {
    TempDir dir;
    auto file = dir.write("t.cu", "template <class T, unsigned int blockSize>\n"
                                  "__global__ void reduce(const T* in, T* out, unsigned int n) { }\n");
    auto r = cli({"compile", file.string()});
    EXPECT_NE(r.both().find("kernel: reduce<float, 256>"), std::string::npos) << r.both();
    EXPECT_EQ(r.both().find("registers:       ?"), std::string::npos) << r.both();
    EXPECT_EQ(r.both().find("replace `T`"), std::string::npos) << r.both();
}

TEST(Pasted, TemplateArgumentsGiveTheSignatureItsTypes) {
    TempDir dir;
    std::string text = cp::test::read_file(pasted("reduce_cg.cu"));
    text = std::regex_replace(text, std::regex("kernel: [^\n]*"), "kernel: reduce<float, 256>");
    auto r = cli({"run", dir.write("r.cu", text).string(), "--backend", "cpu"});
    EXPECT_EQ(r.exit_code, 1);
    // The header says int buffers; reduce<float, ...> takes float pointers.
    EXPECT_NE(r.both().find("const float*"), std::string::npos) << r.both();
}

TEST(Pasted, DescribeWritesAHeaderThatRunsUnchanged) {
    for (const char* name : {"vector_add_bare.cu", "scale_2d_bare.cu"}) {
        TempDir dir;
        auto file = dir.write(name, cp::test::read_file(pasted(name)));
        auto printed = cli({"describe", file.string()});
        ASSERT_EQ(printed.exit_code, 0) << printed.both();
        EXPECT_NE(printed.out.find("/*@playground"), std::string::npos);
        auto wrote = cli({"describe", file.string(), "--write"});
        ASSERT_EQ(wrote.exit_code, 0) << wrote.both();
        auto r = cli({"run", file.string(), "--backend", "cpu", "--repeat", "1", "--json", "-"});
        ASSERT_EQ(r.exit_code, 0) << name << "\n" << cp::test::read_file(file) << "\n" << r.both();
        auto result = nlohmann::json::parse(r.out);
        EXPECT_TRUE(result["error"].is_null()) << result.dump(2);
        // Pasting the printed header gives the same file.
        EXPECT_EQ(cp::test::read_file(file), printed.out + cp::test::read_file(pasted(name)));
        auto again = cli({"describe", file.string()});
        EXPECT_EQ(again.exit_code, 1);
        EXPECT_NE(again.both().find("already has"), std::string::npos);
    }
}

TEST(Pasted, DescribedTwoDimensionalKernelCoversTheImage) {
    TempDir dir;
    auto file = dir.write("s.cu", cp::test::read_file(pasted("scale_2d_bare.cu")));
    auto header = cli({"describe", file.string()});
    EXPECT_NE(header.out.find("grid: ceil(width / block.x) x ceil(height / block.y)"), std::string::npos) << header.out;
    // `in` is only read by a pixel kernel with a bounds check: it gets the photo (gray, 0..1), and the size follows it.
    EXPECT_NE(header.out.find("buffer in: float[width * height] in image(\"chelsea.png\")"), std::string::npos) << header.out;
    EXPECT_NE(header.out.find("param width: int = in.width"), std::string::npos) << header.out;
    EXPECT_NE(header.out.find("buffer out: float[width * height] out zeros"), std::string::npos) << header.out;
}

TEST(Pasted, TextureObjectParameterSaysWhyAndWhatInstead) {
    TempDir dir;
    auto file = dir.write("t.cu", "/*@playground\ntitle: t\nparam n: int = 10\nbuffer out: float[n] out\n*/\n"
                                  "__global__ void k(cudaTextureObject_t tex, float* out, int n) { }\n");
    auto r = cli({"run", file.string(), "--backend", "cpu"});
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.both().find("creates no CUDA arrays or texture objects"), std::string::npos) << r.both();
    EXPECT_EQ(r.both().find("param tex: int"), std::string::npos) << r.both();
}

TEST(Pasted, UnsupportedCooperativeGroupsFeatureNamesThePlainCudaWay) {
    TempDir dir;
    auto file = dir.write("g.cu", "/*@playground\ntitle: g\nparam n: int = 10\nbuffer out: int[n] out\n*/\n"
                                  "#include <cooperative_groups.h>\nnamespace cg = cooperative_groups;\n"
                                  "__global__ void k(int* out, int n) { cg::coalesced_group g = cg::coalesced_threads();\n"
                                  "  if (threadIdx.x < n) out[threadIdx.x] = g.thread_rank(); }\n");
    auto r = cli({"run", file.string(), "--backend", "cpu"});
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.both().find("__activemask()"), std::string::npos) << r.both();
    EXPECT_EQ(r.both().find("run this kernel with --backend cuda"), std::string::npos) << r.both();
}
