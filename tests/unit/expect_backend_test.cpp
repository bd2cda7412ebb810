// `expect: hang on cpu`: a lesson whose bug shows one way on one backend and is undefined behaviour on the other
// is judged on that backend only; elsewhere its outcome is said but not judged, and the `learn:` text says why.
#include "core/kernel_file/kernel_file.h"
#include "core/session/session.h"
#include "unit/scripted_backend.h"

#include <gtest/gtest.h>

#include <algorithm>
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
    explicit NamedBackend(std::string name, int cc = 0) : name_(std::move(name)), cc_(cc) {
        kernels["twos"] = [](const LaunchRequest& req, std::map<BufferId, std::vector<std::byte>>& mem) {
            auto& y = mem.at(req.args[0].buffer);
            const float two = 2.0f;
            for (size_t at = 0; at + sizeof two <= y.size(); at += sizeof two) std::memcpy(y.data() + at, &two, sizeof two);
        };
    }
    InfoResult info() override {
        InfoResult r = ScriptedBackend::info();
        r.device.backend = name_;
        r.device.cc_major = cc_ / 10;
        r.device.cc_minor = cc_ % 10;
        r.device.arch = cc_ ? "sm_" + std::to_string(cc_) : "host";
        return r;
    }

private:
    std::string name_;
    int cc_;
};

RunReport run_on(const std::string& backend, const std::string& expect, int cc = 0) {
    Engine engine(std::make_unique<NamedBackend>(backend, cc));
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
    EXPECT_GT(cuda.learn.size(), std::string("the kernel writes twos").size()) << "the learn text says why";

    // Without a backend it is judged everywhere: a lesson whose bug does not show fails there.
    const RunReport judged = run_on("cuda", "fault");
    EXPECT_EQ(judged.as_expected, std::optional<bool>(false));
}

// Clauses between `;` (issue 41): how the bug shows on which backend and GPU architecture, `undefined` where it is
// undefined behaviour.
TEST(ExpectOnBackend, ClausesNameBackendsAndArchitectures) {
    const KernelFile f = parse_kernel_source(lesson("hang on cpu; undefined on cuda from sm_70; hang on cuda before sm_70"), "twos.cu");
    ASSERT_TRUE(f.usable()) << (f.diagnostics.empty() ? "" : f.diagnostics.front().str());
    ASSERT_EQ(f.spec.expect_clauses.size(), 3u);
    EXPECT_EQ(f.spec.expect, ExpectedOutcome::Hang) << "the first failure is the lesson's";
    EXPECT_EQ(f.spec.expect_backend, "cpu");
    EXPECT_EQ(f.spec.expect_clauses[1].outcome, ExpectedOutcome::Undefined);
    EXPECT_EQ(f.spec.expect_clauses[1].backend, "cuda");
    EXPECT_EQ(f.spec.expect_clauses[1].from_cc, 70);
    EXPECT_EQ(f.spec.expect_clauses[2].before_cc, 70);
    EXPECT_TRUE(f.spec.expect_clauses[1].applies("cuda", 90));
    EXPECT_FALSE(f.spec.expect_clauses[1].applies("cuda", 61));
    EXPECT_FALSE(f.spec.expect_clauses[1].applies("cpu", 0));
    EXPECT_TRUE(f.spec.expect_clauses[2].applies("cuda", 61));
    EXPECT_EQ(f.spec.expect_clauses[1].str(), "undefined on cuda from sm_70");

    // Each malformed clause is refused on the `expect:` line.
    const std::string text = lesson("X");
    const int expect_line = 1 + int(std::count(text.begin(), text.begin() + long(text.find("expect:")), '\n'));
    for (const char* bad : {"undefined", "undefined on cuda", "hang from sm_70", "hang on cuda from volta",
                            "hang on cuda sometimes", "hang on cpu;", "sometimes on cpu"}) {
        const KernelFile k = parse_kernel_source(lesson(bad), "twos.cu");
        EXPECT_FALSE(k.usable()) << bad;
        bool on_line = false;
        for (const auto& d : k.diagnostics) on_line = on_line || (d.severity == Severity::Error && d.line == expect_line);
        EXPECT_TRUE(on_line) << bad;
    }
}

TEST(ExpectOnBackend, TheFirstClauseThatAppliesJudgesAndUndefinedIsNotAFailure) {
    const std::string expect = "mismatch on cpu; undefined on cuda from sm_70; fault on cuda before sm_70";
    const RunReport cpu = run_on("cpu", expect);
    EXPECT_EQ(cpu.expect, "mismatch");
    EXPECT_EQ(cpu.as_expected, std::optional<bool>(true));

    const RunReport hopper = run_on("cuda", expect, 90);
    EXPECT_EQ(hopper.expect, "undefined");
    EXPECT_EQ(hopper.outcome, "mismatch") << "the outcome is still said";
    EXPECT_EQ(hopper.as_expected, std::optional<bool>(true)) << "undefined behaviour is not held against the lesson";
    EXPECT_GT(hopper.learn.size(), std::string("the kernel writes twos").size()) << "the learn text says why";

    const RunReport pascal = run_on("cuda", expect, 61);
    EXPECT_EQ(pascal.expect, "fault");
    EXPECT_EQ(pascal.as_expected, std::optional<bool>(false)) << "the bug did not show as the clause says";

    // No clause for this backend: said, not judged.
    const RunReport elsewhere = run_on("cuda", "mismatch on cpu; fault on cuda before sm_70", 90);
    EXPECT_FALSE(elsewhere.as_expected.has_value());
    EXPECT_EQ(elsewhere.expect, "mismatch");
}
