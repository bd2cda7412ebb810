// The CPU backend's pure pieces: kernel discovery and source rewriting, compiler message parsing, and the
// warp operation arithmetic (shuffle segments, votes, reductions).
#include "core/cpu/host_compiler.h"
#include "core/cpu/source_prep.h"
#include "core/cpu/warp_ops.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace cp {
namespace {

int count_lines(const std::string& s) { return int(std::count(s.begin(), s.end(), '\n')); }

TEST(CpuSourcePrep, FindsKernelsPastCommentsStringsAndLaunchBounds) {
    const std::string src = R"src(// __global__ void commented(int*)
const char* text = "__global__ void in_string()";
template <int N> __global__ void templated(float* v) {}
extern "C" __global__ void __launch_bounds__(256, 2) bounded(float* v) {}
__global__
void
split_over_lines(int n) {}
)src";
    const std::vector<KernelDecl> k = find_kernels(src);
    ASSERT_EQ(k.size(), 3u);
    EXPECT_EQ(k[0].name, "templated");
    EXPECT_TRUE(k[0].is_template);
    EXPECT_EQ(k[1].name, "bounded");
    EXPECT_FALSE(k[1].is_template);
    EXPECT_EQ(k[1].line, 4);
    EXPECT_EQ(k[2].name, "split_over_lines");
    EXPECT_EQ(k[2].line, 7);
}

TEST(CpuSourcePrep, RewritesExternSharedKeepingLines) {
    const std::string src = "extern __shared__ float4 global_tile[];\n"
                            "namespace ns {\n"
                            "extern __shared__ int in_namespace[];\n"
                            "}\n"
                            "extern \"C\" __global__ void k(int n)\n"
                            "{\n"
                            "    extern __shared__ __align__(16)\n"
                            "        unsigned char raw[];\n"
                            "    raw[0] = global_tile[0].x;\n"
                            "}\n";
    const PreparedSource p = prepare_kernel_source(src, "dir/k.cu", "k");
    ASSERT_FALSE(has_errors(p.diagnostics));
    EXPECT_NE(p.text.find("#line 1 \"dir/k.cu\""), std::string::npos);
    EXPECT_NE(p.text.find("#define global_tile (static_cast<float4*>(::cp_shim::dynamic_shared()))"), std::string::npos) << p.text;
    EXPECT_NE(p.text.find("#define in_namespace (static_cast<int*>"), std::string::npos) << p.text;
    EXPECT_NE(p.text.find("unsigned char* const raw = (static_cast<unsigned char*>(::cp_shim::dynamic_shared()));"),
              std::string::npos)
        << p.text;
    // The function-scope rewrite keeps the newline it replaced, and namespace scope resyncs with #line:
    // the line holding `raw[0] = ...` is still line 9 of the user's file.
    const std::string user_part = p.text.substr(0, p.text.find(kEntryPointsFile));
    const size_t at = user_part.find("raw[0] = ");
    const size_t last_line_directive = user_part.rfind("#line 3 \"dir/k.cu\"", at);
    ASSERT_NE(last_line_directive, std::string::npos) << user_part;
    const std::string after = user_part.substr(last_line_directive, at - last_line_directive);
    EXPECT_EQ(3 + count_lines(after) - 1, 9) << after;
    EXPECT_NE(p.text.find("cp_run_plain_k(void** cp_args"), std::string::npos);
}

TEST(CpuSourcePrep, UnsupportedFeaturesNameTheirLine) {
    const std::string src = "#include <cuda_fp16.h>\n"
                            "extern \"C\" __global__ void k(float* v)\n"
                            "{\n"
                            "    v[0] = __shfl(v[1], 0);\n"
                            "    child<<<1, 1>>>(v);\n"
                            "}\n";
    const PreparedSource p = prepare_kernel_source(src, "u.cu", "k");
    ASSERT_EQ(p.diagnostics.size(), 3u);
    EXPECT_EQ(p.diagnostics[0].line, 1);
    EXPECT_NE(p.diagnostics[0].message.find("half-precision"), std::string::npos);
    EXPECT_EQ(p.diagnostics[1].line, 4);
    EXPECT_NE(p.diagnostics[1].message.find("__shfl_sync"), std::string::npos);
    EXPECT_EQ(p.diagnostics[2].line, 5);
    EXPECT_NE(p.diagnostics[2].message.find("dynamic parallelism"), std::string::npos);
    EXPECT_TRUE(p.text.empty());
}

TEST(CpuSourcePrep, CodeForTheGpuOnlyIsNotRefused) {
    const std::string src = "extern \"C\" __global__ void k(float* v)\n"
                            "{\n"
                            "#ifndef __CUDA_PLAYGROUND_CPU__\n"
                            "    asm volatile(\"trap;\");\n"
                            "#else\n"
                            "    v[0] = 1;\n"
                            "#endif\n"
                            "}\n";
    const PreparedSource p = prepare_kernel_source(src, "g.cu", "k");
    EXPECT_FALSE(has_errors(p.diagnostics));
    EXPECT_FALSE(p.text.empty());
}

TEST(CpuSourcePrep, TemplateKernelsAreRefusedClearly) {
    const PreparedSource p = prepare_kernel_source("template <class T> __global__ void k(T* v) {}\n", "t.cu", "k");
    ASSERT_EQ(p.diagnostics.size(), 1u);
    EXPECT_NE(p.diagnostics[0].message.find("template"), std::string::npos);
}

TEST(CpuCompilerMessages, ParsesGccAndMovesShimErrorsToTheUser) {
    const std::string log =
        "k.cu: In function 'void k(int*)':\n"
        "k.cu:4:12: error: 'foo' was not declared in this scope\n"
        "    4 |     v[0] = foo;\n"
        "      |            ^~~\n"
        "k.cu:7:5: warning: unused variable 'z' [-Wunused-variable]\n"
        "/src/shim/cuda_shim.h:155:65: error: expected primary-expression before ')' token\n"
        "k.cu:9:3: note: in expansion of macro '__syncwarp'\n"
        "cpu-backend-entry-points:1:80: error: 'k' was not declared in this scope\n"
        "cc1plus: fatal error: out of memory\n";
    const std::vector<Diagnostic> d = parse_compiler_messages(log, "k.cu", "k", 3);
    ASSERT_EQ(d.size(), 5u);
    EXPECT_EQ(d[0].str(), "k.cu:4:12: error: 'foo' was not declared in this scope");
    EXPECT_EQ(d[1].severity, Severity::Warning);
    EXPECT_EQ(d[1].line, 7);
    EXPECT_EQ(d[2].file, "k.cu");
    EXPECT_EQ(d[2].line, 9);
    EXPECT_NE(d[2].message.find("expected primary-expression"), std::string::npos);
    EXPECT_EQ(d[3].line, 3);
    EXPECT_NE(d[3].message.find("cannot call kernel `k`"), std::string::npos);
    EXPECT_EQ(d[4].line, 0);
    EXPECT_EQ(d[4].message, "out of memory");
}

TEST(CpuCompilerMessages, OptionsKeepMacrosAndDropGpuOnlyFlags) {
    ShimLocation shim{"/shim", "x"};
    const HostCompileOptions o = host_compile_options(shim, {"-arch=sm_90", "-DN=4", "-D", "M=2", "--use_fast_math", "-std=c++20"});
    EXPECT_NE(std::find(o.flags.begin(), o.flags.end(), "-DN=4"), o.flags.end());
    EXPECT_NE(std::find(o.flags.begin(), o.flags.end(), "-DM=2"), o.flags.end());
    EXPECT_NE(std::find(o.flags.begin(), o.flags.end(), "-std=c++20"), o.flags.end());
    EXPECT_NE(std::find(o.flags.begin(), o.flags.end(), "-ffp-contract=off"), o.flags.end());
    EXPECT_EQ(o.ignored, (std::vector<std::string>{"-arch=sm_90", "--use_fast_math"}));
}

struct Lanes {
    cp_abi::WarpRequest req[32] = {};
    const cp_abi::WarpRequest* ptr[32] = {};
    unsigned long long out[32] = {};
    Lanes(int op, int arg, int width, unsigned long long (*value)(int)) {
        for (int i = 0; i < 32; ++i) {
            req[i] = {op, 0xffffffffu, value(i), arg, width, 1};
            ptr[i] = &req[i];
        }
    }
};

TEST(CpuWarpOps, ShuffleSegmentsFollowCuda) {
    Lanes up(cp_abi::kShflUp, 3, 8, [](int i) { return static_cast<unsigned long long>(100 + i); });
    compute_warp_results(0xffffffffu, up.ptr, up.out);
    for (int i = 0; i < 32; ++i) EXPECT_EQ(up.out[i], (i % 8) >= 3 ? 100u + unsigned(i) - 3 : 100u + unsigned(i)) << i;

    Lanes idx(cp_abi::kShfl, 9, 8, [](int i) { return static_cast<unsigned long long>(i); });
    compute_warp_results(0xffffffffu, idx.ptr, idx.out);
    for (int i = 0; i < 32; ++i) EXPECT_EQ(idx.out[i], unsigned((i & ~7) + 1)) << i;  // 9 mod 8 = 1 in each segment

    Lanes x(cp_abi::kShflXor, 8, 8, [](int i) { return static_cast<unsigned long long>(i); });
    compute_warp_results(0xffffffffu, x.ptr, x.out);
    for (int i = 0; i < 32; ++i) EXPECT_EQ(x.out[i], unsigned((i ^ 8) < (i & ~7) + 8 ? i ^ 8 : i)) << i;

    // Only lanes 0-15 take part: lane 15 shuffling down reads its own value, not an absent lane's.
    Lanes half(cp_abi::kShflDown, 1, 32, [](int i) { return static_cast<unsigned long long>(i * 2); });
    compute_warp_results(0x0000ffffu, half.ptr, half.out);
    EXPECT_EQ(half.out[3], 8u);
    EXPECT_EQ(half.out[15], 30u);
}

TEST(CpuWarpOps, VotesMatchAndReductions) {
    Lanes ballot(cp_abi::kBallot, 0, 32, [](int i) { return static_cast<unsigned long long>(i % 3 == 0); });
    compute_warp_results(0xffffffffu, ballot.ptr, ballot.out);
    unsigned expect = 0;
    for (int i = 0; i < 32; i += 3) expect |= 1u << i;
    EXPECT_EQ(ballot.out[7], expect);

    Lanes match(cp_abi::kMatchAny, 0, 32, [](int i) { return static_cast<unsigned long long>(i % 2); });
    compute_warp_results(0xffffffffu, match.ptr, match.out);
    EXPECT_EQ(match.out[4], 0x55555555u);
    EXPECT_EQ(match.out[5], 0xAAAAAAAAu);

    Lanes smin(cp_abi::kReduceMinSigned, 0, 32,
               [](int i) { return static_cast<unsigned long long>(static_cast<long long>(10 - i)); });
    compute_warp_results(0xffffffffu, smin.ptr, smin.out);
    EXPECT_EQ(static_cast<long long>(smin.out[0]), -21);

    Lanes add(cp_abi::kReduceAdd, 0, 32, [](int) { return 0xFFFFFFFFull; });
    compute_warp_results(0xffffffffu, add.ptr, add.out);
    EXPECT_EQ(add.out[0], 0xFFFFFFE0ull);  // 32 * 0xFFFFFFFF mod 2^32
}

}  // namespace
}  // namespace cp

// How aligned a kernel needs its buffers' starts on the CPU backend: 16 for any 16-byte vector type in device
// code, the largest literal __align__/alignas of 16 or more (at most 256), 1 otherwise; comments, strings and
// the CPU reference section do not count.
TEST(CpuSourcePrep, BufferStartAlignmentFromTheDeviceCode) {
    const std::string plain = "__global__ void k(const float* in, float* out) { out[0] = in[0]; }\n";
    EXPECT_EQ(cp::buffer_start_alignment(plain), 1u);
    EXPECT_EQ(cp::buffer_start_alignment(plain + "// reads it as float4 one day\nconst char* s = \"int4\";\n"), 1u);
    EXPECT_EQ(cp::buffer_start_alignment(plain + "#ifdef PLAYGROUND_REFERENCE\nstruct F { float4 v; };\n#endif\n"), 1u);
    EXPECT_EQ(cp::buffer_start_alignment(plain + "__device__ uchar4 f(uchar4 v) { return v; }\n"), 1u);  // 4 bytes
    for (const char* type : {"float4", "int4", "uint4", "double2", "ulonglong2", "double4", "long4_32a"})
        EXPECT_EQ(cp::buffer_start_alignment(plain + "__device__ void g(" + type + "* p) {}\n"), 16u) << type;
    EXPECT_EQ(cp::buffer_start_alignment("struct __align__(32) Pair { double a[4]; };\n" + plain), 32u);
    EXPECT_EQ(cp::buffer_start_alignment("struct alignas(8) P { float a, b; };\n" + plain), 1u);
    EXPECT_EQ(cp::buffer_start_alignment("struct alignas(4096) Big { char c; };\n" + plain), 256u);
}

namespace cp {
namespace {

// Static __shared__ arrays become references to guarded storage (one id per declarator, in order);
// scalars, initialised declarations and labels stay as written; lines do not move. The file's __align__(16)
// makes it a vector kernel (buffer_start_alignment): every array starts 16-byte aligned.
TEST(CpuSourcePrep, RewritesStaticSharedArraysKeepingLines) {
    const std::string src = "__shared__ float file_tile[4][5];\n"                               // 1
                            "extern \"C\" __global__ void k(int n)\n"                            // 2
                            "{\n"                                                                // 3
                            "    __shared__ __align__(16) unsigned char bytes[3], *where, flag;\n"  // 4
                            "    static __shared__ volatile int\n"                               // 5
                            "        counts[2 * 8];\n"                                           // 6
                            "    __shared__ cub::Pair<int, float> pairs[4];\n"                   // 7
                            "    __shared__ int not_an_array;\n"                                 // 8
                            "    bytes[0] = counts[1] + file_tile[0][0] + pairs[0].a;\n"          // 9
                            "}\n";
    const PreparedSource p = prepare_kernel_source(src, "dir/k.cu", "k", buffer_start_alignment(src));
    ASSERT_FALSE(has_errors(p.diagnostics));
    const std::string& t = p.text;
    EXPECT_NE(t.find("#define file_tile (::cp_shim::shared_slot<float [4][5], 16>(0u, \"file_tile\"))"),
              std::string::npos) << t;
    EXPECT_NE(t.find("static thread_local ::cp_shim::same_type<float [4][5]> cp_shared_twin_0;"), std::string::npos) << t;
    EXPECT_NE(t.find("auto& bytes = ::cp_shim::shared_slot<unsigned char [3], 16>(1u, \"bytes\");"), std::string::npos) << t;
    EXPECT_NE(t.find("__shared__ __align__(16) unsigned char *where;"), std::string::npos) << t;
    EXPECT_NE(t.find("__shared__ __align__(16) unsigned char flag;"), std::string::npos) << t;
    EXPECT_NE(t.find("auto& counts = ::cp_shim::shared_slot<volatile int [2*8], 16>(2u, \"counts\");"),
              std::string::npos) << t;
    EXPECT_NE(t.find("shared_slot<cub::Pair<int,float> [4], 16>(3u, \"pairs\")"), std::string::npos) << t;
    EXPECT_NE(t.find("    __shared__ int not_an_array;"), std::string::npos) << t;
    // Line 9 of the user's file is still line 9: count from the last #line before it.
    const std::string user_part = t.substr(0, t.find(kEntryPointsFile));
    const size_t at = user_part.find("bytes[0] = ");
    const size_t directive = user_part.rfind("#line ", at);
    ASSERT_NE(directive, std::string::npos);
    const int line = std::stoi(user_part.substr(directive + 6));
    EXPECT_EQ(line + count_lines(user_part.substr(directive, at - directive)) - 1, 9) << user_part;
}

// Without vector types or __align__ the arrays start only as aligned as their elements need (their end
// touches the guard); with a float4 in the device code, 16-byte aligned as on a GPU.
TEST(CpuSourcePrep, SharedArraysStartAlignedForVectorKernelsOnly) {
    const std::string plain = "extern \"C\" __global__ void k(float* o) { __shared__ float s[3]; o[0] = s[0]; }\n";
    EXPECT_NE(prepare_kernel_source(plain, "k.cu", "k", buffer_start_alignment(plain)).text.find("shared_slot<float [3], 1>(0u, \"s\")"),
              std::string::npos);
    const std::string vector =
        "extern \"C\" __global__ void k(float4* o) { __shared__ float s[3]; o[0].x = s[0]; }\n";
    EXPECT_NE(prepare_kernel_source(vector, "k.cu", "k", buffer_start_alignment(vector)).text.find("shared_slot<float [3], 16>(0u, \"s\")"),
              std::string::npos);
}

// A scalar beside an array at namespace scope keeps its own line, before the #line that resyncs.
TEST(CpuSourcePrep, AFileScopeStatementMixingAnArrayAndAScalar) {
    const std::string src = "__shared__ int counts[4], total;\n"                              // 1
                            "extern \"C\" __global__ void k(int* o) { o[0] = counts[0] + total; }\n";  // 2
    const PreparedSource p = prepare_kernel_source(src, "k.cu", "k");
    ASSERT_FALSE(has_errors(p.diagnostics));
    EXPECT_NE(p.text.find("\n__shared__ int total; \n#line 1 \"k.cu\"\n"), std::string::npos) << p.text;
    EXPECT_NE(p.text.find("#define counts (::cp_shim::shared_slot<int [4], 1>(0u, \"counts\"))\n"), std::string::npos)
        << p.text;
}

TEST(CpuSourcePrep, LeavesSharedDeclarationsOfUnknownShapeAlone) {
    const std::string src = "#define SMEM __shared__ float made_by_macro[8]\n"
                            "extern \"C\" __global__ void k(int n)\n"
                            "{\n"
                            "    SMEM;\n"
                            "    switch (n) { case 1: __shared__ float after_label[4]; after_label[0] = 1; }\n"
                            "    __shared__ float (*row_pointer)[4];\n"
                            "}\n";
    const PreparedSource p = prepare_kernel_source(src, "k.cu", "k");
    ASSERT_FALSE(has_errors(p.diagnostics));
    EXPECT_EQ(p.text.find("shared_slot<"), std::string::npos) << p.text;
    EXPECT_NE(p.text.find("case 1: __shared__ float after_label[4];"), std::string::npos) << p.text;
    EXPECT_NE(p.text.find("__shared__ float (*row_pointer)[4];"), std::string::npos) << p.text;
}

}  // namespace
}  // namespace cp
