// A file's sequence of steps (`step:` lines): each step's launch resolved from its own settings or the file's
// launch lines, one compile per distinct kernel, and the launches in order over the session's shared buffers,
// timed per step and in total. A step repeated N times is N launches in a row, each seeing the previous one's
// results; the engine's warmup and timing repeats of each launch start from the same contents (the backends
// snapshot the arguments), so the sequence's results are those of one pass.
#include "core/kernel_file/constant_fill.h"
#include "core/kernel_file/expr.h"
#include "core/session/run_stage.h"
#include "core/session/session.h"

#include <algorithm>
#include <cmath>

namespace cp {

namespace {

constexpr uint64_t kMaxStepRepeat = 100000;

Result<uint64_t> whole(double v, const std::string& what, const std::string& expr, uint64_t lo, uint64_t hi) {
    if (!std::isfinite(v) || v < double(lo) || v > double(hi) || std::floor(v) != v)
        return make_error(ErrorKind::UserInput,
                          what + " = `" + expr + "` evaluates to " + format_number(v) +
                              ", which is not a whole number from " + std::to_string(lo) + " to " + std::to_string(hi),
                          "check the expression and the parameter values it uses");
    return uint64_t(v);
}

}  // namespace

std::string step_label(const ResolvedStep& s) { return "step " + std::to_string(s.index) + " (`" + s.kernel + "`)"; }

Result<bool> KernelSession::resolve_steps(ResolvedRun& r, const Scope& base) const {
    const KernelSpec& spec = kernel_.spec;
    r.steps.clear();
    if (spec.steps.empty()) return true;
    for (size_t i = 0; i < spec.steps.size(); ++i) {
        const StepSpec& s = spec.steps[i];
        ResolvedStep out;
        out.index = int(i) + 1;
        out.kernel = s.kernel;
        out.line = s.line;
        const std::string which = "step " + std::to_string(out.index) + " (line " + std::to_string(s.line) + ")";
        Scope scope = base;
        auto eval = [&](const std::string& expr, const std::string& what) -> Result<double> {
            auto v = eval_expr(expr, scope);
            if (!v) {
                Error e = v.error();
                e.message = what + " of " + which + ": " + e.message;
                return e;
            }
            return *v;
        };
        auto dims = [&](const std::string (&exprs)[3], const char* what, Dim3& d) -> Result<bool> {
            static const char* axis[3] = {"x", "y", "z"};
            uint32_t* dst[3] = {&d.x, &d.y, &d.z};
            for (int k = 0; k < 3; ++k) {
                const std::string name = std::string(what) + "." + axis[k];
                auto v = eval(exprs[k], name);
                if (!v) return v.error();
                auto n = whole(*v, name + " of " + which, exprs[k], 1, 0xFFFFFFFFull);
                if (!n) return n.error();
                *dst[k] = uint32_t(*n);
            }
            return true;
        };
        // What the step leaves out is the file's launch, as resolved (the user's --block/--grid included).
        out.own_block = !s.block_expr[0].empty();
        out.own_grid = !s.grid_expr[0].empty();
        if (!out.own_block) out.block = r.block;
        else if (auto ok = dims(s.block_expr, "block", out.block); !ok) return ok.error();
        scope["block.x"] = out.block.x;
        scope["block.y"] = out.block.y;
        scope["block.z"] = out.block.z;
        if (!out.own_grid) {
            // The file's grid expression may use block.x: evaluate it with this step's block.
            if (choices_.grid || !out.own_block) out.grid = r.grid;
            else if (auto ok = dims(spec.launch.grid_expr, "grid", out.grid); !ok) return ok.error();
        } else if (auto ok = dims(s.grid_expr, "grid", out.grid); !ok) {
            return ok.error();
        }
        if (s.shared_expr.empty() && !out.own_block) {
            out.dynamic_shared_bytes = r.dynamic_shared_bytes;
        } else {
            const std::string& expr = s.shared_expr.empty() ? spec.launch.shared_expr : s.shared_expr;
            auto v = eval(expr, "shared");
            if (!v) return v.error();
            auto n = whole(*v, "shared of " + which, expr, 0, 0xFFFFFFFFull);
            if (!n) return n.error();
            out.dynamic_shared_bytes = uint32_t(*n);
        }
        auto rep = eval(s.repeat_expr, "repeat");
        if (!rep) return rep.error();
        auto n = whole(*rep, "repeat of " + which, s.repeat_expr, 1, kMaxStepRepeat);
        if (!n) return n.error();
        out.repeat = *n;
        r.steps.push_back(std::move(out));
    }
    r.steps_in_file = r.steps.size();
    if (choices_.until_step) r.steps.resize(size_t(*choices_.until_step));  // in range: checked by resolve()
    // The run's own launch figures (the window's overlay, the JSON's grid) are the first step's.
    r.grid = r.steps.front().grid;
    r.block = r.steps.front().block;
    r.dynamic_shared_bytes = r.steps.front().dynamic_shared_bytes;
    return true;
}

// One module per distinct kernel of the steps (each backend builds and loads the kernel a compile names); the
// first step's kernel is the session's own compile, each other kernel's is a stage entry of its own ("compile
// step NAME": ran or reused, and why).
Result<std::vector<const CompileResult*>> KernelSession::compile_steps(CompiledKernel& into) {
    std::vector<const CompileResult*> out;
    const CompileResult& first = compile();
    stages_->extra_runs.clear();
    std::map<std::string, const CompileResult*> done;  // a kernel that several steps launch is compiled once
    for (size_t i = 0; i < kernel_.step_signatures.size(); ++i) {
        const std::string& name = kernel_.step_signatures[i].launch_name;
        if (name == kernel_.signature->launch_name) {
            out.push_back(&first);
            continue;
        }
        if (const auto it = done.find(name); it != done.end()) {
            out.push_back(it->second);
            continue;
        }
        CompileRequest request = plain_request();
        request.kernel_name = name;
        request.also_kernels.clear();
        const CompileResult& c = compile_extra("step:" + name, "compile step " + name, std::move(request));
        if (!stages_->extra_runs.back().reused) {
            into.compile_ms += c.compile_ms;
            into.cache_hit = into.cache_hit && c.cache_hit;
        }
        done[name] = &c;
        out.push_back(&c);
    }
    for (StageRun& entry : stages_->take_extra_runs()) into.runs.push_back(std::move(entry));
    return out;
}

// The steps in order; fills into.steps, into.outcome.timing (a sample per timed pass over every launch) and the
// printf output. An Error names the step and, for a repeated one, which launch of it failed.
Result<bool> KernelSession::launch_steps(const ResolvedRun& resolved, const std::vector<const CompileResult*>& modules,
                                         const TimingOptions& timing, Launched& into) {
    std::string& printf_output = into.outcome.printf_output;
    std::vector<std::vector<double>> per_launch;  // every launch's timed samples, in order
    double medians = 0;
    for (size_t i = 0; i < resolved.steps.size(); ++i) {
        const ResolvedStep& s = resolved.steps[i];
        StepReport sr;
        sr.index = s.index;
        sr.kernel = s.kernel;
        sr.line = s.line;
        sr.grid = s.grid;
        sr.block = s.block;
        sr.dynamic_shared_bytes = s.dynamic_shared_bytes;
        sr.repeat = s.repeat;
        sr.usage = modules[i]->usage;
        std::vector<double> launch_medians;
        for (uint64_t k = 0; k < s.repeat; ++k) {
            auto made = launch_request(resolved, modules[i]->module, timing, &kernel_.step_signatures[i], &s);
            if (!made) return made.error();
            LaunchOutcome launched = launch_kernel(std::move(*made), {LaunchPurpose::Step, s.index, int(k)});
            if (!launched.printf_output.empty()) {
                if (k == 0 || printf_output.size() < 64 * 1024) printf_output += launched.printf_output;
            }
            if (const std::optional<LaunchFailure>& err = launched.failure) {
                const std::string where = step_label(s) + (s.repeat > 1 ? ", launch " + std::to_string(k + 1) + " of " +
                                                                              std::to_string(s.repeat)
                                                                        : std::string());
                into.steps.push_back(sr);
                return make_error(err->kind, where + ": " + err->named_message(), err->hint);
            }
            launch_medians.push_back(launched.timing.median_ms);
            medians += launched.timing.median_ms;
            sr.timing.cpu_time = launched.timing.cpu_time;
            for (double ms : launched.timing.samples_ms) sr.timing.samples_ms.push_back(ms);
            per_launch.push_back(std::move(launched.timing.samples_ms));
        }
        sr.timing = TimingStats::from_samples(std::move(sr.timing.samples_ms), sr.timing.cpu_time);
        sr.total_ms = 0;
        for (double m : launch_medians) sr.total_ms += m;
        into.steps.push_back(std::move(sr));
    }
    // Sample j of the whole: the j-th timed sample of every launch added up, one pass over the steps. Should the
    // launches have different sample counts (a backend fell back to one launch), the medians' sum stands alone.
    const bool cpu_time = !into.steps.empty() && into.steps.front().timing.cpu_time;
    const size_t n = per_launch.empty() ? 0 : per_launch.front().size();
    const bool aligned = std::all_of(per_launch.begin(), per_launch.end(), [n](const auto& v) { return v.size() == n; });
    std::vector<double> pass(aligned ? n : 1, 0.0);
    if (aligned) {
        for (const auto& v : per_launch)
            for (size_t j = 0; j < n; ++j) pass[j] += v[j];
    } else {
        pass[0] = medians;
    }
    into.outcome.timing = TimingStats::from_samples(std::move(pass), cpu_time);
    return true;
}

}  // namespace cp
