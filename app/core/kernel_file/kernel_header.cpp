// Parsing the `/*@playground ... */` metadata block of a kernel file, line by line, into a KernelSpec.
// Every problem becomes a Diagnostic with its line (and column) and a sentence on how to fix it.
// Sections: line splitting and keys - block, grid, problem - view - reference, tolerance.
// `param` and `buffer` lines are read in kernel_header_entries.cpp.
#include "core/kernel_file/expr.h"
#include "core/kernel_file/kernel_file.h"
#include "core/kernel_file/kernel_header_parser.h"
#include "core/text_util.h"

#include <algorithm>
#include <cctype>
#include <map>

namespace cp {

namespace {

using header::contains;
using header::split_args;
using header::split_dims;
using header::split_words;
using header::Word;

const std::vector<std::string> kKeys = {"title",     "category", "tags",    "about",   "param", "buffer",
                                        "block",     "grid",     "shared",  "problem", "view",  "reference",
                                        "tolerance", "traffic",  "kernel",  "expect",  "learn", "step",
                                        "streams",   "compare",  "devices", "constant", "show",
                                        "result",    "grade"};
const std::vector<std::string> kNamedKeys = {"param", "buffer", "view", "constant", "result"};
const std::vector<std::string> kColormaps = {"gray", "viridis", "magma", "coolwarm"};

class HeaderParser : public header::HeaderEntryParser {
public:
    using HeaderEntryParser::HeaderEntryParser;

    // `text` is the header's content; `first_line` its line number; `first_column` where it starts on that line.
    void parse(const std::string& text, int first_line, int first_column) {
        size_t start = 0;
        int line = first_line;
        while (start <= text.size()) {
            size_t end = text.find('\n', start);
            if (end == std::string::npos) end = text.size();
            std::string raw = text.substr(start, end - start);
            if (!raw.empty() && raw.back() == '\r') raw.pop_back();
            parse_line(raw, line, line == first_line ? first_column : 1);
            start = end + 1;
            ++line;
        }
    }

private:
    // ---- line splitting and keys ----

    void parse_line(const std::string& raw, int line, int column_base) {
        const std::string content = trim(raw);
        if (content.empty()) {
            last_key_.clear();  // a blank line ends an `about:` paragraph
            return;
        }
        size_t indent = 0;
        while (indent < raw.size() && (raw[indent] == ' ' || raw[indent] == '\t')) ++indent;
        if (indent >= 2 && last_key_ == "learn") {
            spec_.learn += (spec_.learn.empty() ? "" : " ") + collapse_spaces(content);
            return;
        }
        if (indent >= 2 && last_key_ == "about") {
            spec_.about += (spec_.about.empty() ? "" : " ") + collapse_spaces(content);
            return;
        }
        last_key_.clear();
        if (content[0] == '#') return;  // a comment line
        const int col0 = column_base + static_cast<int>(indent);  // column of the line's first character

        const size_t colon = raw.find(':');
        const std::vector<Word> lhs = split_words(raw.substr(0, colon == std::string::npos ? raw.size() : colon));
        if (colon == std::string::npos) {
            const std::string first = lhs.empty() ? content : lhs[0].text;
            ++state_.unreadable_lines;
            if (contains(kKeys, first)) {
                error(line, col0, "missing `:` after `" + first + "`. Write it as `" + first + ": ...`.");
            } else {
                error(line, col0, "this line is not of the form `key: value`: `" + content +
                                      "`. Keys are: " + join(kKeys, ", ") + ". (Indent a line by 2 spaces to continue `about:`.)");
            }
            return;
        }
        if (lhs.empty()) {
            error(line, col0, "missing key before `:`. Keys are: " + join(kKeys, ", ") + ".");
            return;
        }
        const std::string& key = lhs[0].text;
        const int key_column = column_base + static_cast<int>(lhs[0].pos);
        size_t value_start = colon + 1;
        while (value_start < raw.size() && std::isspace(static_cast<unsigned char>(raw[value_start]))) ++value_start;
        const std::string value = trim(raw.substr(colon + 1));
        const int value_column = column_base + static_cast<int>(value_start);

        if (!contains(kKeys, key)) {
            ++state_.unreadable_lines;
            std::string lhs_text;
            for (const auto& w : lhs) lhs_text += (lhs_text.empty() ? "" : " ") + w.text;
            error(line, key_column, "unknown key `" + lhs_text + "`." + did_you_mean(key, kKeys) +
                                        " Keys are: " + join(kKeys, ", ") + ".");
            return;
        }
        if (key == "grade") {  // `grade case NAME: ...`, `grade tolerance: ...`: its own words before the `:`
            if (value.empty()) {
                error(line, value_column, "`" + trim(raw.substr(0, colon)) + "` has no value after the `:`.");
                return;
            }
            if (lhs.size() == 2 && lhs[1].text != "case") {  // `grade tolerance` etc.: once each, as other keys
                const std::string sub_key = "grade " + lhs[1].text;
                if (auto it = first_line_of_.find(sub_key); it != first_line_of_.end()) {
                    spec_.grade.lines.push_back(line);  // still a hidden line
                    error(line, key_column, "`" + sub_key + "` is given twice (first on line " +
                                                std::to_string(it->second) + "); keep one.");
                    return;
                }
                first_line_of_[sub_key] = line;
            }
            parse_grade(lhs, column_base, Line{line, value_column, value});
            return;
        }
        const bool named = contains(kNamedKeys, key);
        if (named && lhs.size() != 2) {
            const std::string example = key == "param"      ? "param n: int = 1000"
                                        : key == "buffer"   ? "buffer a: float[n] in"
                                        : key == "constant" ? "constant c_Kernel: float[17] = gaussian(2.0)"
                                        : key == "result"   ? "result y: data(\"y.after.bin\")"
                                                            : "view c: plot";
            error(line, key_column, "`" + key + "` needs exactly one name before the `:`, e.g. `" + example + "`.");
            if (lhs.size() > 2) state_.broken_names.insert(lhs[1].text);
            return;
        }
        if (!named && lhs.size() != 1) {
            std::string lhs_text;
            for (const auto& w : lhs) lhs_text += (lhs_text.empty() ? "" : " ") + w.text;
            error(line, key_column, "unknown key `" + lhs_text + "`: `" + key + "` takes no name. Write `" + key + ": ...`.");
            return;
        }
        if (!named && key != "step") {  // `step:` lines are a sequence: one per step
            if (auto it = first_line_of_.find(key); it != first_line_of_.end()) {
                error(line, key_column, "`" + key + "` is given twice (first on line " + std::to_string(it->second) +
                                            "); keep one.");
                return;
            }
            first_line_of_[key] = line;
        }
        if (value.empty() && key != "about" && key != "tags" && key != "learn") {
            error(line, value_column, "`" + key + "` has no value after the `:`.");
            if (named) state_.broken_names.insert(lhs[1].text);
            return;
        }
        last_key_ = key;

        Line l{line, value_column, value};
        if (key == "title") spec_.title = value;
        else if (key == "category") spec_.category = value;
        else if (key == "about") spec_.about = collapse_spaces(value);
        else if (key == "tags") parse_tags(l);
        else if (key == "param") parse_param(lhs[1].text, column_base + static_cast<int>(lhs[1].pos), l);
        else if (key == "buffer") parse_buffer(lhs[1].text, column_base + static_cast<int>(lhs[1].pos), l);
        else if (key == "view") parse_view(lhs[1].text, l);
        else if (key == "result") parse_result(lhs[1].text, l);
        else if (key == "constant") {
            // Read, checked and applied by constant_fill.cpp; the params its values use are used.
            for (size_t i = 0; i < value.size();) {
                if (std::isalpha(static_cast<unsigned char>(value[i])) || value[i] == '_') {
                    const size_t b = i;
                    while (i < value.size() && (std::isalnum(static_cast<unsigned char>(value[i])) || value[i] == '_'))
                        ++i;
                    state_.used_names.insert(value.substr(b, i - b));
                } else {
                    ++i;
                }
            }
        } else if (key == "block")
            parse_dims(l, "block", HeaderExpr::Context::Block, spec_.launch.block_expr);
        else if (key == "grid") {
            state_.grid_line = line;
            parse_dims(l, "grid", HeaderExpr::Context::Grid, spec_.launch.grid_expr);
        } else if (key == "shared") {
            spec_.launch.shared_expr = value;
            remember(HeaderExpr::Context::Shared, value, "`shared`", l.line, l.column);
        } else if (key == "problem") parse_problem(l);
        else if (key == "reference") parse_reference(l);
        else if (key == "kernel")
            parse_kernel(l);
        else if (key == "expect")
            parse_expect(l);
        else if (key == "step")
            parse_step(l);
        else if (key == "streams")
            parse_streams(l);
        else if (key == "compare")
            parse_compare(l);
        else if (key == "devices")
            parse_devices(l);
        else if (key == "show")
            parse_show(l);
        else if (key == "learn") {
            state_.learn_line = l.line;
            spec_.learn = collapse_spaces(value);
        } else if (key == "tolerance")
            parse_tolerance(l);
        else if (key == "traffic") {
            spec_.traffic_expr = value;
            remember(HeaderExpr::Context::Traffic, value, "`traffic`", l.line, l.column);
        }
        if (key == "block" || key == "grid" || key == "shared" || key == "problem") {
            if (spec_.launch.line == 0) spec_.launch.line = line;
        }
    }

    void parse_tags(const Line& l) {
        for (const auto& part : split_args(l.value))
            if (!part.text.empty()) spec_.tags.push_back(part.text);
    }

    // ---- block, grid, problem ----

    void parse_dims(const Line& l, const std::string& key, HeaderExpr::Context context, std::string (&out)[3]) {
        const std::vector<Word> parts = split_dims(l.value);
        if (parts.size() > 3) {
            error(l.line, l.column, "`" + key + "` takes 1 to 3 sizes separated by ` x `, e.g. `" + key +
                                        (key == "block" ? ": 16 x 16`." : ": ceil(width / block.x) x ceil(height / block.y)`."));
            return;
        }
        const char* axis = "xyz";
        for (size_t d = 0; d < 3; ++d) out[d] = "1";
        for (size_t d = 0; d < parts.size(); ++d) {
            if (parts[d].text.empty()) {
                error(l.line, l.column + static_cast<int>(parts[d].pos),
                      "`" + key + "` has an empty size; write e.g. `" + key + ": 16 x 16` (an `x` between spaces separates sizes).");
                return;
            }
            out[d] = parts[d].text;
            remember(context, parts[d].text, "the " + key + " size in " + axis[d], l.line,
                     l.column + static_cast<int>(parts[d].pos));
        }
    }

    void parse_problem(const Line& l) {
        const std::vector<Word> parts = split_dims(l.value);
        if (parts.size() > 3) {
            error(l.line, l.column, "`problem` takes 1 to 3 extents separated by ` x `, e.g. `problem: width x height`.");
            return;
        }
        const char* axis = "xyz";
        spec_.launch.problem_expr.clear();
        for (size_t d = 0; d < parts.size(); ++d) {
            if (parts[d].text.empty()) {
                error(l.line, l.column + static_cast<int>(parts[d].pos), "`problem` has an empty extent.");
                spec_.launch.problem_expr.clear();
                return;
            }
            spec_.launch.problem_expr.push_back(parts[d].text);
            remember(HeaderExpr::Context::Problem, parts[d].text, std::string("the problem extent in ") + axis[d], l.line,
                     l.column + static_cast<int>(parts[d].pos));
        }
    }

    // ---- view NAME: image(W, H) [colormap=NAME] [range=A..B] | plot | table ----

    void parse_view(const std::string& name, const Line& l) {
        ViewSpec v;
        v.buffer = name;
        v.line = l.line;
        const std::string& s = l.value;
        size_t options_start = 0;
        if (s.rfind("image", 0) == 0) {
            v.kind = ViewSpec::Kind::Image;
            const size_t open = s.find('(');
            const size_t close = s.find(')');
            if (open == std::string::npos || close == std::string::npos || close < open || trim(s.substr(5, open - 5)) != "") {
                error(l.line, l.column, "an image view needs its size: `view " + name + ": image(width, height)`.");
                return;
            }
            const std::vector<Word> args = split_args(s.substr(open + 1, close - open - 1));
            if (args.size() != 2 || args[0].text.empty() || args[1].text.empty()) {
                error(l.line, l.column + static_cast<int>(open), "`image(...)` takes two sizes, width and height, e.g. "
                                                                 "`image(width, height)`.");
                return;
            }
            v.width_expr = args[0].text;
            v.height_expr = args[1].text;
            const int args_column = l.column + static_cast<int>(open) + 1;
            remember(HeaderExpr::Context::View, v.width_expr, "the width of view `" + name + "`", l.line,
                     args_column + static_cast<int>(args[0].pos));
            remember(HeaderExpr::Context::View, v.height_expr, "the height of view `" + name + "`", l.line,
                     args_column + static_cast<int>(args[1].pos));
            options_start = close + 1;
        } else {
            const std::vector<Word> words = split_words(s);
            if (words[0].text == "plot") v.kind = ViewSpec::Kind::Plot;
            else if (words[0].text == "table") v.kind = ViewSpec::Kind::Table;
            else {
                error(l.line, l.column, "unknown view `" + words[0].text + "`." +
                                            did_you_mean(words[0].text, {"image", "plot", "table"}) +
                                            " Views are: image(width, height), plot, table.");
                return;
            }
            options_start = words[0].text.size();
        }
        for (const auto& w : split_words(s.substr(options_start))) {
            const int column = l.column + static_cast<int>(options_start + w.pos);
            const size_t eq = w.text.find('=');
            const std::string key = w.text.substr(0, eq);
            const std::string val = eq == std::string::npos ? "" : w.text.substr(eq + 1);
            if (key == "colormap" && v.kind == ViewSpec::Kind::Image) {
                if (!contains(kColormaps, val)) {
                    error(l.line, column, "unknown colormap `" + val + "`." + did_you_mean(val, kColormaps) +
                                              " Colormaps are: " + join(kColormaps, ", ") + ".");
                    return;
                }
                v.colormap = val;
            } else if (key == "range" && v.kind != ViewSpec::Kind::Table) {
                const size_t dots = val.find("..");
                double lo = 0, hi = 0;
                if (dots == std::string::npos) {
                    error(l.line, column, "write the view range as `range=A..B`, e.g. `range=0..1`.");
                    return;
                }
                if (!constant(val.substr(0, dots), l.line, column, "the start of the view range", lo) ||
                    !constant(val.substr(dots + 2), l.line, column, "the end of the view range", hi))
                    return;
                if (!(lo < hi)) {
                    error(l.line, column, "the view range " + val + " must go from low to high.");
                    return;
                }
                v.range_min = lo;
                v.range_max = hi;
            } else {
                const std::string allowed = v.kind == ViewSpec::Kind::Image ? "colormap=NAME and range=A..B"
                                            : v.kind == ViewSpec::Kind::Plot ? "range=A..B"
                                                                              : "none";
                error(l.line, column, "unknown view option `" + w.text + "`; options for this view: " + allowed + ".");
                return;
            }
        }
        for (const auto& existing : spec_.views) {
            if (existing.buffer == name) {
                error(l.line, l.column, "buffer `" + name + "` already has a view (line " + std::to_string(existing.line) +
                                            "); keep one.");
                return;
            }
        }
        spec_.views.push_back(std::move(v));
    }

    // ---- reference, tolerance ----

    void parse_reference(const Line& l) {
        state_.reference_line = l.line;
        // The reference is a function in the same file (checked once the source is read: reference_section.h).
        const bool identifier = !l.value.empty() && (std::isalpha(static_cast<unsigned char>(l.value[0])) || l.value[0] == '_') &&
                                std::all_of(l.value.begin(), l.value.end(), [](char c) {
                                    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
                                });
        if (!identifier) {
            error(l.line, l.column, "`reference:` names a function in this file, e.g. `reference: blur_reference`, not `" +
                                        l.value + "`. Write it as plain C++ under `#ifdef PLAYGROUND_REFERENCE` (see "
                                        "kernels/FORMAT.md), or leave out `reference:`.");
            return;
        }
        spec_.reference = l.value;
    }

    // ---- kernel, expect ----

    void parse_kernel(const Line& l) {
        state_.kernel_line = l.line;
        spec_.kernel_line = l.line;
        // A name, or a template instantiation `reduce<float, 256>` (a C++ name expression, checked against the
        // file's kernels once the source is read).
        const std::string name = l.value.substr(0, l.value.find('<'));
        const bool identifier = !name.empty() && (std::isalpha(static_cast<unsigned char>(name[0])) || name[0] == '_') &&
                                std::all_of(name.begin(), name.end(), [](char c) {
                                    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
                                });
        const bool instantiation_ok = name.size() == l.value.size() || l.value.back() == '>';
        if (!identifier || !instantiation_ok) {
            error(l.line, l.column,
                  "`kernel:` names the `__global__` function to run, e.g. `kernel: reduce_pass1`, or an instantiation "
                  "of a template kernel, e.g. `kernel: reduce<float, 256>`, not `" +
                      l.value + "`.");
            return;
        }
        spec_.kernel = l.value;
    }

    // `compare: matmul_tiled matrix/other`: names split on spaces outside `<...>` (`reduce<float, 256>` stays
    // whole); which of them are kernels of this file is checked once the source is read (check_compare).
    void parse_compare(const Line& l) {
        spec_.compare_line = l.line;
        const std::string& v = l.value;
        size_t i = 0;
        while (i < v.size()) {
            while (i < v.size() && std::isspace(static_cast<unsigned char>(v[i]))) ++i;
            if (i >= v.size()) break;
            const size_t start = i;
            int angle = 0;
            while (i < v.size() && !(angle == 0 && std::isspace(static_cast<unsigned char>(v[i])))) {
                if (v[i] == '<') ++angle;
                if (v[i] == '>' && angle > 0) --angle;
                ++i;
            }
            const std::string name = v.substr(start, i - start);
            const int column = l.column + static_cast<int>(start);
            const std::string base = name.substr(0, name.find('<'));
            const bool is_file = name.find('/') != std::string::npos ||
                                 (name.size() > 3 && name.compare(name.size() - 3, 3, ".cu") == 0);
            const bool identifier = !base.empty() && (std::isalpha(static_cast<unsigned char>(base[0])) || base[0] == '_') &&
                                    std::all_of(base.begin(), base.end(), [](char c) {
                                        return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
                                    }) &&
                                    (base.size() == name.size() || (angle == 0 && name.back() == '>'));
            if (!is_file && !identifier) {
                error(l.line, column,
                      "`compare:` lists the variants to compare with: kernels of this file (`compare: matmul_tiled`) or "
                      "other files (`compare: matrix/matmul_tiled`, `compare: tiled.cu`), separated by spaces; `" + name +
                          "` is neither.");
                continue;
            }
            if (contains(spec_.compare, name)) {
                error(l.line, column, "`compare:` lists `" + name + "` twice; keep one.");
                continue;
            }
            spec_.compare.push_back(name);
        }
    }

    // `show: Streams` / `show: Console, Launch view`: panel names separated by commas, matched without regard to
    // case and stored as the window spells them.
    void parse_show(const Line& l) {
        const std::vector<std::string>& names = showable_panels();
        for (const auto& part : split_args(l.value)) {
            const int column = l.column + static_cast<int>(part.pos);
            const std::string word = collapse_spaces(trim(part.text));
            if (word.empty()) {
                error(l.line, column, "`show:` has an empty name; separate panel names with commas, e.g. `show: Console, Launch view`.");
                continue;
            }
            auto it = std::find_if(names.begin(), names.end(), [&](const std::string& n) {
                return n.size() == word.size() && std::equal(n.begin(), n.end(), word.begin(), [](char a, char b) {
                           return std::tolower(static_cast<unsigned char>(a)) == std::tolower(static_cast<unsigned char>(b));
                       });
            });
            if (it == names.end()) {
                error(l.line, column, "`show:` names a panel that does not exist: `" + word + "`." + did_you_mean(word, names) +
                                          " Panels: " + join(names, ", ") + " (separated by commas).");
                continue;
            }
            if (contains(spec_.show, *it)) {
                error(l.line, column, "`show:` lists `" + *it + "` twice; keep one.");
                continue;
            }
            spec_.show.push_back(*it);
        }
    }

    void parse_expect(const Line& l) {
        state_.expect_line = l.line;
        const std::vector<std::string> kinds = {"mismatch", "fault", "refused", "hang", "undefined"};
        // Clauses between `;`: OUTCOME [on BACKEND] [from sm_XY | before sm_XY]. `hang on cpu` is judged on that
        // backend only; `undefined on cuda` says the bug is undefined behaviour there.
        std::vector<ExpectClause> clauses;
        auto pieces = [](const std::string& text, char sep) {
            std::vector<std::string> out;
            size_t start = 0;
            for (size_t i = 0; i <= text.size(); ++i)
                if (i == text.size() || text[i] == sep) {
                    out.push_back(text.substr(start, i - start));
                    start = i + 1;
                }
            return out;
        };
        for (const std::string& part : pieces(l.value, ';')) {
            const std::string as_written = collapse_spaces(part);
            std::vector<std::string> words;
            for (const std::string& w : pieces(as_written, ' '))
                if (!w.empty()) words.push_back(w);
            if (words.empty()) {
                error(l.line, l.column, "`expect:` has an empty clause: write `OUTCOME [on BACKEND] [from sm_XY]` "
                                        "between the `;`s, e.g. `expect: hang on cpu; undefined on cuda`.");
                return;
            }
            ExpectClause c;
            for (auto e : {ExpectedOutcome::Mismatch, ExpectedOutcome::Fault, ExpectedOutcome::Refused,
                           ExpectedOutcome::Hang, ExpectedOutcome::Undefined})
                if (words[0] == expected_outcome_name(e)) c.outcome = e;
            if (c.outcome == ExpectedOutcome::None) {
                error(l.line, l.column,
                      "`expect:` says how this buggy-on-purpose lesson fails: one of " + join(kinds, ", ") + ", not `" +
                          words[0] + "`." + did_you_mean(words[0], kinds));
                return;
            }
            size_t at = 1;
            while (at < words.size()) {
                const std::string& word = words[at];
                if (word == "on" && at + 1 < words.size()) {
                    c.backend = words[at + 1];
                    if (c.backend != "cpu" && c.backend != "cuda") {
                        error(l.line, l.column,
                              "`expect: " + words[0] + " on BACKEND` names the backend the bug shows on: `cpu` or "
                              "`cuda`, not `" + c.backend + "`.");
                        return;
                    }
                    at += 2;
                } else if ((word == "from" || word == "before") && at + 1 < words.size()) {
                    const std::string& arch = words[at + 1];
                    int cc = 0;
                    if (arch.rfind("sm_", 0) == 0 && arch.size() >= 5 && arch.size() <= 6 &&
                        std::all_of(arch.begin() + 3, arch.end(), [](char ch) { return ch >= '0' && ch <= '9'; }))
                        cc = std::stoi(arch.substr(3));
                    if (cc < 10) {
                        error(l.line, l.column,
                              "`expect: ... " + word + " ARCH` names a GPU architecture as sm_XY (e.g. `sm_70` for "
                              "Volta, `sm_90` for Hopper), not `" + arch + "`.");
                        return;
                    }
                    (word == "from" ? c.from_cc : c.before_cc) = cc;
                    at += 2;
                } else {
                    error(l.line, l.column,
                          "`expect:` clause `" + as_written + "` is not `OUTCOME [on BACKEND] [from sm_XY | before "
                          "sm_XY]` (e.g. `hang on cpu`, `undefined on cuda from sm_70`).");
                    return;
                }
            }
            if ((c.from_cc || c.before_cc) && c.backend != "cuda") {
                error(l.line, l.column,
                      "`expect:` clause `" + as_written + "` names a GPU architecture: say `on cuda` too, e.g. `" +
                          words[0] + " on cuda from sm_70`.");
                return;
            }
            if (c.outcome == ExpectedOutcome::Undefined && c.backend.empty()) {
                error(l.line, l.column,
                      "`expect: undefined` says where the bug is undefined behaviour: add `on cpu` or `on cuda`, and "
                      "say how it shows elsewhere, e.g. `expect: hang on cpu; undefined on cuda`.");
                return;
            }
            clauses.push_back(c);
        }
        const auto failing = std::find_if(clauses.begin(), clauses.end(),
                                          [](const ExpectClause& c) { return c.outcome != ExpectedOutcome::Undefined; });
        if (failing == clauses.end()) {
            error(l.line, l.column,
                  "`expect:` says the bug is undefined everywhere it names: say how it shows on at least one backend, "
                  "e.g. `expect: hang on cpu; undefined on cuda`.");
            return;
        }
        spec_.expect = failing->outcome;
        spec_.expect_backend = failing->backend;
        spec_.expect_clauses = std::move(clauses);
    }

    void parse_tolerance(const Line& l) {
        state_.tolerance_line = l.line;
        double v = 0;
        if (!parse_number(l.value, v)) {
            error(l.line, l.column, "tolerance must be a number such as 0, 1 or 1e-6, not `" + l.value + "`.");
            return;
        }
        if (v < 0) {
            error(l.line, l.column, "tolerance must be 0 or more (it is the largest allowed absolute error).");
            return;
        }
        spec_.tolerance = v;
    }

    std::string last_key_;
    std::map<std::string, int> first_line_of_;
};

int line_of(const std::string& source, size_t pos) {
    return 1 + static_cast<int>(std::count(source.begin(), source.begin() + static_cast<long>(pos), '\n'));
}

}  // namespace

Diagnostic make_diagnostic(const std::string& file, int line, int column, Severity severity, std::string message) {
    Diagnostic d;
    d.file = file;
    d.line = line;
    d.column = column;
    d.severity = severity;
    d.message = std::move(message);
    return d;
}

MetadataHeaderSpan find_metadata_header(const std::string& source) {
    MetadataHeaderSpan span;
    span.open = source.find(MetadataHeaderSpan::kOpen);
    if (span.found()) span.close = source.find("*/", span.body());
    return span;
}

void parse_header(const std::string& source, const std::string& file, KernelSpec& spec,
                  std::vector<Diagnostic>& diagnostics, HeaderState& state) {
    const MetadataHeaderSpan span = find_metadata_header(source);
    if (!span.found()) return;
    const size_t open = span.open, body = span.body(), close = span.close;
    spec.has_metadata = true;
    spec.header_first_line = line_of(source, open);
    if (close == std::string::npos) {
        spec.header_last_line = spec.header_first_line;
        state.unterminated = true;
        diagnostics.push_back(make_diagnostic(file, spec.header_first_line, 1, Severity::Error,
                                              "the metadata header opened with `/*@playground` is never closed; add a "
                                              "line `*/` after its last line."));
        return;
    }
    spec.header_last_line = line_of(source, close);
    const size_t line_start = source.rfind('\n', open) == std::string::npos ? 0 : source.rfind('\n', open) + 1;
    HeaderParser parser(file, spec, diagnostics, state);
    parser.parse(source.substr(body, close - body), spec.header_first_line, static_cast<int>(body - line_start) + 1);
}

}  // namespace cp
