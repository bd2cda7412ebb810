// CPU backend crash reports: out-of-bounds writes and reads name the thread, block, buffer and line, and
// the backend keeps working; also division by zero, null pointers, assert, dynamic shared overflow.
#include "cpu_backend_rig.h"

#include <regex>

namespace cp::test {
namespace {

// The planted bug: no `if (i < n)` guard, so the last block writes past the end of `out`.
const char* kUnguarded = "extern \"C\" __global__ void fill(const int* in, int* out, int n)\n"  // 1
                         "{\n"                                                                  // 2
                         "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"                 // 3
                         "    int v = i < n ? in[i] : 0;\n"                                     // 4
                         "    out[i] = v + 1;\n"                                                // 5
                         "}\n";

const char* kGuarded = "extern \"C\" __global__ void fill(const int* in, int* out, int n)\n"
                       "{\n"
                       "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                       "    if (i < n) out[i] = in[i] + 1;\n"
                       "}\n";

TEST(CpuBackendFault, WritePastTheEndNamesThreadBlockBufferAndLine) {
    CpuRig rig(test_options(1));  // one worker: the first thread past the end is the one reported
    const int n = 1000;           // block 256: block 3 holds elements 768..1023, thread 232 is element 1000
    const ModuleId m = rig.compile(kUnguarded, "fill", "planted.cu");
    const BufferId in = rig.buffer("in", std::vector<int>(n, 4)), out = rig.buffer("out", std::vector<int>(n, 0));
    const LaunchResult r = rig.launch(m, "fill", {4}, {256}, {buffer_arg("in", in), buffer_arg("out", out), value_arg("n", n)});
    ASSERT_FALSE(r.ok);
    ASSERT_TRUE(r.error.has_value());
    EXPECT_EQ(r.error->name, "OUT_OF_BOUNDS");
    EXPECT_EQ(r.error->kind, ErrorKind::OutOfBounds);
    EXPECT_EQ(r.error->thread, (Dim3{232, 0, 0}));
    EXPECT_EQ(r.error->block, (Dim3{3, 0, 0}));
    EXPECT_EQ(r.error->line, 5);
    EXPECT_EQ(r.error->message,
              "thread (232,0,0) of block (3,0,0) wrote past the end of buffer `out`: element 1000 of 1000 (line 5)");
    EXPECT_NE(r.error->hint.find("`out` holds 1000 elements of 4 bytes"), std::string::npos) << r.error->hint;

    // The engine keeps working: the fixed kernel runs in the same backend, on the same buffers.
    const ModuleId fixed = rig.compile(kGuarded, "fill", "planted.cu");
    const LaunchResult ok = rig.launch(fixed, "fill", {4}, {256}, {buffer_arg("in", in), buffer_arg("out", out), value_arg("n", n)});
    ASSERT_TRUE(ok.ok) << error_text(ok);
    EXPECT_EQ(rig.read<int>(out), std::vector<int>(n, 5));
}

TEST(CpuBackendFault, ManyWorkersStillReportAThreadPastTheEnd) {
    CpuRig rig(test_options(4));
    const int n = 1000;
    const ModuleId m = rig.compile(kUnguarded, "fill", "planted.cu");
    const BufferId in = rig.buffer("in", std::vector<int>(n, 4)), out = rig.buffer("out", std::vector<int>(n, 0));
    for (int attempt = 0; attempt < 3; ++attempt) {
        const LaunchResult r = rig.launch(m, "fill", {4}, {256}, {buffer_arg("in", in), buffer_arg("out", out), value_arg("n", n)});
        ASSERT_FALSE(r.ok);
        EXPECT_EQ(r.error->message,
                  "thread (232,0,0) of block (3,0,0) wrote past the end of buffer `out`: element 1000 of 1000 (line 5)");
    }
}

TEST(CpuBackendFault, TheFirstFailingBlockIsReportedWhateverTheWorkers) {
    // Every block writes past the end; whichever worker faults first, block 0's thread 0 is reported.
    CpuRig rig(test_options(8));
    const char* src = "extern \"C\" __global__ void shifted(float* out, int n, int offset)\n"
                      "{\n"
                      "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                      "    if (i < n) out[(long long)i + offset] = 1.0f;\n"
                      "}\n";
    const ModuleId m = rig.compile(src, "shifted", "shifted.cu");
    const BufferId out = rig.buffer("out", std::vector<float>(1000, 0));
    for (int attempt = 0; attempt < 5; ++attempt) {
        const LaunchResult r = rig.launch(m, "shifted", {8}, {128}, {buffer_arg("out", out), value_arg("n", 1000), value_arg("offset", 1000)});
        ASSERT_FALSE(r.ok);
        EXPECT_EQ(r.error->thread, (Dim3{0, 0, 0})) << r.error->message;
        EXPECT_EQ(r.error->block, (Dim3{0, 0, 0})) << r.error->message;
        EXPECT_EQ(r.error->line, 4) << r.error->message;
    }
}

TEST(CpuBackendFault, ReadBeforeTheStart) {
    CpuRig rig;
    const char* src = "extern \"C\" __global__ void left(const float* in, float* out, int n)\n"
                      "{\n"
                      "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                      "    if (i < n)\n"
                      "        out[i] = in[i - 1] + in[i];\n"  // line 5: i = 0 reads in[-1]
                      "}\n";
    // 1024 floats = one page: the start of `in` is at a page boundary, so in[-1] is in the guard.
    const int n = 1024;
    const ModuleId m = rig.compile(src, "left", "left.cu");
    const BufferId in = rig.buffer("in", std::vector<float>(n, 1)), out = rig.buffer("out", std::vector<float>(n, 0));
    const LaunchResult r = rig.launch(m, "left", {4}, {256}, {buffer_arg("in", in), buffer_arg("out", out), value_arg("n", n)});
    ASSERT_FALSE(r.ok);
    EXPECT_EQ(r.error->name, "OUT_OF_BOUNDS");
    EXPECT_EQ(r.error->thread, (Dim3{0, 0, 0}));
    EXPECT_EQ(r.error->block, (Dim3{0, 0, 0}));
    EXPECT_EQ(r.error->line, 5);
    EXPECT_EQ(r.error->message,
              "thread (0,0,0) of block (0,0,0) read before the start of buffer `in`: element -1 of 1024 (line 5)");
}

TEST(CpuBackendFault, FarOutsideABufferAfterABarrier) {
    CpuRig rig;
    const char* src = "extern \"C\" __global__ void far(int* out, int n)\n"
                      "{\n"
                      "    __shared__ int s[64];\n"
                      "    s[threadIdx.x] = threadIdx.x;\n"
                      "    __syncthreads();\n"
                      "    if (threadIdx.x == 17) out[n + 100] = s[3];\n"  // line 6, in fiber mode
                      "}\n";
    const ModuleId m = rig.compile(src, "far", "far.cu");
    const BufferId out = rig.buffer("out", std::vector<int>(50, 0));
    const LaunchResult r = rig.launch(m, "far", {1}, {64}, {buffer_arg("out", out), value_arg("n", 50)});
    ASSERT_FALSE(r.ok);
    EXPECT_EQ(r.error->name, "OUT_OF_BOUNDS");
    EXPECT_EQ(r.error->thread, (Dim3{17, 0, 0}));
    EXPECT_EQ(r.error->line, 6);
    EXPECT_EQ(r.error->message,
              "thread (17,0,0) of block (0,0,0) wrote past the end of buffer `out`: element 150 of 50 (line 6)");
    // Again, to be sure the abandoned fibers did not leave the scheduler in a bad state.
    const LaunchResult again = rig.launch(m, "far", {1}, {64}, {buffer_arg("out", out), value_arg("n", 50)});
    EXPECT_EQ(again.error ? again.error->message : "", r.error->message);
}

TEST(CpuBackendFault, WriteJustBeforeTheStartIsFoundAfterTheLaunch) {
    CpuRig rig;
    const char* src = "extern \"C\" __global__ void back(int* out)\n"
                      "{ out[int(threadIdx.x) - 1] = 7; }\n";
    const ModuleId m = rig.compile(src, "back");
    const BufferId out = rig.buffer("out", std::vector<int>(10, 0));  // 40 bytes: mid-page, no guard right before
    const LaunchResult r = rig.launch(m, "back", {1}, {4}, {buffer_arg("out", out)});
    ASSERT_FALSE(r.ok);
    EXPECT_EQ(r.error->name, "OUT_OF_BOUNDS");
    EXPECT_NE(r.error->message.find("before the start of buffer `out`"), std::string::npos) << r.error->message;
    EXPECT_EQ(r.error->thread, (Dim3{0, 0, 0})) << r.error->message;
    EXPECT_EQ(r.error->line, 2) << r.error->message;
    // The check resets, so a correct launch afterwards passes.
    const char* ok_src = "extern \"C\" __global__ void fwd(int* out) { out[threadIdx.x] = 7; }\n";
    EXPECT_TRUE(rig.launch(rig.compile(ok_src, "fwd"), "fwd", {1}, {4}, {buffer_arg("out", out)}).ok);
}

TEST(CpuBackendFault, VectorKernelsGetBuffersThatStartAlignedAsOnAGpu) {
    // A buffer's last byte touches the guard page, so its start is only as aligned as its size allows (14 ints,
    // 56 bytes: 8-byte aligned). A GPU starts buffers 256-byte aligned, and a kernel that names int4 relies on
    // it: for such a kernel the buffers move to 16-byte aligned starts, so reading 14 ints as int4s works.
    CpuRig rig;
    const char* vec = "extern \"C\" __global__ void copy4(const int* in, int* out)\n"
                      "{\n"
                      "    reinterpret_cast<int4*>(out)[threadIdx.x] = reinterpret_cast<const int4*>(in)[threadIdx.x];\n"
                      "}\n";
    const ModuleId m = rig.compile(vec, "copy4");
    std::vector<int> values(16);
    for (size_t i = 0; i < values.size(); ++i) values[i] = int(i * i + 1);
    const BufferId in16 = rig.buffer("in16", values), out16 = rig.buffer("out16", std::vector<int>(16, 0));
    const LaunchResult r = rig.launch(m, "copy4", {1}, {4}, {buffer_arg("in", in16), buffer_arg("out", out16)});
    ASSERT_TRUE(r.ok) << error_text(r);
    EXPECT_EQ(rig.read<int>(out16), values);

    const std::vector<int> fourteen(values.begin(), values.begin() + 14);
    const BufferId in14 = rig.buffer("in14", fourteen), out13 = rig.buffer("out13", std::vector<int>(13, 0));
    const LaunchResult odd = rig.launch(m, "copy4", {1}, {3}, {buffer_arg("in", in14), buffer_arg("out", out13)});
    ASSERT_TRUE(odd.ok) << error_text(odd);
    std::vector<int> want(fourteen.begin(), fourteen.begin() + 12);
    want.push_back(0);
    EXPECT_EQ(rig.read<int>(out13), want) << "the contents move with the buffer";
    EXPECT_EQ(rig.read<int>(in14), fourteen);

#if defined(__x86_64__)
    // An int4 at byte 4 is misaligned on a GPU too: reported with the buffer, the byte and the line.
    const char* skew = "extern \"C\" __global__ void skew(const int* in, int* out)\n"
                       "{\n"
                       "    reinterpret_cast<int4*>(out)[0] = reinterpret_cast<const int4*>(in + 1)[0];\n"
                       "}\n";
    const LaunchResult bad =
        rig.launch(rig.compile(skew, "skew"), "skew", {1}, {1}, {buffer_arg("in", in16), buffer_arg("out", out16)});
    ASSERT_FALSE(bad.ok);
    EXPECT_EQ(bad.error->name, "MISALIGNED_ADDRESS");
    EXPECT_EQ(bad.error->kind, ErrorKind::Fault);
    EXPECT_NE(bad.error->message.find("read 16 bytes at byte 4 of buffer `in16`"), std::string::npos)
        << bad.error->message;
    EXPECT_EQ(bad.error->line, 3) << bad.error->message;
    EXPECT_EQ(bad.error->thread, (Dim3{0, 0, 0}));
#endif

    // Such a buffer's end is then short of the guard (13 ints end 12 bytes before it): a write there is caught
    // by the per-access check, with the thread and the line.
    const char* tail = "extern \"C\" __global__ void tail(int4* unused, int* out) { out[13 + threadIdx.x] = 7; }\n";
    const LaunchResult over =
        rig.launch(rig.compile(tail, "tail"), "tail", {1}, {1}, {buffer_arg("unused", in16), buffer_arg("out", out13)});
    ASSERT_FALSE(over.ok);
    EXPECT_EQ(over.error->kind, ErrorKind::OutOfBounds);
    EXPECT_EQ(over.error->message,
              "thread (0,0,0) of block (0,0,0) wrote past the end of buffer `out13`: element 13 of 13 (line 1)");
    // The pattern is put back: a correct launch afterwards passes.
    EXPECT_TRUE(rig.launch(m, "copy4", {1}, {3}, {buffer_arg("in", in14), buffer_arg("out", out13)}).ok);

    // A kernel without vector types keeps buffers that end at the guard: one element past the end of 10 ints
    // (40 bytes) is caught at once, with the line.
    const char* past = "extern \"C\" __global__ void past(int* out) { out[10 + threadIdx.x] = 7; }\n";
    const BufferId out = rig.buffer("out", std::vector<int>(10, 0));
    const LaunchResult at_once = rig.launch(rig.compile(past, "past"), "past", {1}, {2}, {buffer_arg("out", out)});
    ASSERT_FALSE(at_once.ok);
    EXPECT_EQ(at_once.error->name, "OUT_OF_BOUNDS");
    EXPECT_EQ(at_once.error->message,
              "thread (0,0,0) of block (0,0,0) wrote past the end of buffer `out`: element 10 of 10 (line 1)");
}

TEST(CpuBackendFault, IntegerDivisionByZero) {
    CpuRig rig;
    const char* src = "extern \"C\" __global__ void divide(const int* a, int* out, int d)\n"
                      "{\n"
                      "    out[threadIdx.x] = a[threadIdx.x] / (d - (int)threadIdx.x);\n"  // thread d divides by 0
                      "}\n";
    const ModuleId m = rig.compile(src, "divide", "div.cu");
    const BufferId a = rig.buffer("a", std::vector<int>(32, 9)), out = rig.buffer("out", std::vector<int>(32, 0));
    const LaunchResult r = rig.launch(m, "divide", {1}, {32}, {buffer_arg("a", a), buffer_arg("out", out), value_arg("d", 5)});
    ASSERT_FALSE(r.ok);
    EXPECT_EQ(r.error->name, "INTEGER_DIVIDE_BY_ZERO");
    EXPECT_EQ(r.error->kind, ErrorKind::Fault);
    EXPECT_EQ(r.error->thread, (Dim3{5, 0, 0}));
    EXPECT_EQ(r.error->line, 3);
    EXPECT_EQ(r.error->message, "thread (5,0,0) of block (0,0,0) divided an integer by zero (line 3)");
}

TEST(CpuBackendFault, NullPointer) {
    CpuRig rig;
    const char* src = "extern \"C\" __global__ void deref(int* p)\n"
                      "{\n"
                      "    p[threadIdx.x] = 1;\n"
                      "}\n";
    const ModuleId m = rig.compile(src, "deref", "null.cu");
    KernelArg null_arg = value_arg<void*>("p", nullptr);
    const LaunchResult r = rig.launch(m, "deref", {1}, {8}, {null_arg});
    ASSERT_FALSE(r.ok);
    EXPECT_EQ(r.error->name, "INVALID_ADDRESS");
    EXPECT_EQ(r.error->kind, ErrorKind::Fault);
    EXPECT_EQ(r.error->thread, (Dim3{0, 0, 0}));
    EXPECT_EQ(r.error->line, 3);
}

TEST(CpuBackendFault, AssertFailureEndsTheLaunchNotTheProcess) {
    CpuRig rig;
    const char* src = "#include <assert.h>\n"
                      "extern \"C\" __global__ void check(const int* v)\n"
                      "{\n"
                      "    assert(v[threadIdx.x] >= 0);\n"
                      "}\n";
    const ModuleId m = rig.compile(src, "check", "assert.cu");
    std::vector<int> v(64, 1);
    v[41] = -3;
    const BufferId b = rig.buffer("v", v);
    const LaunchResult r = rig.launch(m, "check", {1}, {64}, {buffer_arg("v", b)});
    ASSERT_FALSE(r.ok);
    EXPECT_EQ(r.error->name, "ASSERT");
    EXPECT_EQ(r.error->message, "thread (41,0,0) of block (0,0,0): assertion `v[threadIdx.x] >= 0` failed (line 4)");
}

TEST(CpuBackendFault, DynamicSharedOverflow) {
    CpuRig rig;
    const char* src = "extern \"C\" __global__ void over(int* out)\n"
                      "{\n"
                      "    extern __shared__ int dyn[];\n"
                      "    dyn[threadIdx.x] = threadIdx.x;\n"  // line 4: 64 threads, room for 32
                      "    out[threadIdx.x] = dyn[threadIdx.x];\n"
                      "}\n";
    const ModuleId m = rig.compile(src, "over", "dyn.cu");
    const BufferId out = rig.buffer("out", std::vector<int>(64, 0));
    const LaunchResult r = rig.launch(m, "over", {1}, {64}, {buffer_arg("out", out)}, 32 * sizeof(int));
    ASSERT_FALSE(r.ok);
    EXPECT_EQ(r.error->name, "OUT_OF_BOUNDS");
    EXPECT_EQ(r.error->message,
              "thread (32,0,0) of block (0,0,0) wrote past the end of the dynamic shared memory "
              "(extern __shared__, 128 bytes) (line 4)");
}

// The dynamic shared memory starts 16-byte aligned (kernels carve float4s out of it), so 100 bytes end 12
// bytes short of the guard page: thread 6's float4 (bytes 96-111) reads past the end without reaching the
// guard. The per-access check names it; 96 bytes are read as 6 float4s without complaint.
TEST(CpuBackendFault, DynamicSharedVectorReadOverTheEnd) {
    CpuRig rig(test_options(1));
    const char* src = "extern \"C\" __global__ void tail(const float* in, float* out)\n"
                      "{\n"
                      "    extern __shared__ float4 dyn4[];\n"
                      "    reinterpret_cast<float*>(dyn4)[threadIdx.x] = in[threadIdx.x];\n"
                      "    __syncthreads();\n"
                      "    if (threadIdx.x < (blockDim.x + 3) / 4) {\n"
                      "        float4 v = dyn4[threadIdx.x];\n"  // line 7
                      "        out[threadIdx.x] = v.x + v.y + v.z + v.w;\n"
                      "    }\n"
                      "}\n";
    const ModuleId m = rig.compile(src, "tail", "dyn4.cu");
    std::vector<float> in(28);
    for (size_t i = 0; i < in.size(); ++i) in[i] = float(i * i);
    const BufferId a = rig.buffer("in", in), out = rig.buffer("out", std::vector<float>(7, 0.0f));
    // 24 floats in 96 bytes: every float4 inside.
    LaunchResult r = rig.launch(m, "tail", {1}, {24}, {buffer_arg("in", a), buffer_arg("out", out)}, 24 * sizeof(float));
    ASSERT_TRUE(r.ok) << error_text(r);
    const std::vector<float> sums = rig.read<float>(out);
    for (size_t t = 0; t < 6; ++t) EXPECT_EQ(sums[t], in[4 * t] + in[4 * t + 1] + in[4 * t + 2] + in[4 * t + 3]) << t;
    // 25 floats in 100 bytes: thread 6 reads bytes 96-111, the last 12 of them past the end.
    r = rig.launch(m, "tail", {1}, {25}, {buffer_arg("in", a), buffer_arg("out", out)}, 25 * sizeof(float));
    ASSERT_FALSE(r.ok);
    EXPECT_EQ(r.error->name, "OUT_OF_BOUNDS");
    EXPECT_EQ(r.error->message,
              "thread (6,0,0) of block (0,0,0) read past the end of the dynamic shared memory (extern __shared__, "
              "100 bytes) (line 7)");
}

TEST(CpuBackendFault, StackOverflowAndPrintfBeforeTheCrash) {
    CpuRig rig(test_options(1));
    const char* src = "__device__ int deep(int n) {\n"
                      "    volatile char pad[4096];\n"
                      "    pad[0] = (char)n;\n"
                      "    return n == 0 ? pad[0] : deep(n - 1) + pad[0];\n"
                      "}\n"
                      "extern \"C\" __global__ void recurse(int* out, int depth)\n"
                      "{\n"
                      "    printf(\"thread %d starts\\n\", threadIdx.x);\n"
                      "    out[threadIdx.x] = deep(depth);\n"
                      "}\n";
    const ModuleId m = rig.compile(src, "recurse", "deep.cu");
    const BufferId out = rig.buffer("out", std::vector<int>(4, 0));
    const LaunchResult ok = rig.launch(m, "recurse", {1}, {4}, {buffer_arg("out", out), value_arg("depth", 3)});
    ASSERT_TRUE(ok.ok) << error_text(ok);
    const LaunchResult r = rig.launch(m, "recurse", {1}, {4}, {buffer_arg("out", out), value_arg("depth", 100000)});
    ASSERT_FALSE(r.ok);
    EXPECT_EQ(r.error->name, "STACK_OVERFLOW");
    EXPECT_EQ(r.error->thread, (Dim3{0, 0, 0})) << r.error->message;
    EXPECT_EQ(r.error->block, (Dim3{0, 0, 0})) << r.error->message;
    EXPECT_EQ(r.printf_output, "thread 0 starts\n");
    EXPECT_TRUE(rig.launch(m, "recurse", {1}, {4}, {buffer_arg("out", out), value_arg("depth", 3)}).ok);
}

TEST(CpuBackendFault, CrashInsideALibraryCallStillFindsTheKernelLine) {
    CpuRig rig;
    const char* src = "extern \"C\" __global__ void copy(char* dst, const char* src, int bytes)\n"
                      "{\n"
                      "    if (threadIdx.x == 0)\n"
                      "        memcpy(dst, src, bytes);\n"  // line 4: bytes is larger than dst
                      "}\n";
    const BufferId dst = rig.buffer("dst", std::vector<char>(4096 * 2, 0));
    const BufferId from = rig.buffer("src", std::vector<char>(4096 * 8, 1));
    // Plain, and as distributions that fortify by default build it (memcpy inlined from a glibc header).
    for (const char* option : {"-DPLAIN_BUILD", "-D_FORTIFY_SOURCE=2"}) {
        CompileRequest req;
        req.source = src;
        req.kernel_name = "copy";
        req.path = "memcpy.cu";
        req.extra_options = {option};
        const CompileResult c = rig.backend->compile(req);
        ASSERT_TRUE(c.ok) << c.log;
        const LaunchResult r =
            rig.launch(c.module, "copy", {1}, {32}, {buffer_arg("dst", dst), buffer_arg("src", from), value_arg("bytes", 4096 * 8)});
        ASSERT_FALSE(r.ok) << option;
        EXPECT_EQ(r.error->name, "OUT_OF_BOUNDS") << option;
        EXPECT_EQ(r.error->kind, ErrorKind::OutOfBounds) << option;
        EXPECT_EQ(r.error->thread, (Dim3{0, 0, 0})) << option;
        EXPECT_EQ(r.error->line, 4) << option << ": " << r.error->message;
    }
}

}  // namespace
}  // namespace cp::test
