// The kernel library on a real GPU through KernelSession (skips without a CUDA device), and recovery from
// a planted out-of-bounds write in the same process.
#include "core/cuda/cuda_backend_factory.h"
#include "core/kernel_file/kernel_file.h"
#include "core/session/session.h"

#include <gtest/gtest.h>
#include "test_paths.h"

using namespace cp;

namespace {

std::unique_ptr<Engine> cuda_engine(std::string& why) {
    auto backend = make_cuda_backend();
    if (!backend) {
        why = backend.error().message;
        return nullptr;
    }
    return std::make_unique<Engine>(std::move(*backend));
}

}  // namespace

TEST(GpuLibrary, EveryKernelVerifiesOnTheGpu) {
    std::string why;
    auto engine = cuda_engine(why);
    if (!engine) GTEST_SKIP() << "no CUDA device, GPU test skipped: " << why;
    const auto library = scan_library(kernels_dir());
    ASSERT_GE(library.size(), 4u);
    for (const auto& k : library) {
        KernelSession session(*engine);
        session.set_kernel(k);
        RunOptions options;
        options.timing.repeats = 3;
        RunReport r = session.run(options);
        // Whether a clause of `expect:` speaks of the CUDA backend (this machine's GPU is sm_75 or later: no clause
        // of the library names an older one).
        bool named_here = k.spec.expect_clauses.empty() && (k.spec.expect_backend.empty() || k.spec.expect_backend == "cuda");
        for (const ExpectClause& c : k.spec.expect_clauses) named_here = named_here || c.backend.empty() || c.backend == "cuda";
        if (k.spec.expect != ExpectedOutcome::None && !named_here) {
            // Undefined behaviour on a GPU (the lesson judges it on another backend): ran, not judged.
            EXPECT_FALSE(r.as_expected.has_value()) << k.path;
            std::cout << "[gpu] " << k.spec.title << ": judged on the " << k.spec.expect_backend << " backend only; here "
                      << r.outcome << "\n";
        } else if (k.spec.expect != ExpectedOutcome::None) {  // buggy on purpose: the bug must show as the lesson says
            EXPECT_EQ(r.as_expected, std::optional<bool>(true)) << k.path << ": expect " << r.expect << ", outcome " << r.outcome;
            std::cout << "[gpu] " << k.spec.title << ": buggy on purpose, expect " << r.expect << ", " << r.outcome
                      << (r.expect == "undefined" ? " (undefined here, as the lesson says)" : " as expected") << "\n";
            continue;
        }
        ASSERT_TRUE(r.ok()) << k.path << ": " << r.error->full();
        EXPECT_EQ(r.backend, "cuda");
        ASSERT_TRUE(r.verified.has_value()) << k.path;
        EXPECT_TRUE(*r.verified) << k.path << ": " << r.mismatch_detail;
        EXPECT_GT(r.timing.median_ms, 0.0);
        std::cout << "[gpu] " << k.spec.title << ": grid " << r.resolved->grid.str() << " block " << r.resolved->block.str() << ", median "
                  << r.timing.median_ms << " ms, " << r.bandwidth_gbps << " GB/s, " << r.usage.registers << " registers\n";
    }
}

TEST(GpuLibrary, PlantedOutOfBoundsWriteIsReportedAndTheNextRunSucceeds) {
    std::string why;
    auto engine = cuda_engine(why);
    if (!engine) GTEST_SKIP() << "no CUDA device, GPU test skipped: " << why;
    KernelSession session(*engine);
    auto planted = load_kernel_file(std::string(CP_TEST_DATA_DIR) + "/planted_oob.cu");
    ASSERT_TRUE(planted.ok());
    session.set_kernel(*planted);
    ASSERT_TRUE(session.set_param("offset", "1500000000").ok());  // 6 GB past the end: no allocation there
    RunReport bad = session.run();
    ASSERT_FALSE(bad.ok());
    EXPECT_EQ(bad.failed_stage, RunStage::Launch);
    std::cout << "[gpu] planted out-of-bounds write reported as: " << bad.error->full() << "\n";
    EXPECT_NE(bad.error->message.find("planted_oob"), std::string::npos) << bad.error->message;

    auto blur = load_kernel_file(kernels_dir() / "image/box_blur.cu");
    ASSERT_TRUE(blur.ok());
    session.set_kernel(*blur);
    RunReport good = session.run();
    ASSERT_TRUE(good.ok()) << good.error->full();
    EXPECT_TRUE(good.verified.value_or(false)) << good.mismatch_detail;
}
