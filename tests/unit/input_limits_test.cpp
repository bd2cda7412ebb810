// Input the playground must handle rather than hang or mislabel: large pasted files (scanned in linear time,
// refused over the stated limit), header defaults a kernel argument cannot hold, a comment after
// `#ifdef PLAYGROUND_REFERENCE`, and `extern __shared__` without a `shared:` line. Timings: cp_input_scan_bench.
#include "core/cpu/source_prep.h"
#include "core/kernel_file/file_limits.h"
#include "core/kernel_file/kernel_file.h"
#include "core/kernel_file/reference_section.h"
#include "core/session/run_choices.h"
#include "unit/diagnostics_text.h"

#include <gtest/gtest.h>

#include <unistd.h>
#include <filesystem>
#include <fstream>

namespace cp {
namespace {

using test::dump;
using test::errors_of;

// A pasted sample of at least `bytes`: `blocks` repetitions of a kernel, a host function that launches it and a
// host-only include, then main(). Returns the text; `blocks` and main's line are set for the checks.
std::string pasted_program(size_t bytes, int& blocks, int& main_line) {
    // Ten lines a block, from line 2 on: the include, the kernel (4 lines), the host function (5 lines).
    const std::string block = "#include <vector>\n"
                              "__global__ void scaleN(float* a, int n) {\n"
                              "    int i = blockIdx.x * blockDim.x + threadIdx.x; // index\n"
                              "    if (i < n) a[i] *= 2.0f;\n"
                              "}\n"
                              "static void hostN(float* d, int n) {\n"
                              "    cudaMalloc(&d, n * sizeof(float));\n"
                              "    scaleN<<<(n + 255) / 256, 256>>>(d, n);\n"
                              "    cudaFree(d);\n"
                              "}\n";
    std::string s = "#include <cuda_runtime.h>\n";
    int line = 2;
    blocks = 0;
    while (s.size() < bytes) {
        std::string b = block;
        const std::string n = std::to_string(blocks++);
        for (size_t at = b.find('N'); at != std::string::npos; at = b.find('N', at + n.size())) b.replace(at, 1, n);
        s += b;
        line += 10;
    }
    main_line = line;
    return s + "int main() { host0(nullptr, 1000); return 0; }\n";
}

// The scans of a large paste give the same answers as on a small one: every host part found on its line, the
// kernel chosen, the host code blanked. (Their time is printed by cp_input_scan_bench; the quadratic scans took
// 2 s at 4 MiB.)
void expect_paste_handled(size_t bytes) {
    int blocks = 0, main_line = 0;
    const std::string text = pasted_program(bytes, blocks, main_line);
    ASSERT_LE(text.size(), kKernelFileMaxBytes);
    const KernelFile f = parse_kernel_source(text, "paste.cu", "scale" + std::to_string(blocks - 1));
    ASSERT_FALSE(f.diagnostics.empty());
    const Diagnostic& note = f.diagnostics.front();
    EXPECT_EQ(note.severity, Severity::Note) << note.message.substr(0, 300);
    EXPECT_EQ(note.line, 1);
    // The last block's host function and include, and main, each on its own line.
    const int last = 2 + 10 * (blocks - 1);
    const std::string last_host = "`host" + std::to_string(blocks - 1) + "` (lines " + std::to_string(last + 5) + "-" +
                                  std::to_string(last + 9) + ")";
    EXPECT_NE(note.message.find(last_host), std::string::npos) << last_host;
    EXPECT_NE(note.message.find("#include <vector> (line " + std::to_string(last) + ")"), std::string::npos);
    EXPECT_NE(note.message.find("`main` (line " + std::to_string(main_line) + ")"), std::string::npos);
    ASSERT_TRUE(f.signature.has_value()) << dump(f).substr(0, 2000);
    EXPECT_EQ(f.signature->name, "scale" + std::to_string(blocks - 1));
    EXPECT_EQ(f.compile_source.find("cudaMalloc"), std::string::npos);
    EXPECT_EQ(f.compile_source.size(), text.size());  // lines kept
    // The CPU backend's preparation of the same text finds every kernel once.
    const PreparedSource prep = prepare_kernel_source(f.compile_source, "paste.cu", "scale0");
    EXPECT_EQ(prep.kernels.size(), size_t(blocks));
    EXPECT_FALSE(has_errors(prep.diagnostics));
}

TEST(InputLimits, APastedProgramOfOneMiBIsScannedWhole) {
    expect_paste_handled(size_t(1) << 20);
}
TEST(InputLimits, APastedProgramOfFourMiBIsScannedWhole) {
    expect_paste_handled(size_t(4) << 20);
}

TEST(InputLimits, TextOverTheLimitIsRefusedWithItsSizeAndTheLimit) {
    const std::string text(kKernelFileMaxBytes + 1, 'x');
    const KernelFile f = parse_kernel_source(text, "huge.cu");
    const auto errors = errors_of(f);
    ASSERT_EQ(errors.size(), 1u) << dump(f);
    EXPECT_NE(errors[0].message.find("`huge.cu` is 8.0 MiB (" + std::to_string(kKernelFileMaxBytes + 1) + " bytes)"),
              std::string::npos)
        << errors[0].message;
    EXPECT_NE(errors[0].message.find("kernel files are limited to 8 MiB"), std::string::npos) << errors[0].message;
    EXPECT_FALSE(f.signature.has_value());
    // At the limit exactly, nothing is refused for its size.
    const KernelFile at = parse_kernel_source(std::string(kKernelFileMaxBytes, ' '), "edge.cu");
    for (const Diagnostic& d : at.diagnostics) EXPECT_EQ(d.message.find("limited to"), std::string::npos) << d.message;
}

TEST(InputLimits, AFileOverTheLimitIsRefusedWhenLoaded) {
    const auto path = std::filesystem::temp_directory_path() / ("cp-huge-" + std::to_string(::getpid()) + ".cu");
    {
        std::ofstream out(path, std::ios::binary);
        const std::string chunk(1 << 20, '/');
        for (int i = 0; i < 50; ++i) out << chunk;
    }
    const auto loaded = load_kernel_file(path);
    std::filesystem::remove(path);
    ASSERT_FALSE(loaded.ok());
    EXPECT_EQ(loaded.error().kind, ErrorKind::UserInput) << loaded.error().full();
    // The refusal names the file, its size in bytes and the limit.
    const std::string& message = loaded.error().message;
    EXPECT_NE(message.find(path.filename().string()), std::string::npos) << message;
    EXPECT_NE(message.find(std::to_string(50u << 20)), std::string::npos) << message;
    EXPECT_NE(message.find(std::to_string(kKernelFileMaxBytes >> 20) + " MiB"), std::string::npos) << message;
}

// ---- header defaults are range-checked like --set ----

const char* kScaleKernel = "extern \"C\" __global__ void k(float* c, int n) { }\n";

std::string with_header(const std::string& param_line, const std::string& code = kScaleKernel) {
    return "/*@playground\ntitle: T\n" + param_line +
           "\nbuffer c: float[1000] out\nblock: 256\ngrid: 4\nproblem: 1000\n*/\n" + code;
}

TEST(InputLimits, AnIntDefaultThatDoesNotFitIsRefusedAsSetRefusesIt) {
    const KernelFile f = parse_kernel_source(with_header("param n: int = 3e9"), "test.cu");
    const auto errors = errors_of(f);
    ASSERT_EQ(errors.size(), 1u) << dump(f);
    EXPECT_EQ(errors[0].line, 3);
    // The same words as `--set n=3e9`.
    const KernelFile ok = parse_kernel_source(with_header("param n: int = 3"), "test.cu");
    ASSERT_FALSE(has_errors(ok.diagnostics)) << dump(ok);
    RunChoices choices;
    const auto set = apply_set(ok, choices, "n", "3e9");
    ASSERT_FALSE(set.ok());
    EXPECT_EQ(set.error().kind, ErrorKind::UserInput) << set.error().full();
    // --set names the parameter, the value and the range of an int.
    for (const std::string datum : {"`n`", "3000000000", "-2147483648..2147483647"})
        EXPECT_NE(set.error().message.find(datum), std::string::npos) << datum << ": " << set.error().message;
    // The header's diagnostic (no kind: a Diagnostic) gives the same figures.
    const std::string common = "parameter `n` = 3000000000";
    const std::string fit = "does not fit the kernel's `int` (-2147483648..2147483647)";
    EXPECT_NE(errors[0].message.find(common), std::string::npos) << errors[0].message;
    EXPECT_NE(errors[0].message.find(fit), std::string::npos) << errors[0].message;
    EXPECT_NE(errors[0].message.find("`3e9`"), std::string::npos) << errors[0].message;
}

TEST(InputLimits, UintAndFloatDefaultsAreRangeCheckedAndTheEdgesPass) {
    const std::string uint_kernel = "extern \"C\" __global__ void k(float* c, unsigned int n) { }\n";
    EXPECT_TRUE(
        has_errors(parse_kernel_source(with_header("param n: uint = 4294967296", uint_kernel), "t.cu").diagnostics));
    EXPECT_TRUE(has_errors(parse_kernel_source(with_header("param n: int = -2147483649"), "t.cu").diagnostics));
    const std::string float_kernel = "extern \"C\" __global__ void k(float* c, float n) { }\n";
    EXPECT_TRUE(
        has_errors(parse_kernel_source(with_header("param n: float = 1e39", float_kernel), "t.cu").diagnostics));
    for (const std::string ok : {"param n: int = 2147483647", "param n: int = -2147483648"}) {
        const KernelFile f = parse_kernel_source(with_header(ok), "t.cu");
        EXPECT_FALSE(has_errors(f.diagnostics)) << ok << dump(f);
    }
    const KernelFile u = parse_kernel_source(with_header("param n: uint = 4294967295", uint_kernel), "t.cu");
    EXPECT_FALSE(has_errors(u.diagnostics)) << dump(u);
}

// ---- a comment after #ifdef PLAYGROUND_REFERENCE ----

TEST(InputLimits, ACommentAfterTheReferenceMacroIsAccepted) {
    for (const std::string directive :
         {"#ifdef PLAYGROUND_REFERENCE // host reference", "#ifdef PLAYGROUND_REFERENCE /* host reference */",
          "#if defined(PLAYGROUND_REFERENCE) // the CPU check"}) {
        const std::string src =
            "/*@playground\ntitle: T\nparam n: int = 1000\nbuffer c: float[n] out\nblock: 256\n"
            "grid: ceil(n / block.x)\nproblem: n\nreference: fill_ref\n*/\n"
            "extern \"C\" __global__ void k(float* c, int n) {\n"
            "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n    if (i < n) c[i] = 1.0f;\n}\n" +
            directive +
            "\nstatic void fill_ref(float* c, int n) { for (int i = 0; i < n; ++i) c[i] = 1.0f; }\n#endif\n";
        const KernelFile f = parse_kernel_source(src, "test.cu");
        EXPECT_FALSE(has_errors(f.diagnostics)) << directive << "\n" << dump(f);
        EXPECT_TRUE(f.reference_fn.has_value()) << directive;
        EXPECT_NE(reference_section(src).find("fill_ref(float* c"), std::string::npos) << directive;
    }
}

TEST(InputLimits, TheCpuBackendSkipsAReferenceSectionWithACommentAfterTheMacro) {
    // asm is refused by the CPU backend in kernel code; inside the reference section it is not kernel code.
    const std::string src =
        "extern \"C\" __global__ void k(int* c) { c[0] = 1; }\n"
        "#ifdef PLAYGROUND_REFERENCE // host reference\n"
        "static void ref(int* c) { asm(\"nop\"); c[0] = 1; }\n#endif\n";
    const PreparedSource prep = prepare_kernel_source(src, "t.cu", "k");
    EXPECT_FALSE(has_errors(prep.diagnostics)) << (prep.diagnostics.empty() ? "" : prep.diagnostics[0].message);
}

// ---- extern __shared__ without shared: ----

TEST(InputLimits, ExternSharedWithoutASharedLineNamesTheLineToAdd) {
    const std::string code =
        "extern \"C\" __global__ void k(float* c, int n) {\n"  // line 9
        "    extern __shared__ double tile[];\n"               // line 10
        "    tile[threadIdx.x] = 1.0;\n    __syncthreads();\n"
        "    if (threadIdx.x < n) c[threadIdx.x] = float(tile[threadIdx.x]);\n}\n";
    const KernelFile f = parse_kernel_source(with_header("param n: int = 3", code), "test.cu");
    const auto errors = errors_of(f);
    ASSERT_EQ(errors.size(), 1u) << dump(f);
    EXPECT_EQ(errors[0].line, 10) << dump(f);
    EXPECT_NE(errors[0].message.find("`extern __shared__ double tile[]` gets no memory"), std::string::npos)
        << errors[0].message;
    EXPECT_NE(errors[0].message.find("Add the line `shared: block.x * 8`"), std::string::npos) << errors[0].message;
    EXPECT_EQ(errors[0].message.find("pointer parameter"), std::string::npos);

    // With the line, nothing is said.
    std::string fixed = with_header("param n: int = 3", code);
    fixed.replace(fixed.find("block: 256"), 10, "block: 256\nshared: block.x * 8");
    const KernelFile g = parse_kernel_source(fixed, "test.cu");
    EXPECT_FALSE(has_errors(g.diagnostics)) << dump(g);
    // A file without a header (it may be only compiled) gets the same words as a warning.
    const KernelFile bare = parse_kernel_source(code, "bare.cu");
    EXPECT_FALSE(has_errors(bare.diagnostics)) << dump(bare);
    bool warned = false;
    for (const Diagnostic& d : bare.diagnostics)
        warned = warned || (d.severity == Severity::Warning && d.line == 2 &&
                            d.message.find("Add the line `shared: block.x * 8`") != std::string::npos);
    EXPECT_TRUE(warned) << dump(bare);
    // In a comment it is not a declaration.
    const KernelFile h = parse_kernel_source(
        with_header("param n: int = 3", "// extern __shared__ float x[];\n" + std::string(kScaleKernel)), "test.cu");
    EXPECT_FALSE(has_errors(h.diagnostics)) << dump(h);
}

}  // namespace
}  // namespace cp
