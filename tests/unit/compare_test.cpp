// Comparisons (issue 8 item 4): the `compare:` header key (accepted, an unknown kernel named with its line and a
// did-you-mean, a name twice, the main kernel itself, a variant that does not fit the header), turning variant
// names into kernel files, carrying the main kernel's choices over, and the speed ratio's words.
#include "core/session/variants.h"
#include "support/process.h"
#include "unit/diagnostics_text.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include "test_paths.h"

namespace cp {
namespace {

using test::dump;
using test::errors_of;

const std::filesystem::path kScale = std::filesystem::path(CP_TEST_DATA_DIR) / "compare" / "scale.cu";

std::string scale_source() {
    return test::read_file(kScale);
}

// The scale lesson with its `compare:` line replaced by `line` (empty: removed).
std::string with_compare(const std::string& line) {
    std::string s = scale_source();
    const size_t at = s.find("compare: scale_rows\n");
    s.replace(at, std::string("compare: scale_rows\n").size(), line.empty() ? "" : line + "\n");
    return s;
}

int line_of(const std::string& source, const std::string& text) {
    const size_t at = source.find(text);
    return 1 + int(std::count(source.begin(), source.begin() + long(at), '\n'));
}

TEST(CompareHeader, KernelsOfTheFileAndFilesAreAccepted) {
    const std::string src = with_compare("compare: scale_rows  scale_wrong matrix/tiled_matmul other.cu");
    const KernelFile f = parse_kernel_source(src, "scale.cu");
    EXPECT_TRUE(errors_of(f).empty()) << dump(f);
    EXPECT_EQ(f.spec.compare,
              (std::vector<std::string>{"scale_rows", "scale_wrong", "matrix/tiled_matmul", "other.cu"}));
    EXPECT_EQ(f.spec.compare_line, line_of(src, "compare:"));
    EXPECT_TRUE(variant_names_a_file("matrix/tiled_matmul"));
    EXPECT_TRUE(variant_names_a_file("other.cu"));
    EXPECT_FALSE(variant_names_a_file("scale_rows"));
    EXPECT_FALSE(variant_names_a_file("reduce<float, 256>"));
}

TEST(CompareHeader, AnUnknownKernelIsNamedWithItsLineADidYouMeanAndTheFix) {
    const std::string src = with_compare("compare: scale_rws");
    const KernelFile f = parse_kernel_source(src, "scale.cu");
    const auto errors = errors_of(f);
    ASSERT_EQ(errors.size(), 1u) << dump(f);
    EXPECT_EQ(errors[0].line, line_of(src, "compare:"));
    EXPECT_NE(errors[0].message.find("`compare: scale_rws` names no `__global__` function"), std::string::npos)
        << errors[0].message;
    EXPECT_NE(errors[0].message.find("Did you mean `scale_rows`?"), std::string::npos) << errors[0].message;
    EXPECT_NE(errors[0].message.find("List kernels of this file or files"), std::string::npos) << errors[0].message;
}

TEST(CompareHeader, ANameTwiceTheKeyTwiceTheMainKernelAndNonsenseAreErrors) {
    {
        const std::string src = with_compare("compare: scale_rows scale_rows");
        const auto errors = errors_of(parse_kernel_source(src, "scale.cu"));
        ASSERT_EQ(errors.size(), 1u);
        EXPECT_EQ(errors[0].line, line_of(src, "compare:"));
        EXPECT_NE(errors[0].message.find("lists `scale_rows` twice"), std::string::npos) << errors[0].message;
    }
    {
        const std::string src = with_compare("compare: scale_rows\ncompare: scale_wrong");
        const auto errors = errors_of(parse_kernel_source(src, "scale.cu"));
        ASSERT_EQ(errors.size(), 1u);
        EXPECT_EQ(errors[0].line, line_of(src, "compare: scale_wrong"));
        EXPECT_NE(errors[0].message.find("given twice"), std::string::npos) << errors[0].message;
    }
    {
        const std::string src = with_compare("compare: scale_2d");
        const auto errors = errors_of(parse_kernel_source(src, "scale.cu"));
        ASSERT_EQ(errors.size(), 1u);
        EXPECT_NE(errors[0].message.find("names the kernel this file runs"), std::string::npos) << errors[0].message;
    }
    {
        const std::string src = with_compare("compare: 3rows");
        const auto errors = errors_of(parse_kernel_source(src, "scale.cu"));
        ASSERT_EQ(errors.size(), 1u);
        EXPECT_NE(errors[0].message.find("`3rows` is neither"), std::string::npos) << errors[0].message;
    }
}

TEST(CompareHeader, AVariantWhoseParametersDoNotFitTheHeaderSaysSo) {
    std::string src = with_compare("compare: scale_int");
    src.insert(src.find("#ifdef PLAYGROUND_REFERENCE"),
               "extern \"C\" __global__ void scale_int(const int* in, float* out, int width, int height) { }\n");
    const auto errors = errors_of(parse_kernel_source(src, "scale.cu"));
    ASSERT_EQ(errors.size(), 1u);
    EXPECT_EQ(errors[0].line, line_of(src, "compare:"));
    EXPECT_NE(errors[0].message.find("does not fit it"), std::string::npos) << errors[0].message;
}

TEST(Variants, ASameFileKernelKeepsTheHeaderAndAFileIsReadFromBesideTheLesson) {
    test::TempDir dir;
    std::ofstream(dir.path() / "scale.cu") << scale_source();
    std::string other = scale_source();
    other.replace(other.find("kernel: scale_2d"), 16, "kernel: scale_rows");
    other.replace(other.find("compare: scale_rows\n"), 20, "");
    std::ofstream(dir.path() / "rows.cu") << other;
    auto main = load_kernel_file(dir.path() / "scale.cu");
    ASSERT_TRUE(main.ok());

    auto same = load_variant(*main, "scale_rows", "--compare scale_rows");
    ASSERT_TRUE(same.ok()) << same.error().full();
    ASSERT_TRUE(same->signature);
    EXPECT_EQ(same->signature->name, "scale_rows");
    EXPECT_EQ(same->spec.buffers.size(), main->spec.buffers.size());
    EXPECT_TRUE(same->spec.compare.size() == 1 && !has_errors(same->diagnostics)) << dump(*same);

    auto file = load_variant(*main, "rows.cu", "--compare rows.cu");
    ASSERT_TRUE(file.ok()) << file.error().full();
    EXPECT_EQ(file->path, dir.path() / "rows.cu");
    EXPECT_EQ(file->signature->name, "scale_rows");

    auto missing = load_variant(*main, "scale_rws", "--compare scale_rws");
    ASSERT_FALSE(missing.ok());
    EXPECT_EQ(missing.error().kind, ErrorKind::UserInput) << missing.error().full();
    // It names the option and value it refuses, and the hint the closest kernel of the file.
    EXPECT_NE(missing.error().message.find("--compare scale_rws"), std::string::npos) << missing.error().message;
    EXPECT_NE(missing.error().hint.find("`scale_rows`"), std::string::npos) << missing.error().hint;

    const auto listed = header_variants(*main);
    ASSERT_EQ(listed.size(), 1u);
    EXPECT_EQ(listed[0].first, "scale_rows");
    EXPECT_TRUE(listed[0].second.ok());
}

TEST(Variants, AKernelWithLaunchBoundsIsFoundInTheSameFile) {
    std::string src = scale_source();
    src.replace(src.find("__global__ void scale_rows"), 26, "__global__ void __launch_bounds__(256) scale_rows");
    const KernelFile main = parse_kernel_source(src, kScale);
    ASSERT_FALSE(has_errors(main.diagnostics)) << dump(main);
    auto v = load_variant(main, "scale_rows", "--compare scale_rows");
    ASSERT_TRUE(v.ok()) << v.error().full();
    ASSERT_TRUE(v->signature);
    EXPECT_EQ(v->signature->name, "scale_rows");
}

TEST(Variants, ChoicesCarryOverAndAnotherFileKeepsItsOwnLaunchButGetsTheSameParameters) {
    const KernelFile main = parse_kernel_source(scale_source(), kScale);
    RunChoices chosen;
    chosen.params["width"] = 41;
    chosen.block = Dim3{8, 8, 1};
    chosen.until_step = 1;
    const KernelFile same = parse_kernel_source(scale_source(), kScale, "scale_rows");
    ResolvedRun resolved;
    resolved.params = {{"width", 41}, {"height", 23}};
    RunChoices c = variant_choices(main, chosen, &resolved, same);
    EXPECT_EQ(c.params, (std::map<std::string, double>{{"width", 41}}));  // the same header: its own defaults apply
    ASSERT_TRUE(c.block);
    EXPECT_EQ(c.block->x, 8u);
    EXPECT_FALSE(c.until_step);

    std::string other_text = scale_source();
    other_text.replace(other_text.find("param width"), 11, "param cols");
    const KernelFile other = parse_kernel_source(other_text, "/elsewhere/other.cu");
    c = variant_choices(main, chosen, &resolved, other);
    EXPECT_FALSE(c.block) << "another file keeps its own block";
    // Only the parameters it has, at the values main's run resolved (its own default for height would be the same
    // here, but a chosen value must not be lost to it).
    EXPECT_EQ(c.params, (std::map<std::string, double>{{"height", 23}})) << "only the parameters it has";
}

TEST(Variants, TheSpeedRatioInWords) {
    RunReport a, b;
    a.kernel = "matmul_naive";
    b.kernel = "matmul_tiled";
    a.launched = b.launched = true;
    // Five repeats each, 2% apart: a spread of 2% a run (the middle half), 4% for the ratio.
    a.timing = TimingStats::from_samples({4.214, 4.257, 4.3, 4.343, 4.386}, false);
    b.timing = TimingStats::from_samples({0.98, 0.99, 1.0, 1.01, 1.02}, false);
    EXPECT_EQ(speedup_text(a, b), "matmul_tiled: 4.3x faster than matmul_naive ± 4%");
    EXPECT_EQ(speedup_text(b, a), "matmul_naive: 4.3x slower than matmul_tiled ± 4%");
    // The words of the verdict with and without the kernel compared with (`run --compare` names it apart).
    const auto v = speedup_verdict(a, b);
    ASSERT_TRUE(v);
    EXPECT_EQ(speedup_words(*v), "4.3x faster ± 4%");
    EXPECT_EQ(speedup_words(*v, "slower_naive"), "4.3x faster than slower_naive ± 4%");
    SpeedupVerdict once = *v;
    once.samples = 1;
    EXPECT_EQ(speedup_words(once, "k"), "4.3x faster than k (one launch each: the spread is not known)");
    b.launched = false;
    EXPECT_EQ(speedup_text(a, b), "");
    EXPECT_FALSE(speedup(a, b));
    EXPECT_FALSE(speedup_verdict(a, b));
}

// The spread of a run: the middle half of its repeats over their median, computed here from the sorted samples.
double iqr_over_median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    auto q = [&v](double f) {
        const double at = f * double(v.size() - 1);
        const size_t lo = size_t(std::floor(at));
        return lo + 1 < v.size() ? v[lo] + (at - double(lo)) * (v[lo + 1] - v[lo]) : v[lo];
    };
    return (q(0.75) - q(0.25)) / q(0.5);
}

TEST(Variants, ADifferenceInsideTheSpreadOfTheRepeatsIsTheSameWithinNoise) {
    RunReport a, b;
    a.kernel = "k1";
    b.kernel = "k2";
    a.launched = b.launched = true;
    // Short kernels as on the H100 (6-7 us), noisy: medians 6.6 and 6.25 us, ratio 1.056.
    const std::vector<double> sa = {0.0061, 0.0072, 0.0066, 0.0063, 0.0070, 0.0059, 0.0068};
    const std::vector<double> sb = {0.0058, 0.0066, 0.0062, 0.0065, 0.0060, 0.0069, 0.00625};
    a.timing = TimingStats::from_samples(sa, false);
    b.timing = TimingStats::from_samples(sb, false);
    const auto v = speedup_verdict(a, b);
    ASSERT_TRUE(v);
    const double ratio = a.timing.median_ms / b.timing.median_ms;
    const double spread = iqr_over_median(sa) + iqr_over_median(sb);
    EXPECT_DOUBLE_EQ(v->ratio, ratio);
    EXPECT_NEAR(v->spread, spread, 1e-12);
    ASSERT_LT(ratio - 1, spread) << "the test's figures must make a difference inside the spread";
    EXPECT_TRUE(v->within_noise);
    EXPECT_EQ(v->samples, 7);
    char expected[128];
    std::snprintf(expected, sizeof expected, "k2: %.3gx faster than k1 ± %.0f%%: the same within noise", ratio,
                  spread * 100);
    EXPECT_EQ(speedup_text(a, b), expected);

    // The same medians with tight repeats: a real difference, said without "noise".
    const std::vector<double> ta = {0.00658, 0.0066, 0.00662, 0.0066, 0.00659};
    const std::vector<double> tb = {0.00624, 0.00625, 0.00626, 0.00625, 0.00624};
    a.timing = TimingStats::from_samples(ta, false);
    b.timing = TimingStats::from_samples(tb, false);
    const auto w = speedup_verdict(a, b);
    ASSERT_TRUE(w);
    EXPECT_FALSE(w->within_noise);
    EXPECT_NEAR(w->spread, iqr_over_median(ta) + iqr_over_median(tb), 1e-12);
    EXPECT_EQ(speedup_text(a, b).find("noise"), std::string::npos) << speedup_text(a, b);

    // Slower within noise says so too; one launch each says the spread is unknown rather than judging.
    a.timing = TimingStats::from_samples(sb, false);
    b.timing = TimingStats::from_samples(sa, false);
    EXPECT_NE(speedup_text(a, b).find("slower than k1 ± "), std::string::npos) << speedup_text(a, b);
    EXPECT_NE(speedup_text(a, b).find(": the same within noise"), std::string::npos) << speedup_text(a, b);
    a.timing = TimingStats::from_samples({0.0066}, false);
    b.timing = TimingStats::from_samples({0.0062}, false);
    EXPECT_FALSE(speedup_verdict(a, b)->within_noise);
    EXPECT_NE(speedup_text(a, b).find("the spread is not known"), std::string::npos) << speedup_text(a, b);
}

// Repeats spread over more than half their median (as a CPU emulation's short launches on a busy machine): no ratio
// is told, however far apart the medians (it read "2.28x slower ± 111%" as a finding, and "1.35x ± 109%: the same
// within noise"); both on the CPU backend, the headline says the times are the emulation's.
TEST(Speedup, RepeatsThatSpreadOverHalfTheirMedianAreTooNoisyToTell) {
    RunReport a, b;
    a.kernel = "k1";
    b.kernel = "k2";
    a.launched = b.launched = true;
    a.backend = b.backend = "cpu";
    const std::vector<double> sa = {1.0, 2.0, 3.0, 4.0, 5.0}, sb = {2.0, 4.5, 6.0, 8.0, 11.0};
    a.timing = TimingStats::from_samples(sa, false);
    b.timing = TimingStats::from_samples(sb, false);
    const auto v = speedup_verdict(a, b);
    ASSERT_TRUE(v);
    ASSERT_GE(iqr_over_median(sa) + iqr_over_median(sb), 0.5) << "the test's figures must spread that far";
    EXPECT_TRUE(v->too_noisy);
    EXPECT_FALSE(v->within_noise);
    EXPECT_TRUE(v->emulated);
    // Tight repeats on a GPU backend: a finding, not emulated.
    a.backend = b.backend = "cuda";
    a.timing = TimingStats::from_samples({1.0, 1.01, 1.0, 0.99, 1.0}, false);
    b.timing = TimingStats::from_samples({2.0, 2.01, 2.0, 1.99, 2.0}, false);
    const auto w = speedup_verdict(a, b);
    ASSERT_TRUE(w);
    EXPECT_FALSE(w->too_noisy);
    EXPECT_FALSE(w->within_noise);
    EXPECT_FALSE(w->emulated);
}

}  // namespace
}  // namespace cp
