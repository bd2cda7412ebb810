// `expect: hang on cpu`: a lesson whose bug shows one way on one backend and is undefined behaviour on the other
// is judged on that backend only; elsewhere its outcome is said but not judged, and the `learn:` text says why.
#include "core/kernel_file/kernel_file.h"
#include "core/session/session.h"
#include "unit/scripted_backend.h"

#include <gtest/gtest.h>

#include <cstring>

using namespace cp;
using cp::test::ScriptedBackend;

namespace {

std::string lesson(const std::string& expect) {
    return R"(/*@playground
title: Writes the wrong value on purpose
param n: int = 1001
buffer y: float[n] out zeros
block: 128
grid: ceil(n / block.x)
reference: want_ones
expect: )" + expect + R"(
learn: the kernel writes twos
*/
extern "C" __global__ void twos(float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = 2.0f;
}
#ifdef PLAYGROUND_REFERENCE
static void want_ones(float* y, int n) { for (int i = 0; i < n; ++i) y[i] = 1.0f; }
#endif
)";
}

// A scripted backend that says it is `name` ("cpu" or "cuda").
class NamedBackend : public ScriptedBackend {
public:
    explicit NamedBackend(std::string name) : name_(std::move(name)) {
        kernels["twos"] = [](const LaunchRequest& req, std::map<BufferId, std::vector<std::byte>>& mem) {
            auto& y = mem.at(req.args[0].buffer);
            const float two = 2.0f;
            for (size_t at = 0; at + sizeof two <= y.size(); at += sizeof two) std::memcpy(y.data() + at, &two, sizeof two);
        };
    }
    InfoResult info() override {
        InfoResult r = ScriptedBackend::info();
        r.device.backend = name_;
        return r;
    }

private:
    std::string name_;
};

RunReport run_on(const std::string& backend, const std::string& expect) {
    Engine engine(std::make_unique<NamedBackend>(backend));
    KernelSession session(engine);
    KernelFile file = parse_kernel_source(lesson(expect), "twos.cu");
    EXPECT_TRUE(file.usable()) << (file.diagnostics.empty() ? "" : file.diagnostics.front().str());
    session.set_kernel(std::move(file));
    return session.run({});
}

}  // namespace

TEST(ExpectOnBackend, TheHeaderNamesTheBackendAndRefusesAnUnknownOne) {
    KernelFile on_cpu = parse_kernel_source(lesson("mismatch on cpu"), "twos.cu");
    EXPECT_EQ(on_cpu.spec.expect, ExpectedOutcome::Mismatch);
    EXPECT_EQ(on_cpu.spec.expect_backend, "cpu");
    KernelFile anywhere = parse_kernel_source(lesson("mismatch"), "twos.cu");
    EXPECT_EQ(anywhere.spec.expect_backend, "");
    KernelFile bad = parse_kernel_source(lesson("mismatch on tpu"), "twos.cu");
    ASSERT_FALSE(bad.usable());
    bool named = false;
    for (const auto& d : bad.diagnostics) named = named || d.message.find("`cpu` or `cuda`, not `tpu`") != std::string::npos;
    EXPECT_TRUE(named);
}

TEST(ExpectOnBackend, JudgedOnItsBackendOnlyAndSaidElsewhere) {
    const RunReport cpu = run_on("cpu", "mismatch on cpu");
    EXPECT_EQ(cpu.outcome, "mismatch");
    EXPECT_EQ(cpu.as_expected, std::optional<bool>(true));
    EXPECT_EQ(cpu.learn, "the kernel writes twos");

    const RunReport cuda = run_on("cuda", "mismatch on cpu");
    EXPECT_EQ(cuda.outcome, "mismatch") << "the outcome is still said";
    EXPECT_FALSE(cuda.as_expected.has_value()) << "but not judged";
    EXPECT_NE(cuda.learn.find("shows this bug on the CPU backend"), std::string::npos) << cuda.learn;

    // Without a backend it is judged everywhere: a lesson whose bug does not show fails there.
    const RunReport judged = run_on("cuda", "fault");
    EXPECT_EQ(judged.as_expected, std::optional<bool>(false));
}
