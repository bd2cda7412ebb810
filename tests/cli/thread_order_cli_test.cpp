// `run --thread-order` (issue 10 item 8): the shared-memory-sum lesson without the barrier inside its loop
// fails in natural and shuffled order and passes in reversed order, as its text says; the environment's
// CUDA_PLAYGROUND_CPU_ORDER stays the default and the flag wins over it; bad values are refused plainly.
#include "core/kernel_file/kernel_file.h"
#include "cli_support.h"

#include <gtest/gtest.h>

#include <filesystem>

using cp::test::cli;
using cp::test::ProcessResult;
using cp::test::TempDir;

namespace {

// The lesson with the __syncthreads() inside its loop removed (the one after the loads stays).
std::filesystem::path missing_barrier_lesson(const TempDir& dir) {
    std::string text = cp::test::read_file(cp::kernels_dir() / "reduction" / "shared_memory_sum.cu");
    const size_t loop = text.find("for (int stride");
    const size_t barrier = text.find("__syncthreads();", loop);
    EXPECT_NE(loop, std::string::npos);
    EXPECT_NE(barrier, std::string::npos);
    text.erase(barrier, std::string("__syncthreads();").size());
    return dir.write("sum_without_barrier.cu", text);
}

}  // namespace

TEST(ThreadOrderCli, TheMissingBarrierShowsInTheOrdersTheLessonNames) {
    TempDir dir;
    const auto file = missing_barrier_lesson(dir).string();
    // 1000 elements: four blocks of 256, the last one partial.
    const std::vector<std::string> base = {"run", file, "--backend", "cpu", "--set", "n=1000", "--repeat", "1"};
    auto with = [&](std::vector<std::string> extra) {
        std::vector<std::string> a = base;
        a.insert(a.end(), extra.begin(), extra.end());
        return a;
    };
    auto natural = cli(with({"--thread-order", "natural"}));
    EXPECT_EQ(natural.exit_code, 2) << natural.both();
    EXPECT_NE(natural.out.find("threads:  natural order in each block"), std::string::npos) << natural.out;
    auto reversed = cli(with({"--thread-order", "reversed"}));
    EXPECT_EQ(reversed.exit_code, 0) << reversed.both();
    EXPECT_NE(reversed.out.find("threads:  reversed order in each block"), std::string::npos) << reversed.out;
    auto shuffled = cli(with({"--thread-order", "shuffled:7"}));
    EXPECT_EQ(shuffled.exit_code, 2) << shuffled.both();
    EXPECT_NE(shuffled.out.find("shuffled:7 order"), std::string::npos) << shuffled.out;

    // The environment's order is the default; the flag wins over it.
    auto from_env = cli(base, {"CUDA_PLAYGROUND_CPU_ORDER=reversed"});
    EXPECT_EQ(from_env.exit_code, 0) << from_env.both();
    auto flag_wins = cli(with({"--thread-order", "natural"}), {"CUDA_PLAYGROUND_CPU_ORDER=reversed"});
    EXPECT_EQ(flag_wins.exit_code, 2) << flag_wins.both();

    // The lesson as shipped passes in every order.
    for (const char* order : {"natural", "reversed", "shuffled:7"}) {
        auto good = cli({"run", "reduction/shared_memory_sum", "--backend", "cpu", "--set", "n=1000", "--repeat", "1",
                         "--thread-order", order});
        EXPECT_EQ(good.exit_code, 0) << order << ": " << good.both();
    }
}

TEST(ThreadOrderCli, BadValuesAreRefusedBeforeAnythingRuns) {
    auto r = cli({"run", "reduction/shared_memory_sum", "--backend", "cpu", "--thread-order", "sideways"});
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.err.find("`--thread-order sideways`: the orders are natural, reversed and shuffled[:SEED]"),
              std::string::npos)
        << r.err;
    r = cli({"run", "reduction/shared_memory_sum", "--backend", "cpu", "--thread-order", "natural:3"});
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.err.find("only shuffled takes a seed"), std::string::npos) << r.err;
    r = cli({"run", "reduction/shared_memory_sum", "--backend", "cpu", "--thread-order", "shuffled:x"});
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.err.find("the seed after ':' must be a whole number"), std::string::npos) << r.err;
    EXPECT_EQ(r.out.find("compile:"), std::string::npos) << "nothing compiled: " << r.out;
}
