// One launch of a whole program again, alone, on its captured inputs (issue 36, core/session/program_replay.h): the
// same configuration writes exactly what the program's launch wrote; another block writes the same for a kernel
// whose result does not depend on it; a smaller `n` leaves the elements past it as they were before, counted here.
#include "core/cpu/cpu_backend.h"
#include "core/cpu/program_runner.h"
#include "core/session/program_replay.h"

#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <sstream>
#include "test_paths.h"

namespace {

std::string replay_programs_dir() { return std::string(CP_TEST_DATA_DIR) + "/programs"; }

class ProgramReplay : public ::testing::Test {
protected:
    void SetUp() override {
        auto runner = cp::make_cpu_program_runner();
        if (!runner) GTEST_SKIP() << "no host compiler: " << runner.error().message;
        runner_ = std::move(*runner);
        auto backend = cp::make_cpu_backend();
        ASSERT_TRUE(backend.ok()) << backend.error().message;
        backend_ = std::move(*backend);
    }
    // Runs programs/NAME with a capture.
    cp::ProgramRun run(const std::string& name) {
        request_ = {};
        request_.path = replay_programs_dir() + "/" + name;
        std::ifstream in(request_.path);
        std::stringstream s;
        s << in.rdbuf();
        request_.source = s.str();
        request_.capture_limit = uint64_t(64) << 20;
        return runner_->run(request_);
    }
    std::unique_ptr<cp::ProgramRunner> runner_;
    std::unique_ptr<cp::Backend> backend_;
    cp::ProgramRequest request_;
};

TEST_F(ProgramReplay, TheSameLaunchWritesWhatTheProgramsLaunchWrote) {
    const cp::ProgramRun r = run("stencil_1d.cu");
    ASSERT_EQ(r.end, cp::ProgramRun::End::Returned);
    ASSERT_EQ(r.launches.size(), 1u);
    EXPECT_EQ(r.launches[0].instance, "stencil_1d");
    EXPECT_FALSE(cp::replay_refusal(r, 0).has_value());
    const cp::LaunchReplay same = cp::replay_launch(*backend_, request_, r, 0);
    ASSERT_TRUE(same.ran) << (same.error ? same.error->message : "");
    EXPECT_TRUE(same.same_as_program);
    ASSERT_EQ(same.buffers.size(), 2u);
    for (const cp::ReplayBuffer& b : same.buffers) EXPECT_EQ(b.differing_bytes, 0u) << b.name;
    // Twice the grid: the stencil (no bounds check of its own) reads past `d_in`, and the re-run says where.
    cp::ReplayChanges changes;
    changes.grid = cp::Dim3{r.launches[0].grid.x * 2, 1, 1};
    const cp::LaunchReplay past = cp::replay_launch(*backend_, request_, r, 0, changes);
    EXPECT_FALSE(past.ran);
    ASSERT_TRUE(past.error.has_value());
    EXPECT_EQ(past.error->kind, cp::ErrorKind::OutOfBounds);
}

// Another block, with the grid still covering every element: vadd writes the same, though not as the program ran it.
TEST_F(ProgramReplay, AnotherBlockThatStillCoversTheDataWritesTheSame) {
    const cp::ProgramRun r = run("vector_add.cu");
    ASSERT_EQ(r.launches.size(), 1u);
    cp::ReplayChanges changes;
    changes.block = cp::Dim3{96, 1, 1};
    changes.grid = cp::Dim3{(1000003 + 95) / 96, 1, 1};
    const cp::LaunchReplay other = cp::replay_launch(*backend_, request_, r, 0, changes);
    ASSERT_TRUE(other.ran) << (other.error ? other.error->message : "");
    EXPECT_FALSE(other.same_as_program);  // not the program's configuration
    ASSERT_EQ(other.buffers.size(), 3u);
    for (const cp::ReplayBuffer& b : other.buffers) EXPECT_EQ(b.differing_bytes, 0u) << b.name;
}

// vadd(a, b, c, n) again with n = 1000: c's first 1000 elements as the program's launch wrote them, the rest as they
// were before the launch (cudaMalloc's zeros), so every element past 1000 whose sum is not 0 differs.
TEST_F(ProgramReplay, AChangedScalarChangesWhatIsWritten) {
    const cp::ProgramRun r = run("vector_add.cu");
    ASSERT_EQ(r.end, cp::ProgramRun::End::Returned);
    ASSERT_EQ(r.launches.size(), 1u);
    const int n = 1000003, m = 1000;
    cp::ReplayChanges changes;
    std::vector<std::byte> bytes(4);
    std::memcpy(bytes.data(), &m, 4);
    changes.scalars[3] = bytes;
    const cp::LaunchReplay rr = cp::replay_launch(*backend_, request_, r, 0, changes);
    ASSERT_TRUE(rr.ran) << (rr.error ? rr.error->message : "");
    const cp::ReplayBuffer* c = nullptr;
    for (const cp::ReplayBuffer& b : rr.buffers)
        if (b.name == "d_c") c = &b;
    ASSERT_NE(c, nullptr);
    uint64_t expect_differing = 0;
    for (int i = m; i < n; ++i) {
        const float sum = float(i % 1000) + 2.0f * float(i % 77);
        if (sum != 0.0f) {
            uint32_t bits;
            std::memcpy(&bits, &sum, 4);
            for (int k = 0; k < 4; ++k) expect_differing += ((bits >> (8 * k)) & 0xff) != 0;
        }
    }
    EXPECT_EQ(c->differing_bytes, expect_differing);
    float first = 0, past = 1;
    std::memcpy(&first, c->replayed.data() + 999 * 4, 4);
    std::memcpy(&past, c->replayed.data() + 1001 * 4, 4);
    EXPECT_EQ(first, float(999 % 1000) + 2.0f * float(999 % 77));
    EXPECT_EQ(past, 0.0f);
}

// The whole program again with its launch changed (ProgramRequest::changes): vadd with n = 1000, and the program's
// own check counts the elements it then finds wrong, computed here; c[12345] stays cudaMalloc's zero.
TEST_F(ProgramReplay, TheProgramRunsAgainWithALaunchChanged) {
    ASSERT_EQ(run("vector_add.cu").exit_status, 0);
    const int m = 1000;
    std::vector<std::byte> bytes(4);
    std::memcpy(bytes.data(), &m, 4);
    request_.changes[0].scalars[3] = bytes;
    const cp::ProgramRun r = runner_->run(request_);
    int wrong = 0;
    for (int i = m; i < 1000003; ++i) wrong += float(i % 1000) + 2.0f * float(i % 77) != 0.0f;
    EXPECT_EQ(r.stdout_text, "blocks: 3907, c[12345] = 0.0\nFAILED: " + std::to_string(wrong) + " wrong\n");
    EXPECT_EQ(r.exit_status, 1);
    ASSERT_EQ(r.launches.size(), 1u);
    EXPECT_TRUE(r.launches[0].changed);
    EXPECT_EQ(r.launches[0].args[3].bytes_hex, "e8030000");
}

TEST_F(ProgramReplay, ATemplateLaunchReplaysAsItsInstantiationAndStructsOfPointersAreRefused) {
    const cp::ProgramRun t = run("template_kernel.cu");
    ASSERT_EQ(t.launches.size(), 4u);
    EXPECT_EQ(t.launches[0].instance, "axpy<float>");
    EXPECT_EQ(t.launches[1].instance, "axpy<float>");  // deduced
    EXPECT_EQ(t.launches[2].instance, "axpy<int>");
    const cp::LaunchReplay rr = cp::replay_launch(*backend_, request_, t, 2);
    ASSERT_TRUE(rr.ran) << (rr.error ? rr.error->message : "");
    EXPECT_TRUE(rr.same_as_program);

    // step(Particles p): a struct holding two device pointers, which a replay would have nothing to point at.
    const cp::ProgramRun s = run("struct_of_pointers.cu");
    ASSERT_FALSE(s.launches.empty());
    ASSERT_TRUE(cp::replay_refusal(s, 0).has_value());
    const cp::LaunchReplay no = cp::replay_launch(*backend_, request_, s, 0);
    EXPECT_FALSE(no.ran);
    ASSERT_TRUE(no.error.has_value());
    EXPECT_EQ(no.error->kind, cp::ErrorKind::Unsupported);
}

}  // namespace

namespace {
// Kernels of the program's header, one of them overloaded, and one with an unnamed parameter. A launch of a kernel
// defined in a header or overloaded is refused alone, saying why (the kind); the program runs again with it changed;
// the kernel with an unnamed parameter, defined once in the file, re-runs alone and writes what the program's did.
TEST_F(ProgramReplay, HeaderAndOverloadedKernelsAreRefusedAloneAndRunWithAChange) {
    const cp::ProgramRun r = run("header_kernels.cu");
    ASSERT_EQ(r.end, cp::ProgramRun::End::Returned);
    ASSERT_EQ(r.launches.size(), 4u);
    EXPECT_EQ(r.launches[1].kernel_header, "header_kernels.cuh");
    EXPECT_TRUE(r.launches[0].kernel_overloaded);
    EXPECT_FALSE(r.launches[1].kernel_overloaded);
    EXPECT_TRUE(r.launches[3].kernel_header.empty());
    for (size_t i = 0; i < 3; ++i) {
        ASSERT_TRUE(cp::replay_refusal(r, i).has_value()) << i;
        const cp::LaunchReplay no = cp::replay_launch(*backend_, request_, r, i);
        EXPECT_FALSE(no.ran);
        ASSERT_TRUE(no.error.has_value());
        EXPECT_EQ(no.error->kind, cp::ErrorKind::Unsupported);
    }
    const cp::LaunchReplay fill = cp::replay_launch(*backend_, request_, r, 3);
    ASSERT_TRUE(fill.ran) << (fill.error ? fill.error->message : "");
    EXPECT_TRUE(fill.same_as_program);
    ASSERT_EQ(fill.buffers.size(), 1u);
    EXPECT_EQ(fill.buffers[0].differing_bytes, 0u);

    // block_sums with one block fewer: the program's own check finds the last block's sum missing.
    request_.changes[1].grid = cp::Dim3{7, 1, 1};
    const cp::ProgramRun changed = runner_->run(request_);
    ASSERT_EQ(changed.launches.size(), 4u);
    EXPECT_TRUE(changed.launches[1].changed);
    EXPECT_EQ(changed.launches[1].grid.x, 7u);
    EXPECT_NE(changed.stdout_text.find("block sums: 8 blocks"), std::string::npos) << changed.stdout_text;
    EXPECT_NE(changed.stdout_text.find("Test FAILED"), std::string::npos) << changed.stdout_text;
    EXPECT_EQ(changed.exit_status, 1);
}
}  // namespace
