// Comparisons on a real GPU (skips without a CUDA device): every library lesson with `compare:` runs its variants
// on the same inputs, each verifies against its own reference, and the speed-ups are printed as figures (the
// issue's "tiled is faster" is what the lessons teach; the figures are reported, not asserted).
#include "core/cuda/cuda_backend_factory.h"
#include "core/kernel_file/kernel_file.h"
#include "core/session/session.h"
#include "core/session/variants.h"

#include <gtest/gtest.h>

#include <iostream>

using namespace cp;

TEST(GpuCompare, EveryLibraryComparisonVerifiesOnTheGpuWithItsSpeedUps) {
    auto backend = make_cuda_backend();
    if (!backend) GTEST_SKIP() << "no CUDA device, GPU test skipped: " << backend.error().message;
    Engine engine(std::move(*backend));
    size_t lessons = 0;
    for (const KernelFile& main : scan_library(kernels_dir())) {
        if (main.spec.compare.empty()) continue;
        ++lessons;
        KernelSession session(engine);
        session.set_kernel(main);
        RunOptions options;
        options.timing.repeats = 20;
        const RunReport r = session.run(options);
        ASSERT_TRUE(r.ok()) << main.path << ": " << r.error->full();
        EXPECT_EQ(r.verified, std::optional<bool>(true)) << main.path << ": " << r.mismatch_detail;
        std::cout << "[gpu] " << main.path.filename().string() << " " << r.kernel << ": median " << r.timing.median_ms
                  << " ms\n";
        for (auto& [name, loaded] : header_variants(main)) {
            ASSERT_TRUE(loaded.ok()) << main.path << " " << name << ": " << loaded.error().full();
            KernelSession variant(engine);
            variant.set_kernel(*loaded);
            variant.set_choices(variant_choices(main, session.choices(), &*r.resolved, *loaded));
            const RunReport v = variant.run(options);
            ASSERT_TRUE(v.ok()) << name << ": " << v.error->full();
            EXPECT_EQ(v.verified, std::optional<bool>(true)) << name << ": " << v.mismatch_detail;
            for (const auto& [param, value] : v.resolved->params) {
                if (r.resolved->params.count(param)) {
                    EXPECT_EQ(value, r.resolved->params.at(param)) << name << " " << param;
                }
            }
            std::cout << "[gpu]   " << name << ": median " << v.timing.median_ms << " ms; " << speedup_text(r, v)
                      << "\n";
        }
    }
    EXPECT_GE(lessons, 4u);
}
