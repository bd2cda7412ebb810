// Entry point of the GPU tests: when every test skipped (no CUDA device), exit 77 so CTest lists the suite as
// skipped rather than passed, and say so in plain words.
#include <gtest/gtest.h>

#include <cstdio>

int main(int argc, char** argv) {
    testing::InitGoogleTest(&argc, argv);
    const int result = RUN_ALL_TESTS();
    const testing::UnitTest& unit = *testing::UnitTest::GetInstance();
    if (result == 0 && unit.test_to_run_count() > 0 && unit.skipped_test_count() == unit.test_to_run_count()) {
        std::printf("GPU tests skipped: no CUDA device on this machine. Run cp_gpu_tests on a GPU machine "
                    "(see CONTRIBUTING.md).\n");
        return 77;
    }
    return result;
}
