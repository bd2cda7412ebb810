// `run --compare`: choosing, printing and writing the variants (run_compare.h).
#include "cli/run_compare.h"

#include "core/session/report_json.h"
#include "core/session/variants.h"
#include "core/text_util.h"

#include <nlohmann/json.hpp>

#include <iomanip>
#include <iostream>

namespace cp::cli {

Result<std::vector<std::string>> compare_names(const Args& args, const KernelFile& main) {
    std::vector<std::string> names;
    for (const std::string& v : args.all("--compare"))
        if (!v.empty()) names.push_back(v);
    if (!names.empty()) return names;
    if (main.spec.compare.empty())
        return make_error(ErrorKind::UserInput,
                          "--compare without OTHER runs the variants the file's header lists, and " +
                              main.path.filename().string() + " lists none",
                          "name one (--compare OTHER: another kernel of the file, a file or a library name), or add "
                          "a header line such as `compare: matmul_tiled`");
    return main.spec.compare;
}

void print_speedups(const RunReport& main, const std::vector<VariantRun>& others) {
    for (const VariantRun& o : others) {
        if (!o.report) {
            std::cout << "speed-up: " << o.name << " not measured (it could not be read)\n";
            continue;
        }
        if (auto verdict = speedup_verdict(main, *o.report)) {
            std::cout << std::setprecision(3) << "speed-up: " << o.report->kernel << " takes "
                      << o.report->timing.median_ms << " ms, " << main.kernel << " " << main.timing.median_ms
                      << " ms (median): " << speedup_words(*verdict) << "\n";
        } else {
            std::cout << "speed-up: " << o.name << " not measured (both must run)\n";
        }
    }
}

void add_variants_json(nlohmann::json& j, const RunReport& main, const std::vector<VariantRun>& others) {
    nlohmann::json variants = nlohmann::json::array();
    for (const VariantRun& o : others) {
        nlohmann::json v;
        if (o.report) {
            v = run_report_json(*o.report, {});
            const auto verdict = speedup_verdict(main, *o.report);
            v["speedup"] = verdict ? nlohmann::json(verdict->ratio) : nlohmann::json(nullptr);
            // The spread of the ratio (relative: 0.08 for ±8%) and whether the difference is inside it.
            v["speedup_spread"] = verdict ? nlohmann::json(verdict->spread) : nlohmann::json(nullptr);
            v["same_within_noise"] = verdict ? nlohmann::json(verdict->within_noise) : nlohmann::json(nullptr);
        } else {
            v = {{"variant", o.name},  {"error", o.problem.message}, {"hint", o.problem.hint},
                 {"speedup", nullptr}, {"speedup_spread", nullptr},  {"same_within_noise", nullptr}};
        }
        v["variant"] = o.name;
        variants.push_back(v);
    }
    if (!others.empty()) {
        j["compare"] = variants[0];
        j["speedup"] = variants[0]["speedup"];
    }
    j["variants"] = variants;
}

}  // namespace cp::cli
