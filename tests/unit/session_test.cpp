// KernelSession against a scripted in-memory backend: resolution of parameters and launch, buffer reuse,
// scalar argument packing, verification, and recovery after a sticky error — independent of CUDA and CPU.
#include "core/kernel_file/kernel_file.h"
#include "core/session/session.h"
#include "unit/scripted_backend.h"

#include <gtest/gtest.h>

#include <cstring>
#include <functional>
#include <map>
#include <utility>
#include <vector>
#include "test_paths.h"

using namespace cp;
using cp::test::ScriptedBackend;
using cp::test::scalar;
using cp::test::vector_add;

namespace {

KernelFile library_kernel(const std::string& name) {
    auto f = load_kernel_file(std::string(CP_SOURCE_DIR) + "/kernels/" + name + ".cu");
    EXPECT_TRUE(f.ok());
    return *f;
}

void set_block(KernelSession& s, Dim3 block) {
    RunChoices c = s.choices();
    c.block = block;
    s.set_choices(c);
}
void set_grid(KernelSession& s, Dim3 grid) {
    RunChoices c = s.choices();
    c.grid = grid;
    s.set_choices(c);
}

struct Fixture {
    ScriptedBackend* backend;
    std::unique_ptr<Engine> engine;
    std::unique_ptr<KernelSession> session;
    Fixture() {
        auto b = std::make_unique<ScriptedBackend>();
        backend = b.get();
        backend->kernels["vector_add"] = vector_add;
        engine = std::make_unique<Engine>(std::move(b));
        session = std::make_unique<KernelSession>(*engine);
    }
};

}  // namespace

TEST(Session, ResolvesDefaultsAndLaunchExpressions) {
    Fixture f;
    f.session->set_kernel(library_kernel("basics/vector_add"));
    ASSERT_TRUE(f.session->set_param("n", "1000").ok());
    auto r = f.session->resolve();
    ASSERT_TRUE(r.ok()) << r.error().full();
    EXPECT_EQ(r->params.at("n"), 1000);
    EXPECT_EQ(r->buffer_counts.at("c"), 1000u);
    EXPECT_EQ(r->block, (Dim3{256, 1, 1}));
    EXPECT_EQ(r->grid, (Dim3{4, 1, 1}));  // ceil(1000 / 256)
    EXPECT_EQ(r->problem, std::vector<uint64_t>{1000});
    EXPECT_EQ(r->traffic_bytes, 3u * 1000 * 4);
}

TEST(Session, ImageBuffersDeriveTheirSizeParameters) {
    Fixture f;
    f.session->set_kernel(library_kernel("image/box_blur"));
    auto r = f.session->resolve();
    ASSERT_TRUE(r.ok()) << r.error().full();
    EXPECT_EQ(r->params.at("width"), 600);  // coffee.png
    EXPECT_EQ(r->params.at("height"), 400);
    EXPECT_EQ(r->grid, (Dim3{38, 25, 1}));  // ceil(600/16) x ceil(400/16)
    set_block(*f.session, Dim3{32, 8, 1});
    r = f.session->resolve();
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(r->grid, (Dim3{19, 50, 1}));
}

TEST(Session, RunPacksArgumentsVerifiesAndReusesBuffers) {
    Fixture f;
    f.session->set_kernel(library_kernel("basics/vector_add"));
    ASSERT_TRUE(f.session->set_param("n", "777").ok());
    RunReport first = f.session->run();
    ASSERT_TRUE(first.ok()) << first.error->full();
    ASSERT_TRUE(first.verified.has_value());
    EXPECT_TRUE(*first.verified) << first.mismatch_detail;
    EXPECT_EQ(f.backend->last_launch.args.size(), 4u);
    EXPECT_EQ(scalar<int>(f.backend->last_launch.args[3]), 777);
    EXPECT_EQ(first.timing.median_ms, 2.0);
    EXPECT_NEAR(first.bandwidth_gbps, 3.0 * 777 * 4 / 2e-3 / 1e9, 1e-9);
    EXPECT_EQ(f.backend->allocations, 3);

    RunReport second = f.session->run();
    EXPECT_TRUE(second.verified.value_or(false));
    EXPECT_EQ(f.backend->allocations, 3) << "same sizes must reuse the device buffers";
    EXPECT_EQ(f.backend->compiles, 1) << "same source must not recompile";

    ASSERT_TRUE(f.session->set_param("n", "778").ok());
    RunReport third = f.session->run();
    EXPECT_TRUE(third.verified.value_or(false));
    EXPECT_EQ(f.backend->allocations, 6) << "new sizes need new buffers";
}

// The frame budget: the backend's own time for the launch and how its launch call divides reach the report's stage
// times as the backend said them (cp_ui_bench and the Timing panel print them from there).
TEST(Session, TheReportCarriesTheLaunchsPhases) {
    Fixture f;
    f.session->set_kernel(library_kernel("basics/vector_add"));
    ASSERT_TRUE(f.session->set_param("n", "777").ok());
    f.backend->launch_phases = {0.0625, 0.03125, 0.25, 0.015625, 0.1875};
    f.backend->launch_backend_ms = 0.375;
    RunReport r = f.session->run();
    ASSERT_TRUE(r.ok()) << r.error->full();
    const LaunchPhases& p = r.stages.launch_phases;
    EXPECT_DOUBLE_EQ(r.stages.launch_backend_ms, 0.375);
    EXPECT_DOUBLE_EQ(p.setup_ms, 0.0625);
    EXPECT_DOUBLE_EQ(p.launch_calls_ms, 0.03125);
    EXPECT_DOUBLE_EQ(p.wait_ms, 0.25);
    EXPECT_DOUBLE_EQ(p.after_ms, 0.015625);
    EXPECT_DOUBLE_EQ(p.kernel_ms, 0.1875);
    EXPECT_DOUBLE_EQ(p.total_ms(), 0.0625 + 0.03125 + 0.25 + 0.015625);

    // A backend that does not measure them: the next run's report says 0, not the last run's figures.
    f.backend->launch_phases = {};
    f.backend->launch_backend_ms = 0;
    ASSERT_TRUE(f.session->set_param("n", "778").ok());
    r = f.session->run();
    ASSERT_TRUE(r.ok()) << r.error->full();
    EXPECT_FALSE(r.stages.launch_phases.measured());
    EXPECT_EQ(r.stages.launch_backend_ms, 0.0);
}

TEST(Session, ShortGridFailsTheCheckAndWarns) {
    Fixture f;
    f.session->set_kernel(library_kernel("basics/vector_add"));
    ASSERT_TRUE(f.session->set_param("n", "1000").ok());
    set_grid(*f.session, Dim3{2, 1, 1});
    RunReport r = f.session->run();
    ASSERT_TRUE(r.ok()) << r.error->full();
    ASSERT_TRUE(r.verified.has_value());
    EXPECT_FALSE(*r.verified);
    EXPECT_EQ(r.mismatches, 1000u - 512u);
    bool warned = false;
    // The coverage warning, naming the 2 x 256 = 512 elements the grid covers.
    for (const auto& issue : r.launch_issues)
        warned |= issue.severity == Severity::Warning && issue.limit == kCoverageLimit &&
                  issue.message.find(std::to_string(2 * 256)) != std::string::npos;
    EXPECT_TRUE(warned);
}

TEST(Session, StickyErrorIsReportedAndTheNextRunWorks) {
    Fixture f;
    f.session->set_kernel(library_kernel("basics/vector_add"));
    ASSERT_TRUE(f.session->set_param("n", "300").ok());
    ASSERT_TRUE(f.session->run().ok());
    f.backend->fail_next_launch_sticky = true;
    RunReport failed = f.session->run();
    EXPECT_FALSE(failed.ok());
    EXPECT_EQ(failed.failed_stage, RunStage::Launch);
    ASSERT_TRUE(failed.error.has_value());
    EXPECT_EQ(failed.error->kind, ErrorKind::Fault) << failed.error->full();
    // The engine's error name is kept.
    EXPECT_NE(failed.error->message.find("CUDA_ERROR_ILLEGAL_ADDRESS"), std::string::npos) << failed.error->message;
    RunReport after = f.session->run();
    ASSERT_TRUE(after.ok()) << after.error->full();
    EXPECT_TRUE(after.verified.value_or(false));
    EXPECT_EQ(f.backend->compiles, 2) << "the module died with the context and must be rebuilt";
}

TEST(Session, ABlockBeyondTheDeviceIsRefusedBeforeCompiling) {
    Fixture f;
    f.session->set_kernel(library_kernel("basics/vector_add"));
    set_block(*f.session, Dim3{2000, 1, 1});
    RunReport r = f.session->run();
    EXPECT_EQ(r.failed_stage, RunStage::Validate);
    ASSERT_TRUE(r.resolved.has_value()) << "the values are known, only the launch is refused";
    ASSERT_TRUE(r.error.has_value());
    EXPECT_EQ(r.error->kind, ErrorKind::LaunchRefused) << r.error->full();
    EXPECT_NE(r.error->message.find("2000"), std::string::npos) << r.error->message;
    ASSERT_EQ(r.input_problems.size(), 1u);
    EXPECT_EQ(r.input_problems[0].field, "block");
    EXPECT_EQ(r.input_problems[0].error.kind, ErrorKind::UserInput) << r.input_problems[0].error.full();
    EXPECT_EQ(f.backend->compiles, 0);
    EXPECT_EQ(f.backend->allocations, 0);
}

TEST(Session, ABlockOverOneDimensionsLimitIsRefusedBeforeCompiling) {
    Fixture f;
    f.session->set_kernel(library_kernel("basics/vector_add"));
    set_block(*f.session, Dim3{1, 1, 65});  // 65 threads in all, but z allows 64
    RunReport r = f.session->run();
    EXPECT_EQ(r.failed_stage, RunStage::Validate);
    ASSERT_TRUE(r.error.has_value());
    EXPECT_EQ(r.error->kind, ErrorKind::LaunchRefused) << r.error->full();
    ASSERT_EQ(r.input_problems.size(), 1u);
    EXPECT_EQ(r.input_problems[0].field, "block");
    // The block and z's limit of 64.
    EXPECT_NE(r.error->message.find("1x1x65"), std::string::npos) << r.error->message;
    EXPECT_NE(r.error->message.find("64"), std::string::npos) << r.error->message;
    EXPECT_EQ(f.backend->compiles, 0);
}

TEST(Session, ARefusedValueIsNeverReplacedByTheDefault) {
    Fixture f;
    f.session->set_kernel(library_kernel("basics/vector_add"));
    RunChoices c;
    c.params["n"] = -5;  // as a window slider without a range could send it
    f.session->set_choices(c);
    RunReport r = f.session->run();
    EXPECT_EQ(r.failed_stage, RunStage::Resolve);
    ASSERT_EQ(r.input_problems.size(), 1u);
    EXPECT_EQ(r.input_problems[0].field, "n");
    EXPECT_EQ(r.input_problems[0].error.kind, ErrorKind::UserInput) << r.input_problems[0].error.full();
    EXPECT_NE(r.input_problems[0].error.message.find("-5"), std::string::npos) << r.input_problems[0].error.message;
    EXPECT_FALSE(r.resolved.has_value()) << "nothing ran with another value";
    EXPECT_FALSE(r.launched);
}

TEST(Session, AnIntParameterMustFitAnInt) {
    Fixture f;
    f.session->set_kernel(library_kernel("basics/vector_add"));
    auto r = f.session->set_param("n", "3000000000");
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().kind, ErrorKind::UserInput) << r.error().full();
    // The value and the largest int.
    EXPECT_NE(r.error().message.find("3000000000"), std::string::npos) << r.error().message;
    EXPECT_NE(r.error().message.find("2147483647"), std::string::npos) << r.error().message;
}

TEST(Session, ParameterErrorsAreValues) {
    Fixture f;
    f.session->set_kernel(library_kernel("basics/vector_add"));
    for (const auto& [name, value] : std::vector<std::pair<std::string, std::string>>{
             {"nope", "1"}, {"n", "abc"}, {"n", "-5"}, {"c", "1"}}) {
        const auto r = f.session->set_param(name, value);
        ASSERT_FALSE(r.ok()) << name << "=" << value;
        EXPECT_EQ(r.error().kind, ErrorKind::UserInput) << name << "=" << value << ": " << r.error().full();
    }
    EXPECT_TRUE(f.session->set_param("n", "5").ok());
}

TEST(Session, FileWithoutMetadataCannotBeResolved) {
    Fixture f;
    f.session->set_kernel(parse_kernel_source("__global__ void k(float* a) { a[0] = 1; }\n", "plain.cu"));
    auto r = f.session->resolve();
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().kind, ErrorKind::Metadata) << r.error().full();
    EXPECT_NE(r.error().message.find("plain.cu"), std::string::npos) << r.error().message;
}

TEST(Session, UnchangedConstInputsAreNotSentAgain) {
    Fixture f;
    f.session->set_kernel(library_kernel("basics/vector_add"));
    ASSERT_TRUE(f.session->set_param("n", "1001").ok());
    ASSERT_TRUE(f.session->run().ok());
    EXPECT_EQ(f.backend->uploads, 3);
    EXPECT_EQ(f.backend->pattern_uploads, 1) << "the zero-initialised output is reset with a pattern, not sent whole";
    ASSERT_TRUE(f.session->run().ok());
    EXPECT_EQ(f.backend->uploads, 4) << "only the output is reset; the const inputs a and b are still on the device";
    ASSERT_TRUE(f.session->set_param("n", "1002").ok());
    ASSERT_TRUE(f.session->run().ok());
    EXPECT_EQ(f.backend->uploads, 7) << "a new size means new contents everywhere";
}

TEST(Session, OutputsStartEachRunFromTheirInitialContents) {
    // A first run fills c completely; a second run with a short grid must not show the first run's values
    // in the elements it no longer writes.
    Fixture f;
    f.session->set_kernel(library_kernel("basics/vector_add"));
    ASSERT_TRUE(f.session->set_param("n", "1000").ok());
    RunReport full = f.session->run();
    ASSERT_TRUE(full.verified.value_or(false));
    set_grid(*f.session, Dim3{1, 1, 1});
    RunReport partial = f.session->run();
    ASSERT_TRUE(partial.verified.has_value());
    EXPECT_FALSE(*partial.verified);
    EXPECT_EQ(partial.mismatches, 1000u - 256u);
    const float* c = partial.outputs.at("c").as<float>();
    EXPECT_EQ(c[999], 0.0f);
}

TEST(Session, KernelWritingItsNonConstInputGetsFreshInputsEachRun) {
    // `a` is declared `in` but not const: the kernel may change it, so it is uploaded again every run.
    Fixture f;
    f.backend->kernels["bump"] = [](const LaunchRequest& req, std::map<BufferId, std::vector<std::byte>>& mem) {
        auto* a = reinterpret_cast<float*>(mem.at(req.args[0].buffer).data());
        auto* c = reinterpret_cast<float*>(mem.at(req.args[1].buffer).data());
        const int n = scalar<int>(req.args[2]);
        for (int i = 0; i < n; ++i) {
            a[i] += 1.0f;
            c[i] = a[i];
        }
    };
    f.session->set_kernel(parse_kernel_source("/*@playground\n"
                                              "title: Bump\n"
                                              "param n: int = 5 range 1..100\n"
                                              "buffer a: float[n] in ramp(start=0, step=1)\n"
                                              "buffer c: float[n] out zeros\n"
                                              "block: 32\n"
                                              "grid: ceil(n / block.x)\n"
                                              "*/\n"
                                              "extern \"C\" __global__ void bump(float* a, float* c, int n) { }\n",
                                              "bump.cu"));
    ASSERT_TRUE(f.session->run().ok());
    RunReport second = f.session->run();
    ASSERT_TRUE(second.ok()) << second.error->full();
    EXPECT_EQ(second.outputs.at("c").as<float>()[4], 5.0f) << "the second run must start from a = 0..4 again";
}

TEST(Session, SuggestBlockAsksTheEngineWithTheCompiledModuleAndDynamicShared) {
    Fixture f;
    f.backend->kernels["shared_memory_sum"] = [](const LaunchRequest&, std::map<BufferId, std::vector<std::byte>>&) {};
    f.session->set_kernel(library_kernel("reduction/shared_memory_sum"));
    set_block(*f.session, Dim3{128, 1, 1});  // shared: block.x * 4
    auto r = f.session->suggest_block();
    ASSERT_TRUE(r.ok()) << r.error().full();
    EXPECT_EQ(r->block_size, 640);
    EXPECT_EQ(r->method, "scripted");
    ASSERT_TRUE(f.backend->last_occupancy.has_value());
    EXPECT_EQ(f.backend->last_occupancy->module, 1u);
    EXPECT_EQ(f.backend->last_occupancy->kernel_name, "shared_memory_sum");
    EXPECT_EQ(f.backend->last_occupancy->dynamic_shared_bytes, 128u * 4);
    EXPECT_EQ(f.backend->compiles, 1) << "suggest_block compiles when nothing was compiled yet";
    ASSERT_TRUE(f.session->suggest_block().ok());
    EXPECT_EQ(f.backend->compiles, 1) << "and reuses the module after that";
}

TEST(Session, SuggestBlockSaysWhenTheBackendHasNoOccupancyApi) {
    Fixture f;
    f.backend->has_occupancy_api = false;
    f.session->set_kernel(library_kernel("basics/vector_add"));
    auto r = f.session->suggest_block();
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().kind, ErrorKind::Unsupported) << r.error().full();
    EXPECT_NE(r.error().message.find("`vector_add`"), std::string::npos) << r.error().message;
}

TEST(Session, SuggestBlockFailsPlainlyWhenTheKernelDoesNotCompile) {
    Fixture f;
    f.session->set_kernel(library_kernel("basics/vector_add"));
    f.backend->kernels.clear();  // the scripted compiler now rejects it
    auto r = f.session->suggest_block();
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().kind, ErrorKind::Compile) << r.error().full();
    EXPECT_FALSE(f.backend->last_occupancy.has_value());
}
