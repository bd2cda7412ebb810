// The debugger's values against the GPU (issue 39; skips without a CUDA device): the same files and inputs run on
// the CUDA backend, and each block stepped through on the CPU backend. Every thread's last value of a divergent
// branch equals what the GPU wrote for it; each block's partial[0] at its end equals the GPU's block sum; a
// transpose tile after its barrier holds exactly the elements the GPU's transpose wrote out. As RenderDoc checks its
// shader debugger's shared memory against the GPU.
#include "core/backends/registry.h"
#include "core/cuda/cuda_backend_factory.h"
#include "core/kernel_file/kernel_file.h"
#include "core/session/program_replay.h"
#include "core/session/session.h"
#include "support/debug_data.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "test_paths.h"

using namespace cp;

namespace {

// The file's output `name` as the GPU computed it (one run with the file's defaults).
template <class T>
std::vector<T> gpu_output(Engine& gpu, const KernelFile& file, const std::string& name) {
    KernelSession session(gpu);
    session.set_kernel(file);
    RunOptions options;
    options.timing.repeats = 1;
    const RunReport report = session.run(options);
    EXPECT_TRUE(report.ok()) << (report.error ? report.error->full() : "");
    auto out = session.read_output(name);
    EXPECT_TRUE(out.ok()) << (out.ok() ? "" : out.error().full());
    if (!out.ok()) return {};
    return std::vector<T>(out->as<T>(), out->as<T>() + out->count());
}

struct Stepped {
    std::unique_ptr<Engine> engine;
    std::unique_ptr<KernelSession> session;
    ResolvedRun resolved;
};

Stepped stepping(const KernelFile& file) {
    Stepped s;
    auto cpu = find_backend("cpu")->make();
    if (!cpu) {
        ADD_FAILURE() << "the CPU backend is needed: " << cpu.error().message;
        return s;
    }
    s.engine = std::make_unique<Engine>(std::move(*cpu));
    s.session = std::make_unique<KernelSession>(*s.engine);
    s.session->set_kernel(file);
    auto r = s.session->resolve();
    if (!r) ADD_FAILURE() << r.error().full();
    else s.resolved = *r;
    return s;
}

}  // namespace

TEST(DebugOnTheGpu, TheDebuggersValuesAreTheGpusOutputs) {
    auto backend = make_cuda_backend();
    if (!backend) GTEST_SKIP() << "no CUDA device, GPU test skipped: " << backend.error().message;
    Engine gpu(std::move(*backend));
    size_t compared = 0;

    {  // Each thread's last `value` in branches.cu (3 blocks of 48, n = 100).
        auto file = load_kernel_file(test::debug_data("branches.cu"));
        ASSERT_TRUE(file.ok()) << file.error().full();
        const std::vector<int> out = gpu_output<int>(gpu, *file, "out");
        ASSERT_EQ(out.size(), 100u);
        Stepped cpu = stepping(*file);
        ASSERT_TRUE(cpu.session);
        for (uint64_t b = 0; b < cpu.resolved.grid.count(); ++b) {
            auto run = cpu.session->record_block(cpu.resolved, b);
            ASSERT_TRUE(run.ok()) << run.error().full();
            ASSERT_FALSE(run->failure.has_value());
            const DebugTimeline t(run->recording);
            for (uint32_t th = 0; th < run->recording.threads; ++th) {
                const uint64_t i = b * 48 + th;
                if (i >= out.size()) continue;
                const DebugStep* last = t.step_at(th, t.rounds() - 1);
                ASSERT_NE(last, nullptr) << "thread " << th;
                const DebugVariable* v = t.variable(*last, "value");
                ASSERT_NE(v, nullptr) << "thread " << th;
                EXPECT_EQ(t.value_text(*v), std::to_string(out[i])) << "i = " << i;
                ++compared;
            }
        }
    }
    {  // Each block's partial[0] at its end in tree_sum.cu (4 blocks, n = 200): the GPU's sums[b].
        auto file = load_kernel_file(test::debug_data("tree_sum.cu"));
        ASSERT_TRUE(file.ok()) << file.error().full();
        const std::vector<int> sums = gpu_output<int>(gpu, *file, "sums");
        Stepped cpu = stepping(*file);
        ASSERT_TRUE(cpu.session);
        ASSERT_EQ(sums.size(), cpu.resolved.grid.count());
        for (uint64_t b = 0; b < sums.size(); ++b) {
            auto run = cpu.session->record_block(cpu.resolved, b);
            ASSERT_TRUE(run.ok()) << run.error().full();
            const DebugTimeline t(run->recording);
            ASSERT_EQ(run->recording.shared.size(), 1u);
            EXPECT_EQ(t.shared_number(t.rounds() - 1, 0, 0), double(sums[b])) << "block " << b;
            ++compared;
        }
    }
    {  // tile[ty][tx] after the barrier of tile_transpose.cu (37 x 21): the element the GPU wrote to out[x][y].
        auto file = load_kernel_file(test::debug_data("tile_transpose.cu"));
        ASSERT_TRUE(file.ok()) << file.error().full();
        const int width = 37, height = 21;
        const std::vector<float> out = gpu_output<float>(gpu, *file, "out");
        ASSERT_EQ(out.size(), size_t(width * height));
        Stepped cpu = stepping(*file);
        ASSERT_TRUE(cpu.session);
        const Dim3 grid = cpu.resolved.grid;
        for (uint32_t by = 0; by < grid.y; ++by)
            for (uint32_t bx = 0; bx < grid.x; ++bx) {
                auto run = cpu.session->record_block(cpu.resolved, bx + uint64_t(grid.x) * by);
                ASSERT_TRUE(run.ok()) << run.error().full();
                ASSERT_FALSE(run->recording.barriers.empty());
                const DebugTimeline t(run->recording);
                const uint32_t after = run->recording.barriers[0];
                for (int ty = 0; ty < 16; ++ty)
                    for (int tx = 0; tx < 16; ++tx) {
                        const int x = int(bx) * 16 + tx, y = int(by) * 16 + ty;
                        if (x >= width || y >= height) continue;
                        EXPECT_EQ(t.shared_number(after, 0, uint64_t(ty * 17 + tx)), double(out[size_t(x * height + y)]))
                            << "block (" << bx << "," << by << ") tile[" << ty << "][" << tx << "]";
                        ++compared;
                    }
            }
    }
    EXPECT_EQ(compared, 100u + 4u + size_t(37 * 21));
}

// A whole program's launches (reduce_two_launches.cu, n = 5000) run on the GPU with their buffers captured; each
// block of its first launch stepped through on the CPU backend from that capture ends with cache[0] equal to the
// partial sum the GPU wrote for that block, and the second launch's one block with the GPU's total.
TEST(DebugOnTheGpu, AProgramsLaunchesStepToWhatTheGpuWrote) {
    if (auto backend = make_cuda_backend(); !backend)
        GTEST_SKIP() << "no CUDA device, GPU test skipped: " << backend.error().message;
    auto runner = make_program_runner("cuda");
    ASSERT_TRUE(runner.ok()) << runner.error().full();
    const std::string path = std::string(CP_SOURCE_DIR) + "/tests/data/programs/reduce_two_launches.cu";
    auto file = load_kernel_file(path);
    ASSERT_TRUE(file.ok()) << file.error().full();
    ProgramRequest request;
    request.path = path;
    request.source = file->source;
    request.args = {"5000"};
    request.capture_limit = uint64_t(64) << 20;
    const ProgramRun run = runner->runner->run(request);
    ASSERT_EQ(run.end, ProgramRun::End::Returned) << run.stdout_text << run.stderr_text;
    ASSERT_EQ(run.exit_status, 0) << run.stdout_text;
    ASSERT_EQ(run.launches.size(), 2u);
    auto written_by = [&](const ProgramLaunch& l, const std::string& name) {
        for (const ProgramBuffer& b : l.buffers)
            if (b.name == name) {
                const std::vector<std::byte> bytes = captured_bytes(run.capture_data, b.after_at, b.bytes);
                std::vector<int> out(bytes.size() / 4);
                if (!bytes.empty()) std::memcpy(out.data(), bytes.data(), out.size() * 4);
                return out;
            }
        ADD_FAILURE() << "no buffer " << name;
        return std::vector<int>();
    };
    const std::vector<int> partial = written_by(run.launches[0], "d_partial");
    const std::vector<int> total = written_by(run.launches[1], "d_total");
    ASSERT_EQ(partial.size(), 120u);
    ASSERT_EQ(total.size(), 1u);
    auto cpu = make_backend("cpu");
    ASSERT_TRUE(cpu.ok()) << cpu.error().full();
    for (uint64_t b = 0; b < 120; ++b) {
        auto rec = record_launch_block(*cpu->backend, request, run, 0, b);
        ASSERT_TRUE(rec.ok()) << rec.error().full();
        ASSERT_FALSE(rec->failure.has_value());
        const DebugTimeline t(rec->recording);
        EXPECT_EQ(t.shared_number(t.rounds() - 1, 0, 0), double(partial[b])) << "block " << b;
    }
    auto last = record_launch_block(*cpu->backend, request, run, 1, 0);
    ASSERT_TRUE(last.ok()) << last.error().full();
    const DebugTimeline t(last->recording);
    EXPECT_EQ(t.shared_number(t.rounds() - 1, 0, 0), double(total[0]));
}
