// The one launch function (core/session/launcher.h): every kind of launch a session makes reaches an observer with
// its purpose, kernel, grid and block (computed here from the lesson's sizes, none a multiple of the block), on the
// real CPU backend; and through every path, on a scripted backend, a failed launch keeps its kind: a refusal stays
// LaunchRefused, and a backend that says "failed" without a reason is ErrorKind::Internal, never Unknown.
#include "core/session/launcher.h"
#include "core/engine/backend.h"
#include "core/kernel_file/kernel_file.h"
#include "core/session/compare_runner.h"
#include "core/session/session.h"
#include "support/scoped_env.h"
#include "unit/cpu_session.h"
#include "unit/diagnostics_text.h"
#include "unit/scripted_backend.h"

#include <gtest/gtest.h>

#include <cstring>
#include <set>
#include <string>
#include <vector>

namespace cp {
namespace {

using test::dump;

// What an observer kept of one launch.
struct Seen {
    LaunchPurpose purpose = LaunchPurpose::Run;
    int index = 0, repeat = 0, device = -1, stream = -1;
    std::string variant, kernel;
    Dim3 grid, block;
    uint32_t shared = 0;
    bool traced = false, recorded = false;  // the request asked for a trace / a memory recording
    std::optional<ErrorKind> failed;
};

// Every launch `launcher` makes from now on, in the order the observer saw them.
struct Recorder {
    std::vector<Seen> seen;
    explicit Recorder(Launcher& launcher) {
        launcher.observe([this](const LaunchRecord& r) {
            Seen s;
            s.purpose = r.site.purpose;
            s.index = r.site.index;
            s.repeat = r.site.repeat;
            s.device = r.device;
            s.stream = r.stream;
            s.variant = r.variant;
            s.kernel = r.kernel;
            s.grid = r.grid;
            s.block = r.block;
            s.shared = r.dynamic_shared_bytes;
            s.traced = r.request && r.request->trace;
            s.recorded = r.request && r.request->record_memory;
            if (r.failure) s.failed = r.failure->kind;
            seen.push_back(s);
        });
    }
    std::vector<LaunchPurpose> purposes() const {
        std::vector<LaunchPurpose> out;
        for (const Seen& s : seen) out.push_back(s.purpose);
        return out;
    }
};

std::string names(const std::vector<LaunchPurpose>& purposes) {
    std::string text;
    for (LaunchPurpose p : purposes) text += std::string(text.empty() ? "" : " ") + launch_purpose_name(p);
    return text;
}

uint32_t blocks_for(uint64_t elements, uint32_t block) {
    return uint32_t((elements + block - 1) / block);
}

std::vector<float> floats(const RunReport& r, const std::string& name) {
    const HostBuffer& b = r.outputs.at(name);
    std::vector<float> v(b.bytes.size() / sizeof(float));
    std::memcpy(v.data(), b.bytes.data(), b.bytes.size());
    return v;
}

// y = 2x + 1 over a ramp x[i] = i (exact in float), and a variant y = 3x + 1 in the same file. n = 1031 is no
// multiple of the block (128): the last block is partly idle.
constexpr uint64_t kN = 1031;
constexpr uint32_t kBlock = 128;
std::string lesson(const std::string& extra, bool steps = false) {
    return std::string(
               "/*@playground\n"
               "title: Launches\n") +
           (steps ? "" : "kernel: twice\n") +
           "param n: int = 1031\n"
           "buffer x: float[n] in ramp(start=0, step=1)\n"
           "buffer y: float[n] out zeros\n"
           "block: 128\n"
           "grid: ceil(n / block.x)\n"
           "problem: n\n" +
           extra +
           "*/\n"
           "extern \"C\" __global__ void twice(const float* x, float* y, int n) {\n"
           "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
           "    if (i < n) y[i] = 2.0f * x[i] + 1.0f;\n"
           "}\n"
           "extern \"C\" __global__ void thrice(const float* x, float* y, int n) {\n"
           "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
           "    if (i < n) y[i] = 3.0f * x[i] + 1.0f;\n"
           "}\n";
}

void expect_y(const RunReport& r, float times) {
    const std::vector<float> y = floats(r, "y");
    ASSERT_EQ(y.size(), kN);
    for (uint64_t i = 0; i < kN; ++i) ASSERT_EQ(y[i], times * float(i) + 1.0f) << "element " << i;
}

void expect_launch(const Seen& s, LaunchPurpose purpose, const std::string& kernel, Dim3 grid, Dim3 block) {
    EXPECT_EQ(launch_purpose_name(s.purpose), std::string(launch_purpose_name(purpose)));
    EXPECT_EQ(s.kernel, kernel) << launch_purpose_name(purpose);
    EXPECT_EQ(s.grid.str(), grid.str()) << launch_purpose_name(purpose);
    EXPECT_EQ(s.block.str(), block.str()) << launch_purpose_name(purpose);
    EXPECT_EQ(s.shared, 0u) << launch_purpose_name(purpose);
    EXPECT_FALSE(s.failed.has_value()) << launch_purpose_name(purpose);
}

const Dim3 kWholeGrid{blocks_for(kN, kBlock), 1, 1};
const Dim3 kBlockDim{kBlock, 1, 1};

// ---- Every kind of launch reaches the observer (the real CPU backend) ----

TEST(Launcher, ARunWithCoverageTraceAndRecordingReportsEachMeasuringLaunchBeforeItsOwn) {
    test::CpuRun cpu = test::open_on_cpu(lesson(""), "launches.cu");
    Recorder seen(cpu.session->launcher());
    RunOptions options;
    options.timing = {0, 1, false};
    options.coverage = true;
    options.count_writers = true;
    options.trace = true;
    options.memory = true;
    const RunReport r = cpu.session->run(options);
    ASSERT_TRUE(r.ok()) << r.error->full();
    expect_y(r, 2);
    ASSERT_EQ(r.coverage.size(), 1u);
    EXPECT_EQ(r.coverage[0].never_written, 0u);
    EXPECT_EQ(r.coverage[0].written_more_than_once, 0u);
    EXPECT_TRUE(r.coverage[0].writers_counted) << r.coverage[0].writers_not_measured;
    ASSERT_TRUE(r.trace.has_value());
    EXPECT_EQ(r.trace->blocks.size(), kWholeGrid.x);

    using P = LaunchPurpose;
    ASSERT_EQ(names(seen.purposes()), names({P::Coverage, P::Coverage, P::CountWriters, P::Trace, P::Memory, P::Run}));
    for (const Seen& s : seen.seen) {
        expect_launch(s, s.purpose, "twice", kWholeGrid, kBlockDim);
        EXPECT_EQ(s.device, 0);
        EXPECT_EQ(s.variant, "");
    }
    EXPECT_EQ(seen.seen[0].index, 0);  // the two coverage passes
    EXPECT_EQ(seen.seen[1].index, 1);
    EXPECT_TRUE(seen.seen[3].traced);
    EXPECT_TRUE(seen.seen[4].recorded);
    EXPECT_FALSE(seen.seen[5].traced || seen.seen[5].recorded);  // the run's own launch measures nothing
}

TEST(Launcher, AStepsLessonReportsEveryLaunchOfEveryStepWithItsOwnBlock) {
    // Step 2 takes a block of 96 (the file's grid evaluated with it) and runs three times over step 1's output.
    test::CpuRun cpu = test::open_on_cpu(lesson("step: twice\nstep: thrice block=96 repeat=3\n", true), "steps.cu");
    Recorder seen(cpu.session->launcher());
    RunOptions options;
    options.timing = {0, 1, false};
    const RunReport r = cpu.session->run(options);
    ASSERT_TRUE(r.ok()) << r.error->full();
    expect_y(r, 3);  // thrice overwrites twice's result

    ASSERT_EQ(seen.seen.size(), 4u);
    expect_launch(seen.seen[0], LaunchPurpose::Step, "twice", kWholeGrid, kBlockDim);
    EXPECT_EQ(seen.seen[0].index, 1);
    EXPECT_EQ(seen.seen[0].repeat, 0);
    for (int k = 0; k < 3; ++k) {
        const Seen& s = seen.seen[size_t(1 + k)];
        expect_launch(s, LaunchPurpose::Step, "thrice", Dim3{blocks_for(kN, 96), 1, 1}, Dim3{96, 1, 1});
        EXPECT_EQ(s.index, 2);
        EXPECT_EQ(s.repeat, k);
    }
}

TEST(Launcher, ASweepReportsOnePointPerShapeWithTheGridForThatBlock) {
    test::CpuRun cpu = test::open_on_cpu(lesson(""), "launches.cu");
    Recorder seen(cpu.session->launcher());
    SweepOptions options;
    options.blocks = {Dim3{96, 1, 1}, Dim3{160, 1, 1}, Dim3{224, 1, 1}};
    options.warmup = 0;
    options.repeats = 1;
    auto swept = cpu.session->sweep(options);
    ASSERT_TRUE(swept.ok()) << swept.error().full();
    ASSERT_EQ(swept->configs.size(), 3u);
    ASSERT_EQ(seen.seen.size(), 3u);
    for (size_t i = 0; i < 3; ++i) {
        const uint32_t b = options.blocks[i].x;
        EXPECT_TRUE(swept->configs[i].timed()) << swept->configs[i].skipped;
        expect_launch(seen.seen[i], LaunchPurpose::SweepPoint, "twice", Dim3{blocks_for(kN, b), 1, 1},
                      options.blocks[i]);
        EXPECT_EQ(seen.seen[i].index, int(i));
    }
}

TEST(Launcher, AStreamedRunReportsTheRunAndThenEachChunkOnItsStream) {
    test::CpuRun cpu = test::open_on_cpu(lesson("streams: 3 over n chunks=5\n"), "streams.cu");
    Recorder seen(cpu.session->launcher());
    RunOptions options;
    options.timing = {0, 1, false};
    const RunReport r = cpu.session->run(options);
    ASSERT_TRUE(r.ok()) << r.error->full();
    expect_y(r, 2);  // the chunks' outputs, reassembled

    ASSERT_EQ(seen.seen.size(), 6u);
    expect_launch(seen.seen[0], LaunchPurpose::Run, "twice", kWholeGrid, kBlockDim);
    for (int k = 0; k < 5; ++k) {
        // Chunk k holds elements [k n / 5, (k + 1) n / 5) (chunk_plan.h).
        const uint64_t begin = uint64_t(k) * kN / 5, end = uint64_t(k + 1) * kN / 5;
        const Seen& s = seen.seen[size_t(1 + k)];
        expect_launch(s, LaunchPurpose::Stream, "twice", Dim3{blocks_for(end - begin, kBlock), 1, 1}, kBlockDim);
        EXPECT_EQ(s.index, k);
        EXPECT_EQ(s.stream, k % 3);
    }
}

TEST(Launcher, ADevicesSplitReportsTheOneDeviceRunAndEachPartOnItsDevice) {
    test::ScopedEnv two{"CUDA_PLAYGROUND_CPU_DEVICES", "2"};
    test::CpuRun cpu = test::open_on_cpu(lesson("devices: all over n\n"), "split.cu");
    ASSERT_EQ(cpu.engine->device().device_count, 2);
    cpu.session->use_devices(2, [](int ordinal) -> Result<std::unique_ptr<Engine>> {
        auto other = make_backend("cpu", ordinal);
        if (!other) return other.error();
        return std::make_unique<Engine>(std::move(other->backend));
    });
    Recorder seen(cpu.session->launcher());
    RunOptions options;
    options.timing = {0, 1, false};
    const RunReport r = cpu.session->run(options);
    ASSERT_TRUE(r.ok()) << r.error->full();
    expect_y(r, 2);
    ASSERT_TRUE(r.device_split.has_value());
    ASSERT_EQ(r.device_split->parts.size(), 2u);

    ASSERT_EQ(seen.seen.size(), 3u);
    expect_launch(seen.seen[0], LaunchPurpose::DeviceWhole, "twice", kWholeGrid, kBlockDim);
    EXPECT_EQ(seen.seen[0].device, 0);
    // The parts launch at once, each from a thread of its own: in either order.
    std::set<int> parts;
    for (size_t i = 1; i < 3; ++i) {
        const Seen& s = seen.seen[i];
        ASSERT_TRUE(s.index == 0 || s.index == 1) << s.index;
        parts.insert(s.index);
        const uint64_t begin = uint64_t(s.index) * kN / 2, end = uint64_t(s.index + 1) * kN / 2;
        expect_launch(s, LaunchPurpose::DevicePart, "twice", Dim3{blocks_for(end - begin, kBlock), 1, 1}, kBlockDim);
        EXPECT_EQ(s.device, s.index);  // part p on device p
        EXPECT_EQ(r.device_split->parts[size_t(s.index)].begin, begin);
        EXPECT_EQ(r.device_split->parts[size_t(s.index)].end, end);
    }
    EXPECT_EQ(parts.size(), 2u);
}

TEST(Launcher, ACompareVariantsLaunchesReachTheMainSessionsObserverNamed) {
    test::CpuRun cpu = test::open_on_cpu(lesson("compare: thrice\n"), "compare.cu");
    KernelSession& main = *cpu.session;
    Recorder seen(main.launcher());
    CompareRunner compare(*cpu.engine);
    main.set_also_kernels(compare.prepare(main.kernel(), main.kernel().spec.compare));
    RunOptions options;
    options.timing = {0, 1, false};
    const RunReport m = main.run(options);
    ASSERT_TRUE(m.ok()) << m.error->full();
    expect_y(m, 2);
    std::vector<VariantRun> variants = compare.run(main, m, options);
    ASSERT_EQ(variants.size(), 1u);
    ASSERT_TRUE(variants[0].report && variants[0].report->ok()) << variants[0].problem.full();
    expect_y(*variants[0].report, 3);

    ASSERT_EQ(seen.seen.size(), 2u);
    expect_launch(seen.seen[0], LaunchPurpose::Run, "twice", kWholeGrid, kBlockDim);
    EXPECT_EQ(seen.seen[0].variant, "");
    expect_launch(seen.seen[1], LaunchPurpose::Variant, "thrice", kWholeGrid, kBlockDim);
    EXPECT_EQ(seen.seen[1].variant, "thrice");
}

TEST(Launcher, AnObserverNoLongerObservingSeesNothing) {
    test::CpuRun cpu = test::open_on_cpu(lesson(""), "launches.cu");
    int calls = 0;
    const Launcher::ObserverId id = cpu.session->launcher().observe([&calls](const LaunchRecord&) { ++calls; });
    EXPECT_TRUE(cpu.session->launcher().observed());
    RunOptions options;
    options.timing = {0, 1, false};
    ASSERT_TRUE(cpu.session->run(options).ok());
    EXPECT_EQ(calls, 1);
    cpu.session->launcher().stop_observing(id);
    EXPECT_FALSE(cpu.session->launcher().observed());
    ASSERT_TRUE(cpu.session->run(options).ok());
    EXPECT_EQ(calls, 1);
}

// ---- A failure's kind through every path (a scripted backend) ----

// y = k x + 1 for the threads the grid covers (so a part's grid matters), on the scripted backend's bytes.
test::ScriptedBackend::KernelFn times(float k) {
    return [k](const LaunchRequest& req, std::map<BufferId, std::vector<std::byte>>& mem) {
        auto* x = reinterpret_cast<const float*>(mem.at(req.args[0].buffer).data() + req.args[0].offset);
        auto* y = reinterpret_cast<float*>(mem.at(req.args[1].buffer).data() + req.args[1].offset);
        const int n = test::scalar<int>(req.args[2]);
        const uint64_t threads = req.grid.count() * req.block.count();
        for (uint64_t i = 0; i < threads && i < uint64_t(n); ++i) y[i] = k * x[i] + 1.0f;
    };
}

// Answers the launches numbered in `failing` (1-based; empty: every one; none without fail_launches) and every
// streamed run with ok = false and `error` (nullopt: no error at all, a backend that gives no reason).
class FailingBackend : public test::ScriptedBackend {
public:
    std::optional<EngineError> error;
    std::set<int> failing;
    bool fail_launches = true;
    FailingBackend() {
        kernels["twice"] = times(2);
        kernels["thrice"] = times(3);
    }
    LaunchResult launch(const LaunchRequest& request) override {
        ++numbered_;
        if (!fail_launches || (!failing.empty() && !failing.count(numbered_)))
            return test::ScriptedBackend::launch(request);
        ++launches;
        LaunchResult out;
        out.error = error;
        return out;
    }
    StreamsResult streams(const StreamsRequest&) override {
        StreamsResult out;
        out.error = error;
        return out;
    }

private:
    int numbered_ = 0;
};

struct Scripted {
    FailingBackend* backend = nullptr;  // owned by the engine
    std::unique_ptr<Engine> engine;
    std::unique_ptr<KernelSession> session;
    std::unique_ptr<Recorder> seen;
};

Scripted scripted(const std::string& source, std::optional<EngineError> error) {
    Scripted s;
    auto backend = std::make_unique<FailingBackend>();
    backend->error = std::move(error);
    s.backend = backend.get();
    s.engine = std::make_unique<Engine>(std::move(backend));
    s.session = std::make_unique<KernelSession>(*s.engine);
    KernelFile file = parse_kernel_source(source, "scripted.cu");
    EXPECT_FALSE(has_errors(file.diagnostics)) << dump(file.diagnostics);
    s.session->set_kernel(std::move(file));
    s.seen = std::make_unique<Recorder>(s.session->launcher());
    return s;
}

// What every path below is checked with: the kind the run ends with and the observer saw.
struct PathCase {
    std::optional<EngineError> error;
    ErrorKind expected;
};

// The ways a failed launch ends a run, each checked to end it with `c.expected` (and the observer to see it).
void expect_kind_through_every_path(const PathCase& c) {
    const auto failed_launch = [&](const Scripted& s, LaunchPurpose purpose) {
        ASSERT_FALSE(s.seen->seen.empty());
        const Seen& last = s.seen->seen.back();
        EXPECT_EQ(launch_purpose_name(last.purpose), std::string(launch_purpose_name(purpose)));
        ASSERT_TRUE(last.failed.has_value()) << launch_purpose_name(purpose);
        EXPECT_EQ(error_kind_name(*last.failed), std::string(error_kind_name(c.expected)))
            << launch_purpose_name(purpose);
    };
    const auto failed_run = [&](const RunReport& r, const char* path) {
        ASSERT_TRUE(r.error.has_value()) << path;
        EXPECT_EQ(r.failed_stage, RunStage::Launch) << path;
        EXPECT_EQ(error_kind_name(r.error->kind), std::string(error_kind_name(c.expected)))
            << path << ": " << r.error->full();
        EXPECT_FALSE(r.error->message.empty()) << path;
    };
    RunOptions once;
    once.timing = {0, 1, false};
    once.verify = false;
    {
        Scripted s = scripted(lesson(""), c.error);
        failed_run(s.session->run(once), "run");
        failed_launch(s, LaunchPurpose::Run);
    }
    {
        Scripted s = scripted(lesson("step: twice\nstep: thrice repeat=2\n", true), c.error);
        s.backend->failing = {2};  // step 2's first launch
        const RunReport r = s.session->run(once);
        failed_run(r, "steps");
        failed_launch(s, LaunchPurpose::Step);
        EXPECT_EQ(s.seen->seen.back().index, 2);
    }
    const std::pair<const char*, LaunchPurpose> measurements[] = {
        {"coverage", LaunchPurpose::Coverage}, {"trace", LaunchPurpose::Trace}, {"memory", LaunchPurpose::Memory}};
    for (const auto& [name, purpose] : measurements) {
        Scripted s = scripted(lesson(""), c.error);
        RunOptions measured = once;
        measured.coverage = purpose == LaunchPurpose::Coverage;
        measured.trace = purpose == LaunchPurpose::Trace;
        measured.memory = purpose == LaunchPurpose::Memory;
        failed_run(s.session->run(measured), name);
        failed_launch(s, purpose);
    }
    {
        // The counting launch never ends the run: its map says why, and the observer sees the kind.
        Scripted s = scripted(lesson(""), c.error);
        s.backend->failing = {3};  // after the two coverage passes
        RunOptions counted = once;
        counted.coverage = true;
        const RunReport r = s.session->run(counted);
        ASSERT_TRUE(r.ok()) << r.error->full();
        ASSERT_EQ(r.coverage.size(), 1u);
        EXPECT_FALSE(r.coverage[0].writers_counted);
        EXPECT_FALSE(r.coverage[0].writers_not_measured.empty());
        ASSERT_EQ(s.seen->seen.size(), 4u);
        EXPECT_EQ(s.seen->seen[2].purpose, LaunchPurpose::CountWriters);
        ASSERT_TRUE(s.seen->seen[2].failed.has_value());
        EXPECT_EQ(error_kind_name(*s.seen->seen[2].failed), std::string(error_kind_name(c.expected)));
    }
    {
        Scripted s = scripted(lesson("streams: 2 over n chunks=3\n"), c.error);
        s.backend->fail_launches = false;  // the ordinary launch runs; the streamed run fails
        failed_run(s.session->run(once), "streams");
        failed_launch(s, LaunchPurpose::Stream);
        EXPECT_EQ(s.seen->seen.size(), 4u);  // the run, then its three chunks
    }
    {
        // The first device runs its whole and its part; the second device's part fails.
        Scripted s = scripted(lesson("devices: all over n\n"), c.error);
        s.backend->fail_launches = false;
        const std::optional<EngineError> error = c.error;
        s.session->use_devices(2, [error](int) -> Result<std::unique_ptr<Engine>> {
            auto other = std::make_unique<FailingBackend>();
            other->error = error;
            return std::make_unique<Engine>(std::move(other));
        });
        failed_run(s.session->run(once), "devices");
        bool part_failed = false;
        for (const Seen& seen : s.seen->seen)
            if (seen.purpose == LaunchPurpose::DevicePart && seen.index == 1) {
                ASSERT_TRUE(seen.failed.has_value());
                EXPECT_EQ(error_kind_name(*seen.failed), std::string(error_kind_name(c.expected)));
                part_failed = true;
            }
        EXPECT_TRUE(part_failed);
    }
    {
        // A sweep skips the shape whose launch failed and says why; the observer sees the kind.
        Scripted s = scripted(lesson(""), c.error);
        s.backend->failing = {1};
        SweepOptions options;
        options.blocks = {Dim3{96, 1, 1}, Dim3{160, 1, 1}};
        options.warmup = 0;
        options.repeats = 1;
        auto swept = s.session->sweep(options);
        ASSERT_TRUE(swept.ok()) << swept.error().full();
        ASSERT_EQ(swept->configs.size(), 2u);
        EXPECT_FALSE(swept->configs[0].timed());
        EXPECT_TRUE(swept->configs[1].timed()) << swept->configs[1].skipped;
        ASSERT_EQ(s.seen->seen.size(), 2u);
        ASSERT_TRUE(s.seen->seen[0].failed.has_value());
        EXPECT_EQ(error_kind_name(*s.seen->seen[0].failed), std::string(error_kind_name(c.expected)));
        EXPECT_FALSE(s.seen->seen[1].failed.has_value());
    }
    {
        // A compare variant's own launch fails after the main kernel's ran.
        Scripted s = scripted(lesson("compare: thrice\n"), c.error);
        s.backend->failing = {2};
        CompareRunner compare(*s.engine);
        s.session->set_also_kernels(compare.prepare(s.session->kernel(), s.session->kernel().spec.compare));
        const RunReport m = s.session->run(once);
        ASSERT_TRUE(m.ok()) << m.error->full();
        std::vector<VariantRun> variants = compare.run(*s.session, m, once);
        ASSERT_EQ(variants.size(), 1u);
        ASSERT_TRUE(variants[0].report.has_value()) << variants[0].problem.full();
        failed_run(*variants[0].report, "variant");
        failed_launch(s, LaunchPurpose::Variant);
    }
}

TEST(Launcher, ARefusedLaunchStaysLaunchRefusedThroughEveryPath) {
    expect_kind_through_every_path({engine_error(ErrorKind::LaunchRefused, "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES",
                                                 "too many resources requested", "use a smaller block"),
                                    ErrorKind::LaunchRefused});
}

TEST(Launcher, ABackendThatGivesNoReasonIsAnInternalErrorThroughEveryPath) {
    expect_kind_through_every_path({std::nullopt, ErrorKind::Internal});
}

TEST(Launcher, ABackendThatGivesNoReasonIsInternalAndSaysSo) {
    Engine engine(std::make_unique<FailingBackend>());
    const LaunchOutcome launched = Launcher().launch(engine, LaunchRequest{}, {LaunchPurpose::Run});
    ASSERT_TRUE(launched.failure.has_value());
    EXPECT_EQ(launched.failure->kind, ErrorKind::Internal);
    EXPECT_FALSE(launched.failure->message.empty());
    EXPECT_FALSE(launched.failure->hint.empty());
    const StreamsOutcome streamed = Launcher().streams(engine, StreamsRequest{}, {LaunchPurpose::Stream});
    ASSERT_TRUE(streamed.failure.has_value());
    EXPECT_EQ(streamed.failure->kind, ErrorKind::Internal);
}

TEST(Launcher, ARefusalThatResetTheContextStopsTheSweepWithItsKind) {
    EngineError refused =
        engine_error(ErrorKind::LaunchRefused, "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES", "too many resources requested");
    refused.context_was_reset = true;
    Scripted s = scripted(lesson(""), refused);
    SweepOptions options;
    options.blocks = {Dim3{96, 1, 1}, Dim3{160, 1, 1}};
    options.warmup = 0;
    options.repeats = 1;
    auto swept = s.session->sweep(options);
    ASSERT_FALSE(swept.ok());
    EXPECT_EQ(swept.error().kind, ErrorKind::LaunchRefused);
    EXPECT_EQ(s.seen->seen.size(), 1u);  // stopped at the first shape
}

}  // namespace
}  // namespace cp
