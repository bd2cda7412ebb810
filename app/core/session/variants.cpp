// Turning a comparison's variant names into kernel files, translating the main kernel's choices for them, and
// the speed ratio (variants.h).
#include "core/session/variants.h"

#include "core/kernel_file/kernel_scan.h"
#include "core/text_util.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace cp {

namespace fs = std::filesystem;

namespace {

// The names of the file's __global__ functions (the scan every part of the app uses).
std::vector<std::string> kernel_names(const KernelFile& main) {
    std::vector<std::string> names;
    for (const ScannedKernel& k : scan_kernels(main.source).kernels)
        if (std::find(names.begin(), names.end(), k.name) == names.end()) names.push_back(k.name);
    return names;
}

bool is_file(const fs::path& p) {
    std::error_code ec;
    return fs::is_regular_file(p, ec);
}

// A variant file: next to main's file, as given (the working folder), then in the library.
std::optional<fs::path> find_variant_file(const KernelFile& main, const std::string& variant) {
    const fs::path given(variant);
    std::vector<fs::path> tries;
    if (!main.path.empty() && given.is_relative()) {
        tries.push_back(main.path.parent_path() / given);
        tries.push_back(main.path.parent_path() / (variant + ".cu"));
    }
    tries.push_back(given);
    const fs::path lib = kernels_dir();
    tries.push_back(lib / given);
    tries.push_back(lib / (variant + ".cu"));
    for (const fs::path& p : tries)
        if (is_file(p)) return p;
    if (given.parent_path().empty()) {
        // A bare library name such as `matmul_tiled`: search the library's folders.
        std::error_code ec;
        for (auto it = fs::recursive_directory_iterator(lib, ec); !ec && it != fs::recursive_directory_iterator();
             it.increment(ec))
            if (it->path().extension() == ".cu" && (it->path().stem() == variant || it->path().filename() == variant))
                return it->path();
    }
    return std::nullopt;
}

}  // namespace

Result<KernelFile> load_variant(const KernelFile& main, const std::string& variant, const std::string& where) {
    const std::vector<std::string> names = kernel_names(main);
    const std::string base = variant.substr(0, variant.find('<'));
    if (!variant_names_a_file(variant) && std::find(names.begin(), names.end(), base) != names.end())
        return parse_kernel_source(main.source, main.path, variant);
    if (auto path = find_variant_file(main, variant)) {
        if (*path == main.path) return parse_kernel_source(main.source, main.path, variant);
        return load_kernel_file(*path);
    }
    std::string hint = "give another kernel of " + main.path.filename().string() + " (" + join(names, ", ") +
                       "), a .cu file (next to it or a path) or a library name such as matrix/matmul_tiled";
    if (const std::string guess = closest_name(base, names); !guess.empty() && guess != base)
        hint = "did you mean `" + guess + "`? Or " + hint;
    else if (const std::string lib = closest_library_kernel(variant); !lib.empty())
        hint = "did you mean `" + lib + "`? Or " + hint;
    return make_error(ErrorKind::UserInput,
                      where + ": no kernel of that name in " + main.path.filename().string() + " and no such file",
                      hint);
}

std::vector<std::pair<std::string, Result<KernelFile>>> header_variants(const KernelFile& main) {
    std::vector<std::pair<std::string, Result<KernelFile>>> out;
    for (const std::string& v : main.spec.compare)
        out.emplace_back(
            v, load_variant(main, v, "`compare: " + v + "` (line " + std::to_string(main.spec.compare_line) + ")"));
    return out;
}

RunChoices variant_choices(const KernelFile& main, const RunChoices& main_choices, const ResolvedRun* main_resolved,
                           const KernelFile& variant) {
    RunChoices c = main_choices;
    c.until_step.reset();
    if (variant.path != main.path) {
        c.block.reset();
        c.grid.reset();
        if (main_resolved)
            for (const auto& [name, value] : main_resolved->params)
                if (const ParamSpec* p = main.param(name); p && !p->derived) c.params.emplace(name, value);
    }
    c.keep_only_those_of(variant);
    return c;
}

std::optional<double> speedup(const RunReport& main, const RunReport& variant) {
    if (!main.launched || !variant.launched || variant.timing.median_ms <= 0 || main.timing.median_ms <= 0)
        return std::nullopt;
    return main.timing.median_ms / variant.timing.median_ms;
}

double relative_spread(const TimingStats& timing) {
    std::vector<double> v = timing.samples_ms;
    if (v.size() < 2 || timing.median_ms <= 0) return 0;
    std::sort(v.begin(), v.end());
    if (v.size() < 4) return (v.back() - v.front()) / timing.median_ms;
    auto quantile = [&v](double q) {  // linear between the nearest ranks
        const double at = q * double(v.size() - 1);
        const size_t lo = size_t(at);
        const double frac = at - double(lo);
        return lo + 1 < v.size() ? v[lo] + frac * (v[lo + 1] - v[lo]) : v[lo];
    };
    return (quantile(0.75) - quantile(0.25)) / timing.median_ms;
}

std::optional<SpeedupVerdict> speedup_verdict(const RunReport& main, const RunReport& variant) {
    const auto ratio = speedup(main, variant);
    if (!ratio) return std::nullopt;
    SpeedupVerdict v;
    v.ratio = *ratio;
    v.spread = relative_spread(main.timing) + relative_spread(variant.timing);
    v.samples = int(std::min(main.timing.samples_ms.size(), variant.timing.samples_ms.size()));
    // The difference, as a fraction of the slower time, against the spread (both relative to a median).
    const double difference = std::abs(v.ratio >= 1 ? v.ratio - 1 : 1 / v.ratio - 1);
    v.too_noisy = v.samples >= 2 && v.spread >= 0.5;
    v.within_noise = v.samples >= 2 && !v.too_noisy && difference <= v.spread;
    v.emulated = main.backend == "cpu" && variant.backend == "cpu";
    return v;
}

std::string speedup_words(const SpeedupVerdict& v, const std::string& than) {
    char ratio[32], spread[32];
    std::snprintf(ratio, sizeof ratio, "%.3gx ", v.ratio >= 1 ? v.ratio : 1 / v.ratio);
    // "1.06x faster than k1 ± 8%: ...": the kernel compared with is named before the spread.
    std::string words = ratio + std::string(v.ratio >= 1 ? "faster" : "slower") + (than.empty() ? "" : " than " + than);
    const std::string emulated = v.emulated ? " (CPU emulation, not GPU times)" : "";
    if (v.samples < 2) return words + " (one launch each: the spread is not known)" + emulated;
    std::snprintf(spread, sizeof spread, " ± %.0f%%", v.spread * 100);
    return words + spread +
           (v.too_noisy      ? ": too noisy to tell (more repeats, or a larger size)"
            : v.within_noise ? ": the same within noise"
                             : "") +
           emulated;
}

std::string speedup_text(const RunReport& main, const RunReport& variant) {
    const auto v = speedup_verdict(main, variant);
    if (!v) return "";
    return variant.kernel + ": " + speedup_words(*v, main.kernel);
}

}  // namespace cp
