// The pasted sample-style files (tests/data/pasted) on a real GPU (skips without a CUDA device): whole files with
// host code, helper headers, `constant` lines filling __constant__ memory, uint4, cooperative-groups tiles.
#include "core/cuda/cuda_backend_factory.h"
#include "core/kernel_file/kernel_file.h"
#include "core/session/session.h"

#include <gtest/gtest.h>

#include <algorithm>
#include "test_paths.h"

using namespace cp;

namespace {

std::string pasted(const std::string& name) {
    return std::string(CP_TEST_DATA_DIR) + "/pasted/" + name;
}

RunReport run_on_gpu(Engine& engine, const KernelFile& file,
                     const std::vector<std::pair<std::string, std::string>>& sets = {}) {
    KernelSession session(engine);
    session.set_kernel(file);
    for (const auto& [name, value] : sets) EXPECT_TRUE(session.set_param(name, value).ok()) << name;
    RunOptions options;
    options.timing.repeats = 3;
    return session.run(options);
}

}  // namespace

TEST(GpuPasted, SampleStyleFilesVerifyOnTheGpu) {
    auto backend = make_cuda_backend();
    if (!backend) GTEST_SKIP() << "no CUDA device, GPU test skipped: " << backend.error().message;
    Engine engine(std::move(*backend));
    for (const char* name :
         {"scale_bias_whole_sample.cu", "lerp_float4_helper_header.cu", "histogram_kernels_only.cu",
          "convolution_separable_constant.cu", "texture_beside_plain.cu", "uint4_xor_words.cu", "cg_tile_sums.cu"}) {
        auto file = load_kernel_file(pasted(name));
        ASSERT_TRUE(file.ok()) << name;
        const RunReport r = run_on_gpu(engine, *file);
        ASSERT_TRUE(r.ok()) << name << ": " << r.error->full();
        EXPECT_EQ(r.backend, "cuda");
        ASSERT_TRUE(r.verified.has_value()) << name;
        EXPECT_TRUE(*r.verified) << name << ": " << r.mismatch_detail;
        std::cout << "[gpu] " << name << ": verified, median " << r.timing.median_ms << " ms\n";
    }
}

TEST(GpuPasted, ConstantWeightsFollowTheParamOnTheGpu) {
    auto backend = make_cuda_backend();
    if (!backend) GTEST_SKIP() << "no CUDA device, GPU test skipped: " << backend.error().message;
    Engine engine(std::move(*backend));
    auto file = load_kernel_file(pasted("convolution_separable_constant.cu"));
    ASSERT_TRUE(file.ok());
    const RunReport r = run_on_gpu(engine, *file, {{"sigma", "1.25"}});
    ASSERT_TRUE(r.ok()) << r.error->full();
    ASSERT_TRUE(r.verified.has_value());
    EXPECT_TRUE(*r.verified) << r.mismatch_detail;
}
