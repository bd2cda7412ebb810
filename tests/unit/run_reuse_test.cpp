// What a run redoes and what it reuses, counted through the backend interface: a scalar parameter re-launches on
// the buffers already there, a source edit compiles once, a new image uploads that buffer only, a check runs once
// per new result (and after the picture when deferred), and a compare variant borrows the main kernel's compile
// and inputs; the drivers (compare variants, steps) and the measurements' compiles go through the same stages.
#include "core/data/image_io.h"
#include "core/kernel_file/kernel_file.h"
#include "core/session/compare_runner.h"
#include "core/session/report_text.h"
#include "core/session/session.h"
#include "support/process.h"
#include "unit/scripted_backend.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "test_paths.h"

using namespace cp;
using cp::test::scalar;
using cp::test::ScriptedBackend;

namespace {

// y[i] = a * x[i] for i < n; and a variant that adds one, for the compare tests.
constexpr const char* kScale = R"(/*@playground
title: Scale
kernel: scale
param n: int = 1001
param a: float = 2
buffer x: float[n] in random(seed=3, min=-1, max=1)
buffer y: float[n] out zeros
block: 128
grid: ceil(n / block.x)
problem: n
view y: plot
compare: scale_plus_one
*/
extern "C" __global__ void scale(const float* x, float* y, int n, float a) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i];
}
extern "C" __global__ void scale_plus_one(const float* x, float* y, int n, float a) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + 1.0f;
}
)";

// The two kernels on the host: the arguments come in the signature's order (x, y, n, a).
ScriptedBackend::KernelFn scale_by(float add) {
    return [add](const LaunchRequest& req, std::map<BufferId, std::vector<std::byte>>& mem) {
        auto* x = reinterpret_cast<const float*>(mem.at(req.args[0].buffer).data());
        auto* y = reinterpret_cast<float*>(mem.at(req.args[1].buffer).data());
        const int n = scalar<int>(req.args[2]);
        const float a = scalar<float>(req.args[3]);
        for (int i = 0; i < n; ++i) y[i] = a * x[i] + add;
    };
}

struct Rig {
    ScriptedBackend* backend = nullptr;
    std::unique_ptr<Engine> engine;
    Rig() {
        auto b = std::make_unique<ScriptedBackend>();
        backend = b.get();
        backend->kernels["scale"] = scale_by(0);
        backend->kernels["scale_plus_one"] = scale_by(1);
        engine = std::make_unique<Engine>(std::move(b));
    }
};

RunOptions unchecked() {
    RunOptions o;
    o.verify = false;
    o.coverage_when_warned = false;
    return o;
}

std::vector<float> floats(const HostBuffer& b) {
    std::vector<float> v(b.bytes.size() / sizeof(float));
    std::memcpy(v.data(), b.bytes.data(), b.bytes.size());
    return v;
}

// The new-image tests: two 37x23 pictures p0.png and p1.png in `dir` (not a multiple of the 16x16 block), with
// different pixels, and a copy kernel that reads the first, set in `s` with its host twin in `rig`.
void write_two_pictures(const std::filesystem::path& dir) {
    for (int k = 0; k < 2; ++k) {
        Image im;
        im.width = 37, im.height = 23;
        im.pixels.resize(size_t(im.width) * im.height * 4);
        for (size_t i = 0; i < im.pixels.size(); ++i) im.pixels[i] = uint8_t((i * (k + 3)) % 251);
        ASSERT_TRUE(save_png(dir / ("p" + std::to_string(k) + ".png"), im).ok());
    }
}

// The check tests: the library's vector_add at n = 1001 (not a multiple of its block), its host twin in `rig`.
void set_vector_add(Rig& rig, KernelSession& s) {
    rig.backend->kernels["vector_add"] = cp::test::vector_add;
    auto lesson = load_kernel_file(std::string(CP_SOURCE_DIR) + "/kernels/basics/vector_add.cu");
    ASSERT_TRUE(lesson.ok()) << lesson.error().full();
    s.set_kernel(*lesson);
    ASSERT_TRUE(s.set_param("n", "1001").ok());
}

void set_picture_copy(Rig& rig, KernelSession& s, const std::filesystem::path& dir) {
    const std::string source =
        "/*@playground\ntitle: Copy\nparam width: int = src.width\nparam height: int = src.height\n"
        "buffer src: uchar4[width * height] in image(\"p0.png\")\n"
        "buffer dst: uchar4[width * height] out zeros\nblock: 16 x 16\n"
        "grid: ceil(width / block.x) x ceil(height / block.y)\nview dst: image(width, height)\n*/\n"
        "extern \"C\" __global__ void copy(const uchar4* src, uchar4* dst, int width, int height) {}\n";
    rig.backend->kernels["copy"] = [](const LaunchRequest& req, std::map<BufferId, std::vector<std::byte>>& mem) {
        mem.at(req.args[1].buffer) = mem.at(req.args[0].buffer);
    };
    s.set_kernel(parse_kernel_source(source, dir / "copy.cu"));
}

}  // namespace

TEST(RunReuse, AScalarParameterRelaunchesOnTheBuffersAlreadyThere) {
    Rig rig;
    KernelSession s(*rig.engine);
    s.set_kernel(parse_kernel_source(kScale, "scale.cu"));
    const RunReport first = s.run(unchecked());
    ASSERT_TRUE(first.ok()) << first.error->full();
    const int compiles = rig.backend->compiles, allocations = rig.backend->allocations;
    const int uploads = rig.backend->uploads, patterns = rig.backend->pattern_uploads;
    EXPECT_EQ(compiles, 1);
    EXPECT_EQ(allocations, 2);

    ASSERT_TRUE(s.set_param("a", "3.5").ok());
    const RunReport second = s.run(unchecked());
    ASSERT_TRUE(second.ok()) << second.error->full();
    EXPECT_EQ(rig.backend->compiles, compiles) << "a scalar does not recompile";
    EXPECT_EQ(rig.backend->allocations, allocations) << "nor allocate";
    EXPECT_EQ(rig.backend->uploads - uploads, 1) << "only the output is reset; the const input stays on the device";
    EXPECT_EQ(rig.backend->pattern_uploads - patterns, 1) << "and the reset is a fill pattern, not 1001 floats";
    EXPECT_EQ(rig.backend->launches, 2);
    EXPECT_FLOAT_EQ(scalar<float>(rig.backend->last_launch.args[3]), 3.5f);
    // The output really is 3.5 * x for the same x as the first run (x = y1 / 2).
    const std::vector<float> y1 = floats(first.outputs.at("y")), y2 = floats(second.outputs.at("y"));
    ASSERT_EQ(y1.size(), 1001u);
    for (size_t i = 0; i < y1.size(); ++i) ASSERT_FLOAT_EQ(y2[i], 3.5f * (y1[i] / 2.0f)) << i;
}

TEST(RunReuse, ASourceEditCompilesOnceAndKeepsTheInputs) {
    Rig rig;
    KernelSession s(*rig.engine);
    s.set_kernel(parse_kernel_source(kScale, "scale.cu"));
    ASSERT_TRUE(s.run(unchecked()).ok());
    const int uploads = rig.backend->uploads, allocations = rig.backend->allocations;
    s.set_kernel(parse_kernel_source(std::string(kScale) + "// an edit\n", "scale.cu"));
    ASSERT_TRUE(s.run(unchecked()).ok());
    ASSERT_TRUE(s.run(unchecked()).ok());
    EXPECT_EQ(rig.backend->compiles, 2) << "one compile for the edit, none for the re-run of the same text";
    EXPECT_EQ(rig.backend->allocations, allocations);
    EXPECT_EQ(rig.backend->uploads - uploads, 2) << "two runs: each resets the output only";
}

TEST(RunReuse, ANewImageUploadsThatBufferOnly) {
    cp::test::TempDir dir;
    ASSERT_NO_FATAL_FAILURE(write_two_pictures(dir.path()));
    Rig rig;
    KernelSession s(*rig.engine);
    set_picture_copy(rig, s, dir.path());
    const RunReport first = s.run(unchecked());
    ASSERT_TRUE(first.ok()) << first.error->full();
    const int uploads = rig.backend->uploads, patterns = rig.backend->pattern_uploads;
    const int allocations = rig.backend->allocations;

    RunChoices c = s.choices();
    c.images["src"] = (dir.path() / "p1.png").string();
    s.set_choices(c);
    const RunReport second = s.run(unchecked());
    ASSERT_TRUE(second.ok()) << second.error->full();
    EXPECT_EQ(rig.backend->allocations, allocations) << "the same size keeps the buffers";
    EXPECT_EQ(rig.backend->uploads - uploads, 2) << "the new picture, and the output's reset";
    EXPECT_EQ(rig.backend->pattern_uploads - patterns, 1) << "of which the reset is a pattern";
    // What the kernel saw is the second picture.
    auto p1 = load_image(dir.path() / "p1.png");
    ASSERT_TRUE(p1.ok());
    const HostBuffer& out = second.outputs.at("dst");
    ASSERT_EQ(out.bytes.size(), p1->pixels.size());
    EXPECT_EQ(std::memcmp(out.bytes.data(), p1->pixels.data(), out.bytes.size()), 0);
}

TEST(RunReuse, ADeferredCheckRunsOnceAfterThePictureAndTheReferenceIsReusedForTheSameInputs) {
    Rig rig;
    KernelSession s(*rig.engine);
    ASSERT_NO_FATAL_FAILURE(set_vector_add(rig, s));
    RunOptions deferred;
    deferred.defer_check = true;
    RunReport r = s.run(deferred);
    ASSERT_TRUE(r.ok()) << r.error->full();
    EXPECT_TRUE(r.check_pending);
    EXPECT_FALSE(r.verified.has_value()) << "no verdict before the check";
    ASSERT_EQ(r.outputs.count("c"), 1u) << "the outputs the check needs were read back";
    auto checked = s.check(r);
    ASSERT_TRUE(checked);
    take_check(r, *checked);
    EXPECT_FALSE(r.check_pending);
    EXPECT_EQ(r.verified, std::optional<bool>(true)) << r.mismatch_detail;
    EXPECT_GT(r.reference_ms, 0) << "the reference ran for the first result";
    EXPECT_FALSE(s.check(r)) << "nothing pending: nothing runs again";

    RunReport again = s.run();  // the same inputs: the expected outputs are reused
    EXPECT_EQ(again.verified, std::optional<bool>(true));
    EXPECT_EQ(again.reference_ms, 0) << "the reference is not run again for the same inputs";

    // A wrong result is found by the deferred check, and the shown report takes the verdict.
    rig.backend->kernels["vector_add"] = [](const LaunchRequest& req, std::map<BufferId, std::vector<std::byte>>& m) {
        cp::test::vector_add(req, m);
        reinterpret_cast<float*>(m.at(req.args[2].buffer).data())[1000] += 1.0f;  // the last element, wrong
    };
    RunReport wrong = s.run(deferred);
    RunReport shown = wrong;
    auto wrong_check = s.check(wrong);
    ASSERT_TRUE(wrong_check);
    take_check(shown, *wrong_check);
    EXPECT_EQ(shown.verified, std::optional<bool>(false));
    EXPECT_EQ(shown.mismatched_elements, 1u);
    EXPECT_FALSE(shown.check_pending);
}

TEST(RunReuse, ACompareVariantOfTheSameFileBorrowsTheCompileAndTheInputs) {
    Rig rig;
    const KernelFile main_file = parse_kernel_source(kScale, "scale.cu");
    KernelSession main(*rig.engine);
    main.set_kernel(main_file);
    main.set_also_kernels({"scale_plus_one"});
    const RunReport m = main.run(unchecked());
    ASSERT_TRUE(m.ok()) << m.error->full();
    EXPECT_EQ(rig.backend->compiles, 1);
    EXPECT_EQ(rig.backend->last_compile.also_kernels, std::vector<std::string>{"scale_plus_one"});
    const int uploads = rig.backend->uploads, allocations = rig.backend->allocations;

    KernelSession variant(*rig.engine);
    variant.borrow_from(&main);
    variant.set_kernel(parse_kernel_source(kScale, "scale.cu", "scale_plus_one"));
    const RunReport v = variant.run(unchecked());
    ASSERT_TRUE(v.ok()) << v.error->full();
    EXPECT_EQ(rig.backend->compiles, 1) << "the variant was loaded by the main kernel's compile";
    EXPECT_EQ(v.usage.registers, 16) << "its own resources, not the main kernel's";
    EXPECT_EQ(rig.backend->allocations - allocations, 1) << "an output of its own, the input borrowed";
    EXPECT_EQ(rig.backend->uploads - uploads, 1) << "only its output's reset: the input is the main kernel's copy";
    // Both computed from the same x: variant = main + 1, and the main output is untouched by the variant.
    const std::vector<float> ym = floats(m.outputs.at("y")), yv = floats(v.outputs.at("y"));
    ASSERT_EQ(ym.size(), yv.size());
    for (size_t i = 0; i < ym.size(); ++i) ASSERT_FLOAT_EQ(yv[i], ym[i] + 1.0f) << i;

    // The main kernel edited: one compile for both again, and the variant follows it.
    const KernelFile edited = parse_kernel_source(std::string(kScale) + "// edit\n", "scale.cu");
    main.set_kernel(edited);
    ASSERT_TRUE(main.run(unchecked()).ok());
    variant.set_kernel(parse_kernel_source(edited.source, "scale.cu", "scale_plus_one"));
    ASSERT_TRUE(variant.run(unchecked()).ok());
    EXPECT_EQ(rig.backend->compiles, 2);

    // Without a lender the variant compiles on its own (as the CPU backend's variants do).
    variant.borrow_from(nullptr);
    ASSERT_TRUE(variant.run(unchecked()).ok());
    EXPECT_EQ(rig.backend->compiles, 3);
}

// --- The stages of a run (run_stage.h): each says whether it ran or reused its product, and why. ---

namespace {

// "stage: ran (reason)" or "stage: reused (reason)" for each stage of `r`, in order: one string to compare, so a
// failure shows the whole run.
std::string stages_of(const RunReport& r) {
    std::string s;
    for (const StageRun& e : r.stage_runs)
        s += e.stage + ": " + (e.reused ? "reused" : "ran") + " (" + e.reason + ")\n";
    return s;
}

}  // namespace

TEST(RunStages, TheFirstRunMakesEverythingAndSaysSo) {
    Rig rig;
    KernelSession s(*rig.engine);
    s.set_kernel(parse_kernel_source(kScale, "scale.cu"));
    const RunReport r = s.run(unchecked());
    ASSERT_TRUE(r.ok()) << r.error->full();
    EXPECT_EQ(stages_of(r),
              "compile: ran (first run)\n"
              "upload x: ran (first run)\n"
              "upload y: ran (first run)\n"
              "launch: ran (first run)\n"
              "read back: ran (new launch)\n");
}

TEST(RunStages, AScalarChangeRelaunchesWithoutUploadOrCompileAndSaysWhich) {
    Rig rig;
    KernelSession s(*rig.engine);
    s.set_kernel(parse_kernel_source(kScale, "scale.cu"));
    ASSERT_TRUE(s.run(unchecked()).ok());
    const int compiles = rig.backend->compiles, uploads = rig.backend->uploads, launches = rig.backend->launches;
    ASSERT_TRUE(s.set_param("a", "3.5").ok());
    const RunReport r = s.run(unchecked());
    ASSERT_TRUE(r.ok()) << r.error->full();
    EXPECT_EQ(stages_of(r),
              "compile: reused (unchanged)\n"
              "upload x: reused (unchanged)\n"
              "upload y: ran (reset: the kernel can write `y`)\n"
              "launch: ran (scalar a changed)\n"
              "read back: ran (new launch)\n");
    EXPECT_EQ(stage_runs_text(r.stage_runs),
              "redone: upload y (reset: the kernel can write `y`), launch (scalar a changed), read back (new launch); "
              "reused: compile, upload x");
    EXPECT_EQ(rig.backend->compiles, compiles);
    EXPECT_EQ(rig.backend->uploads - uploads, 1) << "the output's reset only";
    EXPECT_EQ(rig.backend->launches - launches, 1);
}

TEST(RunStages, AGridChangeRelaunchesWithoutReupload) {
    Rig rig;
    KernelSession s(*rig.engine);
    s.set_kernel(parse_kernel_source(kScale, "scale.cu"));
    ASSERT_TRUE(s.run(unchecked()).ok());
    const int compiles = rig.backend->compiles, uploads = rig.backend->uploads;
    const int allocations = rig.backend->allocations;
    RunChoices c = s.choices();
    c.grid = Dim3{9, 1, 1};  // 9 x 128 = 1152 threads for 1001 elements (the default is 8)
    s.set_choices(c);
    const RunReport r = s.run(unchecked());
    ASSERT_TRUE(r.ok()) << r.error->full();
    EXPECT_EQ(rig.backend->last_launch.grid.x, 9u);
    EXPECT_EQ(stages_of(r),
              "compile: reused (unchanged)\n"
              "upload x: reused (unchanged)\n"
              "upload y: ran (reset: the kernel can write `y`)\n"
              "launch: ran (grid changed)\n"
              "read back: ran (new launch)\n");
    EXPECT_EQ(rig.backend->compiles, compiles);
    EXPECT_EQ(rig.backend->allocations, allocations);
    EXPECT_EQ(rig.backend->uploads - uploads, 1);
}

TEST(RunStages, ASourceEditCompilesOnceAndTheLaunchSaysWhy) {
    Rig rig;
    KernelSession s(*rig.engine);
    s.set_kernel(parse_kernel_source(kScale, "scale.cu"));
    ASSERT_TRUE(s.run(unchecked()).ok());
    s.set_kernel(parse_kernel_source(std::string(kScale) + "// an edit\n", "scale.cu"));
    const RunReport edited = s.run(unchecked());
    ASSERT_TRUE(edited.ok()) << edited.error->full();
    EXPECT_EQ(stages_of(edited),
              "compile: ran (source changed)\n"
              "upload x: reused (unchanged)\n"
              "upload y: ran (reset: the kernel can write `y`)\n"
              "launch: ran (recompiled: source changed)\n"
              "read back: ran (new launch)\n");
    const RunReport again = s.run(unchecked());
    ASSERT_NE(again.stage_run("compile"), nullptr);
    EXPECT_TRUE(again.stage_run("compile")->reused);
    EXPECT_EQ(again.stage_run("launch")->reason, "run again: nothing it depends on changed");
    EXPECT_EQ(rig.backend->compiles, 2);
}

TEST(RunStages, ANewImageUploadsThatBufferAndSaysSo) {
    cp::test::TempDir dir;
    ASSERT_NO_FATAL_FAILURE(write_two_pictures(dir.path()));
    Rig rig;
    KernelSession s(*rig.engine);
    set_picture_copy(rig, s, dir.path());
    ASSERT_TRUE(s.run(unchecked()).ok());
    const int uploads = rig.backend->uploads, patterns = rig.backend->pattern_uploads;
    RunChoices c = s.choices();
    c.images["src"] = (dir.path() / "p1.png").string();
    s.set_choices(c);
    const RunReport r = s.run(unchecked());
    ASSERT_TRUE(r.ok()) << r.error->full();
    EXPECT_EQ(stages_of(r),
              "compile: reused (unchanged)\n"
              "upload src: ran (new image for `src`)\n"
              "upload dst: ran (reset: the kernel can write `dst`)\n"
              "launch: ran (new image for `src`)\n"
              "read back: ran (new launch)\n");
    EXPECT_EQ(rig.backend->uploads - uploads, 2);
    EXPECT_EQ(rig.backend->pattern_uploads - patterns, 1) << "the new picture whole, the reset as a pattern";
}

TEST(RunReuse, AnUncheckedRunSaysWhyInWordsAndAsTheCallersReason) {
    Rig rig;
    KernelSession s(*rig.engine);
    ASSERT_NO_FATAL_FAILURE(set_vector_add(rig, s));
    RunOptions live = unchecked();
    live.skipped_check_why = NotCheckedWhy::AfterEdit;
    live.skipped_check_reason = "edited";
    const RunReport r = s.run(live);
    ASSERT_TRUE(r.ok()) << r.error->full();
    EXPECT_EQ(check_state(r), CheckState::NotChecked);
    EXPECT_EQ(r.not_checked_why, NotCheckedWhy::AfterEdit);
    EXPECT_EQ(r.not_checked, "edited");
    // No reason of the caller's: skipped, in the session's words.
    const RunReport plain = s.run(unchecked());
    EXPECT_EQ(plain.not_checked_why, NotCheckedWhy::Skipped);
    EXPECT_FALSE(plain.not_checked.empty());
    const RunReport checked = s.run();
    EXPECT_EQ(checked.verified, std::optional<bool>(true));
    EXPECT_EQ(checked.not_checked_why, NotCheckedWhy::None);
}

TEST(RunStages, TheCheckRunsOncePerNewResultAndTheReferenceOncePerNewInputs) {
    Rig rig;
    KernelSession s(*rig.engine);
    ASSERT_NO_FATAL_FAILURE(set_vector_add(rig, s));
    RunOptions deferred;
    deferred.defer_check = true;
    RunReport r = s.run(deferred);
    ASSERT_TRUE(r.ok()) << r.error->full();
    EXPECT_EQ(r.stage_run("check"), nullptr) << "pending: not run with the picture";
    RunReport shown = r;
    auto checked = s.check(r);
    ASSERT_TRUE(checked);
    take_check(shown, *checked);
    ASSERT_NE(shown.stage_run("check"), nullptr) << stages_of(shown);
    EXPECT_EQ(shown.stage_run("reference")->reason, "first run");
    EXPECT_FALSE(s.check(shown)) << "the same result again, checked: nothing runs";

    const RunReport same = s.run();  // a new result of the same inputs: checked, the reference reused
    ASSERT_NE(same.stage_run("check"), nullptr) << stages_of(same);
    EXPECT_FALSE(same.stage_run("check")->reused);
    EXPECT_TRUE(same.stage_run("reference")->reused);
    EXPECT_EQ(same.reference_ms, 0);

    ASSERT_TRUE(s.set_param("n", "999").ok());
    const RunReport other = s.run();
    ASSERT_NE(other.stage_run("reference"), nullptr) << stages_of(other);
    EXPECT_FALSE(other.stage_run("reference")->reused);
    EXPECT_EQ(other.stage_run("reference")->reason, "scalar n changed");
    EXPECT_EQ(other.verified, std::optional<bool>(true)) << other.mismatch_detail;
}

TEST(RunStages, AViewSettingChangesNoStageItDoesNotFeed) {
    // How pictures come back (previews for a remote window) is a view setting: it re-reads, nothing else.
    Rig rig;
    KernelSession s(*rig.engine);
    s.set_kernel(parse_kernel_source(kScale, "scale.cu"));
    ASSERT_TRUE(s.run(unchecked()).ok());
    const int compiles = rig.backend->compiles, uploads = rig.backend->uploads;
    const int allocations = rig.backend->allocations;
    RunOptions previews = unchecked();
    previews.preview_max_width = 320;
    const RunReport r = s.run(previews);
    ASSERT_TRUE(r.ok()) << r.error->full();
    EXPECT_EQ(stages_of(r),
              "compile: reused (unchanged)\n"
              "upload x: reused (unchanged)\n"
              "upload y: ran (reset: the kernel can write `y`)\n"
              "launch: ran (run again: nothing it depends on changed)\n"
              "read back: ran (new launch)\n");
    EXPECT_EQ(rig.backend->compiles, compiles);
    EXPECT_EQ(rig.backend->allocations, allocations);
    EXPECT_EQ(rig.backend->uploads - uploads, 1) << "the output's reset only";
}

// --- The drivers over the stages: compare variants, steps, and the measurements' compiles. ---

namespace {

// y = a * x + k for four kernels (k = 0..3), and `scratch` = k, an output no view shows.
constexpr const char* kFour = R"(/*@playground
title: Scale four ways
kernel: scale0
param n: int = 1001
param a: float = 2
buffer x: float[n] in random(seed=5, min=-1, max=1)
buffer y: float[n] out zeros
buffer scratch: float[n] out zeros
block: 128
grid: ceil(n / block.x)
problem: n
view y: plot
compare: scale1 scale2 scale3
*/
extern "C" __global__ void scale0(const float* x, float* y, float* scratch, int n, float a) {}
extern "C" __global__ void scale1(const float* x, float* y, float* scratch, int n, float a) {}
extern "C" __global__ void scale2(const float* x, float* y, float* scratch, int n, float a) {}
extern "C" __global__ void scale3(const float* x, float* y, float* scratch, int n, float a) {}
)";

ScriptedBackend::KernelFn scale_plus(float k) {
    return [k](const LaunchRequest& req, std::map<BufferId, std::vector<std::byte>>& mem) {
        auto* x = reinterpret_cast<const float*>(mem.at(req.args[0].buffer).data());
        auto* y = reinterpret_cast<float*>(mem.at(req.args[1].buffer).data());
        auto* scratch = reinterpret_cast<float*>(mem.at(req.args[2].buffer).data());
        const int n = scalar<int>(req.args[3]);
        const float a = scalar<float>(req.args[4]);
        for (int i = 0; i < n; ++i) y[i] = a * x[i] + k, scratch[i] = k;
    };
}

// Full (not pattern) uploads: the ones that send an input's contents.
int full_uploads(const ScriptedBackend& b) {
    return b.uploads - b.pattern_uploads;
}

}  // namespace

TEST(RunDrivers, ThreeCompareVariantsLaunchOnTheMainRunsInputsAndReadBackOnlyWhatIsShown) {
    Rig rig;
    for (int k = 0; k < 4; ++k) rig.backend->kernels["scale" + std::to_string(k)] = scale_plus(float(k));
    KernelSession main(*rig.engine);
    main.set_kernel(parse_kernel_source(kFour, "four.cu"));
    CompareRunner compare(*rig.engine);
    main.set_also_kernels(compare.prepare(main.kernel(), main.kernel().spec.compare));
    const RunReport m = main.run(unchecked());
    ASSERT_TRUE(m.ok()) << m.error->full();
    EXPECT_EQ(full_uploads(*rig.backend), 1) << "the main run sends x; y and scratch are fill patterns";
    const int read_backs = rig.backend->read_backs;
    EXPECT_EQ(read_backs, 2) << "the main run reads both outputs (the inspector may show either)";

    std::vector<VariantRun> variants = compare.run(main, m, unchecked());
    ASSERT_EQ(variants.size(), 3u);
    EXPECT_EQ(rig.backend->compiles, 1) << "one compile loaded all four kernels";
    EXPECT_EQ(full_uploads(*rig.backend), 1) << "one upload of x for all four kernels";
    EXPECT_EQ(rig.backend->read_backs - read_backs, 3) << "each variant reads back y (shown), not scratch";
    EXPECT_EQ(rig.backend->launches, 4);
    const std::vector<float> ym = floats(m.outputs.at("y"));
    for (size_t v = 0; v < variants.size(); ++v) {
        ASSERT_TRUE(variants[v].report && variants[v].report->ok()) << variants[v].name;
        const RunReport& r = *variants[v].report;
        EXPECT_EQ(r.outputs.count("scratch"), 0u) << variants[v].name << ": not shown, not checked";
        EXPECT_EQ(stages_of(r),
                  "compile: reused (the main kernel's compile)\n"
                  "upload x: reused (the main kernel's copy)\n"
                  "upload y: ran (first run)\n"
                  "upload scratch: ran (first run)\n"
                  "launch: ran (first run)\n"
                  "read back: ran (new launch; not shown or checked, left on the device: `scratch`)\n")
            << variants[v].name;
        // Computed from the main run's x: y = main's y + k.
        const std::vector<float> yv = floats(r.outputs.at("y"));
        ASSERT_EQ(yv.size(), ym.size());
        for (size_t i = 0; i < ym.size(); ++i)
            ASSERT_FLOAT_EQ(yv[i], ym[i] + float(v + 1)) << variants[v].name << " " << i;
    }

    // The next frame (a slider moved): every kernel launches again, nothing is compiled or sent again.
    ASSERT_TRUE(main.set_param("a", "-1.5").ok());
    const int launches = rig.backend->launches;
    const RunReport m2 = main.run(unchecked());
    ASSERT_TRUE(m2.ok()) << m2.error->full();
    variants = compare.run(main, m2, unchecked());
    EXPECT_EQ(rig.backend->launches - launches, 4) << "a frame launches every kernel (its time is the picture's)";
    EXPECT_EQ(rig.backend->compiles, 1);
    EXPECT_EQ(full_uploads(*rig.backend), 1);
    ASSERT_TRUE(variants[2].report && variants[2].report->ok());
    EXPECT_EQ(variants[2].report->stage_run("launch")->reason, "scalar a changed");
    const std::vector<float> y3 = floats(variants[2].report->outputs.at("y")), y0 = floats(m2.outputs.at("y"));
    for (size_t i = 0; i < y0.size(); ++i) ASSERT_FLOAT_EQ(y3[i], y0[i] + 3.0f) << i;
}

TEST(RunDrivers, StepsCompileEachKernelOnceAsAStageAndRelaunchOnTheSameBuffers) {
    const std::string source =
        "/*@playground\ntitle: Steps\nparam n: int = 1001\nparam s: float = 2\n"
        "buffer a: float[n] in random(seed=7)\nbuffer b: float[n] out zeros\nblock: 128\n"
        "grid: ceil(n / block.x)\nstep: first\nstep: second repeat=2\n*/\n"
        "extern \"C\" __global__ void first(const float* a, float* b, int n) {}\n"
        "extern \"C\" __global__ void second(float* b, float s, int n) {}\n";
    Rig rig;
    rig.backend->kernels["first"] = [](const LaunchRequest& req, std::map<BufferId, std::vector<std::byte>>& mem) {
        const auto& a = mem.at(req.args[0].buffer);
        auto& b = mem.at(req.args[1].buffer);
        std::copy(a.begin(), a.end(), b.begin());
    };
    rig.backend->kernels["second"] = [](const LaunchRequest& req, std::map<BufferId, std::vector<std::byte>>& mem) {
        auto* b = reinterpret_cast<float*>(mem.at(req.args[0].buffer).data());
        const float s = scalar<float>(req.args[1]);
        const int n = scalar<int>(req.args[2]);
        for (int i = 0; i < n; ++i) b[i] *= s;
    };
    KernelSession s(*rig.engine);
    s.set_kernel(parse_kernel_source(source, "steps.cu"));
    const RunReport first = s.run(unchecked());
    ASSERT_TRUE(first.ok()) << first.error->full();
    EXPECT_EQ(stages_of(first),
              "compile: ran (first run)\n"
              "compile step second: ran (first run)\n"
              "upload a: ran (first run)\n"
              "upload b: ran (first run)\n"
              "launch: ran (first run)\n"
              "read back: ran (new launch)\n");
    EXPECT_EQ(rig.backend->compiles, 2);
    EXPECT_EQ(rig.backend->launches, 3) << "first once, second twice";
    const int uploads = rig.backend->uploads, allocations = rig.backend->allocations;

    ASSERT_TRUE(s.set_param("s", "3").ok());
    const RunReport second = s.run(unchecked());
    ASSERT_TRUE(second.ok()) << second.error->full();
    EXPECT_EQ(stages_of(second),
              "compile: reused (unchanged)\n"
              "compile step second: reused (unchanged)\n"
              "upload a: reused (unchanged)\n"
              "upload b: ran (reset: the kernel can write `b`)\n"
              "launch: ran (scalar s changed)\n"
              "read back: ran (new launch)\n");
    EXPECT_EQ(rig.backend->compiles, 2);
    EXPECT_EQ(rig.backend->allocations, allocations);
    EXPECT_EQ(rig.backend->uploads - uploads, 1) << "b's reset only";
    EXPECT_EQ(rig.backend->launches, 6);
    // b = a * s * s: 4a, then 9a.
    const std::vector<float> b1 = floats(first.outputs.at("b")), b2 = floats(second.outputs.at("b"));
    ASSERT_EQ(b1.size(), 1001u);
    for (size_t i = 0; i < b1.size(); ++i) ASSERT_FLOAT_EQ(b2[i], b1[i] / 4.0f * 9.0f) << i;

    s.set_kernel(parse_kernel_source(source + "// an edit\n", "steps.cu"));
    const RunReport edited = s.run(unchecked());
    ASSERT_TRUE(edited.ok()) << edited.error->full();
    EXPECT_EQ(edited.stage_run("compile step second")->reason, "source changed");
    EXPECT_EQ(rig.backend->compiles, 4) << "one compile per kernel for the edit";
}

namespace {
// A backend whose traces need a module of their own, as the CUDA backend's do.
struct TracingBackend : ScriptedBackend {
    InfoResult info() override {
        InfoResult r = ScriptedBackend::info();
        r.device.caps.trace_needs_instrumented_module = true;
        return r;
    }
};
}  // namespace

TEST(RunDrivers, TheMeasurementsCompilesAreStagesWithTheirReasons) {
    auto owned = std::make_unique<TracingBackend>();
    TracingBackend& backend = *owned;
    backend.kernels["scale"] = scale_by(0);
    Engine engine(std::move(owned));
    KernelSession s(engine);
    s.set_kernel(parse_kernel_source(kScale, "scale.cu"));
    RunOptions traced = unchecked();
    traced.trace = true;
    const RunReport first = s.run(traced);
    ASSERT_TRUE(first.ok()) << first.error->full();
    ASSERT_NE(first.stage_run("compile trace"), nullptr) << stages_of(first);
    EXPECT_FALSE(first.stage_run("compile trace")->reused);
    EXPECT_EQ(first.stage_run("compile trace")->reason, "first run");
    EXPECT_TRUE(backend.last_compile.instrument_trace) << "the trace's own module";
    EXPECT_EQ(backend.compiles, 2);

    const RunReport again = s.run(traced);
    ASSERT_TRUE(again.ok()) << again.error->full();
    ASSERT_NE(again.stage_run("compile trace"), nullptr) << stages_of(again);
    EXPECT_TRUE(again.stage_run("compile trace")->reused);
    EXPECT_EQ(backend.compiles, 2) << "the traced module is kept for the same text";

    s.set_kernel(parse_kernel_source(std::string(kScale) + "// an edit\n", "scale.cu"));
    const RunReport edited = s.run(traced);
    ASSERT_TRUE(edited.ok()) << edited.error->full();
    EXPECT_EQ(edited.stage_run("compile trace")->reason, "source changed");
    EXPECT_EQ(backend.compiles, 4);

    // The recording's compile is said even when this backend then refuses to record.
    RunOptions recorded = unchecked();
    recorded.memory = true;
    const RunReport memory = s.run(recorded);
    EXPECT_FALSE(memory.ok());
    ASSERT_NE(memory.stage_run("compile memory"), nullptr) << stages_of(memory);
    EXPECT_EQ(memory.stage_run("compile memory")->reason, "first run");
    EXPECT_EQ(s.run(recorded).stage_run("compile memory")->reused, true);
    EXPECT_EQ(backend.compiles, 5);

    // A plain run has no measurement, so no such entry.
    EXPECT_EQ(s.run(unchecked()).stage_run("compile trace"), nullptr);

    // Coverage counts each element's writers with a variant whose text holds the outputs' sizes.
    RunOptions covered = unchecked();
    covered.coverage = true;
    const RunReport counted = s.run(covered);
    ASSERT_TRUE(counted.ok()) << counted.error->full();
    ASSERT_NE(counted.stage_run("compile counting"), nullptr) << stages_of(counted);
    EXPECT_EQ(counted.stage_run("compile counting")->reason, "first run");
    const int compiles = backend.compiles;
    const RunReport same = s.run(covered);
    ASSERT_NE(same.stage_run("compile counting"), nullptr) << stages_of(same);
    EXPECT_TRUE(same.stage_run("compile counting")->reused);
    EXPECT_EQ(backend.compiles, compiles);
    ASSERT_TRUE(s.set_param("n", "999").ok());
    const RunReport resized = s.run(covered);
    ASSERT_NE(resized.stage_run("compile counting"), nullptr) << stages_of(resized);
    EXPECT_EQ(resized.stage_run("compile counting")->reason, "output sizes changed (the counting variant holds them)");
    EXPECT_EQ(backend.compiles, compiles + 1) << "the counting variant only: the kernel's text is the same";
}

namespace {
// y = s * x, split over the devices there are.
const std::string kSplit =
    "/*@playground\ntitle: Split\nparam n: int = 1001\nparam s: float = 2\n"
    "buffer x: float[n] in random(seed=11)\nbuffer y: float[n] out zeros\nblock: 128\n"
    "grid: ceil(n / block.x)\ndevices: all over n\n*/\n"
    "extern \"C\" __global__ void k(const float* x, float* y, int n, float s) {}\n";

void scale_part(const LaunchRequest& req, std::map<BufferId, std::vector<std::byte>>& mem) {
    auto* x = reinterpret_cast<const float*>(mem.at(req.args[0].buffer).data());
    auto* y = reinterpret_cast<float*>(mem.at(req.args[1].buffer).data());
    const int n = scalar<int>(req.args[2]);
    const float s = scalar<float>(req.args[3]);
    for (int i = 0; i < n; ++i) y[i] = s * x[i];
}

// The second device of a split: a scripted backend that says it is device 1.
struct SecondDevice : ScriptedBackend {
    InfoResult info() override {
        InfoResult r = ScriptedBackend::info();
        r.device.ordinal = 1;
        return r;
    }
};
}  // namespace

TEST(RunDrivers, ADevicesSplitCompilesOncePerDeviceAsAStageOfItsOwn) {
    Rig rig;
    rig.backend->kernels["k"] = scale_part;
    SecondDevice* second_device = nullptr;
    KernelSession session(*rig.engine);
    session.use_devices(2, [&second_device](int) -> Result<std::unique_ptr<Engine>> {
        auto backend = std::make_unique<SecondDevice>();
        backend->kernels["k"] = scale_part;
        second_device = backend.get();
        return std::make_unique<Engine>(std::move(backend));
    });
    session.set_kernel(parse_kernel_source(kSplit, "split.cu"));
    const RunReport first = session.run(unchecked());
    ASSERT_TRUE(first.ok()) << first.error->full();
    ASSERT_TRUE(first.device_split.has_value());
    ASSERT_EQ(first.device_split->parts.size(), 2u);
    ASSERT_NE(second_device, nullptr);
    ASSERT_NE(first.stage_run("compile device 1"), nullptr) << stages_of(first);
    EXPECT_EQ(first.stage_run("compile device 1")->reason, "first run");
    EXPECT_EQ(second_device->compiles, 1);

    ASSERT_TRUE(session.set_param("s", "3").ok());
    const RunReport second = session.run(unchecked());
    ASSERT_TRUE(second.ok()) << second.error->full();
    EXPECT_EQ(stages_of(second),
              "compile: reused (unchanged)\n"
              "compile device 1: reused (unchanged)\n"
              "device parts: ran (2 part(s): each allocates, uploads, launches and reads back every run)\n");
    EXPECT_EQ(second_device->compiles, 1) << "the second device's module is kept for the same text";
    // Both halves put back where they belong: s went from 2 to 3.
    const std::vector<float> y1 = floats(first.outputs.at("y")), y2 = floats(second.outputs.at("y"));
    ASSERT_EQ(y2.size(), 1001u);
    for (size_t i = 0; i < y2.size(); ++i) ASSERT_FLOAT_EQ(y2[i], y1[i] / 2.0f * 3.0f) << i;

    session.set_kernel(parse_kernel_source(kSplit + "// an edit\n", "split.cu"));
    const RunReport edited = session.run(unchecked());
    ASSERT_TRUE(edited.ok()) << edited.error->full();
    ASSERT_NE(edited.stage_run("compile device 1"), nullptr) << stages_of(edited);
    EXPECT_EQ(edited.stage_run("compile device 1")->reason, "source changed");
    EXPECT_EQ(second_device->compiles, 2);
}

TEST(RunDrivers, ADevicesSplitGoesThroughTheSameCompileAndSaysItsPartsAreMadeEveryRun) {
    const std::string& source = kSplit;
    Rig rig;
    std::vector<float> seen_x;  // what the part's kernel read, to compute the expected output here
    rig.backend->kernels["k"] = [&seen_x](const LaunchRequest& req, std::map<BufferId, std::vector<std::byte>>& mem) {
        const auto& xb = mem.at(req.args[0].buffer);
        seen_x.assign(xb.size() / sizeof(float), 0.0f);
        std::memcpy(seen_x.data(), xb.data(), xb.size());
        auto* y = reinterpret_cast<float*>(mem.at(req.args[1].buffer).data());
        const int n = scalar<int>(req.args[2]);
        const float s = scalar<float>(req.args[3]);
        for (int i = 0; i < n; ++i) y[i] = s * seen_x[size_t(i)];
    };
    KernelSession session(*rig.engine);
    session.set_kernel(parse_kernel_source(source, "split.cu"));
    ASSERT_TRUE(session.kernel().spec.devices.enabled()) << "the file must take the devices driver";
    const RunReport first = session.run(unchecked());
    ASSERT_TRUE(first.ok()) << first.error->full();
    ASSERT_TRUE(first.device_split.has_value());
    EXPECT_EQ(stages_of(first),
              "compile: ran (first run)\n"
              "device parts: ran (1 part(s): each allocates, uploads, launches and reads back every run)\n");
    const std::vector<float> y = floats(first.outputs.at("y"));
    ASSERT_EQ(y.size(), 1001u);
    ASSERT_EQ(seen_x.size(), 1001u);
    for (size_t i = 0; i < y.size(); ++i) ASSERT_FLOAT_EQ(y[i], 2.0f * seen_x[i]) << i;

    ASSERT_TRUE(session.set_param("s", "3").ok());
    const int compiles = rig.backend->compiles;
    const RunReport second = session.run(unchecked());
    ASSERT_TRUE(second.ok()) << second.error->full();
    EXPECT_TRUE(second.stage_run("compile")->reused);
    EXPECT_EQ(rig.backend->compiles, compiles) << "the same compile stage as any run: kept for the same text";
    const std::vector<float> y2 = floats(second.outputs.at("y"));
    for (size_t i = 0; i < y2.size(); ++i) ASSERT_FLOAT_EQ(y2[i], 3.0f * seen_x[i]) << i;
}
