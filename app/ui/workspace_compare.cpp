// The side-by-side comparison: a compare run's variants into their columns (output views, check verdict,
// median time, speed ratio to the main kernel), each variant's failure in its own column and in the console.
#include "core/session/report_text.h"
#include "core/clock.h"
#include "core/session/variants.h"
#include "ui/workspace.h"

#include <chrono>
#include <cstdio>

namespace cp::ui {

void Workspace::apply_variants(RunOutcome& outcome) {
    if (outcome.variants.empty()) {
        compare_.columns.clear();  // a plain run: the comparison is off or the lesson has none
        return;
    }
    const RunReport& main = outcome.report;
    compare_.main_kernel = main.kernel;
    compare_.main_median_ms.reset();
    if (main.launched) compare_.main_median_ms = main.timing.median_ms;
    if (compare_.columns.size() != outcome.variants.size()) compare_.columns.resize(outcome.variants.size());
    for (size_t i = 0; i < outcome.variants.size(); ++i) {
        VariantOutcome& v = outcome.variants[i];
        VariantColumn& col = compare_.columns[i];
        const std::string previous_error = col.error;
        if (col.name != v.name) col.views.reset();  // another variant in this column: its old views go
        col.name = v.name;
        col.verified.reset();
        col.verdict.clear();
        col.error.clear();
        col.median_ms.reset();
        col.ratio.clear();
        if (!col.views)
            col.views =
                std::make_unique<OutputViews>(copier_.get(), colormap_.get(), runner_->capabilities().buffers_by_ipc);
        if (!v.file || !v.report) {
            col.error = v.problem.full();
            col.views->clear();
        } else {
            RunReport& r = *v.report;
            col.kernel = r.kernel;
            col.title = r.title;
            if (r.launched && r.resolved) {
                const auto views_started = std::chrono::steady_clock::now();
                col.views->update(*v.file, r, runs_applied_, console_);
                views_ms_ += ms_since(views_started);
                col.median_ms = r.timing.median_ms;
                col.ratio = speedup_text(main, r);
                show_column_verdict(col, r);
            } else {
                col.views->clear();  // never an older picture under a failure
            }
            if (r.error) {
                col.error = run_failure_text(r);
                if (!r.error->hint.empty()) col.error += "\n  hint: " + r.error->hint;
                for (const Diagnostic& d : r.diagnostics)
                    if (d.severity == Severity::Error && r.failed_stage <= RunStage::Compile &&
                        col.error.find(d.str()) == std::string::npos)
                        col.error += "\n" + d.str();
            } else if (!r.launched) {
                col.error = "Compiled, not run: this backend cannot launch kernels";
            }
        }
        if (!col.error.empty() && col.error != previous_error)
            console_.add(LogKind::Error, "Compare with " + v.name + ": " + col.error);
    }
}

void Workspace::show_column_verdict(VariantColumn& col, const RunReport& r) {
    col.verified = r.verified;
    col.verdict = verdict_text(r, VerdictOf::Variant, false);
    col.short_verdict = short_verdict_text(r);
    if (col.verified == false) console_.add(LogKind::Warning, "Compare with " + col.name + ": " + col.verdict);
}

}  // namespace cp::ui
