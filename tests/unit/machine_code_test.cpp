// The machine code view without a GPU: PTX and SASS listings of NVRTC's output with their source lines
// (core/toolkit/machine_code.h). Every lesson disassembles for Hopper, an older and a newer architecture;
// an inlined helper and a loop map to their lines; the spills reported are what ptxas itself prints.
#include "core/kernel_file/kernel_file.h"
#include "core/session/session.h"
#include "core/toolkit/machine_code.h"
#include "core/toolkit/nvrtc_compiler.h"
#include "core/toolkit/opcode_help.h"
#include "core/worker/subprocess.h"
#include "support/scoped_env.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <set>

namespace cp {
namespace {

namespace fs = std::filesystem;

int line_count(const std::string& text) { return 1 + int(std::count(text.begin(), text.end(), '\n')); }

// The 1-based line of the first line of `text` that contains `needle`.
int line_of(const std::string& text, const std::string& needle) {
    const size_t pos = text.find(needle);
    EXPECT_NE(pos, std::string::npos) << needle;
    return 1 + int(std::count(text.begin(), text.begin() + long(pos), '\n'));
}

MachineCode code_of(const std::string& source, const std::string& kernel, const std::string& arch,
                    std::vector<std::string> options = {}) {
    MachineCodeRequest request;
    request.compile.source = source;
    request.compile.path = "weigh.cu";
    request.compile.kernel_name = kernel;
    request.compile.extra_options = std::move(options);
    request.arch = arch;
    return machine_code(request);
}

// Every opcode listed has its line of help (the Code panel's hover), in the table of its language.
void expect_help_for_every_opcode(const CodeListing& listing, bool sass, std::set<std::string>& missing) {
    for (const CodeLine& l : listing.lines)
        if (l.kind == CodeLine::Kind::Instruction && !(sass ? sass_opcode_help(l.opcode) : ptx_opcode_help(l.opcode)))
            missing.insert(std::string(sass ? "SASS " : "PTX ") + std::string(opcode_base(l.opcode)));
}

void expect_lesson_listing(const KernelFile& file, const CodeListing& listing, const std::string& what) {
    const int lines = line_count(file.source);
    EXPECT_GT(listing.instructions, 0) << what;
    int in_file = 0, padding = 0;
    for (const CodeLine& l : listing.lines) {
        if (l.kind != CodeLine::Kind::Instruction) continue;
        padding += l.opcode == "NOP";
        for (int line : l.lines) {
            EXPECT_GE(line, 1) << what << ": " << l.text;
            EXPECT_LE(line, lines) << what << ": " << l.text;
        }
        in_file += !l.lines.empty();
    }
    // Most instructions come from the file's own lines (the rest: the trap loop, or inlined CUDA headers).
    EXPECT_GT(in_file, (listing.instructions - padding) / 2) << what;
    int counted = 0;
    for (const auto& [line, n] : listing.per_line) counted += n;
    EXPECT_EQ(counted, in_file) << what;
}

// The library's lessons for one architecture; `with_ptx` also lists the PTX.
void every_lesson_disassembles(const std::string& arch, bool with_ptx) {
    std::string why;
    ASSERT_FALSE(nvdisasm_path(&why).empty()) << why;
    const auto lessons = scan_library(kernels_dir());
    ASSERT_GE(lessons.size(), 40u);
    std::set<std::string> no_help;
    for (const KernelFile& file : lessons) {
        const std::string what = file.path.filename().string() + " for " + arch;
        MachineCodeRequest request;
        request.compile = kernel_compile_request(file);
        request.arch = arch;
        request.ptx = with_ptx;
        const MachineCode code = machine_code(request);
        ASSERT_TRUE(code.ok) << what;
        ASSERT_EQ(code.sass_missing, "") << what;
        expect_lesson_listing(file, code.sass, what + " (SASS)");
        // The launched kernel is one of the disassembled functions (by its lowered name for C++ kernels).
        const std::string kernel = request.compile.kernel_name;
        bool found = false;
        for (const std::string& f : code.sass.functions) found |= f == kernel || f.find(kernel) != std::string::npos;
        EXPECT_TRUE(found) << what << ": no function " << kernel;
        if (with_ptx) expect_lesson_listing(file, code.ptx, what + " (PTX)");
        expect_help_for_every_opcode(code.sass, true, no_help);
        expect_help_for_every_opcode(code.ptx, false, no_help);
    }
    std::string list;
    for (const std::string& m : no_help) list += m + " ";
    EXPECT_TRUE(no_help.empty()) << "opcodes without help: " << list;
}

TEST(MachineCode, EveryLessonDisassemblesForHopperWithItsPtx) { every_lesson_disassembles("sm_90", true); }

TEST(MachineCode, EveryLessonDisassemblesForTuring) { every_lesson_disassembles("sm_75", false); }

TEST(MachineCode, EveryLessonDisassemblesForTheNewestArchitectureNvrtcHas) {
    const auto archs = nvrtc_supported_archs();
    ASSERT_FALSE(archs.empty());
    const int newest = *std::max_element(archs.begin(), archs.end());
    ASSERT_GT(newest, 90);
    every_lesson_disassembles("sm_" + std::to_string(newest), false);
}

const char* kWeigh = R"(__device__ float weigh(float v, float w)
{
    float r = v * w;
    return r + 1.0f;
}
extern "C" __global__ void weigh_all(const float* x, float* y, int n, int reps)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float s = 0;
    for (int k = 0; k < reps; ++k)
        s += weigh(x[i + k], 3.0f);
    y[i] = s;
}
)";

TEST(MachineCode, AnInlinedHelpersInstructionsMapToItsLineAndToTheLineThatCalledIt) {
    const std::string source = kWeigh;
    const int helper = line_of(source, "return r + 1.0f");
    const int call = line_of(source, "s += weigh(");
    const int loop = line_of(source, "for (int k = 0");
    const MachineCode code = code_of(source, "weigh_all", "sm_90");
    ASSERT_TRUE(code.ok);
    ASSERT_EQ(code.sass_missing, "");
    for (const auto* listing : {&code.sass, &code.ptx}) {
        const bool sass = listing == &code.sass;
        const std::string fma = sass ? "FFMA" : "fma.rn.f32";
        const std::string load = sass ? "LDG.E" : "ld.global.f32";
        int fmas = 0, fmas_of_helper = 0, loads = 0, loads_of_call = 0;
        for (const CodeLine& l : listing->lines) {
            if (l.opcode == fma) {
                ++fmas;
                // v * w + 1 is the helper's (one fused multiply-add), inlined into the call in the loop.
                if (l.lines == std::vector<int>{helper, call}) ++fmas_of_helper;
            }
            if (l.opcode.rfind(load, 0) == 0) {
                ++loads;
                if (!l.lines.empty() && l.lines.front() == call) ++loads_of_call;
            }
        }
        EXPECT_GT(fmas, 0) << fma;
        EXPECT_EQ(fmas_of_helper, fmas) << fma;
        EXPECT_GT(loads, 0) << load;
        EXPECT_EQ(loads_of_call, loads) << load;  // x[i + k] is read on the call's line
        EXPECT_GE(listing->per_line.at(helper), fmas);  // the gutter's count for the helper's line
        // Selecting the call's line finds the helper's instructions too (they came from that call).
        const auto of_call = listing->lines_of(call);
        size_t fma_of_call = 0;
        for (size_t i : of_call) fma_of_call += listing->lines[i].opcode == fma;
        EXPECT_EQ(fma_of_call, size_t(fmas));
        // The loop's own line has its compare and branch.
        EXPECT_GT(listing->per_line.count(loop) ? listing->per_line.at(loop) : 0, 0);
    }
}

// A kernel that needs more registers than it may have: 48 live accumulators with at most 32 registers.
const char* kSpill = R"(extern "C" __global__ void many_sums(const float* x, float* y, int n)
{
    float acc[48];
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
#pragma unroll
    for (int k = 0; k < 48; ++k) acc[k] = x[(i + k * 977) % n];
    for (int round = 0; round < n; ++round)
#pragma unroll
        for (int k = 0; k < 48; ++k) acc[k] = acc[k] * acc[(k + 1) % 48] + x[(round + k) % n];
    float s = 0;
#pragma unroll
    for (int k = 0; k < 48; ++k) s += acc[k];
    y[i] = s;
}
)";

TEST(MachineCode, SpillBytesAreWhatPtxasPrintsForTheSamePtxAndOptions) {
    const std::vector<std::string> options = {"-maxrregcount=32"};
    const MachineCode code = code_of(kSpill, "many_sums", "sm_90", options);
    ASSERT_TRUE(code.ok);
    ASSERT_GT(code.ptx.instructions, 0);
    // ptxas on the PTX NVRTC made, with the same register limit and line info, as a separate program.
    MachineCodeRequest ptx_only;
    ptx_only.compile.source = kSpill;
    ptx_only.compile.path = "spill.cu";
    ptx_only.compile.kernel_name = "many_sums";
    ptx_only.compile.extra_options = options;
    std::vector<std::byte> ptx;
    const CompileResult r = compile_with_nvrtc(ptx_only.compile, "compute_90", &ptx);
    ASSERT_TRUE(r.ok);
    const fs::path dir = fs::path(::testing::TempDir()) / "cp-spill";
    fs::create_directories(dir);
    {
        std::ofstream out(dir / "spill.ptx", std::ios::binary);
        std::string text(reinterpret_cast<const char*>(ptx.data()), ptx.size());
        while (!text.empty() && text.back() == '\0') text.pop_back();
        out << text;
    }
    std::string ptxas = "/usr/local/cuda/bin/ptxas";
    if (const char* home = std::getenv("CUDA_HOME"); home && fs::exists(fs::path(home) / "bin/ptxas"))
        ptxas = (fs::path(home) / "bin/ptxas").string();
    ASSERT_TRUE(fs::exists(ptxas)) << "the CUDA toolkit's ptxas";
    const ProcessOutcome p = run_process({ptxas, "-arch=sm_90", "-v", "-lineinfo", "-maxrregcount=32",
                                          (dir / "spill.ptx").string(), "-o", (dir / "spill.cubin").string()});
    ASSERT_EQ(p.exit_code, 0) << p.output;
    std::smatch m;
    ASSERT_TRUE(std::regex_search(p.output, m, std::regex(R"((\d+) bytes spill stores, (\d+) bytes spill loads)")))
        << p.output;
    const int stores = std::stoi(m[1]), loads = std::stoi(m[2]);
    EXPECT_GT(stores, 0) << "the kernel should spill with 32 registers";
    EXPECT_EQ(code.compile.usage.spill_store_bytes, stores);
    EXPECT_EQ(code.compile.usage.spill_load_bytes, loads);
    // The spills are local-memory stores and loads in the SASS.
    int local = 0;
    for (const CodeLine& l : code.sass.lines) local += l.opcode.rfind("STL", 0) == 0 || l.opcode.rfind("LDL", 0) == 0;
    EXPECT_GT(local, 0);
    // ... marked on the lines that hold the 48 values (`acc`) or run the loop around them, each line's count the
    // STL/LDL that carry it; the kernel's other lines (its index, the final store) have none.
    std::vector<std::string> source_lines{""};
    for (std::istringstream in(kSpill); std::getline(in, source_lines.emplace_back());) {}
    int marked = 0;
    for (const auto& [line, count] : code.sass.local_per_line) {
        ASSERT_LT(size_t(line), source_lines.size());
        const std::string& text = source_lines[size_t(line)];
        EXPECT_TRUE(text.find("acc") != std::string::npos || text.find("round") != std::string::npos)
            << "line " << line << ": " << text;
        EXPECT_LE(count, code.sass.per_line.at(line));
        marked += count;
    }
    int with_line = 0;
    for (const CodeLine& l : code.sass.lines)
        with_line += !l.lines.empty() && (l.opcode.rfind("STL", 0) == 0 || l.opcode.rfind("LDL", 0) == 0);
    EXPECT_EQ(marked, with_line);
    EXPECT_GT(marked, 0);
    // Without the register limit nothing spills and no line is marked.
    const MachineCode roomy = code_of(kSpill, "many_sums", "sm_90", {});
    ASSERT_TRUE(roomy.ok);
    EXPECT_EQ(roomy.compile.usage.spill_store_bytes, 0);
    EXPECT_TRUE(roomy.sass.local_per_line.empty());
}

TEST(MachineCode, ParsesNvdisasmCommentsAndPadding) {
    const std::string text = R"(	.target	sm_90
//--------------------- .text.k                   --------------------------
	.section	.text.k,"ax",@progbits
k:
.text.k:
	//## File "/x/weigh.cu", line 8
        /*0000*/                   S2R R0, SR_TID.X ;
	//## File "/x/weigh.cu", line 4 inlined at "/x/weigh.cu", line 12
	//## File "/x/weigh.cu", line 12
        /*0010*/                   FFMA R7, R2, R9, 1 ;
        /*0020*/               @P0 EXIT ;
	//## File "/usr/local/cuda/include/crt/math_functions.hpp", line 900
        /*0030*/                   FMUL R1, R1, R1 ;
.L_x_0:
        /*0040*/                   BRA `(.L_x_0) ;
        /*0050*/                   NOP ;
)";
    const CodeListing l = parse_sass(text, "weigh.cu");
    ASSERT_EQ(l.instructions, 6);
    std::vector<const CodeLine*> ins;
    for (const CodeLine& c : l.lines)
        if (c.kind == CodeLine::Kind::Instruction) ins.push_back(&c);
    EXPECT_EQ(ins[0]->lines, std::vector<int>{8});
    EXPECT_EQ(ins[1]->lines, (std::vector<int>{4, 12}));
    EXPECT_EQ(ins[1]->offset, 0x10);
    EXPECT_EQ(ins[2]->opcode, "EXIT");  // the predicate is not the opcode
    EXPECT_EQ(ins[2]->lines, (std::vector<int>{4, 12}));
    EXPECT_TRUE(ins[3]->lines.empty());  // a header's line is not the file's
    EXPECT_TRUE(ins[4]->lines.empty());  // the trap loop and the padding are no line's
    EXPECT_TRUE(ins[5]->lines.empty());
    EXPECT_EQ(l.functions, std::vector<std::string>{"k"});
    EXPECT_EQ(l.per_line.at(8), 1);
    EXPECT_EQ(l.per_line.at(4), 2);
    EXPECT_EQ(l.per_line.count(12), 0u);
    EXPECT_EQ(l.lines_of(12).size(), 2u);
}

// A 64-bit division's subroutine: CALL.REL names its label, which the listing keeps (cuobjdump prints its address).
TEST(MachineCode, ASubroutinesLabelIsListedWhereItsCallLands) {
    const std::string text = R"(//--------------------- .text.k                   --------------------------
.text.k:
        /*0000*/                   CALL.REL.NOINC `($__internal_0_$__cuda_sm20_div_u64) ;
        /*0010*/                   EXIT ;
        .weak           $__internal_0_$__cuda_sm20_div_u64
        .type           $__internal_0_$__cuda_sm20_div_u64,@function
$__internal_0_$__cuda_sm20_div_u64:
        /*0020*/                   IMAD.MOV.U32 R4, RZ, RZ, R2 ;
        /*0030*/                   RET.REL.NODEC R2 `(k) ;
)";
    const CodeListing l = parse_sass(text, "k.cu");
    ASSERT_EQ(l.instructions, 4);
    ASSERT_EQ(l.lines.size(), 6u);
    EXPECT_EQ(l.lines[3].kind, CodeLine::Kind::Label);
    EXPECT_EQ(l.lines[3].text, "$__internal_0_$__cuda_sm20_div_u64:");
    EXPECT_EQ(l.lines[4].offset, 0x20);
    EXPECT_EQ(l.functions, std::vector<std::string>{"k"});
}

TEST(MachineCode, ParsesPtxLocAndInlinedAtWithTheFileTableAtTheEnd) {
    const std::string text = R"(.visible .entry k2(
	.param .u64 k2_param_0
)
{
	.reg .f32 	%f<3>;
	.loc	1 8 5
	mov.u32 	%r3, %ctaid.x;
	.loc	1 4 5, function_name $L__info_string0, inlined_at 1 10 9
	fma.rn.f32 	%f2, %f1, 0f40400000, 0f3F800000;
	.loc	2 77 1
	@%p1 bra 	$L__BB0_2;
$L__BB0_2:
	ret;
}
	.file	1 "/x/weigh.cu"
	.file	2 "/usr/local/cuda/include/cuda_fp16.hpp"
	.section	.debug_str
	{
$L__info_string0:
.b8 95,90,0
	}
)";
    const CodeListing l = parse_ptx(text, "/x/weigh.cu");
    EXPECT_EQ(l.functions, std::vector<std::string>{"k2"});
    ASSERT_EQ(l.instructions, 4);
    std::vector<const CodeLine*> ins;
    for (const CodeLine& c : l.lines)
        if (c.kind == CodeLine::Kind::Instruction) ins.push_back(&c);
    EXPECT_EQ(ins[0]->lines, std::vector<int>{8});
    EXPECT_EQ(ins[1]->lines, (std::vector<int>{4, 10}));
    EXPECT_EQ(ins[1]->opcode, "fma.rn.f32");
    EXPECT_EQ(ins[2]->opcode, "bra");
    EXPECT_TRUE(ins[2]->lines.empty());  // file 2 is a header
    for (const CodeLine& c : l.lines) EXPECT_EQ(c.text.find(".b8"), std::string::npos);  // no DWARF data shown
}

TEST(MachineCode, WithoutNvdisasmThePtxIsStillListedAndTheReasonSaid) {
    const test::ScopedEnv env("CUDA_PLAYGROUND_NVDISASM", "/nonexistent/nvdisasm");
    const MachineCode code = code_of(kWeigh, "weigh_all", "sm_90");
    ASSERT_TRUE(code.ok);
    EXPECT_GT(code.ptx.instructions, 0);
    EXPECT_EQ(code.sass.instructions, 0);
    EXPECT_FALSE(code.sass_missing.empty());
}

}  // namespace
}  // namespace cp

namespace cp {
namespace {

MachineCode lesson_code(const std::string& name, const std::string& arch) {
    auto file = load_kernel_file(kernels_dir() / (name + ".cu"));
    EXPECT_TRUE(file.ok()) << name;
    MachineCodeRequest request;
    request.compile = kernel_compile_request(*file);
    request.arch = arch;
    return machine_code(request);
}

int count_opcode(const CodeListing& l, const std::string& opcode) {
    int n = 0;
    for (const CodeLine& c : l.lines) n += c.kind == CodeLine::Kind::Instruction && c.opcode == opcode;
    return n;
}

TEST(MachineCodeDiff, TheNaiveAndTheRegisterBlockedMultiplyDifferInTheirMultiplyAdds) {
    const MachineCode naive = lesson_code("matrix/matmul_naive", "sm_90");
    const MachineCode blocked = lesson_code("matrix/matmul_register_blocked", "sm_90");
    ASSERT_TRUE(naive.ok && blocked.ok);
    ASSERT_GT(naive.sass.instructions, 0);
    const ListingDiff d = diff_listings(naive.sass, blocked.sass);
    ASSERT_TRUE(d.aligned);
    // The counts are each listing's own.
    const int naive_ffma = count_opcode(naive.sass, "FFMA"), blocked_ffma = count_opcode(blocked.sass, "FFMA");
    EXPECT_EQ(d.opcodes.at("FFMA"), std::make_pair(naive_ffma, blocked_ffma));
    EXPECT_GT(blocked_ffma, 8 * naive_ffma);  // 8 x 8 per thread, unrolled, against one sum per thread
    for (const auto& [op, counts] : d.opcodes) {
        EXPECT_EQ(counts.first, count_opcode(naive.sass, op)) << op;
        EXPECT_EQ(counts.second, count_opcode(blocked.sass, op)) << op;
    }
    // Every instruction of each side is in exactly one row, in order, and rows in both share their opcode.
    EXPECT_EQ(d.same + d.only_a, naive.sass.instructions);
    EXPECT_EQ(d.same + d.only_b, blocked.sass.instructions);
    int last_a = -1, last_b = -1;
    for (const ListingDiff::Pair& p : d.rows) {
        if (p.a >= 0) {
            EXPECT_GT(p.a, last_a);
            last_a = p.a;
        }
        if (p.b >= 0) {
            EXPECT_GT(p.b, last_b);
            last_b = p.b;
        }
        if (p.row == ListingDiff::Row::Same) {
            EXPECT_EQ(naive.sass.lines[size_t(p.a)].opcode, blocked.sass.lines[size_t(p.b)].opcode);
        }
    }
    // A listing against itself: all the same.
    const ListingDiff self = diff_listings(naive.sass, naive.sass);
    EXPECT_EQ(self.same, naive.sass.instructions);
    EXPECT_EQ(self.only_a + self.only_b, 0);
}

TEST(MachineCodeDiff, OneFileForTwoArchitecturesKeepsTheSourcesShufflesOnBoth) {
    const MachineCode hopper = lesson_code("reduction/warp_shuffle_sum", "sm_90");
    const MachineCode turing = lesson_code("reduction/warp_shuffle_sum", "sm_75");
    ASSERT_TRUE(hopper.ok && turing.ok);
    const ListingDiff d = diff_listings(hopper.sass, turing.sass);
    EXPECT_EQ(d.same + d.only_a, hopper.sass.instructions);
    EXPECT_EQ(d.same + d.only_b, turing.sass.instructions);
    EXPECT_GT(d.same, 0);
    // The source's five shuffle steps are on both (sm_75 adds butterfly shuffles of its own, for the atomic).
    EXPECT_EQ(d.opcodes.at("SHFL.DOWN").first, d.opcodes.at("SHFL.DOWN").second);
}

}  // namespace
}  // namespace cp

namespace cp {
namespace {

TEST(MachineCode, NvdisasmsOutputIsKeptOnDiskAndACorruptCopyIsDisassembledAgain) {
    const fs::path dir = fs::path(::testing::TempDir()) / "cp-sass-cache";
    fs::remove_all(dir);
    const test::ScopedEnv env("CUDA_PLAYGROUND_CACHE_DIR", dir.string());
    const MachineCode first = code_of(kWeigh, "weigh_all", "sm_90");
    ASSERT_TRUE(first.ok);
    ASSERT_EQ(first.sass_missing, "");
    EXPECT_FALSE(first.sass_cached);
    const MachineCode second = code_of(kWeigh, "weigh_all", "sm_90");
    EXPECT_TRUE(second.sass_cached);
    ASSERT_EQ(second.sass.lines.size(), first.sass.lines.size());
    for (size_t i = 0; i < first.sass.lines.size(); ++i) {
        EXPECT_EQ(second.sass.lines[i].text, first.sass.lines[i].text);
        EXPECT_EQ(second.sass.lines[i].lines, first.sass.lines[i].lines);
    }
    // Spoil every kept listing: the next one is disassembled again, whole.
    int spoiled = 0;
    for (const auto& e : fs::recursive_directory_iterator(dir / "sass")) {
        std::ofstream(e.path(), std::ios::trunc) << "garbage";
        ++spoiled;
    }
    ASSERT_GT(spoiled, 0);
    const MachineCode third = code_of(kWeigh, "weigh_all", "sm_90");
    EXPECT_FALSE(third.sass_cached);
    EXPECT_EQ(third.sass.instructions, first.sass.instructions);
}

}  // namespace
}  // namespace cp
