// Checks across the lines of a metadata header, once all are read: the title, unique names, derived
// params, the names every expression uses (with "did you mean"), and views naming real buffers.
#include "core/kernel_file/expr.h"
#include "core/kernel_file/kernel_file_parts.h"
#include "core/kernel_file/kernel_header_parser.h"
#include "core/text_util.h"

#include <algorithm>
#include <map>

namespace cp {

namespace {

struct Names {
    std::vector<std::string> params;        // all, in declaration order
    std::map<std::string, int> param_line;
    std::vector<std::string> buffers;
    std::vector<std::string> image_buffers;
    std::vector<std::string> image_attrs;   // src.width, src.height
};

Names collect_names(const KernelSpec& spec) {
    Names n;
    for (const auto& p : spec.params) {
        n.params.push_back(p.name);
        n.param_line[p.name] = p.line;
    }
    for (const auto& b : spec.buffers) {
        n.buffers.push_back(b.name);
        if (b.init.kind == BufferInit::Kind::Image) {
            n.image_buffers.push_back(b.name);
            n.image_attrs.push_back(b.name + ".width");
            n.image_attrs.push_back(b.name + ".height");
        }
    }
    return n;
}

void check_unique_names(const std::string& file, const KernelSpec& spec, std::vector<Diagnostic>& diags) {
    struct Decl {
        std::string name, kind;
        int line;
    };
    std::vector<Decl> decls;
    for (const auto& p : spec.params) decls.push_back({p.name, "param", p.line});
    for (const auto& b : spec.buffers) decls.push_back({b.name, "buffer", b.line});
    std::stable_sort(decls.begin(), decls.end(), [](const Decl& a, const Decl& b) { return a.line < b.line; });
    std::map<std::string, const Decl*> first;
    for (const auto& d : decls) {
        auto [it, inserted] = first.emplace(d.name, &d);
        if (inserted) continue;
        diags.push_back(make_diagnostic(file, d.line, 0, Severity::Error,
                                        "`" + d.name + "` is declared twice: as a " + it->second->kind + " on line " +
                                            std::to_string(it->second->line) + " and as a " + d.kind +
                                            " here. Each param and buffer needs its own name (the kernel's parameter name)."));
    }
}

// A param is derived when its default depends on an image's size, directly or through another param.
void mark_derived_params(KernelSpec& spec, const Names& names) {
    for (auto& p : spec.params) {
        for (const auto& used : expr_names(p.default_expr)) {
            if (header::contains(names.image_attrs, used)) p.derived = true;
            for (const auto& earlier : spec.params) {
                if (&earlier == &p) break;
                if (earlier.name == used && earlier.derived) p.derived = true;
            }
        }
    }
}

std::vector<std::string> known_names(const HeaderExpr& e, const Names& names, const HeaderState& state) {
    static const std::vector<std::string> block = {"block.x", "block.y", "block.z"};
    static const std::vector<std::string> grid = {"grid.x", "grid.y", "grid.z"};
    std::vector<std::string> known;
    if (e.context == HeaderExpr::Context::ParamDefault) {
        // Only params declared above: defaults are evaluated top to bottom.
        const int own_line = names.param_line.count(e.owner) ? names.param_line.at(e.owner) : e.line;
        for (const auto& p : names.params)
            if (names.param_line.at(p) < own_line) known.push_back(p);
    } else {
        known = names.params;
    }
    known.insert(known.end(), state.broken_names.begin(), state.broken_names.end());
    const bool sees_images = e.context != HeaderExpr::Context::Block && e.context != HeaderExpr::Context::Shared &&
                             e.context != HeaderExpr::Context::Repeat;
    if (sees_images) known.insert(known.end(), names.image_attrs.begin(), names.image_attrs.end());
    if (e.context == HeaderExpr::Context::Grid || e.context == HeaderExpr::Context::Shared ||
        e.context == HeaderExpr::Context::Traffic)
        known.insert(known.end(), block.begin(), block.end());
    if (e.context == HeaderExpr::Context::Traffic) known.insert(known.end(), grid.begin(), grid.end());
    return known;
}

// Problems with a specific explanation that the generic "unknown name" would not give.
bool explain_name(const std::string& file, const HeaderExpr& e, const std::string& name, const Names& names,
                  std::vector<Diagnostic>& diags) {
    auto report = [&](std::string message) {
        diags.push_back(make_diagnostic(file, e.line, e.column, Severity::Error, "in " + e.where + ": " + message));
        return true;
    };
    const size_t dot = name.rfind('.');
    if (dot != std::string::npos) {
        const std::string base = name.substr(0, dot), attribute = name.substr(dot + 1);
        const bool is_image = header::contains(names.image_buffers, base);
        if (header::contains(names.buffers, base) && !is_image && (attribute == "width" || attribute == "height"))
            return report("`" + name + "` exists only for buffers filled from an image, and `" + base +
                          "` is not (give it `image(\"file.png\")`).");
        if (is_image && attribute != "width" && attribute != "height")
            return report("`" + name + "` is not known: image buffers have `" + base + ".width` and `" + base + ".height`.");
        if (base == "block" && (e.context == HeaderExpr::Context::Block))
            return report("the block size cannot refer to itself (`" + name + "`); write numbers or params.");
        if ((base == "block" || base == "grid") && !header::contains({"x", "y", "z"}, attribute))
            return report("`" + name + "` is not known: use `" + base + ".x`, `" + base + ".y` or `" + base + ".z`.");
        if (base == "block")
            return report("`" + name + "` can be used only in `grid:`, `shared:` and `traffic:`.");
        if (base == "grid")
            return report("`" + name + "` can be used only in `traffic:`; the grid is computed from the other values.");
    }
    if (e.context == HeaderExpr::Context::ParamDefault) {
        if (name == e.owner) return report("param `" + name + "` cannot default to itself.");
        if (auto it = names.param_line.find(name); it != names.param_line.end() && it->second >= e.line)
            return report("`" + name + "` is declared later (line " + std::to_string(it->second) +
                          "); declare it above this param, because defaults are evaluated top to bottom.");
    }
    if (header::contains(names.buffers, name))
        return report("`" + name + "` is a buffer; sizes can use params and image sizes such as `src.width`, "
                      "not buffers.");
    return false;
}

void check_expressions(const std::string& file, const Names& names, HeaderState& state, std::vector<Diagnostic>& diags) {
    for (const auto& e : state.exprs) {
        bool explained = false;
        for (const auto& name : expr_names(e.text)) {
            state.used_names.insert(name);
            const size_t dot = name.find('.');
            if (dot != std::string::npos) state.used_names.insert(name.substr(0, dot));
            const auto known = known_names(e, names, state);
            if (!explained && !header::contains(known, name)) explained = explain_name(file, e, name, names, diags);
        }
        if (explained) continue;
        if (auto problem = check_expr(e.text, known_names(e, names, state))) {
            std::string message = "in " + e.where + ": " + problem->message + ".";
            if (!problem->hint.empty()) message += " " + problem->hint;
            diags.push_back(make_diagnostic(file, e.line, e.column + problem->column - 1, Severity::Error, message));
        }
    }
}

void check_views(const std::string& file, const KernelSpec& spec, const Names& names, const HeaderState& state,
                 std::vector<Diagnostic>& diags) {
    for (const auto& v : spec.views) {
        if (header::contains(names.buffers, v.buffer) || state.broken_names.count(v.buffer)) continue;
        diags.push_back(make_diagnostic(
            file, v.line, 0, Severity::Error,
            "view `" + v.buffer + "` names no buffer." + did_you_mean(v.buffer, names.buffers) +
                (names.buffers.empty() ? " There are no buffers." : " Buffers are: " + join(names.buffers, ", ") + ".")));
    }
}

// `streams: S over PARAM`: PARAM a whole-number param, and one launch to split (not a sequence of steps).
void check_streams(const std::string& file, const KernelSpec& spec, const Names& names, HeaderState& state,
                   std::vector<Diagnostic>& diags) {
    if (!spec.streams) return;
    const StreamsSpec& st = *spec.streams;
    state.used_names.insert(st.param);
    auto report = [&](std::string message) {
        diags.push_back(make_diagnostic(file, st.line, st.column, Severity::Error, std::move(message)));
    };
    if (!spec.steps.empty()) {
        report("`streams:` splits one kernel's launch into chunks, and this file runs a sequence of `step:` lines "
               "(line " + std::to_string(spec.steps.front().line) + "). Remove `streams:`, or the steps.");
        return;
    }
    if (spec.devices.enabled()) {
        report("`streams:` splits the launch into chunks on one device, and `devices:` (line " +
               std::to_string(spec.devices.line) + ") splits it across devices; a file can do one of the two. "
               "Remove `streams:` or `devices:`.");
        return;
    }
    if (state.broken_names.count(st.param)) return;
    const ParamSpec* p = nullptr;
    for (const ParamSpec& q : spec.params)
        if (q.name == st.param) p = &q;
    if (!p) {
        report("`streams: ... over " + st.param + "`: there is no param `" + st.param + "`." +
               did_you_mean(st.param, names.params) + " Name the param that counts the elements the chunks split, "
               "e.g. `param n: int = 1000003` and `streams: 4 over n`.");
        return;
    }
    if (p->type != ScalarType::Int && p->type != ScalarType::UInt)
        report("`streams: ... over " + st.param + "`: param `" + st.param + "` (line " + std::to_string(p->line) + ") is " +
               scalar_type_name(p->type) + "; the chunks split a number of elements, so it must be int or uint.");
}

}  // namespace

// `result NAME:` lines: each names an out/inout buffer once, and they stand instead of `reference:`.
static void check_results(const std::string& file, const KernelSpec& spec, const HeaderState& state,
                   std::vector<Diagnostic>& diags) {
    std::map<std::string, int> seen;
    for (const ResultSpec& r : spec.results) {
        const auto b = std::find_if(spec.buffers.begin(), spec.buffers.end(),
                                    [&](const BufferSpec& x) { return x.name == r.buffer; });
        if (b == spec.buffers.end()) {
            if (state.broken_names.count(r.buffer)) continue;
            std::vector<std::string> names;
            for (const auto& x : spec.buffers) names.push_back(x.name);
            diags.push_back(make_diagnostic(file, r.line, 0, Severity::Error,
                                            "`result " + r.buffer + ":` names no buffer of this file." +
                                                did_you_mean(r.buffer, names) + " Declare it with a `buffer` line."));
        } else if (b->direction == Direction::In) {
            diags.push_back(make_diagnostic(file, r.line, 0, Severity::Error,
                                            "`result " + r.buffer + ":` is for a buffer the kernel writes, and `" +
                                                r.buffer + "` is `in`; make it `out` or `inout` (line " +
                                                std::to_string(b->line) + "), or remove this line."));
        }
        if (auto [it, inserted] = seen.emplace(r.buffer, r.line); !inserted) {
            diags.push_back(make_diagnostic(file, r.line, 0, Severity::Error,
                                            "`result " + r.buffer + ":` is given twice (first on line " +
                                                std::to_string(it->second) + "); keep one."));
        }
    }
    for (const BufferSpec& b : spec.buffers) {
        if (b.offset == 0) continue;
        const char* with = !spec.reference.empty() ? "`reference:` (a reference gets each buffer from its start)"
                           : spec.streams                  ? "`streams:` (the chunks cut buffers from their start)"
                           : spec.devices.enabled()        ? "`devices:` (the parts cut buffers from their start)"
                                                           : nullptr;
        if (with) {
            diags.push_back(make_diagnostic(file, b.line, 0, Severity::Error,
                                            "buffer `" + b.name + "` has an offset, which does not go with " + with +
                                                "; check it with `result` lines, or pass the buffer from its start"));
        }
    }
    if (!spec.results.empty() && !spec.reference.empty()) {
        diags.push_back(make_diagnostic(file, state.reference_line, 0, Severity::Error,
                                        "`reference:` and `result` lines both say what the outputs must be (the "
                                        "first `result` is on line " + std::to_string(spec.results.front().line) +
                                            "); keep one of them."));
    }
}

void check_header(const std::string& file, KernelSpec& spec, std::vector<Diagnostic>& diagnostics, HeaderState& state) {
    if (!spec.has_metadata || state.unterminated) return;
    if (spec.title.empty() && state.unreadable_lines == 0) {
        diagnostics.push_back(make_diagnostic(file, spec.header_first_line, 0, Severity::Error,
                                              "the metadata header has no `title:` line; add one, e.g. "
                                              "`title: Vector add`."));
    }
    const Names names = collect_names(spec);
    check_unique_names(file, spec, diagnostics);
    mark_derived_params(spec, names);
    check_expressions(file, names, state, diagnostics);
    check_views(file, spec, names, state, diagnostics);
    if (spec.devices.enabled()) check_devices(file, spec, diagnostics);
    if (spec.grade.enabled()) check_grade(file, spec, diagnostics);

    const bool steps_have_grids = !spec.steps.empty() && std::all_of(spec.steps.begin(), spec.steps.end(),
                                                                      [](const StepSpec& s) { return !s.grid_expr[0].empty(); });
    if (!spec.steps.empty() && state.kernel_line > 0) {
        diagnostics.push_back(make_diagnostic(file, state.kernel_line, 0, Severity::Error,
                                              "`kernel:` and `step:` both say what runs: with steps, each `step:` line "
                                              "names its kernel (line " + std::to_string(spec.steps.front().line) +
                                                  "). Remove `kernel:`, or the `step:` lines to run one kernel."));
    }
    if (state.grid_line == 0 && !spec.buffers.empty() && !steps_have_grids) {
        diagnostics.push_back(make_diagnostic(file, spec.header_first_line, 0, Severity::Warning,
                                              "no `grid:` line: the kernel will be launched with a single block. Add "
                                              "e.g. `grid: ceil(n / block.x)`."));
    }
    check_streams(file, spec, names, state, diagnostics);
    const bool has_output = std::any_of(spec.buffers.begin(), spec.buffers.end(),
                                        [](const BufferSpec& b) { return b.direction != Direction::In; });
    if (!spec.reference.empty() && !has_output && state.broken_names.empty()) {
        diagnostics.push_back(make_diagnostic(file, state.reference_line, 0, Severity::Warning,
                                              "`reference: " + spec.reference + "` has nothing to check: no buffer is "
                                              "`out` or `inout`."));
    }
    check_results(file, spec, state, diagnostics);
    if (spec.expect == ExpectedOutcome::Mismatch && !has_check(spec)) {
        diagnostics.push_back(
            make_diagnostic(file, state.expect_line, 0, Severity::Error,
                            "`expect: mismatch` needs a `reference:` whose result the kernel's output "
                            "differs from; add one (see kernels/FORMAT.md), or expect something else."));
    }
    if (spec.expect != ExpectedOutcome::None && spec.learn.empty()) {
        diagnostics.push_back(
            make_diagnostic(file, state.expect_line, 0, Severity::Warning,
                            "a buggy-on-purpose lesson should say what the student learns from it: add "
                            "`learn: ...` (it may continue on lines indented by 2 spaces)."));
    }
    if (spec.expect == ExpectedOutcome::None && !spec.learn.empty()) {
        diagnostics.push_back(make_diagnostic(file, state.learn_line, 0, Severity::Warning,
                                              "`learn:` goes with `expect:` (how the lesson fails on purpose); add "
                                              "`expect: mismatch|fault|refused|hang` or remove `learn:`."));
    }
}

}  // namespace cp
