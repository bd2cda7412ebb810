// CPU backend bounds checks per element: for sizes that are not multiples of 16 bytes (or of the block) and
// for 1- to 12-byte element types, a read or write one element past the end, or before the start, names the
// thread, block, line and element ("element 1001 of 1001"); a correct kernel on the same buffers passes.
#include "cpu_backend_rig.h"

#include <unistd.h>

namespace cp::test {
namespace {

// Host twins of the shim's 3-component vector types (CUDA's layouts: element-aligned, no padding).
struct Float3 {
    float x, y, z;
    bool operator==(const Float3& o) const { return x == o.x && y == o.y && z == o.z; }
};
struct Uchar3 {
    unsigned char x, y, z;
    bool operator==(const Uchar3& o) const { return x == o.x && y == o.y && z == o.z; }
};
static_assert(sizeof(Float3) == 12 && sizeof(Uchar3) == 3, "must match CUDA's float3 and uchar3");

// One kernel, the access chosen by `mode`, each in its own function on its own line (the line is part of
// the expected report; in one function the compiler may merge the identical copies of a struct, and the
// line table then names only one of them).
// With `vector`, the file also names float4 (line 16), so its buffers start 16-byte aligned as on a GPU and
// end up to 15 bytes before the guard page: the per-access check alone finds the first element past the end.
std::string kernel_source(const std::string& type, bool vector) {
    const std::string t = "const " + type + "* in, " + type + "* out, int i, int back";
    return "__device__ __noinline__ void m0(" + t + ") { out[i] = in[i + 1]; }\n"     // 1
           "__device__ __noinline__ void m1(" + t + ") { out[i + 1] = in[i]; }\n"     // 2
           "__device__ __noinline__ void m2(" + t + ") { out[i] = in[i - back]; }\n"  // 3
           "__device__ __noinline__ void m3(" + t + ") { out[i - 1] = in[i]; }\n"     // 4
           "__device__ __noinline__ void m4(" + t + ") { out[i] = in[i]; }\n"         // 5
           "extern \"C\" __global__ void k(const " + type + "* in, " + type + "* out, int n, int mode, int back)\n"
           "{\n"
           "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
           "    if (i >= n) return;\n"
           "    if (mode == 0) m0(in, out, i, back);\n"
           "    if (mode == 1) m1(in, out, i, back);\n"
           "    if (mode == 2) m2(in, out, i, back);\n"
           "    if (mode == 3) m3(in, out, i, back);\n"
           "    if (mode == 4) m4(in, out, i, back);\n"
           "}\n" +
           std::string(vector ? "__device__ float4 twice(float4 v) { return make_float4(2 * v.x, 2 * v.y, 2 * v.z, 2 * v.w); }\n"
                              : "");
}

constexpr unsigned kBlock = 256;
const int kSizes[] = {1001, 999, 1002, 100003};

std::string thread_of(long long element) {
    return "thread (" + std::to_string(element % kBlock) + ",0,0) of block (" + std::to_string(element / kBlock) + ",0,0)";
}

// `make(i)` gives element i's value; none of them has 0xA5 (the pattern before a buffer's start) as low byte.
template <class T, class Make>
void check_bounds(const std::string& type, Make make, bool vector = false) {
    CpuRig rig(test_options(1));  // one worker: blocks in order, so the first thread to go outside is reported
    const ModuleId m = rig.compile(kernel_source(type, vector), "k", "bounds.cu");
    const long long start_align = vector ? 16 : 1;
    const long long page = ::sysconf(_SC_PAGESIZE);
    for (const int n : kSizes) {
        SCOPED_TRACE(type + "[" + std::to_string(n) + "]" + (vector ? " in a vector kernel" : ""));
        std::vector<T> values(static_cast<size_t>(n));
        for (int i = 0; i < n; ++i) values[size_t(i)] = make(i);
        const BufferId in = rig.buffer("in", values), out = rig.buffer("out", std::vector<T>(size_t(n)));
        const uint32_t grid = div_up(uint32_t(n), kBlock);
        auto run = [&](int mode, int back = 0) {
            return rig.launch(m, "k", {grid}, {kBlock},
                              {buffer_arg("in", in), buffer_arg("out", out), value_arg("n", n), value_arg("mode", mode),
                               value_arg("back", back)});
        };
        const std::string of_n = " of " + std::to_string(n);

        // Thread n-1 reads in[n] / writes out[n]: the first element past the end.
        LaunchResult r = run(0);
        ASSERT_FALSE(r.ok);
        EXPECT_EQ(r.error->name, "OUT_OF_BOUNDS");
        EXPECT_EQ(r.error->message, thread_of(n - 1) + " read past the end of buffer `in`: element " +
                                        std::to_string(n) + of_n + " (line 1)");
        r = run(1);
        ASSERT_FALSE(r.ok);
        EXPECT_EQ(r.error->message, thread_of(n - 1) + " wrote past the end of buffer `out`: element " +
                                        std::to_string(n) + of_n + " (line 2)");

        // Before the start: thread 0 reads in[-1]. The buffer's first page holds round_up(bytes, page) - bytes
        // bytes before it (no guard there), so this is the per-access check's to find; a read beyond those
        // bytes reaches the guard page and faults.
        const long long bytes = static_cast<long long>(n) * static_cast<long long>(sizeof(T));
        const long long slack = ((bytes + page - 1) / page * page - bytes) / start_align * start_align;
        for (const int back : {1, int(slack / static_cast<long long>(sizeof(T)) + 1)}) {
            r = run(2, back);
            ASSERT_FALSE(r.ok);
            EXPECT_EQ(r.error->name, "OUT_OF_BOUNDS");
            EXPECT_EQ(r.error->message, thread_of(0) + " read before the start of buffer `in`: element -" +
                                            std::to_string(back) + of_n + " (line 3)");
        }
        // A write to element -1: at once too, with the thread and the line.
        r = run(3);
        ASSERT_FALSE(r.ok);
        EXPECT_EQ(r.error->name, "OUT_OF_BOUNDS");
        EXPECT_EQ(r.error->message, thread_of(0) + " wrote before the start of buffer `out`: element -1" + of_n +
                                        " (line 4)");

        // The same buffers, every element inside: passes, and copies exactly.
        r = run(4);
        ASSERT_TRUE(r.ok) << error_text(r);
        EXPECT_EQ(rig.read<T>(out), values);
    }
}

TEST(CpuBackendBounds, Char) {
    check_bounds<signed char>("signed char", [](int i) { return static_cast<signed char>(1 + i % 100); });
}
TEST(CpuBackendBounds, Short) {
    check_bounds<short>("short", [](int i) { return short(1 + i % 1000); });
}
TEST(CpuBackendBounds, Float) {
    check_bounds<float>("float", [](int i) { return 1.0f + float(i); });
}
TEST(CpuBackendBounds, Double) {
    check_bounds<double>("double", [](int i) { return 1.0 + i; });
}
TEST(CpuBackendBounds, Float3) {
    check_bounds<Float3>("float3", [](int i) { return Float3{1.0f + float(i), 2.0f, 3.0f}; });
}
TEST(CpuBackendBounds, Uchar3) {
    check_bounds<Uchar3>("uchar3", [](int i) {
        return Uchar3{static_cast<unsigned char>(1 + i % 100), 2, 3};
    });
}

// Kernels that name float4 get 16-byte aligned buffer starts: the first element past the end is then up to
// 15 bytes before the guard page, and reads there were not caught before the per-access check.
TEST(CpuBackendBounds, FloatInAVectorKernel) {
    check_bounds<float>("float", [](int i) { return 1.0f + float(i); }, true);
}
TEST(CpuBackendBounds, DoubleInAVectorKernel) {
    check_bounds<double>("double", [](int i) { return 1.0 + i; }, true);
}
TEST(CpuBackendBounds, Uchar3InAVectorKernel) {
    check_bounds<Uchar3>("uchar3", [](int i) { return Uchar3{static_cast<unsigned char>(1 + i % 100), 2, 3}; }, true);
}

// The case: `out[i] = in[i + 1]` over 1001 ints in blocks of 256 used to pass silently (the read
// landed in alignment bytes).
TEST(CpuBackendBounds, ShiftByOneOver1001Ints) {
    CpuRig rig(test_options(4));
    const char* src = "extern \"C\" __global__ void shift(const int* in, int* out, int n)\n"
                      "{\n"
                      "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                      "    if (i < n) out[i] = in[i + 1];\n"
                      "}\n";
    const int n = 1001;
    const ModuleId m = rig.compile(src, "shift", "shift.cu");
    const BufferId in = rig.buffer("in", std::vector<int>(n, 1)), out = rig.buffer("out", std::vector<int>(n, 0));
    const LaunchResult r =
        rig.launch(m, "shift", {div_up(n, 256)}, {256}, {buffer_arg("in", in), buffer_arg("out", out), value_arg("n", n)});
    ASSERT_FALSE(r.ok);
    EXPECT_EQ(r.error->kind, ErrorKind::OutOfBounds);
    EXPECT_EQ(r.error->message, thread_of(n - 1) + " read past the end of buffer `in`: element 1001 of 1001 (line 4)");
}

}  // namespace
}  // namespace cp::test

namespace cp::test {
namespace {

// Two buffers written just before their start in one launch, by memcpy (the C library's code is not checked
// per access, so the write lands in the bytes before the start): the first is reported after the launch, and
// both are put back, so the next correct launch passes; the same after a launch that also crashed.
TEST(CpuBackendBounds, EveryBufferWrittenOutsideIsPutBackForTheNextLaunch) {
    CpuRig rig(test_options(1));
    const char* src = "extern \"C\" __global__ void k(int* a, int* b, int n, int mode, int len)\n"
                      "{\n"
                      "    int i = blockIdx.x * blockDim.x + threadIdx.x, seven = 7;\n"
                      "    if (i == 0 && mode >= 1) { memcpy(a - 1, &seven, len); memcpy(b - 1, &seven, len); }\n"
                      "    if (i == 0 && mode == 2) a[n + 16] = 7;\n"
                      "    if (i < n) b[i] = a[i] + 1;\n"
                      "}\n";
    const int n = 1001;
    const ModuleId m = rig.compile(src, "k", "two.cu");
    const BufferId a = rig.buffer("a", std::vector<int>(n, 2)), b = rig.buffer("b", std::vector<int>(n, 0));
    const auto run = [&](int mode) {
        return rig.launch(m, "k", {div_up(n, 256)}, {256},
                          {buffer_arg("a", a), buffer_arg("b", b), value_arg("n", n), value_arg("mode", mode),
                           value_arg("len", int(sizeof(int)))});
    };
    LaunchResult r = run(1);
    ASSERT_FALSE(r.ok);
    EXPECT_EQ(r.error->message, "a thread wrote before the start of buffer `a`: element -1 of 1001 (found after the "
                                "launch, so the thread and line are not known)");
    r = run(0);
    EXPECT_TRUE(r.ok) << error_text(r);
    r = run(2);
    ASSERT_FALSE(r.ok);
    EXPECT_EQ(r.error->message, "thread (0,0,0) of block (0,0,0) wrote past the end of buffer `a`: element " +
                                    std::to_string(n + 16) + " of 1001 (line 5)");
    r = run(0);
    EXPECT_TRUE(r.ok) << error_text(r);
    EXPECT_EQ(rig.read<int>(b), std::vector<int>(n, 3));
}

}  // namespace
}  // namespace cp::test
