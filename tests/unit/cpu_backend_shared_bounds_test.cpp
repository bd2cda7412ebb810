// Static __shared__ arrays on the CPU backend live in guarded memory of their own: an index past an array's
// end (any element type, any size) names the thread, block, line, array and element, with the indices of a
// 2D tile; a write just before the start is found after the launch; correct kernels (templates with several
// sizes, file-scope arrays, vector kernels) keep their results. Expected values are computed here.
#include "cpu_backend_rig.h"

#include <unistd.h>

namespace cp::test {
namespace {

std::string who(unsigned tx, unsigned ty, unsigned bx, unsigned by) {
    return "thread (" + std::to_string(tx) + "," + std::to_string(ty) + ",0) of block (" + std::to_string(bx) + "," +
           std::to_string(by) + ",0)";
}

long long page_size() { return ::sysconf(_SC_PAGESIZE); }

// The tiled transpose of NVIDIA-style course notes: a 32x33 tile filled 8 rows at a time (j += ROWS).
const char* kTranspose =
    "#define TILE 32\n"                                                                        // 1
    "#define ROWS 8\n"                                                                         // 2
    "extern \"C\" __global__ void transpose(const float* in, float* out, int width, int height)\n"  // 3
    "{\n"                                                                                      // 4
    "    __shared__ float tile[TILE][TILE + 1];\n"                                             // 5
    "    int x = blockIdx.x * TILE + threadIdx.x;\n"                                           // 6
    "    int y = blockIdx.y * TILE + threadIdx.y;\n"                                           // 7
    "    for (int j = 0; j < TILE; j += ROWS)\n"                                               // 8
    "        if (x < width && y + j < height) tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * width + x];\n"  // 9
    "    __syncthreads();\n"                                                                   // 10
    "    x = blockIdx.y * TILE + threadIdx.x;\n"                                               // 11
    "    y = blockIdx.x * TILE + threadIdx.y;\n"                                               // 12
    "    for (int j = 0; j < TILE; j += ROWS)\n"                                               // 13
    "        if (x < height && y + j < width) out[(y + j) * height + x] = tile[threadIdx.x][threadIdx.y + j];\n"  // 14
    "}\n";

// The mistake from issue 21: the 32x8 kernel launched with 32x32 blocks fills rows past the tile. The GPU
// faulted; the CPU backend ran it "fine". Thread (0,8) is the first (x fastest, one worker) whose last
// pass (j = 24) reaches row 32.
TEST(CpuBackendSharedBounds, TileFilledPastItsLastRowNamesTheRowAndColumn) {
    CpuRig rig(test_options(1));
    const ModuleId m = rig.compile(kTranspose, "transpose", "transpose.cu");
    const int width = 203, height = 117;
    std::vector<float> in(size_t(width) * height);
    for (size_t i = 0; i < in.size(); ++i) in[i] = float(i % 1000);
    const BufferId a = rig.buffer("in", in), b = rig.buffer("out", std::vector<float>(in.size()));
    const Dim3 grid{div_up(width, 32), div_up(height, 32)};
    const auto args = std::vector<KernelArg>{buffer_arg("in", a), buffer_arg("out", b), value_arg("width", width),
                                             value_arg("height", height)};

    LaunchResult r = rig.launch(m, "transpose", grid, {32, 32}, args);
    ASSERT_FALSE(r.ok);
    EXPECT_EQ(r.error->kind, ErrorKind::OutOfBounds);
    const int row = 8 + 24, cols = 33;
    EXPECT_EQ(r.error->message, who(0, 8, 0, 0) + " wrote past the end of the __shared__ array `tile`: element " +
                                    std::to_string(row * cols) + " of " + std::to_string(32 * cols) + ", tile[" +
                                    std::to_string(row) + "][0] (line 9)");
    EXPECT_NE(r.error->hint.find("`tile[32][33]` holds 1056 elements of 4 bytes"), std::string::npos) << r.error->hint;

    // The block the kernel was written for: every element lands transposed.
    r = rig.launch(m, "transpose", grid, {32, 8}, args);
    ASSERT_TRUE(r.ok) << error_text(r);
    EXPECT_GT(r.backend_ms, 0.0) << "the worker process measures its part of the launch (the frame budget)";
    const std::vector<float> out = rig.read<float>(b);
    for (int y = 0; y < height; ++y)
        for (int x = 0; x < width; ++x)
            ASSERT_EQ(out[size_t(x) * height + y], in[size_t(y) * width + x]) << "x " << x << " y " << y;
}

// One source per element type: s[threadIdx.x + 1] read after a barrier (thread N-1 reads element N), or
// written (mode 1), or s[threadIdx.x - back] read (mode 2) / s[threadIdx.x - 1] written (mode 3).
std::string one_dimensional(const std::string& type, int n) {
    const std::string count = std::to_string(n);
    return "extern \"C\" __global__ void k(const " + type + "* in, " + type + "* out, int mode, int back)\n"  // 1
           "{\n"                                                                                           // 2
           "    __shared__ " + type + " s[" + count + "];\n"                                                  // 3
           "    unsigned t = threadIdx.x;\n"                                                                // 4
           "    s[t] = in[t];\n"                                                                            // 5
           "    __syncthreads();\n"                                                                         // 6
           "    if (mode == 0) out[t] = s[t + 1];\n"                                                        // 7
           "    if (mode == 1) s[t + 1] = in[t];\n"                                                         // 8
           "    if (mode == 2) out[t] = s[(int)t - back];\n"                                                // 9
           "    if (mode == 3) s[(int)t - 1] = in[t];\n"                                                    // 10
           "    if (mode == 4) out[t] = s[" + count + " - 1 - t];\n"                                        // 11
           "}\n";
}

template <class T>
void check_one_dimensional(const std::string& type, int n) {
    SCOPED_TRACE(type + "[" + std::to_string(n) + "]");
    CpuRig rig(test_options(1));
    const ModuleId m = rig.compile(one_dimensional(type, n), "k", "shared.cu");
    std::vector<T> in(static_cast<size_t>(n));
    for (int i = 0; i < n; ++i) in[size_t(i)] = T(1 + i % 100);
    const BufferId a = rig.buffer("in", in), b = rig.buffer("out", std::vector<T>(size_t(n)));
    const auto run = [&](int mode, int back = 0) {
        return rig.launch(m, "k", {3}, {unsigned(n)},
                          {buffer_arg("in", a), buffer_arg("out", b), value_arg("mode", mode), value_arg("back", back)});
    };
    const std::string of_n = " of " + std::to_string(n);
    const std::string array = " the __shared__ array `s`: element ";

    LaunchResult r = run(0);
    ASSERT_FALSE(r.ok);
    EXPECT_EQ(r.error->message, who(unsigned(n - 1), 0, 0, 0) + " read past the end of" + array + std::to_string(n) + of_n + " (line 7)");
    r = run(1);
    ASSERT_FALSE(r.ok);
    EXPECT_EQ(r.error->message, who(unsigned(n - 1), 0, 0, 0) + " wrote past the end of" + array + std::to_string(n) + of_n + " (line 8)");

    // Before the start: thread 0 reads s[-1], inside the array's first page (no guard there: the per-access
    // check finds it), and further back, in the guard page before it.
    const long long bytes = static_cast<long long>(n) * static_cast<long long>(sizeof(T));
    const long long slack = (bytes + page_size() - 1) / page_size() * page_size() - bytes;
    for (const int back : {1, int(slack / static_cast<long long>(sizeof(T)) + 1)}) {
        r = run(2, back);
        ASSERT_FALSE(r.ok);
        EXPECT_EQ(r.error->message,
                  who(0, 0, 0, 0) + " read before the start of" + array + "-" + std::to_string(back) + of_n + " (line 9)");
    }
    // A write to element -1: at once, with the thread and the line.
    r = run(3);
    ASSERT_FALSE(r.ok);
    EXPECT_EQ(r.error->kind, ErrorKind::OutOfBounds);
    EXPECT_EQ(r.error->message, who(0, 0, 0, 0) + " wrote before the start of" + array + "-1" + of_n + " (line 10)");

    // The same array, every index inside: passes (the slack was restored), and reverses exactly.
    r = run(4);
    ASSERT_TRUE(r.ok) << error_text(r);
    const std::vector<T> out = rig.read<T>(b);
    for (int i = 0; i < n; ++i) EXPECT_EQ(out[size_t(i)], in[size_t(n - 1 - i)]) << i;
}

TEST(CpuBackendSharedBounds, OneDimensionalArraysOfEveryElementSize) {
    check_one_dimensional<signed char>("signed char", 100);
    check_one_dimensional<short>("short", 37);
    check_one_dimensional<float>("float", 100);
    check_one_dimensional<double>("double", 99);
}

// A device-function template with a shared array, instantiated with two sizes in one kernel: one
// declaration, two arrays, each kept apart (on a GPU they are two variables).
TEST(CpuBackendSharedBounds, TemplateInstantiationsOfOneDeclarationKeepTheirOwnArrays) {
    const char* src =
        "template <int N>\n"
        "__device__ float rotate(float v)\n"
        "{\n"
        "    __shared__ float ring[N];\n"
        "    for (int k = threadIdx.x; k < N; k += blockDim.x) ring[k] = v * (k / blockDim.x + 1) + N;\n"
        "    __syncthreads();\n"
        "    float r = ring[(threadIdx.x + 1) % N];\n"
        "    __syncthreads();\n"
        "    return r;\n"
        "}\n"
        "extern \"C\" __global__ void k(const float* in, float* out)\n"
        "{\n"
        "    float a = rotate<32>(in[threadIdx.x]);\n"
        "    float b = rotate<64>(in[threadIdx.x]);\n"
        "    float c = rotate<32>(in[threadIdx.x] * 10);\n"
        "    out[threadIdx.x] = a + 1000 * b + 100000 * c;\n"
        "}\n";
    CpuRig rig(test_options(2));
    const ModuleId m = rig.compile(src, "k", "rotate.cu");
    std::vector<float> in(32);
    for (int i = 0; i < 32; ++i) in[size_t(i)] = float(i % 7);
    const BufferId a = rig.buffer("in", in), b = rig.buffer("out", std::vector<float>(32));
    const LaunchResult r = rig.launch(m, "k", {1}, {32}, {buffer_arg("in", a), buffer_arg("out", b)});
    ASSERT_TRUE(r.ok) << error_text(r);
    const std::vector<float> out = rig.read<float>(b);
    for (int t = 0; t < 32; ++t) {
        // ring<32>[k] = in[k] + 32; ring<64>[k] = in[k % 32] * (k / 32 + 1) + 64, read at t + 1.
        const float a32 = in[size_t((t + 1) % 32)] + 32;
        const int k64 = (t + 1) % 64;
        const float b64 = in[size_t(k64 % 32)] * float(k64 / 32 + 1) + 64;
        const float c32 = in[size_t((t + 1) % 32)] * 10 + 32;
        EXPECT_EQ(out[size_t(t)], a32 + 1000 * b64 + 100000 * c32) << t;
    }
}

// A file-scope array with a scalar in its statement (the histogram's counts), several declarators in one
// statement with a scalar beside them, and the array's name in the report.
TEST(CpuBackendSharedBounds, FileScopeAndSeveralDeclaratorsInOneStatement) {
    const char* src =
        "__shared__ unsigned counts[10], spare;\n"                                       // 1
        "extern \"C\" __global__ void histogram(const int* in, unsigned* out, int n, int bins)\n"  // 2
        "{\n"                                                                            // 3
        "    __shared__ int first[4], last[4], seen;\n"                                   // 4
        "    if (threadIdx.x < bins) counts[threadIdx.x] = 0;\n"                          // 5
        "    if (threadIdx.x == 0) { seen = 0; first[0] = 1; last[3] = 2; }\n"           // 6
        "    __syncthreads();\n"                                                          // 7
        "    for (int i = threadIdx.x; i < n; i += blockDim.x) atomicAdd(&counts[in[i]], 1u);\n"  // 8
        "    __syncthreads();\n"                                                          // 9
        "    if (threadIdx.x < bins) out[threadIdx.x] = counts[threadIdx.x] + first[0] + last[3] - 3 + seen;\n"  // 10
        "}\n";
    CpuRig rig(test_options(1));
    const ModuleId m = rig.compile(src, "histogram", "histogram.cu");
    const int n = 1001;
    std::vector<int> in(n);
    std::vector<unsigned> expected(10, 0);
    for (int i = 0; i < n; ++i) {
        in[size_t(i)] = (i * 7 + 3) % 10;
        ++expected[size_t(in[size_t(i)])];
    }
    const BufferId a = rig.buffer("in", in), b = rig.buffer("out", std::vector<unsigned>(10));
    LaunchResult r = rig.launch(m, "histogram", {1}, {64},
                                {buffer_arg("in", a), buffer_arg("out", b), value_arg("n", n), value_arg("bins", 10)});
    ASSERT_TRUE(r.ok) << error_text(r);
    EXPECT_EQ(rig.read<unsigned>(b), expected);

    // A value of 10 in a histogram of 10 bins: counts[10].
    in[500] = 10;
    const BufferId c = rig.buffer("in", in);
    r = rig.launch(m, "histogram", {1}, {64},
                   {buffer_arg("in", c), buffer_arg("out", b), value_arg("n", n), value_arg("bins", 10)});
    ASSERT_FALSE(r.ok);
    EXPECT_EQ(r.error->message, who(500 % 64, 0, 0, 0) + " wrote past the end of the __shared__ array `counts`: "
                                                          "element 10 of 10 (line 8)");
}

// A kernel that reads float4s starts its shared arrays 16-byte aligned, as a GPU does: 10 floats then end
// 8 bytes short of the guard; a float4 read over the end or a write there is caught by the per-access check.
TEST(CpuBackendSharedBounds, VectorKernelArraysStartAlignedAndTheirTailIsChecked) {
    const char* src =
        "extern \"C\" __global__ void k(const float* in, float* out, int mode)\n"  // 1
        "{\n"                                                                      // 2
        "    __shared__ float s[10];\n"                                            // 3
        "    s[threadIdx.x] = in[threadIdx.x];\n"                                  // 4
        "    __syncthreads();\n"                                                   // 5
        "    if (threadIdx.x < 2) {\n"                                             // 6
        "        float4 v = reinterpret_cast<const float4*>(s)[threadIdx.x];\n"    // 7
        "        out[threadIdx.x] = v.x + v.y + v.z + v.w;\n"                      // 8
        "    }\n"                                                                  // 9
        "    if (mode == 1 && threadIdx.x == 9) s[10] = 1.0f;\n"                   // 10
        "    if (mode == 2 && threadIdx.x == 7) {\n"                                 // 11
        "        float4 v = reinterpret_cast<const float4*>(s)[2]; out[0] = v.x + v.y + v.z + v.w; }\n"  // 12
        "}\n";
    CpuRig rig(test_options(1));
    const ModuleId m = rig.compile(src, "k", "vector.cu");
    std::vector<float> in(10);
    for (int i = 0; i < 10; ++i) in[size_t(i)] = float(i * i);
    const BufferId a = rig.buffer("in", in), b = rig.buffer("out", std::vector<float>(2));
    LaunchResult r = rig.launch(m, "k", {1}, {10}, {buffer_arg("in", a), buffer_arg("out", b), value_arg("mode", 0)});
    ASSERT_TRUE(r.ok) << error_text(r);
    const std::vector<float> out = rig.read<float>(b);
    EXPECT_EQ(out[0], in[0] + in[1] + in[2] + in[3]);
    EXPECT_EQ(out[1], in[4] + in[5] + in[6] + in[7]);

    r = rig.launch(m, "k", {1}, {10}, {buffer_arg("in", a), buffer_arg("out", b), value_arg("mode", 1)});
    ASSERT_FALSE(r.ok);
    EXPECT_EQ(r.error->message,
              "thread (9,0,0) of block (0,0,0) wrote past the end of the __shared__ array `s`: element 10 of 10 (line 10)");
    // Elements 8-11 as one float4: 10 and 11 are past the end (the first of them is named).
    r = rig.launch(m, "k", {1}, {10}, {buffer_arg("in", a), buffer_arg("out", b), value_arg("mode", 2)});
    ASSERT_FALSE(r.ok);
    EXPECT_EQ(r.error->message,
              "thread (7,0,0) of block (0,0,0) read past the end of the __shared__ array `s`: element 10 of 10 (line 12)");
}

// The arrays' sizes still count as the kernel's static shared memory: more than 48 KiB is refused.
TEST(CpuBackendSharedBounds, StaticSharedMemoryIsStillCountedAndLimited) {
    CpuRig rig(test_options(1));
    const auto src = [](int floats) {
        return "extern \"C\" __global__ void k(float* out)\n{\n    __shared__ float big[" + std::to_string(floats) +
               "];\n    big[threadIdx.x] = threadIdx.x;\n    __syncthreads();\n    out[threadIdx.x] = big[threadIdx.x];\n}\n";
    };
    const CompileResult fits = rig.compile_result(src(8192), "k");
    ASSERT_TRUE(fits.ok);
    EXPECT_GE(fits.usage.static_shared_bytes, 8192 * 4);
    const BufferId out = rig.buffer("out", std::vector<float>(32));
    EXPECT_TRUE(rig.launch(fits.module, "k", {1}, {32}, {buffer_arg("out", out)}).ok);

    const CompileResult too_big = rig.compile_result(src(13000), "k");
    ASSERT_TRUE(too_big.ok);
    const LaunchResult r = rig.launch(too_big.module, "k", {1}, {32}, {buffer_arg("out", out)});
    ASSERT_FALSE(r.ok);
    EXPECT_EQ(r.error->name, "INVALID_CONFIGURATION");
}

}  // namespace
}  // namespace cp::test
