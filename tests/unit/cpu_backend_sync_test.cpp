// CPU backend synchronisation: __syncthreads tree reductions, tiled matmul with shared tiles, atomic
// histograms in shuffled thread order, warp shuffles/votes, barrier aggregates, and stalls reported.
#include "cpu_backend_rig.h"

#include <numeric>
#include <random>

namespace cp::test {
namespace {

const char* kTreeReduce = R"(
#define BLOCK 256
extern "C" __global__ void block_sums(const int* in, int* sums, int n)
{
    __shared__ int partial[BLOCK];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    partial[threadIdx.x] = i < n ? in[i] : 0;
    __syncthreads();
    for (int stride = blockDim.x / 2; stride > 0; stride /= 2) {
        if (threadIdx.x < stride) partial[threadIdx.x] += partial[threadIdx.x + stride];
        __syncthreads();
    }
    if (threadIdx.x == 0) sums[blockIdx.x] = partial[0];
}
)";

std::vector<int> expected_block_sums(const std::vector<int>& in, int block) {
    std::vector<int> sums(div_up(unsigned(in.size()), unsigned(block)), 0);
    for (size_t i = 0; i < in.size(); ++i) sums[i / size_t(block)] += in[i];
    return sums;
}

class CpuBackendOrders : public ::testing::TestWithParam<ThreadOrder> {};

TEST_P(CpuBackendOrders, SharedMemoryTreeReduction) {
    CpuRig rig(test_options(2, GetParam(), 99));
    const int n = 100003;  // not a multiple of the block
    std::vector<int> in(n);
    std::mt19937 rng(3);
    for (int& v : in) v = int(rng() % 2001) - 1000;
    const ModuleId m = rig.compile(kTreeReduce, "block_sums");
    const unsigned blocks = div_up(n, 256);
    const BufferId bi = rig.buffer("in", in), bs = rig.buffer("sums", std::vector<int>(blocks, 12345));
    const LaunchResult r = rig.launch(m, "block_sums", {blocks}, {256}, {buffer_arg("in", bi), buffer_arg("sums", bs), value_arg("n", n)});
    ASSERT_TRUE(r.ok) << error_text(r);
    EXPECT_EQ(rig.read<int>(bs), expected_block_sums(in, 256));
}

TEST_P(CpuBackendOrders, AtomicHistogram) {
    CpuRig rig(test_options(3, GetParam(), 5));
    const char* src = R"(
extern "C" __global__ void histogram(const unsigned char* data, unsigned int* bins, int n)
{
    __shared__ unsigned int local[64];
    for (int b = threadIdx.x; b < 64; b += blockDim.x) local[b] = 0;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        atomicAdd(&local[data[i] % 64], 1u);
    __syncthreads();
    for (int b = threadIdx.x; b < 64; b += blockDim.x) atomicAdd(&bins[b], local[b]);
}
)";
    const int n = 777777;
    std::vector<unsigned char> data(n);
    std::mt19937 rng(11);
    for (auto& d : data) d = static_cast<unsigned char>(rng() & 0xFF);
    std::vector<unsigned> expected(64, 0);
    for (unsigned char d : data) ++expected[d % 64];
    const ModuleId m = rig.compile(src, "histogram");
    const BufferId bd = rig.buffer("data", data), bb = rig.buffer("bins", std::vector<unsigned>(64, 0));
    const LaunchResult r = rig.launch(m, "histogram", {97}, {200}, {buffer_arg("data", bd), buffer_arg("bins", bb), value_arg("n", n)});
    ASSERT_TRUE(r.ok) << error_text(r);
    EXPECT_EQ(rig.read<unsigned>(bb), expected);
}

TEST_P(CpuBackendOrders, WarpShuffleDownReduction) {
    CpuRig rig(test_options(2, GetParam(), 17));
    const char* src = R"(
__device__ float warp_sum(float v) {
    for (int offset = warpSize / 2; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffff, v, offset);
    return v;
}
extern "C" __global__ void warp_sums(const float* in, float* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = i < n ? in[i] : 0.0f;
    v = warp_sum(v);
    if ((threadIdx.x & 31) == 0) out[i / 32] = v;
}
)";
    const int n = 10007;
    std::vector<float> in(n);
    for (int i = 0; i < n; ++i) in[size_t(i)] = float(i % 97) * 0.5f;  // exact in float: sums are exact
    const unsigned blocks = div_up(n, 128);
    const ModuleId m = rig.compile(src, "warp_sums");
    const BufferId bi = rig.buffer("in", in), bo = rig.buffer("out", std::vector<float>(blocks * 4, -1));
    const LaunchResult r = rig.launch(m, "warp_sums", {blocks}, {128}, {buffer_arg("in", bi), buffer_arg("out", bo), value_arg("n", n)});
    ASSERT_TRUE(r.ok) << error_text(r);
    const std::vector<float> out = rig.read<float>(bo);
    for (unsigned w = 0; w < blocks * 4; ++w) {
        float expect = 0;
        for (unsigned i = w * 32; i < w * 32 + 32 && i < unsigned(n); ++i) expect += in[i];
        ASSERT_EQ(out[w], expect) << "warp " << w;
    }
}

TEST_P(CpuBackendOrders, TwoLevelReductionWarpsThenSharedMemory) {
    CpuRig rig(test_options(2, GetParam(), 23));
    const char* src = R"(
extern "C" __global__ void reduce2(const int* in, long long* total, int n)
{
    __shared__ int warp_sums[32];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int v = i < n ? in[i] : 0;
    for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffff, v, o);
    if ((threadIdx.x & 31) == 0) warp_sums[threadIdx.x / 32] = v;
    __syncthreads();
    if (threadIdx.x < 32) {
        int w = threadIdx.x < (blockDim.x + 31) / 32 ? warp_sums[threadIdx.x] : 0;
        w = __reduce_add_sync(0xffffffff, w);
        if (threadIdx.x == 0) atomicAdd((unsigned long long*)total, (unsigned long long)(long long)w);
    }
}
)";
    const int n = 300001;
    std::vector<int> in(n);
    std::mt19937 rng(2);
    long long expect = 0;
    for (int& v : in) expect += (v = int(rng() % 1000) - 500);
    const ModuleId m = rig.compile(src, "reduce2");
    const BufferId bi = rig.buffer("in", in), bt = rig.buffer("total", std::vector<long long>{0});
    const LaunchResult r = rig.launch(m, "reduce2", {div_up(n, 480)}, {480}, {buffer_arg("in", bi), buffer_arg("total", bt), value_arg("n", n)});
    ASSERT_TRUE(r.ok) << error_text(r);
    EXPECT_EQ(rig.read<long long>(bt)[0], expect);
}

TEST_P(CpuBackendOrders, ThreadsLeavingBetweenBarriersAreReported) {
    // Thread t runs t % 7 rounds of barriers, then returns; the others would meet without it, which CUDA
    // leaves undefined: the first barrier that the returned threads never reach is reported, in any order.
    CpuRig rig(test_options(1, GetParam(), 31));
    const char* src = R"(
extern "C" __global__ void leave(int* out)
{
    __shared__ int arrivals[8];
    if (threadIdx.x < 8) arrivals[threadIdx.x] = 0;
    __syncthreads();
    int rounds = threadIdx.x % 7;
    for (int r = 0; r < rounds; ++r) {
        int c = __syncthreads_count(1);
        if (threadIdx.x == 6) arrivals[r] = c;   // thread 6 stays for all 6 rounds
        __syncthreads();
    }
    if (threadIdx.x == 6) for (int r = 0; r < 6; ++r) out[blockIdx.x * 6 + r] = arrivals[r];
}
)";
    const unsigned block = 100;
    unsigned returned = 0;
    for (unsigned t = 0; t < block; ++t) returned += t % 7 == 0 ? 1 : 0;  // zero rounds: gone after line 6
    const ModuleId m = rig.compile(src, "leave");
    const BufferId bo = rig.buffer("out", std::vector<int>(18, -1));
    const LaunchResult r = rig.launch(m, "leave", {3}, {block}, {buffer_arg("out", bo)});
    ASSERT_FALSE(r.ok);
    EXPECT_EQ(r.error->name, "BARRIER_DIVERGENCE");
    EXPECT_EQ(r.error->message.rfind("block (0,0,0): " + std::to_string(block - returned) + " threads (1-6, 8-13, ", 0), 0u)
        << r.error->message;
    EXPECT_NE(r.error->message.find("wait at __syncthreads_count at line 9, but " + std::to_string(returned) +
                                    " threads (0, 7, 14, 21, 28, 35, ...) have already returned"),
              std::string::npos)
        << r.error->message;
}

INSTANTIATE_TEST_SUITE_P(Orders, CpuBackendOrders,
                         ::testing::Values(ThreadOrder::Natural, ThreadOrder::Reversed, ThreadOrder::Shuffled));

TEST(CpuBackendSync, TiledMatmulWithSharedTiles) {
    CpuRig rig(test_options(2, ThreadOrder::Shuffled, 3));
    const char* src = R"(
#define TILE 16
// C (M x N) = A (M x K) * B (K x N), row-major.
extern "C" __global__ void matmul(const float* A, const float* B, float* C, int M, int N, int K)
{
    __shared__ float As[TILE][TILE];
    __shared__ float Bs[TILE][TILE];
    int row = blockIdx.y * TILE + threadIdx.y, col = blockIdx.x * TILE + threadIdx.x;
    float acc = 0.0f;
    for (int t = 0; t < (K + TILE - 1) / TILE; ++t) {
        int ak = t * TILE + threadIdx.x, bk = t * TILE + threadIdx.y;
        As[threadIdx.y][threadIdx.x] = (row < M && ak < K) ? A[row * K + ak] : 0.0f;
        Bs[threadIdx.y][threadIdx.x] = (bk < K && col < N) ? B[bk * N + col] : 0.0f;
        __syncthreads();
        for (int k = 0; k < TILE; ++k) acc += As[threadIdx.y][k] * Bs[k][threadIdx.x];
        __syncthreads();
    }
    if (row < M && col < N) C[row * N + col] = acc;
}
)";
    const int M = 70, N = 45, K = 33;
    std::vector<float> A(M * K), B(K * N);
    std::mt19937 rng(21);
    for (float& v : A) v = float(int(rng() % 17) - 8);  // small integers: every sum is exact
    for (float& v : B) v = float(int(rng() % 13) - 6);
    const ModuleId m = rig.compile(src, "matmul");
    const BufferId ba = rig.buffer("A", A), bb = rig.buffer("B", B), bc = rig.buffer("C", std::vector<float>(M * N, 0));
    const LaunchResult r = rig.launch(m, "matmul", {div_up(N, 16), div_up(M, 16)}, {16, 16},
                                      {buffer_arg("A", ba), buffer_arg("B", bb), buffer_arg("C", bc), value_arg("M", M),
                                       value_arg("N", N), value_arg("K", K)});
    ASSERT_TRUE(r.ok) << error_text(r);
    const std::vector<float> C = rig.read<float>(bc);
    for (int i = 0; i < M; ++i)
        for (int j = 0; j < N; ++j) {
            float expect = 0;
            for (int k = 0; k < K; ++k) expect += A[size_t(i * K + k)] * B[size_t(k * N + j)];
            ASSERT_EQ(C[size_t(i * N + j)], expect) << i << "," << j;
        }
}

TEST(CpuBackendSync, BarrierCountAndOrAndVotes) {
    CpuRig rig;
    const char* src = R"(
extern "C" __global__ void votes(const int* flags, int* out)
{
    int f = flags[blockIdx.x * blockDim.x + threadIdx.x];
    int count = __syncthreads_count(f);
    int any = __syncthreads_or(f);
    int all = __syncthreads_and(f);
    unsigned ballot = __ballot_sync(0xffffffff, f);
    int warp_any = __any_sync(0xffffffff, f), warp_all = __all_sync(0xffffffff, f);
    int lane = threadIdx.x & 31, warp = threadIdx.x / 32;
    int* o = out + blockIdx.x * 16;
    if (threadIdx.x == 0) { o[0] = count; o[1] = any; o[2] = all; }
    if (lane == 0) { o[3 + warp * 3] = (int)ballot; o[4 + warp * 3] = warp_any; o[5 + warp * 3] = warp_all; }
}
)";
    // 3 blocks of 64 threads (2 warps): all zero, some set, all set.
    std::vector<int> flags(3 * 64, 0);
    for (int t = 0; t < 64; ++t) flags[size_t(64 + t)] = (t % 5 == 0 && t < 32) ? 1 : 0;
    for (int t = 0; t < 64; ++t) flags[size_t(128 + t)] = 1;
    const ModuleId m = rig.compile(src, "votes");
    const BufferId bf = rig.buffer("flags", flags), bo = rig.buffer("out", std::vector<int>(48, -9));
    ASSERT_TRUE(rig.launch(m, "votes", {3}, {64}, {buffer_arg("flags", bf), buffer_arg("out", bo)}).ok);
    const std::vector<int> o = rig.read<int>(bo);
    for (int b = 0; b < 3; ++b) {
        int count = 0;
        for (int t = 0; t < 64; ++t) count += flags[size_t(b * 64 + t)];
        EXPECT_EQ(o[size_t(b * 16 + 0)], count) << b;
        EXPECT_EQ(o[size_t(b * 16 + 1)], count > 0 ? 1 : 0) << b;
        EXPECT_EQ(o[size_t(b * 16 + 2)], count == 64 ? 1 : 0) << b;
        for (int w = 0; w < 2; ++w) {
            unsigned ballot = 0;
            for (int l = 0; l < 32; ++l)
                if (flags[size_t(b * 64 + w * 32 + l)]) ballot |= 1u << l;
            EXPECT_EQ(unsigned(o[size_t(b * 16 + 3 + w * 3)]), ballot) << b << "/" << w;
            EXPECT_EQ(o[size_t(b * 16 + 4 + w * 3)], ballot ? 1 : 0);
            EXPECT_EQ(o[size_t(b * 16 + 5 + w * 3)], ballot == 0xffffffffu ? 1 : 0);
        }
    }
}

TEST(CpuBackendSync, ShuffleVariantsAndActiveMask) {
    CpuRig rig;
    const char* src = R"(
extern "C" __global__ void shuffles(int* out)
{
    int lane = threadIdx.x & 31;
    int v = lane * 10;
    int* o = out + threadIdx.x * 6;
    o[0] = __shfl_sync(0xffffffff, v, 3);          // everyone reads lane 3
    o[1] = __shfl_up_sync(0xffffffff, v, 2);       // lanes 0,1 keep their own
    o[2] = __shfl_xor_sync(0xffffffff, v, 1);      // pairs swap
    o[3] = __shfl_down_sync(0xffffffff, v, 4, 8);  // segments of 8
    unsigned mask = 0;
    if (lane < 12) mask = __activemask();          // only the lanes in the branch
    o[4] = (int)mask;
    o[5] = __reduce_add_sync(0xffffffff, lane);
}
)";
    const ModuleId m = rig.compile(src, "shuffles");
    const BufferId bo = rig.buffer("out", std::vector<int>(64 * 6, -1));
    const LaunchResult r = rig.launch(m, "shuffles", {1}, {64}, {buffer_arg("out", bo)});
    ASSERT_TRUE(r.ok) << error_text(r);
    const std::vector<int> o = rig.read<int>(bo);
    for (int t = 0; t < 64; ++t) {
        const int lane = t & 31;
        const int* row = &o[size_t(t * 6)];
        EXPECT_EQ(row[0], 30) << t;
        EXPECT_EQ(row[1], lane >= 2 ? (lane - 2) * 10 : lane * 10) << t;
        EXPECT_EQ(row[2], (lane ^ 1) * 10) << t;
        EXPECT_EQ(row[3], (lane % 8) + 4 < 8 ? (lane + 4) * 10 : lane * 10) << t;
        EXPECT_EQ(unsigned(row[4]), lane < 12 ? 0xfffu : 0u) << t;
        EXPECT_EQ(row[5], 31 * 32 / 2) << t;
    }
}

TEST(CpuBackendSync, MissingBarrierShowsUpInReversedOrder) {
    // Without a barrier between writing and reading shared memory, natural order happens to work (each
    // thread reads a lower index already written); reversed order reads stale values. The option exists
    // exactly to expose such races.
    const char* src = R"(
extern "C" __global__ void shift(int* out)
{
    __shared__ int s[128];
    s[threadIdx.x] = threadIdx.x + 1000 * blockIdx.x + 1;
    int left = threadIdx.x > 0 ? s[threadIdx.x - 1] : 0;   // a __syncthreads() is missing before this
    out[blockIdx.x * blockDim.x + threadIdx.x] = left;
}
)";
    auto run = [&](ThreadOrder order) {
        CpuRig rig(test_options(1, order));
        const ModuleId m = rig.compile(src, "shift");
        const BufferId bo = rig.buffer("out", std::vector<int>(256, -1));
        EXPECT_TRUE(rig.launch(m, "shift", {2}, {128}, {buffer_arg("out", bo)}).ok);
        return rig.read<int>(bo);
    };
    std::vector<int> correct(256);
    for (int i = 0; i < 256; ++i) correct[size_t(i)] = i % 128 ? (i % 128) + 1000 * (i / 128) : 0;
    EXPECT_EQ(run(ThreadOrder::Natural), correct);
    EXPECT_NE(run(ThreadOrder::Reversed), correct);
}

TEST(CpuBackendSync, DivergentBarrierIsReportedNotHung) {
    CpuRig rig;
    const char* src = "extern \"C\" __global__ void diverge(int* out)\n"  // line 1
                      "{\n"
                      "    if (threadIdx.x < 16) {\n"
                      "        __syncthreads();\n"                     // line 4
                      "        out[threadIdx.x] = 1;\n"
                      "    } else {\n"
                      "        __syncthreads();\n"                     // line 7
                      "        out[threadIdx.x] = 2;\n"
                      "    }\n"
                      "}\n";
    const ModuleId m = rig.compile(src, "diverge");
    const BufferId bo = rig.buffer("out", std::vector<int>(64, 0));
    const LaunchResult r = rig.launch(m, "diverge", {3}, {64}, {buffer_arg("out", bo)});
    ASSERT_FALSE(r.ok);
    ASSERT_TRUE(r.error.has_value());
    EXPECT_EQ(r.error->name, "BARRIER_DIVERGENCE");
    EXPECT_NE(r.error->message.find("block (0,0,0)"), std::string::npos) << r.error->message;
    EXPECT_EQ(r.error->kind, ErrorKind::Hang);
    EXPECT_EQ(r.error->message, "block (0,0,0): __syncthreads at line 4 reached by 16 threads (0-15), but 48 threads "
                                "(16-63) are waiting at __syncthreads at line 7");

    // The backend still works afterwards.
    const ModuleId m2 = rig.compile(kTreeReduce, "block_sums");
    std::vector<int> in(1000, 2);
    const BufferId bi = rig.buffer("in", in), bs = rig.buffer("sums", std::vector<int>(4, 0));
    ASSERT_TRUE(rig.launch(m2, "block_sums", {4}, {256}, {buffer_arg("in", bi), buffer_arg("sums", bs), value_arg("n", 1000)}).ok);
    EXPECT_EQ(rig.read<int>(bs), expected_block_sums(in, 256));
}

// Threads that return before a barrier never reach it (undefined in CUDA; a GPU lets the others pass with
// what the returned threads did not write): reported with the block, the line and how many threads were where.
const char* kEarlyReturn = R"(extern "C" __global__ void tail(const int* in, int* out, int n)
{
    __shared__ int s[256];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;              // the last block's extra threads leave before the barrier
    s[threadIdx.x] = in[i];
    __syncthreads();                 // line 7
    out[i] = s[(threadIdx.x + 1) % blockDim.x];
}
)";

TEST(CpuBackendSync, EarlyReturnBeforeABarrierIsReported) {
    for (const ThreadOrder order : {ThreadOrder::Natural, ThreadOrder::Reversed, ThreadOrder::Shuffled}) {
        CpuRig rig(test_options(2, order));
        const int n = 1000, block = 256;  // the last block, (3,0,0), has 232 live threads and 24 extra
        const int last = n / block, live = n - last * block;
        const ModuleId m = rig.compile(kEarlyReturn, "tail");
        const BufferId bi = rig.buffer("in", std::vector<int>(n, 1)), bo = rig.buffer("out", std::vector<int>(n, -1));
        const LaunchResult r = rig.launch(m, "tail", {uint32_t(last + 1)}, {uint32_t(block)},
                                          {buffer_arg("in", bi), buffer_arg("out", bo), value_arg("n", n)});
        ASSERT_FALSE(r.ok);
        EXPECT_EQ(r.error->name, "BARRIER_DIVERGENCE");
        EXPECT_EQ(r.error->kind, ErrorKind::Hang);
        EXPECT_EQ(r.error->message, "block (" + std::to_string(last) + ",0,0): " + std::to_string(live) + " threads (0-" +
                                        std::to_string(live - 1) + ") wait at __syncthreads at line 7, but " +
                                        std::to_string(block - live) + " threads (" + std::to_string(live) + "-" +
                                        std::to_string(block - 1) + ") have already returned and will never reach it");
        EXPECT_NE(r.error->hint.find("guard the work instead"), std::string::npos) << r.error->hint;
    }
}

TEST(CpuBackendSync, EarlyReturnOfAllButOneThread) {
    CpuRig rig;
    const char* src = "extern \"C\" __global__ void one(int* out)\n"
                      "{\n"
                      "    if (threadIdx.x != 5) return;\n"
                      "    __syncthreads();\n"  // line 4
                      "    out[0] = 1;\n"
                      "}\n";
    const BufferId bo = rig.buffer("out", std::vector<int>(1, 0));
    const LaunchResult r = rig.launch(rig.compile(src, "one"), "one", {1}, {40}, {buffer_arg("out", bo)});
    ASSERT_FALSE(r.ok);
    EXPECT_EQ(r.error->message, "block (0,0,0): thread 5 waits at __syncthreads at line 4, but 39 threads (0-4, 6-39) "
                                "have already returned and will never reach it");
}

// Different barriers in the two branches, while other threads have returned: all three groups are named.
TEST(CpuBackendSync, DifferentBarriersAndReturnedThreads) {
    CpuRig rig;
    const char* src = "extern \"C\" __global__ void split(int* out)\n"
                      "{\n"
                      "    if (threadIdx.x >= 48) return;\n"
                      "    if (threadIdx.x < 16) __syncthreads();\n"  // line 4
                      "    else __syncthreads();\n"                   // line 5
                      "    out[threadIdx.x] = 1;\n"
                      "}\n";
    const BufferId bo = rig.buffer("out", std::vector<int>(64, 0));
    const LaunchResult r = rig.launch(rig.compile(src, "split"), "split", {1}, {64}, {buffer_arg("out", bo)});
    ASSERT_FALSE(r.ok);
    EXPECT_EQ(r.error->name, "BARRIER_DIVERGENCE");
    EXPECT_EQ(r.error->message, "block (0,0,0): __syncthreads at line 4 reached by 16 threads (0-15), but 32 threads "
                                "(16-47) are waiting at __syncthreads at line 5 (16 threads (48-63) have already "
                                "returned)");
}

// The correct forms are not reported: a bounds check around the work with the barrier outside it, and a
// return after the last barrier (the first warp then finishes with shuffles).
TEST(CpuBackendSync, BarrierAfterABoundsCheckAndReturnAfterTheLastBarrierPass) {
    const char* src = R"(extern "C" __global__ void guarded(const int* in, int* out, int n)
{
    __shared__ int s[256];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) s[threadIdx.x] = in[i];
    __syncthreads();
    if (i < n) out[i] = s[threadIdx.x] + (threadIdx.x > 0 ? s[threadIdx.x - 1] : 0);
    __syncthreads();
    if (threadIdx.x >= 32) return;   // after the last barrier: fine
    int v = threadIdx.x;
    for (int d = 16; d > 0; d /= 2) v += __shfl_down_sync(0xffffffff, v, d);
    if (threadIdx.x == 0 && i < n) out[i] += 1000 * v;
}
)";
    const int n = 1000;  // the last block is partly empty
    std::vector<int> in(n);
    for (int i = 0; i < n; ++i) in[size_t(i)] = 3 * i + 1;
    std::vector<int> expected(n);
    for (int i = 0; i < n; ++i) expected[size_t(i)] = in[size_t(i)] + (i % 256 > 0 ? in[size_t(i - 1)] : 0);
    for (int b = 0; b * 256 < n; ++b) expected[size_t(b * 256)] += 1000 * (31 * 32 / 2);
    for (const ThreadOrder order : {ThreadOrder::Natural, ThreadOrder::Shuffled}) {
        CpuRig ordered(test_options(2, order));
        const ModuleId m = ordered.compile(src, "guarded");
        const BufferId bi = ordered.buffer("in", in), bo = ordered.buffer("out", std::vector<int>(n, -1));
        const LaunchResult r = ordered.launch(m, "guarded", {div_up(n, 256)}, {256},
                                              {buffer_arg("in", bi), buffer_arg("out", bo), value_arg("n", n)});
        ASSERT_TRUE(r.ok) << error_text(r);
        EXPECT_EQ(ordered.read<int>(bo), expected);
    }
}

TEST(CpuBackendSync, WarpOpWaitingForThreadsAtABarrierIsADeadlock) {
    CpuRig rig;
    const char* src = "extern \"C\" __global__ void stuck(int* out)\n"
                      "{\n"
                      "    if (threadIdx.x == 0) out[0] = __shfl_sync(0xffffffff, 5, 1);\n"  // line 3
                      "    else __syncthreads();\n"                                              // line 4
                      "}\n";
    const ModuleId m = rig.compile(src, "stuck");
    const BufferId bo = rig.buffer("out", std::vector<int>(1, 0));
    const LaunchResult r = rig.launch(m, "stuck", {1}, {32}, {buffer_arg("out", bo)});
    ASSERT_FALSE(r.ok);
    EXPECT_EQ(r.error->name, "DEADLOCK");
    EXPECT_NE(r.error->message.find("__shfl_sync (mask 0xffffffff) at line 3 reached by thread 0"), std::string::npos)
        << r.error->message;
    EXPECT_NE(r.error->message.find("31 threads (1-31) are waiting at __syncthreads at line 4"), std::string::npos)
        << r.error->message;
}

}  // namespace
}  // namespace cp::test
