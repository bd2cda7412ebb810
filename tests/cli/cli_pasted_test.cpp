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

std::string pasted_file(const std::string& name) { return std::string(CP_SOURCE_DIR) + "/tests/data/pasted/" + name; }

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
    std::string text = cp::test::read_file(pasted_file(name));
    text = std::regex_replace(text, std::regex("kernel: [^\n]*"), "kernel: " + kernel);
    return dir.write(name, text);
}

}  // namespace

TEST(Pasted, TemplatedReductionWithCooperativeGroupsVerifies) { expect_verifies(pasted_file("reduce_cg.cu")); }

TEST(Pasted, OtherInstantiationsOfTheReductionVerify) {
    for (const char* k : {"reduce<int, 64>", "reduce<int, 128>"}) {
        TempDir dir;
        std::string text = cp::test::read_file(pasted_file("reduce_cg.cu"));
        text = std::regex_replace(text, std::regex("kernel: [^\n]*"), std::string("kernel: ") + k);
        text = std::regex_replace(text, std::regex("block: 256"), std::string("block: ") + (k[12] == '6' ? "64" : "128"));
        expect_verifies(dir.write("reduce_cg.cu", text).string());
    }
}

TEST(Pasted, TemplatedMatrixMultiplyVerifies) { expect_verifies(pasted_file("matrix_mul_template.cu")); }

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

TEST(Pasted, LocalHeaderWorksOnTheCpuBackend) { expect_verifies(pasted_file("histogram_local_include.cu")); }

TEST(Pasted, HostCodeIsExplainedOnceAndTheKernelRuns) {
    expect_verifies(pasted_file("vector_add_with_main.cu"));
    auto r = cli({"compile", pasted_file("vector_add_with_main.cu")});
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
    std::string text = cp::test::read_file(pasted_file("reduce_cg.cu"));
    text = std::regex_replace(text, std::regex("kernel: [^\n]*"), "kernel: reduce<float, 256>");
    auto r = cli({"run", dir.write("r.cu", text).string(), "--backend", "cpu"});
    EXPECT_EQ(r.exit_code, 1);
    // The header says int buffers; reduce<float, ...> takes float pointers.
    EXPECT_NE(r.both().find("const float*"), std::string::npos) << r.both();
}

TEST(Pasted, DescribeWritesAHeaderThatRunsUnchanged) {
    for (const char* name : {"vector_add_bare.cu", "scale_2d_bare.cu"}) {
        TempDir dir;
        auto file = dir.write(name, cp::test::read_file(pasted_file(name)));
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
        EXPECT_EQ(cp::test::read_file(file), printed.out + cp::test::read_file(pasted_file(name)));
        auto again = cli({"describe", file.string()});
        EXPECT_EQ(again.exit_code, 1);
        EXPECT_NE(again.both().find("already has"), std::string::npos);
    }
}

TEST(Pasted, DescribedTwoDimensionalKernelCoversTheImage) {
    TempDir dir;
    auto file = dir.write("s.cu", cp::test::read_file(pasted_file("scale_2d_bare.cu")));
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

// ---- Whole samples, helper headers, __constant__ memory, textures beside plain kernels (issue 20) ----

namespace {

// `compile` takes the file through NVRTC (no GPU needed): the CUDA backend's compiler accepts it.
void expect_nvrtc_compiles(const std::string& file) {
    auto r = cli({"compile", file});
    EXPECT_EQ(r.exit_code, 0) << file << "\n" << r.both();
    EXPECT_EQ(r.both().find("error"), std::string::npos) << r.both();
}

std::string without_line(const std::string& text, const std::string& starting) {
    return std::regex_replace(text, std::regex("\n" + starting + "[^\n]*"), "");
}

}  // namespace

TEST(Pasted, WholeSampleWithHostGlobalsAndATemplateLauncherRunsItsKernel) {
    const std::string file = pasted_file("scale_bias_whole_sample.cu");
    expect_verifies(file);
    expect_nvrtc_compiles(file);
    auto r = cli({"compile", file});
    const std::string all = r.both();
    // One note, naming main, the launcher and the host globals (the dynamically initialised one too).
    EXPECT_NE(all.find("`main` (lines"), std::string::npos) << all;
    EXPECT_NE(all.find("`launchScaleBias`"), std::string::npos) << all;
    EXPECT_NE(all.find("host global `h_data`"), std::string::npos) << all;
    EXPECT_NE(all.find("host global `d_buffer`"), std::string::npos) << all;
    EXPECT_EQ(all.find("dynamic parallelism"), std::string::npos) << all;
    EXPECT_EQ(all.find("dynamic initialization"), std::string::npos) << all;
}

TEST(Pasted, TheTemplateLauncherAloneIsNotDynamicParallelism) {
    // A kernels-and-launcher paste, no main: the launcher's <<<...>>> is host code.
    TempDir dir;
    std::string text = cp::test::read_file(pasted_file("scale_bias_whole_sample.cu"));
    text = text.substr(0, text.find("static double checksum")) + text.substr(text.find("#ifdef PLAYGROUND_REFERENCE"));
    auto file = dir.write("launcher.cu", text);
    expect_verifies(file.string());
    auto r = cli({"compile", file.string()});
    EXPECT_EQ(r.exit_code, 0) << r.both();
    EXPECT_EQ(r.both().find("dynamic parallelism"), std::string::npos) << r.both();
}

TEST(Pasted, HelperHeaderOfFloat4OperatorsIsKeptAndItsHostFunctionLeftOut) {
    const std::string file = pasted_file("lerp_float4_helper_header.cu");
    expect_verifies(file);
    expect_nvrtc_compiles(file);
}

TEST(Pasted, KernelsOnlyPasteWithHostIncludesCompilesOnBothBackends) {
    const std::string file = pasted_file("histogram_kernels_only.cu");
    expect_verifies(file);
    expect_nvrtc_compiles(file);
}

TEST(Pasted, ConstantWeightsSetFromTheHeaderVerify) {
    const std::string file = pasted_file("convolution_separable_constant.cu");
    expect_verifies(file);
    expect_nvrtc_compiles(file);
    // Another sigma: the weights follow the param (the reference computes them from the same sigma).
    auto r = cli({"run", file, "--backend", "cpu", "--repeat", "1", "--set", "sigma=1.25", "--json", "-"});
    ASSERT_EQ(r.exit_code, 0) << r.both();
    EXPECT_EQ(nlohmann::json::parse(r.out)["verified"], true);
}

TEST(Pasted, AConstantNothingSetsIsAWarningBeforeTheRunNeverSilentZeros) {
    TempDir dir;
    auto file = dir.write(
        "conv.cu", without_line(cp::test::read_file(pasted_file("convolution_separable_constant.cu")), "constant c_Kernel"));
    auto r = cli({"run", file.string(), "--backend", "cpu", "--repeat", "1"});
    const std::string all = r.both();
    const size_t warning = all.find("`c_Kernel` is never set: its values are all zero");
    ASSERT_NE(warning, std::string::npos) << all;
    EXPECT_NE(all.find("set it in the header: constant c_Kernel: float[COUNT] = gaussian(2.0)"), std::string::npos)
        << all;
    EXPECT_NE(all.find("cudaMemcpyToSymbol"), std::string::npos) << all;
    // Before the run: in the header printed before launching, ahead of its time and the check's verdict. And the
    // zeros fail the check (exit 2), never a silent 0.
    const size_t time = all.find("time:"), check = all.find("check:");
    ASSERT_NE(time, std::string::npos) << all;
    ASSERT_NE(check, std::string::npos) << all;
    EXPECT_LT(warning, time) << all;
    EXPECT_LT(warning, check) << all;
    EXPECT_EQ(r.exit_code, 2) << all;
}

TEST(Pasted, ConstantLineMistakesAreReportedOnTheirLine) {
    TempDir dir;
    const std::string text = cp::test::read_file(pasted_file("convolution_separable_constant.cu"));
    auto typo = dir.write("typo.cu", std::regex_replace(text, std::regex("constant c_Kernel:"), "constant c_Kernl:"));
    auto r = cli({"run", typo.string(), "--backend", "cpu"});
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.both().find("`constant c_Kernl` names no `__constant__` variable of this file; it has c_Kernel"),
              std::string::npos)
        << r.both();
    // A count that is not the array's: the compile says so on both backends (no unannounced zeros at the end).
    auto short_count = dir.write("short.cu", std::regex_replace(text, std::regex("float\\[17\\]"), "float[9]"));
    auto cpu = cli({"run", short_count.string(), "--backend", "cpu"});
    EXPECT_EQ(cpu.exit_code, 1);
    EXPECT_NE(cpu.both().find("make its count the array's size"), std::string::npos) << cpu.both();
    auto nvrtc = cli({"compile", short_count.string()});
    EXPECT_NE(nvrtc.exit_code, 0);
    EXPECT_NE(nvrtc.both().find("make its count the array's size"), std::string::npos) << nvrtc.both();
}

TEST(Pasted, ExplicitConstantValuesReachTheKernel) {
    TempDir dir;
    auto file = dir.write("taps.cu",
                          "/*@playground\ntitle: taps\nparam n: int = 37\nparam scale: float = 2.5\n"
                          "buffer out: float[n] out zeros\nconstant c_Taps: float[3] = values(1, -2, 0.5 * scale)\n"
                          "constant c_Offset: int = n\nblock: 32\ngrid: ceil(n / block.x)\n"
                          "reference: taps_reference\n*/\n"
                          "__constant__ float c_Taps[3];\n__constant__ int c_Offset;\n"
                          "__global__ void k(float* out, int n) {\n"
                          "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                          "  if (i < n) out[i] = c_Taps[i % 3] + c_Offset; }\n"
                          "#ifdef PLAYGROUND_REFERENCE\n"
                          "static void taps_reference(float* out, int n, float scale) {\n"
                          "  const float taps[3] = {1, -2, 0.5f * scale};\n"
                          "  for (int i = 0; i < n; ++i) out[i] = taps[i % 3] + n; }\n#endif\n");
    expect_verifies(file.string());
    auto r = cli({"run", file.string(), "--backend", "cpu", "--repeat", "1", "--set", "scale=-4", "--set", "n=50",
                  "--json", "-"});
    ASSERT_EQ(r.exit_code, 0) << r.both();
    EXPECT_EQ(nlohmann::json::parse(r.out)["verified"], true);
    expect_nvrtc_compiles(file.string());
}

TEST(Pasted, TextureKernelBesideAPlainOneStopsOnlyWhenChosen) {
    const std::string file = pasted_file("texture_beside_plain.cu");
    expect_verifies(file);
    expect_nvrtc_compiles(file);
    TempDir dir;
    auto r = cli({"run", with_kernel(dir, "texture_beside_plain.cu", "flipTexture").string(), "--backend", "cpu"});
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.both().find("creates no CUDA arrays or texture objects"), std::string::npos) << r.both();
    EXPECT_NE(r.both().find("tex[y * width + x]"), std::string::npos) << r.both();          // the plain-pointer way
    EXPECT_NE(r.both().find("texture_beside_plain.cu:24"), std::string::npos) << r.both();  // flipTexture's line
}

TEST(Pasted, Uint4BuffersAreAcceptedLikeInt4) {
    expect_verifies(pasted_file("uint4_xor_words.cu"));
    expect_nvrtc_compiles(pasted_file("uint4_xor_words.cu"));
}

TEST(Pasted, CooperativeGroupsTilesAsSamplesUseThemVerify) {
    expect_verifies(pasted_file("cg_tile_sums.cu"));
    expect_nvrtc_compiles(pasted_file("cg_tile_sums.cu"));
}

TEST(Pasted, CooperativeGroupsPiecesTheShimLacksNameTheUsersLine) {
    TempDir dir;
    auto big = dir.write("big.cu",
                         "/*@playground\ntitle: g\nparam n: int = 10\nbuffer out: int[n] out\n*/\n"
                         "#include <cooperative_groups.h>\nnamespace cg = cooperative_groups;\n"
                         "__global__ void k(int* out, int n) {\n"
                         "  cg::thread_block_tile<64> t = cg::tiled_partition<64>(cg::this_thread_block());\n"
                         "  if (threadIdx.x < n) out[threadIdx.x] = t.thread_rank(); }\n");
    auto r = cli({"run", big.string(), "--backend", "cpu"});
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.both().find("big.cu:9"), std::string::npos) << r.both();
    EXPECT_NE(r.both().find("at most 32 threads"), std::string::npos) << r.both();
    EXPECT_EQ(r.both().find("cooperative_groups.h:"), std::string::npos) << r.both();  // not our header's line

    auto grid = dir.write("grid.cu",
                          "/*@playground\ntitle: g\nparam n: int = 10\nbuffer out: int[n] out\n*/\n"
                          "#include <cooperative_groups.h>\nnamespace cg = cooperative_groups;\n"
                          "__global__ void k(int* out, int n) {\n  cg::grid_group g = cg::this_grid();\n"
                          "  if (threadIdx.x < n) out[threadIdx.x] = 1;\n  g.sync();\n}\n");
    auto s = cli({"run", grid.string(), "--backend", "cpu"});
    EXPECT_EQ(s.exit_code, 1);
    EXPECT_NE(s.both().find("grid.cu:11"), std::string::npos) << s.both();
    EXPECT_NE(s.both().find("second kernel"), std::string::npos) << s.both();
    EXPECT_EQ(s.both().find("cooperative_groups.h:"), std::string::npos) << s.both();
}

TEST(Pasted, DynamicParallelismHintDoesNotPromiseTheCudaBackend) {
    TempDir dir;
    auto file =
        dir.write("dp.cu",
                  "/*@playground\ntitle: dp\nparam n: int = 10\nbuffer out: int[n] out\nkernel: parent\n*/\n"
                  "__global__ void child(int* out, int n) { if (threadIdx.x < n) out[threadIdx.x] = 1; }\n"
                  "__global__ void parent(int* out, int n) { if (threadIdx.x == 0) child<<<1, 32>>>(out, n); }\n");
    auto r = cli({"run", file.string(), "--backend", "cpu"});
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.both().find("dynamic parallelism"), std::string::npos) << r.both();
    EXPECT_EQ(r.both().find("--backend cuda"), std::string::npos) << r.both();
    EXPECT_NE(r.both().find("`step:` line"), std::string::npos) << r.both();
}

TEST(Pasted, TheCpuBackendNamesTheCudaBackendOnlyWhenCudasCompilerTakesTheFile) {
    TempDir dir;
    const std::string head = "/*@playground\ntitle: a\nparam n: int = 10\nbuffer out: int[n] out\n*/\n";
    // Inline PTX: NVRTC compiles it, so the hint is true.
    auto lane = dir.write("lane.cu", head + "__global__ void k(int* out, int n) {\n  unsigned lane;\n"
                                             "  asm(\"mov.u32 %0, %%laneid;\" : \"=r\"(lane));\n"
                                             "  if (threadIdx.x < n) out[threadIdx.x] = lane; }\n");
    auto r = cli({"run", lane.string(), "--backend", "cpu"});
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.both().find("inline assembly"), std::string::npos) << r.both();
    EXPECT_NE(r.both().find("--backend cuda runs it"), std::string::npos) << r.both();
    // The same with a device-code error NVRTC refuses as well: no promise.
    auto broken = dir.write("broken.cu", head + "__global__ void k(int* out, int n) {\n  unsigned lane;\n"
                                                "  asm(\"mov.u32 %0, %%laneid;\" : \"=r\"(lane));\n"
                                                "  if (threadIdx.x < n) out[threadIdx.x] = lane + undeclared_name; }\n");
    auto b = cli({"run", broken.string(), "--backend", "cpu"});
    EXPECT_EQ(b.exit_code, 1);
    EXPECT_EQ(b.both().find("--backend cuda runs it"), std::string::npos) << b.both();
    EXPECT_NE(b.both().find("refuses the file too"), std::string::npos) << b.both();
}
