// KernelSession::resolve: the user's choices checked, then parameters, buffer sizes, launch dimensions,
// dynamic shared memory, problem extents, traffic and view sizes evaluated from the metadata's expressions.
#include "core/session/chunk_plan.h"
#include "core/session/memory_budget.h"
#include "core/session/session.h"

#include "core/kernel_file/constant_fill.h"

#include "core/kernel_file/expr.h"
#include "core/kernel_file/scalar_range.h"

#include <algorithm>
#include <cmath>

namespace cp {
namespace {

// Positive whole number from an expression value, or an error naming what it was for.
Result<uint64_t> whole_positive(double v, const std::string& what, const std::string& expr, bool allow_zero = false) {
    if (!std::isfinite(v) || v < (allow_zero ? 0 : 1) || v > 1e15 || std::floor(v) != v) {
        return make_error(ErrorKind::UserInput,
                          what + " = `" + expr + "` evaluates to " + format_number(v) + ", which is not a " +
                              (allow_zero ? "non-negative" : "positive") + " whole number",
                          "check the expression and the parameter values it uses");
    }
    return uint64_t(v);
}

// The parameters the user set that `expr` uses: whom to show as refused when the expression fails.
std::string blamed_choice(const std::string& expr, const RunChoices& choices) {
    for (const std::string& name : expr_names(expr))
        if (choices.params.count(name)) return name;
    return {};
}

constexpr int kMaxViewSide = 32768;

ResolvedView resolve_view(const ViewSpec& spec, const KernelFile& file, const ResolvedRun& r, const Scope& scope) {
    ResolvedView v{spec, 0, 0, {}};
    const BufferSpec* buffer = file.buffer(spec.buffer);
    if (!buffer) {
        v.problem = "the view names buffer `" + spec.buffer + "`, which the kernel does not declare";
        return v;
    }
    if (spec.kind != ViewSpec::Kind::Image) return v;
    double side[2] = {0, 0};
    const std::string* exprs[2] = {&spec.width_expr, &spec.height_expr};
    for (int i = 0; i < 2; ++i) {
        auto e = eval_expr(*exprs[i], scope);
        if (!e) {
            v.problem = "view size (line " + std::to_string(spec.line) + "): " + e.error().message;
            return v;
        }
        side[i] = *e;
        if (!std::isfinite(side[i]) || side[i] < 1 || side[i] > kMaxViewSide || std::floor(side[i]) != side[i]) {
            v.problem = "view " + std::string(i ? "height" : "width") + " `" + *exprs[i] + "` is " +
                        format_number(side[i]) + "; it must be a whole number from 1 to " + std::to_string(kMaxViewSide);
            return v;
        }
    }
    const uint64_t count = r.buffer_counts.at(spec.buffer);
    if (uint64_t(side[0]) * uint64_t(side[1]) > count) {
        v.problem = "the view is " + format_number(side[0]) + "x" + format_number(side[1]) + " but buffer `" +
                    spec.buffer + "` has only " + std::to_string(count) + " elements";
        return v;
    }
    v.width = int(side[0]);
    v.height = int(side[1]);
    return v;
}

// `streams: S over PARAM chunks=C`: S from 1 to 16, S <= C <= 1024, and no more chunks than PARAM's elements.
Result<ResolvedStreams> resolve_streams(const StreamsSpec& st, const ResolvedRun& r, const Scope& scope) {
    const std::string where = "`streams:` (line " + std::to_string(st.line) + ")";
    auto whole = [&](const std::string& expr, const std::string& what, double lo, double hi) -> Result<int> {
        auto v = eval_expr(expr, scope);
        if (!v) return make_error(v.error().kind, where + ", " + what + ": " + v.error().message, v.error().hint);
        if (!std::isfinite(*v) || *v < lo || *v > hi || std::floor(*v) != *v)
            return make_error(ErrorKind::UserInput,
                              where + ": " + what + " `" + expr + "` is " + format_number(*v) +
                                  "; it must be a whole "
                                  "number from " +
                                  format_number(lo) + " to " + format_number(hi),
                              "set it from " + format_number(lo) + " to " + format_number(hi));
        return int(*v);
    };
    ResolvedStreams out;
    out.param = st.param;
    out.line = st.line;
    auto streams = whole(st.streams_expr, "the number of streams", 1, kMaxStreams);
    if (!streams) return streams.error();
    out.streams = *streams;
    if (st.chunks_expr.empty()) {
        out.chunks = 4 * out.streams;
    } else {
        auto chunks = whole(st.chunks_expr, "the number of chunks", 1, kMaxStreamChunks);
        if (!chunks) return chunks.error();
        out.chunks = *chunks;
        if (out.chunks < out.streams)
            return make_error(ErrorKind::UserInput,
                              where + ": " + std::to_string(out.chunks) + " chunks for " + std::to_string(out.streams) +
                                  " streams would leave a stream without work",
                              "use at least as many chunks as streams (`chunks=" + std::to_string(out.streams) +
                                  "` or more), or fewer streams");
    }
    auto n = r.params.find(st.param);
    if (n == r.params.end()) return make_error(ErrorKind::UserInput, where + ": there is no param `" + st.param + "`");
    if (n->second < out.chunks) {
        // Few elements: fewer chunks (one element each) rather than refusing a small n the student slid to.
        out.chunks = std::max(1, int(n->second));
        out.streams = std::min(out.streams, out.chunks);
    }
    return out;
}

}  // namespace

// The choices alone: each refused one becomes a problem with its field, so the window can mark it.
Result<bool> KernelSession::resolve_choices(const ResolvedRun&, std::vector<InputProblem>& problems) const {
    for (const auto& [name, value] : choices_.params) {
        const ParamSpec* p = kernel_.param(name);
        if (!p) {
            problems.push_back({name, make_error(ErrorKind::UserInput, "unknown parameter `" + name + "` for kernel `" +
                                                                           kernel_.spec.title + "`")});
        } else if (auto refused = check_param_value(*p, value)) {
            problems.push_back({name, *refused});
        }
    }
    for (const auto& [name, path] : choices_.images)
        if (!is_image_buffer(kernel_.buffer(name)))
            problems.push_back(
                {name, make_error(ErrorKind::UserInput, "`" + name + "` is not an image buffer of this kernel")});
    if (choices_.thread_order && !device().caps.thread_order)
        problems.push_back({"thread_order", thread_order_unavailable(device())});
    if (!problems.empty()) return problems.front().error;
    return true;
}

std::vector<InputProblem> KernelSession::check_device_limits(const ResolvedRun& r,
                                                             std::vector<LaunchIssue>* refusals) const {
    std::vector<InputProblem> problems;
    auto check = [&](const Dim3& grid_size, const Dim3& block_size, const std::vector<uint64_t>& problem,
                     const ResolvedStep* step) {
        for (LaunchIssue issue : validate_launch(device(), LaunchCheck{grid_size, block_size, 0, {}, problem})) {
            if (issue.severity != Severity::Error) continue;
            const bool grid = issue.setting == LaunchSetting::Grid;
            const char* what = grid ? "grid" : "block";
            const bool own = step && (grid ? step->own_grid : step->own_block);
            const std::string message = step ? step_label(*step) + ": " + issue.message : issue.message;
            if (refusals) {
                issue.message = message;
                refusals->push_back(issue);
            }
            if (!own && (grid ? choices_.grid.has_value() : choices_.block.has_value())) {
                problems.push_back({what, make_error(ErrorKind::UserInput, message,
                                                     std::string("change the ") + what + " as suggested")});
            } else if (own) {
                problems.push_back({"", make_error(ErrorKind::UserInput, message,
                                                   "its `step:` line (line " + std::to_string(step->line) + ") sets `" +
                                                       what + "=`; change it")});
            } else {
                problems.push_back({"", make_error(ErrorKind::UserInput, message,
                                                   "the file's `" + std::string(what) + ":` line (line " +
                                                       std::to_string(kernel_.spec.launch.line) +
                                                       ") gives this; change it, or set another " + what)});
            }
        }
    };
    if (r.steps.empty()) check(r.grid, r.block, r.problem, nullptr);
    // A step need not cover the problem (a final pass over the partial sums is one block): no coverage guess.
    for (const ResolvedStep& s : r.steps) check(s.grid, s.block, {}, &s);
    return problems;
}

namespace {
// An expression of the header evaluated in `scope`; an error names what it was for and its line.
Result<double> eval_at(const std::string& expr, const std::string& what, int line, const Scope& scope) {
    auto v = eval_expr(expr, scope);
    if (!v) {
        Error e = v.error();
        e.message = what + " (line " + std::to_string(line) + "): " + e.message;
        return e;
    }
    return *v;
}

// A choice refused: added to the run's problems with the field it was entered in, and returned as the error.
struct Refusals {
    std::vector<InputProblem>& problems;
    Error operator()(std::string field, Error e) const {
        problems.push_back({std::move(field), e});
        return e;
    }
};
}  // namespace

// The metadata's values, in the order they depend on each other: images and parameters (then the `constant`
// lines), buffer sizes, the launch, the problem's extents with traffic, streams and views.
Result<ResolvedRun> KernelSession::resolve(std::vector<InputProblem>* problems_out) {
    std::vector<InputProblem> local;
    std::vector<InputProblem>& problems = problems_out ? *problems_out : local;
    const KernelSpec& spec = kernel_.spec;
    if (!spec.has_metadata) {
        return make_error(ErrorKind::Metadata,
                          kernel_.path.filename().string() +
                              " has no /*@playground ... */ metadata header, so its buffers, sizes and launch "
                              "configuration are unknown",
                          "`cuda-playground describe " + kernel_.path.string() + "` writes one from its signature; or add it by hand (see kernels/FORMAT.md), or use `cuda-playground compile` to compile it only");
    }
    ResolvedRun r;
    if (auto ok = resolve_choices(r, problems); !ok) return ok.error();
    Scope scope;
    if (auto ok = resolve_params(r, scope, problems); !ok) return ok.error();
    const Scope step_scope = scope;  // params and image sizes: what a step's settings start from
    if (auto ok = resolve_buffer_sizes(r, scope, problems); !ok) return ok.error();
    if (auto ok = resolve_launch(r, scope, step_scope, problems); !ok) return ok.error();
    if (auto ok = resolve_extents(r, scope, problems); !ok) return ok.error();
    Scope view_scope(r.params.begin(), r.params.end());
    for (const ViewSpec& v : shown_views(spec)) r.views.push_back(resolve_view(v, kernel_, r, view_scope));
    return r;
}

// The images' sizes and the parameters (the user's, else their defaults), then the `constant` lines' values.
Result<bool> KernelSession::resolve_params(ResolvedRun& r, Scope& scope, std::vector<InputProblem>& problems) {
    const Refusals refuse{problems};
    const KernelSpec& spec = kernel_.spec;
    auto eval = [&](const std::string& expr, const std::string& what, int line) { return eval_at(expr, what, line, scope); };
    for (const auto& b : spec.buffers) {
        if (b.init.kind != BufferInit::Kind::Image) continue;
        auto img = image_for(b);
        if (!img) return refuse(choices_.images.count(b.name) ? b.name : std::string(), img.error());
        scope[b.name + ".width"] = (*img)->width;
        scope[b.name + ".height"] = (*img)->height;
        r.images[b.name] = ResolvedImage{image_path(b).string(), *img};
    }
    // The data files of `data("...")` initialisers and `result` lines, each error saying whose file it was.
    auto read_data = [&](const std::string& written, const std::string& whose, DataFile& into) -> Result<bool> {
        auto file = data_file(written);
        if (!file) {
            Error e = file.error();
            e.message = whose + ": " + e.message;
            return refuse(std::string(), std::move(e));
        }
        into = std::move(*file);
        return true;
    };
    for (const auto& b : spec.buffers)
        if (b.init.kind == BufferInit::Kind::Data)
            if (auto ok = read_data(b.init.data, "buffer `" + b.name + "`", r.data[b.name]); !ok) return ok.error();
    for (const auto& result : spec.results)
        if (auto ok = read_data(result.file, "`result " + result.buffer + "`", r.results[result.buffer]); !ok)
            return ok.error();
    for (const auto& p : spec.params) {
        auto over = choices_.params.find(p.name);
        double v = 0;
        if (over != choices_.params.end() && !p.derived) {
            v = over->second;
            if (!spec.results.empty()) {  // recorded results hold for the written values
                auto d = eval(p.default_expr, "default of parameter `" + p.name + "`", p.line);
                double written = d ? *d : 0;
                if (p.type == ScalarType::Int || p.type == ScalarType::UInt) written = std::round(written);
                if (!d || written != v)
                    r.params_off_record.push_back(p.name + " is " + format_number(v) + " (written " +
                                                  (d ? format_number(written) : p.default_expr) + ")");
            }
        } else {
            auto d = eval(p.default_expr, "default of parameter `" + p.name + "`", p.line);
            if (!d) return d.error();
            v = *d;
            if (p.type == ScalarType::Int || p.type == ScalarType::UInt) v = std::round(v);
            // A default computed from other values (`width * height`) is refused as `--set` would refuse it,
            // rather than wrapping on its way into the kernel (constant defaults are refused by the header check).
            if (const auto [lo, hi] = scalar_range(p.type); v < lo || v > hi)
                return make_error(ErrorKind::UserInput,
                                  "parameter `" + p.name + "` = " + format_number(v) + " (its default `" +
                                      p.default_expr + "`, line " + std::to_string(p.line) +
                                      ") does not fit the kernel's `" + scalar_type_name(p.type) + "` (" +
                                      format_number(lo) + ".." + format_number(hi) + ")",
                                  "use smaller values, or change the default in the header");
        }
        scope[p.name] = v;
        r.params[p.name] = v;
        if (p.type == ScalarType::Int || p.type == ScalarType::UInt) r.whole_params.insert(p.name);
    }
    // `constant` lines: the __constant__ values follow the params (a changed sigma compiles the new weights in).
    if (!read_constant_lines(kernel_).empty()) {
        auto filled = fill_constants(kernel_, scope);
        if (!filled) return filled.error();
        kernel_.compile_source = std::move(*filled);
    }
    return true;
}

// Each buffer's element count, refused when the buffers cannot fit the device or the host.
Result<bool> KernelSession::resolve_buffer_sizes(ResolvedRun& r, Scope& scope, std::vector<InputProblem>& problems) const {
    const Refusals refuse{problems};
    const KernelSpec& spec = kernel_.spec;
    auto eval = [&](const std::string& expr, const std::string& what, int line) { return eval_at(expr, what, line, scope); };
    uint64_t total_bytes = 0, output_bytes = 0;
    std::string largest_choice;  // the user's choice that sizes the buffers, blamed when they do not fit
    for (const auto& b : spec.buffers) {
        const std::string what = "size of buffer `" + b.name + "`";
        auto c = eval(b.count_expr, what, b.line);
        if (!c) return refuse(blamed_choice(b.count_expr, choices_), c.error());
        auto n = whole_positive(*c, what, b.count_expr);
        if (!n) return refuse(blamed_choice(b.count_expr, choices_), n.error());
        r.buffer_counts[b.name] = *n;
        if (b.offset >= *n)
            return refuse(blamed_choice(b.count_expr, choices_),
                          make_error(ErrorKind::UserInput,
                                     "buffer `" + b.name + "` holds " + std::to_string(*n) + " elements, and its offset " +
                                         std::to_string(b.offset) + " points at or past its end",
                                     "make the offset smaller than the count (line " + std::to_string(b.line) + ")"));
        const uint64_t bytes = mul_sat(*n, elem_info(b.type).size);
        total_bytes = add_sat(total_bytes, bytes);
        if (b.direction != Direction::In) output_bytes = add_sat(output_bytes, bytes);
        const uint64_t memory = device().total_memory;
        if (memory > 0 && total_bytes > memory) {
            return refuse(blamed_choice(b.count_expr, choices_),
                          make_error(ErrorKind::OutOfMemory,
                                     "the buffers need " + human_bytes(total_bytes) + " (buffer `" + b.name + "` has " +
                                         std::to_string(*n) + " elements) but the device has " + human_bytes(memory) +
                                         " of memory in all",
                                     "use smaller sizes (e.g. a smaller n, or a smaller image)"));
        }
        if (largest_choice.empty()) largest_choice = blamed_choice(b.count_expr, choices_);
    }
    // The host keeps each buffer's initial contents, and reads back and computes the reference of each
    // output; on a backend whose buffers are host memory (the CPU one) the buffers themselves come on top.
    const uint64_t host_needed = add_sat(mul_sat(total_bytes, device().caps.device_buffers ? 1 : 2),
                                         mul_sat(output_bytes, 2));
    if (auto refused = check_fits("the buffers", "host", host_needed, free_host_memory())) {
        refused->message += " (" + human_bytes(total_bytes) + " of buffers, kept on the host with their initial "
                            "contents, the read-back and the reference)";
        return refuse(largest_choice, *refused);
    }

    return true;
}

// Block, grid (the user's, else the header's), dynamic shared memory, the thread order, and the steps.
Result<bool> KernelSession::resolve_launch(ResolvedRun& r, Scope& scope, const Scope& step_scope,
                                           std::vector<InputProblem>& problems) const {
    const Refusals refuse{problems};
    const KernelSpec& spec = kernel_.spec;
    auto eval = [&](const std::string& expr, const std::string& what, int line) { return eval_at(expr, what, line, scope); };
    static const char* axis[3] = {"x", "y", "z"};
    auto eval_dim3 = [&](const std::string (&exprs)[3], const char* what, Dim3& out) -> Result<bool> {
        uint32_t* dst[3] = {&out.x, &out.y, &out.z};
        for (int i = 0; i < 3; ++i) {
            auto v = eval(exprs[i], std::string(what) + "." + axis[i], spec.launch.line);
            if (!v) return v.error();
            auto n = whole_positive(*v, std::string(what) + "." + axis[i], exprs[i]);
            if (!n) return n.error();
            if (*n > 0xFFFFFFFFull)
                return make_error(ErrorKind::UserInput,
                                  std::string(what) + "." + axis[i] + " = " + std::to_string(*n) + " is too large");
            *dst[i] = uint32_t(*n);
        }
        return true;
    };
    if (choices_.block) {
        r.block = *choices_.block;
    } else if (auto ok = eval_dim3(spec.launch.block_expr, "block", r.block); !ok) {
        return ok.error();
    }
    scope["block.x"] = r.block.x;
    scope["block.y"] = r.block.y;
    scope["block.z"] = r.block.z;
    if (choices_.grid) {
        r.grid = *choices_.grid;
    } else if (auto ok = eval_dim3(spec.launch.grid_expr, "grid", r.grid); !ok) {
        return ok.error();
    }
    scope["grid.x"] = r.grid.x;
    scope["grid.y"] = r.grid.y;
    scope["grid.z"] = r.grid.z;

    auto shared = eval(spec.launch.shared_expr, "shared", spec.launch.line);
    if (!shared) return shared.error();
    auto shared_bytes = whole_positive(*shared, "shared", spec.launch.shared_expr, true);
    if (!shared_bytes) return shared_bytes.error();
    r.dynamic_shared_bytes = uint32_t(std::min<uint64_t>(*shared_bytes, 0xFFFFFFFFu));
    r.thread_order = choices_.thread_order;
    r.seed = choices_.seed;

    if (choices_.until_step) {
        const size_t n = spec.steps.size();
        if (n == 0)
            return refuse("until_step",
                          make_error(ErrorKind::UserInput,
                                     "this file has no steps (`step:` lines), so there is no step to stop after",
                                     "stopping after a step applies to files that run several launches"));
        if (*choices_.until_step < 1 || size_t(*choices_.until_step) > n)
            return refuse("until_step", make_error(ErrorKind::UserInput,
                                                   "stop after step " + std::to_string(*choices_.until_step) +
                                                       ": this file has " + std::to_string(n) + " steps",
                                                   "give a step from 1 to " + std::to_string(n)));
    }
    if (!spec.steps.empty()) {
        if (auto ok = resolve_steps(r, step_scope); !ok) return ok.error();
        const bool any_file_block = std::any_of(r.steps.begin(), r.steps.end(), [](const ResolvedStep& s) { return !s.own_block; });
        const bool any_file_grid = std::any_of(r.steps.begin(), r.steps.end(), [](const ResolvedStep& s) { return !s.own_grid; });
        if (choices_.block && !any_file_block)
            return refuse("block",
                          make_error(ErrorKind::UserInput,
                                     "every step of this file sets its own block (`block=` on its `step:` line), "
                                     "so a chosen block would change nothing",
                                     "change a step's `block=` in the file, or remove it there so that step "
                                     "follows the chosen block"));
        if (choices_.grid && !any_file_grid)
            return refuse("grid", make_error(ErrorKind::UserInput,
                                             "every step of this file sets its own grid (`grid=` on its `step:` line), "
                                             "so a chosen grid would change nothing",
                                             "change a step's `grid=` in the file, or remove it there so that step "
                                             "follows the chosen grid"));
    }

    return true;
}

// What the launch must cover (`problem:`), the traffic the bandwidth figure divides, and `streams:`.
Result<bool> KernelSession::resolve_extents(ResolvedRun& r, const Scope& scope, std::vector<InputProblem>& problems) const {
    const Refusals refuse{problems};
    const KernelSpec& spec = kernel_.spec;
    auto eval = [&](const std::string& expr, const std::string& what, int line) { return eval_at(expr, what, line, scope); };
    for (const auto& e : spec.launch.problem_expr) {
        auto v = eval(e, "problem", spec.launch.line);
        if (!v) return v.error();
        auto n = whole_positive(*v, "problem", e);
        if (!n) return n.error();
        r.problem.push_back(*n);
    }

    if (!spec.traffic_expr.empty()) {
        auto t = eval(spec.traffic_expr, "traffic", 0);
        if (!t) return t.error();
        r.traffic_bytes = uint64_t(std::max(0.0, *t));
    } else {
        for (const auto& b : spec.buffers) {
            const uint64_t bytes = r.buffer_counts[b.name] * elem_info(b.type).size;
            r.traffic_bytes += b.direction == Direction::InOut ? 2 * bytes : bytes;
        }
    }

    if (spec.streams) {
        auto streams = resolve_streams(*spec.streams, r, scope);
        if (!streams) return refuse(blamed_choice(spec.streams->streams_expr + " + " + spec.streams->chunks_expr + " + " +
                                                      spec.streams->param, choices_),
                                    streams.error());
        r.streams = *streams;
        // Its chunks planned now, before anything runs: a buffer that cannot be split (an output of another size)
        // is refused here, not after the ordinary launch. The streamed run launches this plan.
        auto plan = plan_chunks(r, spec.buffers, spec.launch, r.streams->param, r.streams->chunks);
        if (!plan) {
            const Error& e = plan.error();
            return refuse(blamed_choice(spec.streams->param, choices_),
                          make_error(e.kind, "`streams:` (line " + std::to_string(r.streams->line) + "): " + e.message,
                                     e.hint));
        }
        r.streams->plan = std::move(*plan);
    }

    return true;
}

}  // namespace cp
