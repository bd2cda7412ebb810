// Running a comparison's variants beside the main kernel (compare_runner.h).
#include "core/session/compare_runner.h"

#include "core/session/variants.h"

#include <algorithm>

namespace cp {

std::vector<std::string> CompareRunner::prepare(const KernelFile& main, const std::vector<std::string>& names) {
    if (names != names_ || main.path != main_path_ || main.source != main_source_ || loaded_.size() != names.size()) {
        loaded_.clear();
        for (const std::string& name : names) {
            const bool listed =
                std::find(main.spec.compare.begin(), main.spec.compare.end(), name) != main.spec.compare.end();
            Result<KernelFile> variant =
                load_variant(main, name,
                             listed ? "`compare: " + name + "` (line " + std::to_string(main.spec.compare_line) + ")"
                                    : "--compare " + name);
            if (variant && has_errors(variant->diagnostics)) {
                std::string first;
                for (const auto& d : variant->diagnostics)
                    if (d.severity == Severity::Error && first.empty()) first = d.str();
                variant = make_error(ErrorKind::Metadata, "the variant " + name + " has errors: " + first,
                                     "fix them, then run again");
            }
            loaded_.push_back(std::move(variant));
        }
        names_ = names;
        main_path_ = main.path;
        main_source_ = main.source;
    }
    std::vector<std::string> same_file;
    for (const Result<KernelFile>& v : loaded_)
        if (v && v->path == main.path && v->signature) same_file.push_back(v->signature->launch_name);
    return same_file;
}

std::vector<VariantRun> CompareRunner::run(const KernelSession& main, const RunReport& main_report,
                                           const RunOptions& options, const VariantHooks& hooks,
                                           const std::function<bool(const KernelFile&)>& read_back_for) {
    std::vector<VariantRun> out;
    sessions_.resize(loaded_.size());
    RunOptions common = options;
    common.coverage = false;
    common.trace = false;
    common.memory = false;  // the main kernel's recording only
    common.before_launch = hooks.before_launch;
    for (size_t i = 0; i < loaded_.size(); ++i) {
        VariantRun v;
        v.name = names_[i];
        if (hooks.starting) hooks.starting(v.name);
        if (!loaded_[i]) {
            v.problem = loaded_[i].error();
            if (hooks.unreadable) hooks.unreadable(v.name, v.problem);
            out.push_back(std::move(v));
            continue;
        }
        const KernelFile& variant = *loaded_[i];
        if (!sessions_[i]) sessions_[i] = std::make_unique<KernelSession>(engine_);
        KernelSession& s = *sessions_[i];
        s.borrow_from(&main);
        s.launcher().report_to(&main.launcher(), v.name);  // main's observers see the comparison's launches too
        s.set_kernel(variant);
        s.set_choices(variant_choices(main.kernel(), main.choices(),
                                      main_report.resolved ? &*main_report.resolved : nullptr, variant));
        RunOptions own = common;
        if (read_back_for && !own.read_back) own.read_back = read_back_for(variant);
        own.read_back_shown_only = true;  // its column shows its views; the rest stays on the device
        v.file = s.kernel();
        v.report = s.run(own);
        if (hooks.after) hooks.after(*v.report);
        out.push_back(std::move(v));
    }
    return out;
}

void CompareRunner::clear() {
    sessions_.clear();
    loaded_.clear();
    names_.clear();
    main_path_.clear();
    main_source_.clear();
}

}  // namespace cp
