// A lesson's in-file CPU reference: the section NVRTC never sees, the header checks with their lines and
// fixes, and references that are wrong, crash, exit or never end, reported with the function and line.
#include "core/session/file_reference.h"
#include "core/kernel_file/kernel_file.h"
#include "core/kernel_file/reference_section.h"
#include "support/scoped_env.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>

namespace cp {
namespace {

const char* kHeader =
    "/*@playground\n"                                                        // 1
    "title: Square\n"                                                        // 2
    "param n: int = 1000\n"                                                  // 3
    "buffer in: int[n] in ramp(start=-500, step=1)\n"                        // 4
    "buffer out: int[n] out zeros\n"                                         // 5
    "grid: ceil(n / block.x)\n"                                              // 6
    "reference: square_reference\n"                                          // 7
    "*/\n"                                                                   // 8
    "extern \"C\" __global__ void square(const int* in, int* out, int n)\n"  // 9
    "{\n"                                                                    // 10
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"                   // 11
    "    if (i < n) out[i] = in[i] * in[i];\n"                               // 12
    "}\n";                                                                   // 13

KernelFile with_reference(const std::string& reference) {
    return parse_kernel_source(kHeader + reference, "square.cu");
}

std::string messages(const KernelFile& f) {
    std::string all;
    for (const auto& d : f.diagnostics) all += d.str() + "\n";
    return all;
}

TEST(ReferenceSection, KeepsOnlyTheGuardedBlocksOnTheirLines) {
    const std::string source =
        "a\n#ifdef PLAYGROUND_REFERENCE\nb\n#if X\nc\n#endif\nd\n#endif\ne\n"
        "#if defined(PLAYGROUND_REFERENCE)\nf\n#endif\n";
    EXPECT_EQ(reference_section(source),
              "\n#ifdef PLAYGROUND_REFERENCE\nb\n#if X\nc\n#endif\nd\n#endif\n\n"
              "#if defined(PLAYGROUND_REFERENCE)\nf\n#endif\n");
}

TEST(ReferenceSection, AGoodReferenceIsFoundWithItsParameters) {
    const KernelFile f = with_reference(
        "#ifdef PLAYGROUND_REFERENCE\n"
        "static void square_reference(const int* in, int* out, int n)\n"
        "{ for (int i = 0; i < n; ++i) out[i] = in[i] * in[i]; }\n#endif\n");
    EXPECT_TRUE(f.usable()) << messages(f);
    ASSERT_TRUE(f.reference_fn);
    EXPECT_EQ(f.reference_fn->line, 15);
    ASSERT_EQ(f.reference_fn->params.size(), 3u);
    EXPECT_EQ(f.reference_fn->params[1].name, "out");
}

TEST(ReferenceSection, HeaderMistakesNameTheLineAndTheFix) {
    // No such function: the `reference:` line, with a signature that fits the header.
    KernelFile f = with_reference("");
    EXPECT_NE(messages(f).find("square.cu:7: error: `reference: square_reference` names no function in this file"),
              std::string::npos)
        << messages(f);
    EXPECT_NE(messages(f).find("static void square_reference(const int* in, int* out, int n)"), std::string::npos);

    // Outside the guarded block: NVRTC would see it.
    f = with_reference("static void square_reference(const int* in, int* out, int n) {}\n");
    EXPECT_NE(messages(f).find("must be inside an `#ifdef PLAYGROUND_REFERENCE`"), std::string::npos) << messages(f);

    // A parameter that is no buffer or param, an input that is not const, an output that is, a wrong type.
    f = with_reference(
        "#ifdef PLAYGROUND_REFERENCE\n"                                          // 14
        "static void square_reference(int* in, const int* out, float* count,\n"  // 15
        "                             double n) {}\n#endif\n");
    const std::string m = messages(f);
    EXPECT_NE(m.find("square.cu:15: error: buffer `in` is an input, so the reference `square_reference` (line 15) "
                     "must not change it: declare it `const int* in`."),
              std::string::npos)
        << m;
    EXPECT_NE(m.find("declare it `int* out` (without const)"), std::string::npos) << m;
    EXPECT_NE(m.find("parameter `count` of the reference `square_reference` (line 15) is neither a buffer nor a param"),
              std::string::npos)
        << m;
    f = with_reference(
        "#ifdef PLAYGROUND_REFERENCE\nstatic void square_reference(const float* in, int* out, int* n) {}\n#endif\n");
    EXPECT_NE(messages(f).find("is `const float*` but buffer `in` (line 4) holds int; declare it `const int* in`"),
              std::string::npos)
        << messages(f);
    EXPECT_NE(messages(f).find("`n` is a param (line 3); declare it `int n`"), std::string::npos) << messages(f);

    // Not a name at all.
    f = parse_kernel_source(std::string(kHeader).replace(std::string(kHeader).find("square_reference"), 16, "my ref()"),
                            "square.cu");
    EXPECT_NE(messages(f).find("square.cu:7:"), std::string::npos) << messages(f);
    EXPECT_NE(messages(f).find("names a function in this file"), std::string::npos) << messages(f);
}

// Computes the reference of `f` on 1000 elements in[i] = i - 500.
ReferenceOutcome compute(FileReference& reference, const KernelFile& f) {
    HostBuffer in{"in", ElemType::Int, std::vector<std::byte>(1000 * 4)},
        out{"out", ElemType::Int, std::vector<std::byte>(1000 * 4)};
    for (int i = 0; i < 1000; ++i) in.as<int>()[i] = i - 500;
    return reference.compute(f, {{"n", 1000}}, {{"in", &in}, {"out", &out}});
}

TEST(FileReference, ComputesTheExpectedOutputsInTheSandbox) {
    FileReference reference;
    const KernelFile f = with_reference(
        "#ifdef PLAYGROUND_REFERENCE\n"
        "#include <vector>\n"
        "static void square_reference(const int* in, int* out, int n)\n"
        "{\n"
        "    std::vector<long long> wide(in, in + n);\n"
        "    for (int i = 0; i < n; ++i) out[i] = int(wide[i] * wide[i]);\n"
        "}\n#endif\n");
    ASSERT_TRUE(f.usable()) << messages(f);
    const ReferenceOutcome r = compute(reference, f);
    ASSERT_FALSE(r.error) << r.error->full();
    ASSERT_EQ(r.expected.count("out"), 1u);
    EXPECT_EQ(r.expected.count("in"), 0u);  // inputs are not compared
    for (int i = 0; i < 1000; ++i) ASSERT_EQ(r.expected.at("out").as<int>()[i], (i - 500) * (i - 500)) << i;
}

TEST(FileReference, CannotCallTheKernel) {
    FileReference reference;
    const KernelFile f = with_reference(
        "#ifdef PLAYGROUND_REFERENCE\n"
        "static void square_reference(const int* in, int* out, int n)\n"
        "{\n"
        "    square(in, out, n);\n"
        "}\n#endif\n");
    ASSERT_TRUE(f.usable()) << messages(f);
    const ReferenceOutcome r = compute(reference, f);
    ASSERT_TRUE(r.error);
    EXPECT_EQ(r.error->kind, ErrorKind::Compile) << r.error->full();
    // The compiler's first error is on the file's line of the call, and the error names it.
    const auto first = std::find_if(r.diagnostics.begin(), r.diagnostics.end(),
                                    [](const Diagnostic& d) { return d.severity == Severity::Error; });
    ASSERT_NE(first, r.diagnostics.end()) << r.error->message;
    EXPECT_EQ(first->file, "square.cu");
    EXPECT_EQ(first->line, 17);
    EXPECT_NE(r.error->message.find("square.cu:17:"), std::string::npos) << r.error->message;
}

TEST(FileReference, CrashExitAndHangAreReportedWithTheLineAndTheNextCallWorks) {
    const cp::test::ScopedEnv timeout("CUDA_PLAYGROUND_LAUNCH_TIMEOUT_S", "2");
    FileReference reference;
    const std::string start =
        "#ifdef PLAYGROUND_REFERENCE\n#include <cstdlib>\n"
        "static void square_reference(const int* in, int* out, int n)\n"  // line 16
        "{\n";
    const KernelFile crash = with_reference(start + "    out[n + (1 << 28)] = in[0];\n}\n#endif\n");  // line 18
    ReferenceOutcome r = compute(reference, crash);
    ASSERT_TRUE(r.error);
    // The error keeps the runner's kind, and names the reference and the line of the crash.
    EXPECT_TRUE(r.error->kind == ErrorKind::OutOfBounds || r.error->kind == ErrorKind::Fault)
        << error_kind_name(r.error->kind) << ": " << r.error->message;
    EXPECT_NE(r.error->message.find("`square_reference`"), std::string::npos) << r.error->message;
    EXPECT_NE(r.error->message.find("line 18"), std::string::npos) << r.error->message;

    const KernelFile exits = with_reference(start + "    if (n > 0) exit(3);\n}\n#endif\n");
    r = compute(reference, exits);
    ASSERT_TRUE(r.error);
    // (Its line is not always found: the exit is seen from the generated entry point's frame.)
    EXPECT_NE(r.error->message.find("`square_reference`"), std::string::npos) << r.error->message;
    EXPECT_NE(r.error->message.find("exit(3)"), std::string::npos) << r.error->message;
    // The reference's process ended by its own code: a fault of the reference, not a lost worker.
    EXPECT_EQ(r.error->kind, ErrorKind::Fault) << error_kind_name(r.error->kind) << ": " << r.error->message;

    const KernelFile hangs =
        with_reference(start + "    for (volatile int spin = 1; spin;) out[0] = in[0];\n}\n#endif\n");
    r = compute(reference, hangs);
    ASSERT_TRUE(r.error);
    // A hang is told from a crash by its kind; the message gives the 2 s limit set above.
    EXPECT_EQ(r.error->kind, ErrorKind::Hang) << error_kind_name(r.error->kind) << ": " << r.error->message;
    EXPECT_NE(r.error->message.find("2 s"), std::string::npos) << r.error->message;

    const KernelFile good =
        with_reference(start + "    for (int i = 0; i < n; ++i) out[i] = in[i] * in[i];\n}\n#endif\n");
    r = compute(reference, good);
    ASSERT_FALSE(r.error) << r.error->full();
    EXPECT_EQ(r.expected.at("out").as<int>()[0], 250000);
}

}  // namespace
}  // namespace cp
