// Parsing NVRTC logs captured from NVRTC 13.0: diagnostics, continuation lines, ptxas reports.
#include "core/toolkit/nvrtc_log.h"

#include <gtest/gtest.h>

namespace cp {
namespace {

TEST(NvrtcLog, ErrorAndWarningWithCarets) {
    const std::string log = "k.cu(3): error: expected a \";\"\n"
                            "      a[i] = 1;\n"
                            "      ^\n"
                            "\n"
                            "k.cu(2): warning #177-D: variable \"i\" was declared but never referenced\n"
                            "    int i = threadIdx.x\n"
                            "        ^\n"
                            "\n"
                            "Remark: The warnings can be suppressed with \"-diag-suppress <warning-number>\"\n"
                            "\n"
                            "1 error detected in the compilation of \"k.cu\".\n";
    const auto d = parse_nvrtc_diagnostics(log, "k.cu", 4);
    ASSERT_EQ(d.size(), 2u);
    EXPECT_EQ(d[0].severity, Severity::Error);
    EXPECT_EQ(d[0].line, 3);
    EXPECT_EQ(d[0].column, 5);
    EXPECT_EQ(d[0].message, "expected a \";\"");
    EXPECT_EQ(d[1].severity, Severity::Warning);
    EXPECT_EQ(d[1].line, 2);
    EXPECT_EQ(d[1].column, 7);
    EXPECT_EQ(d[1].message, "variable \"i\" was declared but never referenced");
    EXPECT_EQ(d[1].str(), "k.cu:2:7: warning: variable \"i\" was declared but never referenced");
}

TEST(NvrtcLog, ContinuationLinesJoinTheMessage) {
    const std::string log =
        "dir/k.cu(1): error: expression must have class type but it has type \"float\"\n"
        "  template<class T> __device__ T f(T x){ return x.foo; }\n"
        "                                                ^\n"
        "          detected during instantiation of \"T f(T) [with T=float]\" at line 3\n"
        "\n";
    const auto d = parse_nvrtc_diagnostics(log, "dir/k.cu", 5);
    ASSERT_EQ(d.size(), 1u);
    EXPECT_EQ(d[0].file, "dir/k.cu");
    EXPECT_EQ(d[0].column, 47);
    EXPECT_NE(d[0].message.find("; detected during instantiation"), std::string::npos) << d[0].message;
}

TEST(NvrtcLog, EndOfSourceNoteAndCatastrophicError) {
    const std::string log = "At end of source: error: expected a \"}\"\n"
                            "k.cu(1): note #3196-D: to match this \"{\"\n"
                            "  __global__ void k(float* a){ a[0]=1;\n"
                            "                             ^\n"
                            "\n"
                            "k.cu(7): catastrophic error: cannot open source file \"nonexist.h\"\n"
                            "  #include <nonexist.h>\n"
                            "                       ^\n";
    const auto d = parse_nvrtc_diagnostics(log, "k.cu", 12);
    ASSERT_EQ(d.size(), 3u);
    EXPECT_EQ(d[0].line, 12);
    EXPECT_EQ(d[0].severity, Severity::Error);
    EXPECT_EQ(d[1].severity, Severity::Note);
    EXPECT_EQ(d[1].column, 28);
    EXPECT_EQ(d[2].severity, Severity::Error);
    EXPECT_EQ(d[2].line, 7);
}

TEST(NvrtcLog, UnlocatedMessages) {
    const auto d = parse_nvrtc_diagnostics(
        "nvrtc: error: invalid value for --gpu-architecture (-arch)\n"
        "ptxas error   : Entry function 'k' uses too much shared data (0x10000 bytes, 0xc000 max)\n",
        "k.cu", 3);
    ASSERT_EQ(d.size(), 2u);
    EXPECT_EQ(d[0].line, 0);
    EXPECT_EQ(d[0].file, "k.cu");
    EXPECT_NE(d[0].message.find("gpu-architecture"), std::string::npos);
    EXPECT_EQ(d[1].severity, Severity::Error);
    EXPECT_NE(d[1].message.find("too much shared data"), std::string::npos);
}

// NVRTC echoes the erroneous source line: a megabyte-long line (a kernel file is untrusted) overflowed the
// stack in std::regex. The diagnostic and its column still come out.
TEST(NvrtcLog, MegabyteSourceLineDoesNotOverflowTheStack) {
    const std::string source_line = "a[0] = 1" + std::string(1000000, '+') + " oops;";
    const std::string log = "k.cu(4): error: identifier \"oops\" is undefined\n  " + source_line + "\n  " +
                            std::string(source_line.size() - 5, ' ') + "^\n\n";
    const auto d = parse_nvrtc_diagnostics(log, "k.cu", 9);
    ASSERT_EQ(d.size(), 1u);
    EXPECT_EQ(d[0].line, 4);
    EXPECT_EQ(d[0].column, int(source_line.size()) - 4);
    EXPECT_EQ(d[0].message, "identifier \"oops\" is undefined");
    // An absurdly long kernel name is not matched (only the first 4096 bytes of a line are), and does not crash.
    const std::string entries = "ptxas info    : Compiling entry function '" + std::string(1000000, 'k') +
                                "' for 'sm_90'\nptxas info    : Compiling entry function 'second' for 'sm_90'\n";
    EXPECT_EQ(ptxas_entry_functions(entries), std::vector<std::string>{"second"});
}

const char* kTwoEntries =
    "ptxas info    : 7 bytes gmem\n"
    "ptxas info    : Compiling entry function '_Z5firstPf' for 'sm_90'\n"
    "ptxas info    : Function properties for _Z5firstPf\n"
    "ptxas         .     0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
    "ptxas info    : Used 8 registers, used 0 barriers\n"
    "ptxas info    : Compiling entry function 'second' for 'sm_90'\n"
    "ptxas info    : Function properties for helper\n"
    "ptxas         .     16 bytes stack frame, 4 bytes spill stores, 4 bytes spill loads\n"
    "ptxas info    : Function properties for second\n"
    "ptxas         .     40 bytes stack frame, 12 bytes spill stores, 20 bytes spill loads\n"
    "ptxas info    : Used 40 registers, used 1 barriers, 56 bytes cumulative stack size, 1024 bytes smem\n"
    "ptxas info    : Compile time = 16.390 ms\n";

TEST(PtxasUsage, PicksTheRequestedEntry) {
    bool found = false;
    const ResourceUsage second = parse_ptxas_usage(kTwoEntries, "second", &found);
    EXPECT_TRUE(found);
    EXPECT_EQ(second.registers, 40);
    EXPECT_EQ(second.barriers, 1);
    EXPECT_EQ(second.static_shared_bytes, 1024);
    EXPECT_EQ(second.local_bytes, 56);  // cumulative stack, not the frame alone
    EXPECT_EQ(second.spill_store_bytes, 12);
    EXPECT_EQ(second.spill_load_bytes, 20);

    const ResourceUsage first = parse_ptxas_usage(kTwoEntries, "_Z5firstPf");
    EXPECT_EQ(first.registers, 8);
    EXPECT_EQ(first.static_shared_bytes, 0);
    EXPECT_EQ(first.local_bytes, 0);
    EXPECT_EQ(first.spill_store_bytes, 0);

    parse_ptxas_usage(kTwoEntries, "absent", &found);
    EXPECT_FALSE(found);
    EXPECT_EQ(ptxas_entry_functions(kTwoEntries), (std::vector<std::string>{"_Z5firstPf", "second"}));
}

}  // namespace
}  // namespace cp
