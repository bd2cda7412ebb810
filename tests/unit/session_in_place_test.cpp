// Outputs read in place (RunOptions::read_back_in_place) on the real CPU backend: a live re-run's picture is
// read from the shared memory the kernel wrote instead of copied (33 MB for a 4K photo), pixels no thread wrote
// still hold the initial zeros, and what a check, a plot or another backend needs is still copied.
#include "test_paths.h"
#include "unit/cpu_session.h"
#include "core/backends/registry.h"

#include <cstring>

namespace cp::test {
namespace {

// Hands every request to the CPU backend, counting read-backs answered with a copy and in place; with
// `copy_only`, it drops ReadBackRequest::in_place_ok, as a backend in another process must.
class CountingBackend final : public Backend {
public:
    explicit CountingBackend(std::unique_ptr<Backend> inner) : inner_(std::move(inner)) {}
    int copies = 0, in_place = 0;
    bool copy_only = false;

    InfoResult info() override { return inner_->info(); }
    CompileResult compile(const CompileRequest& r) override { return inner_->compile(r); }
    AllocateResult allocate(const AllocateRequest& r) override { return inner_->allocate(r); }
    UploadResult upload(const UploadRequest& r) override { return inner_->upload(r); }
    LaunchResult launch(const LaunchRequest& r) override { return inner_->launch(r); }
    ReadBackResult read_back(const ReadBackRequest& r) override {
        ReadBackRequest asked = r;
        if (copy_only) asked.in_place_ok = false;
        ReadBackResult out = inner_->read_back(asked);
        ++(out.in_place ? in_place : copies);
        return out;
    }
    ReleaseResult release(const ReleaseRequest& r) override { return inner_->release(r); }

private:
    std::unique_ptr<Backend> inner_;
};

// 37 x 23 pixels, blocks of 16 x 16 (neither a multiple): pixel (x, y) = (x, y, 200, 255), except that with
// skip > 0 the columns with x % skip == 0 are never written.
const char* kStripes = R"(/*@playground
title: Stripes
param width: int = 37
param height: int = 23
param skip: int = 0
buffer dst: uchar4[width * height] out zeros
block: 16 x 16
grid: ceil(width / block.x) x ceil(height / block.y)
view dst: image(width, height)
*/
extern "C" __global__ void stripes(uchar4* dst, int width, int height, int skip)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= width || y >= height) return;
    if (skip > 0 && x % skip == 0) return;
    dst[y * width + x] = make_uchar4(x, y, 200, 255);
}
)";

constexpr int kWidth = 37, kHeight = 23;

std::vector<uint8_t> expected_stripes(int skip) {
    std::vector<uint8_t> out(size_t(kWidth) * kHeight * 4, 0);
    for (int y = 0; y < kHeight; ++y)
        for (int x = 0; x < kWidth; ++x) {
            if (skip > 0 && x % skip == 0) continue;
            uint8_t* p = &out[(size_t(y) * kWidth + size_t(x)) * 4];
            p[0] = uint8_t(x), p[1] = uint8_t(y), p[2] = 200, p[3] = 255;
        }
    return out;
}

std::vector<uint8_t> bytes_of(const RunReport::InPlaceOutput& o) {
    const auto* p = reinterpret_cast<const uint8_t*>(o.data);
    return std::vector<uint8_t>(p, p + o.bytes);
}

RunOptions picture_only() {
    RunOptions o;
    o.verify = false;
    o.read_back = true;
    o.read_back_in_place = true;
    return o;
}

struct Counted {
    CountingBackend* backend = nullptr;
    std::unique_ptr<Engine> engine;
    std::unique_ptr<KernelSession> session;
};

Counted open_counted(const std::string& source, const std::string& name) {
    auto made = make_backend("cpu");
    EXPECT_TRUE(made.ok()) << made.error().full();
    Counted c;
    auto counting = std::make_unique<CountingBackend>(std::move(made->backend));
    c.backend = counting.get();
    c.engine = std::make_unique<Engine>(std::move(counting));
    c.session = std::make_unique<KernelSession>(*c.engine);
    KernelFile file = parse_kernel_source(source, name);
    EXPECT_FALSE(has_errors(file.diagnostics));
    c.session->set_kernel(std::move(file));
    return c;
}

TEST(SessionInPlace, ReRunsHandThePictureOverWithoutACopy) {
    Counted c = open_counted(kStripes, "stripes.cu");
    for (int run = 1; run <= 2; ++run) {
        RunReport r = c.session->run(picture_only());
        ASSERT_TRUE(r.ok()) << r.error->full();
        EXPECT_EQ(r.outputs.count("dst"), 0u) << "run " << run << ": the picture was copied";
        ASSERT_EQ(r.outputs_in_place.count("dst"), 1u);
        const RunReport::InPlaceOutput& dst = r.outputs_in_place.at("dst");
        EXPECT_EQ(dst.type, ElemType::UChar4);
        ASSERT_EQ(dst.bytes, uint64_t(kWidth) * kHeight * 4);
        EXPECT_EQ(bytes_of(dst), expected_stripes(0)) << "run " << run;
        EXPECT_EQ(r.transfers.downloads, 0) << "nothing crossed to the host";
    }
    EXPECT_EQ(c.backend->copies, 0);
    EXPECT_EQ(c.backend->in_place, 2);
}

TEST(SessionInPlace, PixelsNoThreadWroteStillShowTheInitialZeros) {
    // A first run writes every pixel; the second skips every third column. Read in place, those columns must
    // hold the initial zeros again, never the first run's pixels.
    Counted c = open_counted(kStripes, "stripes.cu");
    RunReport full = c.session->run(picture_only());
    ASSERT_TRUE(full.ok()) << full.error->full();
    ASSERT_EQ(bytes_of(full.outputs_in_place.at("dst")), expected_stripes(0));
    ASSERT_TRUE(c.session->set_param("skip", "3").ok());
    RunReport partial = c.session->run(picture_only());
    ASSERT_TRUE(partial.ok()) << partial.error->full();
    const std::vector<uint8_t> shown = bytes_of(partial.outputs_in_place.at("dst"));
    EXPECT_EQ(shown, expected_stripes(3));
    EXPECT_EQ(shown[(size_t(kHeight - 1) * kWidth + 36) * 4 + 2], 0) << "the last pixel (x = 36) was never written";
    // The same run read back as a copy gives the same bytes: what is shown is the output.
    RunOptions copied = picture_only();
    copied.read_back_in_place = false;
    RunReport again = c.session->run(copied);
    ASSERT_TRUE(again.ok()) << again.error->full();
    ASSERT_EQ(again.outputs.count("dst"), 1u);
    EXPECT_TRUE(again.outputs_in_place.empty());
    EXPECT_EQ(std::memcmp(again.outputs.at("dst").bytes.data(), shown.data(), shown.size()), 0);
    EXPECT_EQ(c.backend->copies, 1);
}

TEST(SessionInPlace, PlotsAndBackendsThatCannotStillGetCopies) {
    // No `view:` line: the output is shown as a plot, which keeps the bytes it is given.
    std::string plotted = kStripes;
    plotted.erase(plotted.find("view dst"), std::string("view dst: image(width, height)\n").size());
    Counted plot = open_counted(plotted, "stripes_plot.cu");
    RunReport r = plot.session->run(picture_only());
    ASSERT_TRUE(r.ok()) << r.error->full();
    EXPECT_TRUE(r.outputs_in_place.empty());
    ASSERT_EQ(r.outputs.count("dst"), 1u);
    EXPECT_EQ(plot.backend->copies, 1);

    // A backend that cannot answer in place (the CUDA worker) copies; the session takes the copy.
    Counted remote = open_counted(kStripes, "stripes.cu");
    remote.backend->copy_only = true;
    RunReport copied = remote.session->run(picture_only());
    ASSERT_TRUE(copied.ok()) << copied.error->full();
    EXPECT_TRUE(copied.outputs_in_place.empty());
    ASSERT_EQ(copied.outputs.count("dst"), 1u);
    const auto& bytes = copied.outputs.at("dst").bytes;
    EXPECT_EQ(std::vector<uint8_t>(reinterpret_cast<const uint8_t*>(bytes.data()),
                                   reinterpret_cast<const uint8_t*>(bytes.data()) + bytes.size()),
              expected_stripes(0));
}

TEST(SessionInPlace, ACheckedRunComparesACopy) {
    // The library's box blur has a CPU reference: a run that checks reads a copy (the check may run after the
    // picture is shown, when the next run could already be writing the buffer).
    auto file = load_kernel_file(std::string(CP_SOURCE_DIR) + "/kernels/image/box_blur.cu");
    ASSERT_TRUE(file.ok()) << file.error().full();
    auto made = make_backend("cpu");
    ASSERT_TRUE(made.ok()) << made.error().full();
    auto counting = std::make_unique<CountingBackend>(std::move(made->backend));
    CountingBackend* backend = counting.get();
    Engine engine(std::move(counting));
    KernelSession session(engine);
    session.set_kernel(*file);
    RunOptions checked = picture_only();
    checked.verify = true;
    RunReport r = session.run(checked);
    ASSERT_TRUE(r.ok()) << r.error->full();
    EXPECT_EQ(r.verified, std::optional<bool>(true));
    EXPECT_TRUE(r.outputs_in_place.empty());
    EXPECT_EQ(r.outputs.count("dst"), 1u);
    EXPECT_EQ(backend->in_place, 0);
}

}  // namespace
}  // namespace cp::test
