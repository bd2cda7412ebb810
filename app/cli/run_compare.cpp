// `run --compare`: choosing, running, printing and writing the variants (run_compare.h).
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
        return make_error("--compare without OTHER runs the variants the file's header lists, and " +
                              main.path.filename().string() + " lists none",
                          "name one (--compare OTHER: another kernel of the file, a file or a library name), or add "
                          "a header line such as `compare: matmul_tiled`");
    return main.spec.compare;
}

std::vector<CompareRun> run_variants(const std::vector<std::string>& names, Engine& engine,
                                     const KernelSession& main_session, const RunReport& main_report,
                                     const RunOptions& options, const std::function<void(const RunReport&)>& before,
                                     const std::function<void(const RunReport&)>& after) {
    std::vector<CompareRun> out;
    const KernelFile& main = main_session.kernel();
    for (const std::string& name : names) {
        CompareRun run;
        run.name = name;
        if (before || after) std::cout << "compared with " << name << ":\n";
        const bool listed =
            std::find(main.spec.compare.begin(), main.spec.compare.end(), name) != main.spec.compare.end();
        auto variant =
            load_variant(main, name,
                         listed ? "`compare: " + name + "` (line " + std::to_string(main.spec.compare_line) + ")"
                                : "--compare " + name);
        if (variant && has_errors(variant->diagnostics)) {
            std::string first;
            for (const auto& d : variant->diagnostics) {
                if (d.severity != Severity::Error) continue;
                std::cerr << d.str() << "\n";
                if (first.empty()) first = d.str();
            }
            variant = make_error("the variant " + name + " has errors: " + first, "fix them, then run again");
        }
        if (!variant) {
            run.problem = variant.error();
            if (before || after) std::cout << "  error:    " << run.problem.message << "\n";
            out.push_back(std::move(run));
            continue;
        }
        run.session = std::make_unique<KernelSession>(engine);
        const RunChoices choices = variant_choices(main, main_session.choices(),
                                                   main_report.resolved ? &*main_report.resolved : nullptr, *variant);
        run.session->set_kernel(std::move(*variant));
        run.session->set_choices(choices);
        RunOptions variant_options = options;
        variant_options.before_launch = before;
        run.report = run.session->run(variant_options);
        if (after) after(*run.report);
        out.push_back(std::move(run));
    }
    return out;
}

void print_speedups(const RunReport& main, const std::vector<CompareRun>& others) {
    for (const CompareRun& o : others) {
        if (!o.report) {
            std::cout << "speed-up: " << o.name << " not measured (it could not be read)\n";
            continue;
        }
        if (auto ratio = speedup(main, *o.report)) {
            std::cout << std::setprecision(3) << "speed-up: " << o.report->kernel << " takes "
                      << o.report->timing.median_ms << " ms, " << main.kernel << " " << main.timing.median_ms
                      << " ms (median): " << *ratio << "x" << (*ratio >= 1 ? " faster" : " (slower)") << "\n";
        } else {
            std::cout << "speed-up: " << o.name << " not measured (both must run)\n";
        }
    }
}

void add_variants_json(nlohmann::json& j, const RunReport& main, const std::vector<CompareRun>& others) {
    nlohmann::json variants = nlohmann::json::array();
    for (const CompareRun& o : others) {
        nlohmann::json v;
        if (o.report) {
            v = run_report_json(*o.report, {});
            const auto ratio = speedup(main, *o.report);
            v["speedup"] = ratio ? nlohmann::json(*ratio) : nlohmann::json(nullptr);
        } else {
            v = {{"variant", o.name}, {"error", o.problem.message}, {"hint", o.problem.hint}, {"speedup", nullptr}};
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
