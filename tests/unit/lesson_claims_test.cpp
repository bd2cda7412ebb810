// What a lesson's text claims, checked: the shared-memory-sum lesson says that without the barrier inside
// its loop the total goes wrong in natural and shuffled thread order on the CPU backend (and that reversed
// order hides it). The lesson's own source is run with that barrier removed, in each order.
#include "unit/cpu_backend_rig.h"

#include <gtest/gtest.h>

#include <numeric>

using namespace cp;
using namespace cp::test;

namespace {

int sum_without_loop_barrier(ThreadOrder order) {
    std::string src = read_file(source_dir() / "kernels/reduction/shared_memory_sum.cu");
    const std::string about = src.substr(0, src.find("*/"));
    // The second __syncthreads() of the source is the one inside the loop.
    const size_t first = src.find("__syncthreads();", about.size());
    const size_t second = src.find("__syncthreads();", first + 1);
    EXPECT_NE(second, std::string::npos);
    src.replace(second, std::string("__syncthreads();").size(), "/* barrier removed */");
    CpuRig rig(test_options(1, order, 7));
    const ModuleId m = rig.compile(src, "shared_memory_sum", "shared_memory_sum.cu");
    const int n = 1000;  // 4 blocks of 256, the last one partly past the end
    std::vector<int> input(n);
    for (int i = 0; i < n; ++i) input[size_t(i)] = (i * 37) % 101;
    const BufferId in = rig.buffer("input", input);
    const BufferId total = rig.buffer("total", std::vector<int>(1, 0));
    const LaunchResult r = rig.launch(m, "shared_memory_sum", {4}, {256},
                                      {buffer_arg("input", in), buffer_arg("total", total), value_arg("n", n)}, 256 * 4);
    EXPECT_TRUE(r.ok) << error_text(r);
    return rig.read<int>(total).at(0);
}

int expected_sum() {
    int s = 0;
    for (int i = 0; i < 1000; ++i) s += (i * 37) % 101;
    return s;
}

}  // namespace

TEST(LessonClaims, SharedMemorySumWithoutItsLoopBarrierFailsInNaturalAndShuffledOrder) {
    const std::string text = read_file(source_dir() / "kernels/reduction/shared_memory_sum.cu");
    ASSERT_NE(text.find("natural or shuffled"), std::string::npos) << "the lesson's text changed: check its claim";
    EXPECT_NE(sum_without_loop_barrier(ThreadOrder::Natural), expected_sum());
    EXPECT_NE(sum_without_loop_barrier(ThreadOrder::Shuffled), expected_sum());
    // What the text says about reversed order: it hides this bug.
    EXPECT_EQ(sum_without_loop_barrier(ThreadOrder::Reversed), expected_sum());
}
