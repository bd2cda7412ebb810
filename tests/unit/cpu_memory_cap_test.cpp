// A memory recording on the CPU backend of a launch that makes several times the cap's accesses (issue 23): only
// the first blocks count (access_recorder.h), and the launch stops running the blocks past them, which would
// cost the whole launch's recording for nothing. Each block marks that it ran; the counts come from the kernel.
#include "core/cpu/access_recorder.h"

#include "cpu_backend_rig.h"

#include <gtest/gtest.h>

#include <numeric>

using namespace cp;
using namespace cp::test;

namespace {

constexpr const char* kMany = R"(
extern "C" __global__ void many(const float* in, float* sum, unsigned* ran, int rounds)
{
    float s = 0;
    for (int r = 0; r < rounds; ++r) s += in[r * blockDim.x + threadIdx.x];
    sum[blockIdx.x * blockDim.x + threadIdx.x] = s;
    if (threadIdx.x == 0) ran[blockIdx.x] = 1;
}
)";

}  // namespace

TEST(CpuMemoryCap, ARecordingPastTheCapRunsOnlyTheBlocksThatCount) {
    CpuRig rig;
    if (!rig.backend) return;
    CompileRequest c;
    c.source = kMany;
    c.kernel_name = "many";
    c.path = "many.cu";
    c.instrument_memory = true;
    const CompileResult compiled = rig.backend->compile(c);
    ASSERT_TRUE(compiled.ok) << compiled.log;
    const uint32_t threads = 256, rounds = 64, blocks = 1000;
    // A block makes threads * rounds loads, threads stores and one more: about 250 blocks fill the cap.
    const uint64_t per_block = uint64_t(threads) * (rounds + 1) + 1;
    ASSERT_GT(per_block * blocks, 3 * kMemoryRecordCap);
    const BufferId in = rig.buffer("in", std::vector<float>(threads * rounds, 1.0f));
    const BufferId sum = rig.buffer("sum", std::vector<float>(size_t(threads) * blocks, 0.0f));
    const BufferId ran = rig.buffer("ran", std::vector<uint32_t>(blocks, 0));
    LaunchRequest r;
    r.module = compiled.module;
    r.kernel_name = "many";
    r.grid = Dim3{blocks, 1, 1};
    r.block = Dim3{threads, 1, 1};
    r.args = {buffer_arg("in", in), buffer_arg("sum", sum), buffer_arg("ran", ran), value_arg("rounds", int(rounds))};
    r.timing.warmup = 0;
    r.timing.repeats = 1;
    r.record_memory = true;
    const LaunchResult launched = rig.backend->launch(r);
    ASSERT_TRUE(launched.ok) << error_text(launched);
    ASSERT_TRUE(launched.memory);
    const MemoryRecording& m = *launched.memory;
    EXPECT_TRUE(m.capped);
    EXPECT_EQ(m.blocks_total, blocks);
    ASSERT_GT(m.blocks_recorded, 0u);
    EXPECT_LE(m.blocks_recorded * per_block, kMemoryRecordCap);
    EXPECT_EQ(m.accesses, m.blocks_recorded * per_block);
    const std::vector<uint32_t> marks = rig.read<uint32_t>(ran);
    ASSERT_EQ(marks.size(), blocks);
    for (uint64_t b = 0; b < m.blocks_recorded; ++b) ASSERT_EQ(marks[b], 1u) << "block " << b << " counts but did not run";
    // Past the recorded blocks, only those already running when the cap was reached (a block per worker thread,
    // give or take a chunk of blocks handed out) ran.
    const uint64_t ran_blocks = std::accumulate(marks.begin(), marks.end(), uint64_t(0));
    EXPECT_LT(ran_blocks, m.blocks_recorded + 2 * 16 + 2) << "blocks past the cap were run";
}
