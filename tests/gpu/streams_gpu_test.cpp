// Streams on a real GPU (skips without a CUDA device): a copy-heavy file split into chunks on several streams,
// its outputs checked element by element here, the operations of different streams overlapping in time (a
// chunk's copy in running while the previous chunk's kernel runs), and the totals printed against one stream
// for 1, 2, 4 and 8 streams; the overlap lesson verifying against its reference.
#include "core/cuda/cuda_backend_factory.h"
#include "core/kernel_file/kernel_file.h"
#include "core/session/session.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <iostream>
#include "test_paths.h"

using namespace cp;

namespace {

// x = 1, 2, 3, ...; y = x stirred `rounds` times (an LCG in 32 bits): 4 bytes in and out per element, the
// kernel's weight set by `rounds`.
const char* kCopyHeavy = R"(/*@playground
title: Copy heavy
param n: int = 16000007
param streams: int = 4
param rounds: int = 64
buffer x: int[n] in ramp(start=1, step=1)
buffer y: int[n] out zeros
block: 256
grid: ceil(n / block.x)
streams: streams over n chunks=4 * streams
*/
extern "C" __global__ void stir(const int* x, int* y, int n, int rounds)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        unsigned v = (unsigned)x[i];
        for (int r = 0; r < rounds; ++r) v = v * 1103515245u + 12345u;
        y[i] = (int)v;
    }
}
)";

double overlap(const StreamOp& a, const StreamOp& b) {
    return std::max(0.0, std::min(a.end_ms, b.end_ms) - std::max(a.start_ms, b.start_ms));
}

}  // namespace

TEST(GpuStreams, ChunksOverlapAndOutputsAreRight) {
    auto backend = make_cuda_backend();
    if (!backend) GTEST_SKIP() << "no CUDA device, GPU test skipped: " << backend.error().message;
    Engine engine(std::move(*backend));
    ASSERT_TRUE(engine.capabilities().concurrent_streams);
    KernelSession session(engine);
    session.set_kernel(parse_kernel_source(kCopyHeavy, "copy_heavy.cu"));
    ASSERT_FALSE(has_errors(session.kernel().diagnostics));
    for (const int streams : {1, 2, 4, 8}) {
        RunChoices choices;
        choices.params["streams"] = streams;
        session.set_choices(choices);
        RunOptions options;
        options.timing.repeats = 3;
        const RunReport r = session.run(options);
        ASSERT_TRUE(r.ok()) << r.error->full();
        ASSERT_TRUE(r.streams.has_value());
        const StreamsReport& s = *r.streams;
        EXPECT_TRUE(s.concurrent);
        EXPECT_FALSE(s.host_clock);
        EXPECT_EQ(s.streams, streams);
        EXPECT_EQ(s.chunks, 4 * streams);

        // Every element, computed here.
        const HostBuffer& y = r.outputs.at("y");
        ASSERT_EQ(y.count(), 16000007u);
        for (uint64_t i = 0; i < y.count(); ++i) {
            uint32_t v = uint32_t(i + 1);
            for (int k = 0; k < 64; ++k) v = v * 1103515245u + 12345u;
            ASSERT_EQ(uint32_t(y.as<int>()[i]), v) << "y[" << i << "] with " << streams << " streams";
        }

        // Each stream's operations in order, every time from the first event on.
        for (const auto& lane : s.lanes)
            for (size_t k = 1; k < lane.size(); ++k)
                EXPECT_GE(s.ops[lane[k]].start_ms + 1e-3, s.ops[lane[k - 1]].end_ms);
        for (const StreamOp& op : s.ops) {
            EXPECT_GE(op.start_ms, 0);
            EXPECT_GE(op.end_ms, op.start_ms);
        }
        // Chunk k+1's copy in against chunk k's kernel (on another stream when there are several).
        int overlapping = 0, pairs = 0;
        double overlapped_ms = 0;
        for (const StreamOp& kernel : s.ops) {
            if (kernel.kind != StreamOpKind::Kernel) continue;
            for (const StreamOp& copy : s.ops) {
                if (copy.kind != StreamOpKind::H2D || copy.chunk != kernel.chunk + 1) continue;
                ++pairs;
                const double o = overlap(copy, kernel);
                overlapped_ms += o;
                overlapping += o > 0;
            }
        }
        if (streams == 1) {
            EXPECT_EQ(overlapping, 0) << "one stream runs its operations one after another";
        } else {
            EXPECT_GT(overlapping, 0) << "no copy in ran during the previous chunk's kernel";
        }
        std::printf(
            "[gpu] streams %d, %d chunks of n=16000007 (64 rounds): %.3f ms on %d streams, %.3f ms on one "
            "stream (%.0f%% less); h2d(k+1) overlapping kernel(k) in %d of %d pairs, %.3f ms; copy/kernel "
            "overlap %.3f ms\n",
            streams, s.chunks, s.total_ms, streams, s.one_stream_ms,
            s.one_stream_ms > 0 ? 100.0 * s.gained_ms() / s.one_stream_ms : 0.0, overlapping, pairs, overlapped_ms,
            s.copy_kernel_overlap_ms());
        if (streams == 4) std::cout << streams_timeline_text(s, 100);
    }
}

TEST(GpuStreams, TheOverlapLessonVerifies) {
    auto backend = make_cuda_backend();
    if (!backend) GTEST_SKIP() << "no CUDA device, GPU test skipped: " << backend.error().message;
    Engine engine(std::move(*backend));
    auto file = load_kernel_file(std::string(CP_SOURCE_DIR) + "/kernels/streams/overlap.cu");
    ASSERT_TRUE(file.ok());
    KernelSession session(engine);
    session.set_kernel(*file);
    for (const int rounds : {8, 200}) {
        RunChoices choices;
        choices.params["rounds"] = rounds;
        session.set_choices(choices);
        const RunReport r = session.run();
        ASSERT_TRUE(r.ok()) << r.error->full();
        EXPECT_EQ(r.verified, std::optional<bool>(true)) << r.mismatch_detail;
        ASSERT_TRUE(r.streams.has_value());
        std::printf("[gpu] overlap lesson, rounds %d: %s; ordinary launch median %.3f ms\n", rounds,
                    r.streams->summary().c_str(), r.timing.median_ms);
    }
}
