// Frames that fit a network, through a real `worker --stdio` (CPU backend, started through `env`): blobs travel
// compressed while the link is slow (a pipe is not, once measured) and the outputs equal a local run's byte for byte; a
// peer of a build before compression (either side) still talks, uncompressed; a picture only shown comes as the box
// filter of the exact values, which KernelSession::read_output fetches when asked; a checked run gets the exact values.
#include "cli_support.h"

#include "core/engine/engine.h"
#include "core/kernel_file/kernel_file.h"
#include "core/remote/remote_backend.h"
#include "core/session/session.h"
#include "core/backends/registry.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <functional>
#include <memory>

namespace {

constexpr const char* kPretendOld = "CUDA_PLAYGROUND_PRETEND_BEFORE_FRAMES";

struct Side {
    std::unique_ptr<cp::Engine> engine;
    std::unique_ptr<cp::KernelSession> session;
};

cp::KernelFile lesson(const std::string& name) {
    auto file = cp::load_kernel_file(cp::kernels_dir() / (name + ".cu"));
    EXPECT_TRUE(file) << file.error().full();
    return file ? *file : cp::KernelFile{};
}

Side local_side(const cp::KernelFile& file) {
    auto made = cp::make_backend("cpu");
    EXPECT_TRUE(made.ok()) << made.error().full();
    Side s;
    s.engine = std::make_unique<cp::Engine>(std::move(made->backend));
    s.session = std::make_unique<cp::KernelSession>(*s.engine);
    s.session->set_kernel(file);
    return s;
}

// `extra` goes into the worker's environment only (the prefix is `env ... cuda-playground worker --stdio`).
Side remote_side(const cp::KernelFile& file, const std::string& extra = "") {
    cp::RemoteOptions options;
    options.prefix = "env " + extra + " CUDA_PLAYGROUND_CACHE_DIR=" + cp::test::cli_cache_dir().path().string();
    options.program = CP_BINARY;
    options.backend = "cpu";
    auto backend = cp::make_remote_backend(options);
    EXPECT_TRUE(backend) << backend.error().full();
    Side s;
    if (!backend) return s;
    s.engine = std::make_unique<cp::Engine>(std::move(*backend));
    s.session = std::make_unique<cp::KernelSession>(*s.engine);
    s.session->set_kernel(file);
    return s;
}

uint64_t received_during(const std::function<void()>& f) {
    const uint64_t before = cp::remote_traffic().received;
    f();
    return cp::remote_traffic().received - before;
}

// Runs `file` here and through `far`: outputs equal byte for byte; returns the bytes the remote run received.
uint64_t expect_same_outputs(const cp::KernelFile& file, Side& far) {
    Side here = local_side(file);
    const cp::RunReport mine = here.session->run();
    EXPECT_TRUE(mine.ok()) << mine.error->full();
    cp::RunReport theirs;
    const uint64_t received = received_during([&] { theirs = far.session->run(); });
    EXPECT_TRUE(theirs.ok()) << theirs.error->full();
    EXPECT_EQ(theirs.verified, std::optional<bool>(true));
    EXPECT_FALSE(mine.outputs.empty());
    EXPECT_EQ(theirs.outputs.size(), mine.outputs.size());
    for (const auto& [name, out] : mine.outputs) {
        if (!theirs.outputs.count(name)) {
            ADD_FAILURE() << name << " was not read back through the link";
            continue;
        }
        EXPECT_TRUE(theirs.outputs.at(name).bytes == out.bytes) << name << " differs from the local run's";
    }
    return received;
}

}  // namespace

TEST(RemoteFrames, OutputsThroughACompressedLinkEqualLocalOutputsByteForByte) {
    const cp::KernelFile blur = lesson("image/box_blur");  // 600 x 400 uchar4: 960,000 bytes out
    Side far = remote_side(blur);
    ASSERT_TRUE(far.engine);
    EXPECT_NE(far.engine->device().where.find("frames compressed with zstd"), std::string::npos)
        << far.engine->device().where;
    const uint64_t received = expect_same_outputs(blur, far);
    EXPECT_LT(received, 960'000u * 9 / 10) << "the read-back was not compressed";

    const cp::KernelFile add = lesson("basics/vector_add");
    Side far_add = remote_side(add);
    ASSERT_TRUE(far_add.engine);
    expect_same_outputs(add, far_add);
}

// Compressing pays only on a slow link: through `env` (a pipe, gigabytes a second) the first large answer is
// compressed (the link's speed is not known yet) and measures the link; the next ones come raw, which saves the
// codec's milliseconds on both sides. CUDA_PLAYGROUND_REMOTE_COMPRESS=1 compresses whatever the link.
TEST(RemoteFrames, AFastLinkGetsRawFramesOnceMeasuredAndCompressionCanBeForced) {
    const cp::KernelFile blur = lesson("image/box_blur");
    Side far = remote_side(blur);
    ASSERT_TRUE(far.engine);
    EXPECT_LT(expect_same_outputs(blur, far), 960'000u * 9 / 10) << "the first answer, before the link was measured";
    // The measure is of a real pipe on a machine that may be busy: a raw answer within a few runs.
    uint64_t raw_runs = 0, received = 0;
    for (int i = 0; i < 5 && raw_runs == 0; ++i) {
        received = expect_same_outputs(blur, far);
        if (received >= 960'000u) ++raw_runs;
    }
    EXPECT_EQ(raw_runs, 1u) << "a fast link still got compressed answers (" << received << " bytes)";

    setenv("CUDA_PLAYGROUND_REMOTE_COMPRESS", "1", 1);
    Side forced = remote_side(blur);
    unsetenv("CUDA_PLAYGROUND_REMOTE_COMPRESS");
    ASSERT_TRUE(forced.engine);
    for (int i = 0; i < 3; ++i)
        EXPECT_LT(expect_same_outputs(blur, forced), 960'000u * 9 / 10) << "run " << i << " with compression forced";
}

TEST(RemoteFrames, AWorkerFromBeforeCompressionStillTalksUncompressed) {
    const cp::KernelFile blur = lesson("image/box_blur");
    Side far = remote_side(blur, std::string(kPretendOld) + "=1");
    ASSERT_TRUE(far.engine);
    EXPECT_EQ(far.engine->device().where.find("compressed"), std::string::npos);
    const uint64_t received = expect_same_outputs(blur, far);
    EXPECT_GE(received, 960'000u);  // every byte of the picture, raw
}

TEST(RemoteFrames, AnAppFromBeforeCompressionStillTalksUncompressed) {
    const cp::KernelFile blur = lesson("image/box_blur");
    // This process acts as the old app; the worker (started through `env -u`) is the new one.
    setenv(kPretendOld, "1", 1);
    Side far = remote_side(blur, std::string("-u ") + kPretendOld);
    unsetenv(kPretendOld);
    ASSERT_TRUE(far.engine);
    EXPECT_EQ(far.engine->device().where.find("compressed"), std::string::npos);
    const uint64_t received = expect_same_outputs(blur, far);  // the link decided at the greeting
    EXPECT_GE(received, 960'000u);
}

// The box filter of `exact` (w x h uchar4) by factor f, computed here: each preview pixel is the rounded mean of
// the pixels it covers, clipped at the edges.
std::vector<std::byte> box_filter(const std::vector<std::byte>& exact, int w, int h, int f) {
    const int ow = (w + f - 1) / f, oh = (h + f - 1) / f;
    std::vector<std::byte> out(size_t(ow) * oh * 4);
    for (int oy = 0; oy < oh; ++oy)
        for (int ox = 0; ox < ow; ++ox)
            for (int c = 0; c < 4; ++c) {
                int sum = 0, n = 0;
                for (int y = oy * f; y < std::min(h, oy * f + f); ++y)
                    for (int x = ox * f; x < std::min(w, ox * f + f); ++x, ++n)
                        sum += std::to_integer<int>(exact[(size_t(y) * w + x) * 4 + c]);
                out[(size_t(oy) * ow + ox) * 4 + c] = std::byte(uint8_t(std::floor(double(sum) / n + 0.5)));
            }
    return out;
}

TEST(RemoteFrames, AShownPictureComesAsTheBoxFilterAndTheExactValuesOnDemand) {
    const cp::KernelFile blur = lesson("image/box_blur");
    Side here = local_side(blur);
    const cp::RunReport mine = here.session->run();
    ASSERT_TRUE(mine.ok());
    const std::vector<std::byte>& exact = mine.outputs.at("dst").bytes;

    Side far = remote_side(blur);
    ASSERT_TRUE(far.engine);
    cp::RunOptions live;
    live.verify = false;           // a live re-run: the picture is only shown
    live.preview_max_width = 100;  // 600 x 400 by factor 6: 100 x 67, the last row covers 4 pixel rows
    live.preview_max_height = 100;
    cp::RunReport shown;
    const uint64_t received = received_during([&] { shown = far.session->run(live); });
    ASSERT_TRUE(shown.ok()) << shown.error->full();
    EXPECT_FALSE(shown.outputs.count("dst"));  // not the exact values
    ASSERT_TRUE(shown.output_previews.count("dst"));
    const cp::RunReport::PreviewOutput& p = shown.output_previews.at("dst");
    EXPECT_EQ(p.width, 100);
    EXPECT_EQ(p.height, 67);
    EXPECT_EQ(p.full_width, 600);
    EXPECT_EQ(p.full_height, 400);
    EXPECT_TRUE(p.bytes == box_filter(exact, 600, 400, 6)) << "the preview is not the box filter of the output";
    EXPECT_LT(received, 100u * 67 * 4 + 4096);

    // The inspector (or an export) asks: the exact values of that run.
    auto fetched = far.session->read_output("dst");
    ASSERT_TRUE(fetched) << fetched.error().full();
    EXPECT_TRUE(fetched->bytes == exact);
    EXPECT_FALSE(far.session->read_output("src"));  // an input is not an output
    EXPECT_FALSE(far.session->read_output("nothing"));

    // A checked run gets the exact values even when previews are allowed.
    cp::RunOptions checked = live;
    checked.verify = true;
    const cp::RunReport verified = far.session->run(checked);
    EXPECT_EQ(verified.verified, std::optional<bool>(true));
    EXPECT_TRUE(verified.output_previews.empty());
    ASSERT_TRUE(verified.outputs.count("dst"));
    EXPECT_TRUE(verified.outputs.at("dst").bytes == exact);

    // A worker from before previews answers with every pixel, which the session keeps as the exact output.
    Side old = remote_side(blur, std::string(kPretendOld) + "=1");
    ASSERT_TRUE(old.engine);
    const cp::RunReport whole = old.session->run(live);
    ASSERT_TRUE(whole.ok());
    EXPECT_TRUE(whole.output_previews.empty());
    ASSERT_TRUE(whole.outputs.count("dst"));
    EXPECT_TRUE(whole.outputs.at("dst").bytes == exact);
}
