// A whole program's source as the CPU backend compiles it (source_prep.h, prepare_program_source): launches
// rewritten with every line kept, main() found, host-only runtime use allowed, device-side use and calls outside
// the runtime subset refused at their lines.
#include "core/cpu/source_prep.h"
#include "core/kernel_file/program_file.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>

namespace {

using cp::Severity;

int lines(const std::string& s) { return int(std::count(s.begin(), s.end(), '\n')); }

// The prepared text up to the generated entry point (whose own #line follows the user's code).
std::string user_part(const std::string& text) { return text.substr(0, text.find(cp::kEntryPointsFile)); }

TEST(ProgramSource, MainIsFoundAtItsLineAndOnlyAtNamespaceScope) {
    EXPECT_EQ(cp::main_function_line("__global__ void k() {}\n\nint main(int argc, char** argv) {\n  return 0;\n}\n"), 3);
    EXPECT_EQ(cp::main_function_line("struct S { int main() { return 1; } };\n__global__ void k() {}\n"), 0);
    EXPECT_EQ(cp::main_function_line("// int main() { }\n__global__ void k() {}\n"), 0);
    EXPECT_EQ(cp::main_function_line("int\nmain()\n{\n}\n"), 2);
    EXPECT_EQ(cp::main_function_line("int main(int, char**);\n__global__ void k() {}\n"), 0);  // declared only
    EXPECT_EQ(cp::main_function_line("namespace app { }\nextern \"C\" {\n}\nint main() noexcept { return 0; }\n"), 4);
}

TEST(ProgramSource, LaunchesBecomeRuntimeCallsOnTheSameLines) {
    const std::string src =
        "namespace ns { template <class T, int N> __global__ void k(T* p, int n) {} }\n"
        "__global__ void plain(int* p) {}\n"
        "int main() {\n"
        "    int* d = 0;\n"
        "    plain<<<dim3(4, 2), 64>>>(d);\n"
        "    ns::k<float, 2><<<(100 + 63) / 64, 64, 128,\n"
        "                        0>>>(\n"
        "        (float*)d, 100);\n"
        "    plain<<<1, 1>>>(d + (3 >> 1));\n"
        "}\n";
    const cp::PreparedSource p = cp::prepare_program_source(src, "prog.cu");
    ASSERT_FALSE(cp::has_errors(p.diagnostics)) << (p.diagnostics.empty() ? "" : p.diagnostics[0].message);
    const std::string code = user_part(p.text);
    EXPECT_EQ(code.find("<<<"), std::string::npos) << code;
    EXPECT_NE(code.find("::cp_rt::launch(5, \"plain\", ::cp_rt::LaunchConfig(dim3(4, 2), 64), [&](auto&... cp_a) { "
                        "plain(cp_a...); }, d)"),
              std::string::npos)
        << code;
    EXPECT_NE(code.find("::cp_rt::launch(6, \"ns::k<float, 2>\""), std::string::npos) << code;
    EXPECT_NE(code.find("{ ns::k<float, 2>(cp_a...); }"), std::string::npos) << code;
    EXPECT_NE(code.find("d + (3 >> 1))"), std::string::npos) << code;
    EXPECT_EQ(code.find("::cp_rt::Zero{}"), std::string::npos) << code;
    // One `#line 1` before the code, then every line where it was.
    EXPECT_EQ(lines(code), lines(src) + 2) << code;
    EXPECT_NE(p.text.find("cp_program_main"), std::string::npos);
    EXPECT_EQ(p.kernels.size(), 2u);
}

// `k<<<1, 1>>>(0, n)`: the literal stays a null pointer constant (or a zero), as in a direct call.
TEST(ProgramSource, ALiteralZeroArgumentIsPassedAsZero) {
    const std::string src =
        "__global__ void k(int* p, int n) {}\n"
        "int main() {\n"
        "    k<<<1, 1>>>(0, 10);\n"
        "    k<<<1, 1>>>(NULL,\n"
        "                0);\n"
        "    k<<<1, 1>>>(nullptr, 0x0);\n"
        "}\n";
    const cp::PreparedSource p = cp::prepare_program_source(src, "z.cu");
    ASSERT_FALSE(cp::has_errors(p.diagnostics));
    const std::string code = user_part(p.text);
    EXPECT_NE(code.find("{ k(cp_a...); }, ::cp_rt::Zero{}, 10)"), std::string::npos) << code;
    EXPECT_NE(code.find("{ k(cp_a...); }, ::cp_rt::Zero{},\n                ::cp_rt::Zero{})"), std::string::npos) << code;
    EXPECT_NE(code.find("{ k(cp_a...); }, nullptr, 0x0)"), std::string::npos) << code;
    EXPECT_EQ(lines(code), lines(src) + 2) << code;
}

TEST(ProgramSource, HostCodeMayUseTheRuntimeAndDeviceCodeMayNot) {
    const std::string host_only =
        "__managed__ int counter;\n"
        "__global__ void k(int* p) { p[0] = counter; }\n"
        "int main() { int* d; cudaMalloc(&d, 4); k<<<1, 1>>>(d); cudaDeviceSynchronize(); cudaFree(d); }\n";
    EXPECT_FALSE(cp::has_errors(cp::prepare_program_source(host_only, "a.cu").diagnostics));

    const std::string nested =
        "__global__ void child(int* p) {}\n"
        "__global__ void parent(int* p) {\n"
        "    child<<<1, 1>>>(p);\n"
        "}\n"
        "int main() { return 0; }\n";
    const cp::PreparedSource p = cp::prepare_program_source(nested, "b.cu");
    ASSERT_TRUE(cp::has_errors(p.diagnostics));
    EXPECT_EQ(p.diagnostics[0].line, 3);
    EXPECT_TRUE(p.text.empty());
}

TEST(ProgramSource, CallsOutsideTheSubsetAndTheLibrariesAreRefusedAtTheirLines) {
    const std::string src =
        "#include <cublas_v2.h>\n"
        "__global__ void k(float* p) {}\n"
        "int main() {\n"
        "    cudaTextureObject_t t;\n"
        "    cudaMallocPitch(0, 0, 0, 0);\n"
        "    cudaMalloc((void**)0, 4);\n"
        "}\n";
    const cp::PreparedSource p = cp::prepare_program_source(src, "c.cu");
    std::vector<int> error_lines;
    for (const cp::Diagnostic& d : p.diagnostics)
        if (d.severity == Severity::Error) error_lines.push_back(d.line);
    std::sort(error_lines.begin(), error_lines.end());
    EXPECT_EQ(error_lines, (std::vector<int>{1, 4, 5}));
}

TEST(ProgramSource, AFileWithoutMainIsNoProgram) {
    const cp::PreparedSource p = cp::prepare_program_source("__global__ void k(int* p) {}\n", "d.cu");
    ASSERT_TRUE(cp::has_errors(p.diagnostics));
    EXPECT_TRUE(p.text.empty());
}

}  // namespace
