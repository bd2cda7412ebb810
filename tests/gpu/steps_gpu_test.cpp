// Steps on a real GPU (skips without a CUDA device): the step test files run in order through the CUDA worker,
// their final buffers checked by the in-file references and, for the five increments, element by element here.
#include "core/cuda/cuda_backend_factory.h"
#include "core/kernel_file/kernel_file.h"
#include "core/session/session.h"

#include <gtest/gtest.h>

#include <iostream>
#include "test_paths.h"

using namespace cp;

TEST(GpuSteps, StepFilesVerifyAndReportEachStep) {
    auto backend = make_cuda_backend();
    if (!backend) GTEST_SKIP() << "no CUDA device, GPU test skipped: " << backend.error().message;
    Engine engine(std::move(*backend));
    const std::string dir = std::string(CP_TEST_DATA_DIR) + "/steps/";
    const std::pair<const char*, size_t> files[] = {{"reduce_steps.cu", 2}, {"scan_steps.cu", 3}, {"increment_steps.cu", 1}};
    for (const auto& [name, steps] : files) {
        auto file = load_kernel_file(dir + name);
        ASSERT_TRUE(file.ok()) << name;
        KernelSession session(engine);
        session.set_kernel(*file);
        RunOptions options;
        options.timing.repeats = 5;
        const RunReport r = session.run(options);
        ASSERT_TRUE(r.ok()) << name << ": " << r.error->full();
        EXPECT_EQ(r.backend, "cuda");
        EXPECT_EQ(r.verified, std::optional<bool>(true)) << name << ": " << r.mismatch_detail;
        ASSERT_EQ(r.steps.size(), steps) << name;
        std::cout << "[gpu] " << name << ": pass median " << r.timing.median_ms << " ms;";
        for (const StepReport& s : r.steps) {
            EXPECT_GT(s.total_ms, 0.0) << name << " step " << s.index;
            std::cout << " step " << s.index << " " << s.kernel << " " << s.total_ms << " ms (x" << s.repeat << ")";
        }
        std::cout << "\n";
        if (std::string(name) == "increment_steps.cu") {
            const HostBuffer& x = r.outputs.at("x");
            for (uint64_t i = 0; i < x.count(); ++i) ASSERT_EQ(x.as<int>()[i], -2 + 3 * int(i) + 5) << "element " << i;
        }
    }
}
