// A whole program's device side for a GPU, built without one (issue 36): each kernel's entry probe in the host
// library (source_prep.cpp), the names read back from the library's symbol table, and NVRTC's module for exactly
// the instantiations the program launches, deduced or written, and for its __constant__ variables.
#include "core/cpu/host_compiler.h"
#include "core/cpu/source_prep.h"
#include "core/toolkit/elf_symbols.h"
#include "core/toolkit/program_device_compile.h"
#include "support/process.h"

#include <gtest/gtest.h>

#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include "test_paths.h"

namespace {

std::string programs_dir() { return std::string(CP_TEST_DATA_DIR) + "/programs"; }

std::string read_program(const std::string& name) {
    std::ifstream in(programs_dir() + "/" + name, std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

TEST(ProgramDevice, EachKernelStartsWithItsEntryProbeOnItsBracesLine) {
    const std::string src =
        "template <typename T, int N = 4, class... Rest>\n"
        "__global__ void axpy(T a, const T* __restrict__ x, T* y, Rest... rest) {\n"
        "    y[0] = a * x[0];\n"
        "}\n"
        "__global__ void none(void) { }\n"
        "__global__ void unnamed(float*, int n, const float* __restrict__) { }\n"
        "template <typename, int = 2>\n"
        "__global__ void tagged(float[], int) { }\n"
        "__global__ void scale(float* x, float by) { }\n"
        "__global__ void scale(double* x, double by) { }\n"
        "int main() { return 0; }\n";
    const cp::PreparedSource p = cp::prepare_program_source(src, "prog.cu");
    ASSERT_FALSE(cp::has_errors(p.diagnostics));
    EXPECT_NE(p.text.find("{ CP_RT_KERNEL_ENTRY(static_cast<void (*)(decltype(a), decltype(x), decltype(y), "
                          "decltype(rest)...)>(&axpy<T, N, Rest...>), a, x, y, rest...) \n    y[0]"),
              std::string::npos)
        << p.text;
    EXPECT_NE(p.text.find("none(void) { CP_RT_KERNEL_ENTRY(static_cast<void (*)()>(&none))  }"), std::string::npos)
        << p.text;
    // Unnamed parameters are named where the declaration leaves a name's place, so the probe can pass them on.
    EXPECT_NE(p.text.find("unnamed(float* cp_unnamed_0, int n, const float* __restrict__ cp_unnamed_1) { "
                          "CP_RT_KERNEL_ENTRY(static_cast<void (*)(decltype(cp_unnamed_0), decltype(n), "
                          "decltype(cp_unnamed_1))>(&unnamed), cp_unnamed_0, n, cp_unnamed_1)"),
              std::string::npos)
        << p.text;
    EXPECT_NE(p.text.find("template <typename cp_unnamed_4, int cp_unnamed_5 = 2>\n__global__ void tagged(float "
                          "cp_unnamed_2[], int cp_unnamed_3) { CP_RT_KERNEL_ENTRY(static_cast<void "
                          "(*)(decltype(cp_unnamed_2), decltype(cp_unnamed_3))>(&tagged<cp_unnamed_4, cp_unnamed_5>)"),
              std::string::npos)
        << p.text;
    // Overloads: each probe's cast names its own.
    EXPECT_NE(p.text.find("scale(double* x, double by) { CP_RT_KERNEL_ENTRY(static_cast<void (*)(decltype(x), "
                          "decltype(by))>(&scale), x, by)"),
              std::string::npos)
        << p.text;
}

TEST(ProgramDevice, SymbolNamesGiveNameExpressions) {
    EXPECT_EQ(cp::symbol_name("void axpy<float>(float, float const*, float*, int)").qualified, "axpy<float>");
    EXPECT_EQ(cp::symbol_name("void axpy<float>(float, float const*, float*, int)").base, "axpy");
    EXPECT_EQ(cp::symbol_name("void ns::tile<256u, Pair<int, float> >(int*)").qualified,
              "ns::tile<256u, Pair<int, float> >");
    EXPECT_EQ(cp::symbol_name("void ns::tile<256u, Pair<int, float> >(int*)").base, "tile");
    EXPECT_EQ(cp::symbol_name("vadd(float const*, float*, int)").qualified, "vadd");
    EXPECT_EQ(cp::symbol_name("coefficients").qualified, "coefficients");
    EXPECT_EQ(cp::symbol_name("vadd(float*) [clone .constprop.0]").base, "");
    EXPECT_EQ(cp::symbol_name("(anonymous namespace)::k(int*)").base, "");
    EXPECT_EQ(cp::demangled("_Z4vaddPKfPfi"), "vadd(float const*, float*, int)");
    EXPECT_EQ(cp::demangled("cp_program_main"), "cp_program_main");
}

TEST(ProgramDevice, DeviceVariablesAreFoundAtNamespaceScope) {
    const auto variables = cp::device_variables(
        "__constant__ float weights[9];\n"
        "__device__ int counter = 0;\n"
        "__device__ float twice(float x) { __shared__ float local[4]; return 2 * x; }\n"
        "static __constant__ int2 offsets[4] = {};\n"
        "__device__ __managed__ unsigned seen;\n"
        "__managed__ float total = 1.5f;\n");
    std::vector<std::string> names, managed;
    for (const auto& v : variables) (v.managed ? managed : names).push_back(v.name);
    EXPECT_EQ(names, (std::vector<std::string>{"weights", "counter", "offsets"}));
    EXPECT_EQ(managed, (std::vector<std::string>{"seen", "total"}));
}

class ProgramDeviceCompileTest : public ::testing::Test {
protected:
    void SetUp() override {
        auto c = cp::find_host_compiler("");
        auto s = cp::find_shim();
        if (!c || !s) GTEST_SKIP() << "no host compiler: " << (c ? s.error().message : c.error().message);
        compiler_ = *c;
        shim_ = *s;
    }
    // The host library of programs/NAME, then its device code for sm_90.
    cp::ProgramDeviceCompile build(const std::string& name) {
        cp::ProgramCompileRequest request;
        request.source = read_program(name);
        request.path = programs_dir() + "/" + name;
        host_ = cp::compile_program_library(request, compiler_, shim_, cache_.path());
        EXPECT_TRUE(host_.ok) << (host_.diagnostics.empty() ? host_.log : host_.diagnostics[0].message);
        auto symbols = cp::read_elf_symbols(host_.library);
        EXPECT_TRUE(symbols.ok());
        return cp::compile_program_device_code(request.source, request.path, {},
                                               symbols ? *symbols : std::vector<cp::ElfSymbol>(), "sm_90");
    }
    // The names of the library's symbols at the image's offsets.
    std::set<std::string> mapped(const std::map<uint64_t, std::string>& by_offset) {
        std::set<std::string> out;
        auto symbols = cp::read_elf_symbols(host_.library);
        EXPECT_TRUE(symbols.ok());
        for (const cp::ElfSymbol& s : *symbols)
            if (by_offset.count(s.value)) out.insert(cp::demangled(s.name));
        return out;
    }
    cp::HostCompiler compiler_;
    cp::ShimLocation shim_;
    cp::test::TempDir cache_;
    cp::CpuCompileOutput host_;
};

TEST_F(ProgramDeviceCompileTest, ATemplateLaunchedDeducedAndWrittenGetsBothInstantiations) {
    const cp::ProgramDeviceCompile d = build("template_kernel.cu");
    ASSERT_TRUE(d.result.ok) << (d.result.diagnostics.empty() ? d.result.log : d.result.diagnostics[0].message);
    ASSERT_TRUE(d.image);
    EXPECT_FALSE(d.image->image.empty());
    std::set<std::string> names;
    for (const auto& [offset, name] : d.image->kernel_names) names.insert(name);
    EXPECT_EQ(names, (std::set<std::string>{"axpy<float>", "axpy<int>"}));
    // Each maps from the host's own instantiation to NVRTC's lowered name of the same one.
    const std::set<std::string> host = mapped(d.image->kernels);
    EXPECT_EQ(host, (std::set<std::string>{"void axpy<float>(float, float const*, float*, int)",
                                           "void axpy<int>(int, int const*, int*, int)"}));
    for (const auto& [offset, lowered] : d.image->kernels) EXPECT_EQ(lowered.rfind("_Z4axpyI", 0), 0u) << lowered;
}

// Kernels defined in the program's header (one of them overloaded for float and double) and one with an unnamed
// parameter: each instantiation the program launches maps to its own function in the module.
TEST_F(ProgramDeviceCompileTest, HeaderOverloadedAndUnnamedParameterKernelsAreEachMapped) {
    const cp::ProgramDeviceCompile d = build("header_kernels.cu");
    ASSERT_TRUE(d.result.ok) << (d.result.diagnostics.empty() ? d.result.log : d.result.diagnostics[0].message);
    ASSERT_TRUE(d.image);
    std::set<std::string> names;
    for (const auto& [offset, name] : d.image->kernel_names) names.insert(name);
    EXPECT_EQ(names, (std::set<std::string>{"block_sums", "fill", "scale(float*, float, int)",
                                            "scale(double*, double, int)"}));
    EXPECT_EQ(mapped(d.image->kernels),
              (std::set<std::string>{"block_sums(float const*, float*, int)", "fill(int*, int, int)",
                                     "scale(float*, float, int)", "scale(double*, double, int)"}));
    // Two overloads, two functions of the module: each lowered name is the one NVRTC gives that overload.
    std::set<std::string> lowered;
    for (const auto& [offset, name] : d.image->kernels) lowered.insert(name);
    EXPECT_EQ(lowered, (std::set<std::string>{"_Z10block_sumsPKfPfi", "_Z4fillPiii", "_Z5scalePffi",
                                              "_Z5scalePddi"}));
}

// `__constant__ float weights[5]` and `__device__ int clamped_reads`: each host twin mapped to its device variable.
TEST_F(ProgramDeviceCompileTest, DeviceVariablesAreMappedToTheirDeviceTwins) {
    const cp::ProgramDeviceCompile d = build("constant_filter.cu");
    ASSERT_TRUE(d.result.ok) << (d.result.diagnostics.empty() ? d.result.log : d.result.diagnostics[0].message);
    EXPECT_EQ(mapped(d.image->symbols), (std::set<std::string>{"weights", "clamped_reads"}));
    std::set<std::string> lowered;
    for (const auto& [offset, name] : d.image->symbols) lowered.insert(name);
    EXPECT_EQ(lowered, (std::set<std::string>{"weights", "clamped_reads"}));
    EXPECT_EQ(d.image->kernels.size(), 1u);
}

// `__managed__ int launches_seen`: a device variable marked managed (kept in step with its host twin on a GPU).
TEST_F(ProgramDeviceCompileTest, AManagedVariableIsMarkedManaged) {
    const cp::ProgramDeviceCompile d = build("managed_memory.cu");
    ASSERT_TRUE(d.result.ok) << d.result.log;
    ASSERT_EQ(d.image->managed.size(), 1u);
    std::map<uint64_t, std::string> managed;
    for (uint64_t at : d.image->managed) managed[at] = d.image->symbols.at(at);
    EXPECT_EQ(mapped(managed), (std::set<std::string>{"launches_seen"}));
    EXPECT_EQ(d.image->kernels.size(), 2u);
}

// A kernel calling a host function compiles for the CPU (it is all host code there) but not for a GPU: NVRTC's
// error comes at the kernel's line, before anything runs.
TEST_F(ProgramDeviceCompileTest, DeviceCodeErrorsComeAtTheProgramsLine) {
    const std::string src =
        "#include <cstdio>\n"
        "#include <vector>\n"
        "__host__ float from_host() { return 1.0f; }\n"
        "__global__ void k(float* p) {\n"
        "    p[0] = from_host();\n"
        "}\n"
        "int main() { std::vector<float> v(4); float* d; cudaMalloc(&d, 16); k<<<1, 1>>>(d); return 0; }\n";
    cp::ProgramCompileRequest request;
    request.source = src;
    request.path = "bad.cu";
    host_ = cp::compile_program_library(request, compiler_, shim_, cache_.path());
    ASSERT_TRUE(host_.ok) << (host_.diagnostics.empty() ? host_.log : host_.diagnostics[0].message);
    auto symbols = cp::read_elf_symbols(host_.library);
    ASSERT_TRUE(symbols.ok());
    const cp::ProgramDeviceCompile d = cp::compile_program_device_code(src, "bad.cu", {}, *symbols, "sm_90");
    EXPECT_FALSE(d.result.ok);
    EXPECT_FALSE(d.image);
    ASSERT_FALSE(d.result.diagnostics.empty());
    EXPECT_EQ(d.result.diagnostics[0].line, 5);
    EXPECT_EQ(d.result.diagnostics[0].severity, cp::Severity::Error);
}

}  // namespace
