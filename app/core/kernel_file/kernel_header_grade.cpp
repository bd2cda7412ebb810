// The `grade ...` lines of a metadata header: a lesson that is an assignment, with its hidden test cases
// (`grade case NAME: n = 1000003, src = "street.png"`), the tolerance, the time limit per case, whether the
// sanitizer runs and the scoring; and their checks against the params and buffers once every line is read.
#include "core/kernel_file/kernel_file_parts.h"
#include "core/kernel_file/kernel_header_parser.h"
#include "core/text_util.h"

#include <algorithm>

namespace cp {

namespace {

const char* const kGradeKeys = "`grade case NAME`, `grade tolerance`, `grade time`, `grade sanitize`, `grade score`";

// A case's name: an identifier that may also hold `-` ("odd-size").
bool is_name(const std::string& s) {
    return !s.empty() && is_ident_start(s[0]) && std::all_of(s.begin(), s.end(), [](char c) { return is_ident_char(c) || c == '-'; });
}

std::string unquoted(std::string v) {
    if (v.size() >= 2 && v.front() == '"' && v.back() == '"') return v.substr(1, v.size() - 2);
    return v;
}

}  // namespace

void header::HeaderEntryParser::parse_grade(const std::vector<Word>& words, int column_base, const Line& l) {
    GradeSpec& g = spec_.grade;
    g.lines.push_back(l.line);
    auto column_of = [&](size_t i) { return column_base + static_cast<int>(words[i].pos); };
    if (words.size() < 2) {
        error(l.line, column_of(0), std::string("`grade` needs what it sets before the `:`: ") + kGradeKeys + ".");
        return;
    }
    const std::string& sub = words[1].text;
    const bool is_case = sub == "case";
    if (is_case ? words.size() != 3 : words.size() != 2) {
        error(l.line, column_of(1),
              is_case ? "`grade case` needs one name for the case before the `:`, e.g. `grade case odd: n = 1000003`."
                      : "`grade " + sub + "` takes no name. Write `grade " + sub + ": ...`.");
        return;
    }
    if (is_case) {
        GradeCase c;
        c.name = words[2].text;
        c.line = l.line;
        c.column = l.column;
        if (!is_name(c.name)) {
            error(l.line, column_of(2), "a case's name is a word of letters, digits, `_` or `-`, not `" + c.name + "`.");
            return;
        }
        if (l.value != "defaults") {
            for (const Word& part : split_args(l.value)) {
                const size_t eq = part.text.find('=');
                const int at = l.column + static_cast<int>(part.pos);
                if (eq == std::string::npos) {
                    error(l.line, at, "each setting of a case is `name = value` (a param or an image buffer), not `" +
                                          part.text + "`; write `defaults` for a case of the header's own values.");
                    return;
                }
                const std::string name = trim(part.text.substr(0, eq)), value = unquoted(trim(part.text.substr(eq + 1)));
                if (name.empty() || value.empty()) {
                    error(l.line, at, "`" + part.text + "` needs a name before the `=` and a value after it.");
                    return;
                }
                if (name == "seed") {
                    double s = 0;
                    if (c.seed || !parse_number(value, s) || s < 0 || s > 9007199254740992.0 || s != static_cast<uint64_t>(s)) {
                        error(l.line, at, c.seed ? "case `" + c.name + "` sets `seed` twice; keep one."
                                                 : "a case's `seed` is a whole number of 0 or more (the random buffers' "
                                                   "seed for this case), not `" + value + "`.");
                        return;
                    }
                    c.seed = static_cast<uint64_t>(s);
                    continue;
                }
                c.sets.emplace_back(name, value);
            }
        }
        g.cases.push_back(std::move(c));
        return;
    }
    if (sub == "tolerance") {
        double v = 0;
        if (!parse_number(l.value, v) || v < 0) {
            error(l.line, l.column, "`grade tolerance` is a number of 0 or more (the largest allowed absolute error), not `" +
                                        l.value + "`.");
            return;
        }
        g.tolerance = v;
    } else if (sub == "time") {
        std::string v = l.value;
        if (v.size() > 1 && v.back() == 's') v = trim(v.substr(0, v.size() - 1));
        double seconds = 0;
        if (!parse_number(v, seconds) || !(seconds > 0) || seconds > 3600) {
            error(l.line, l.column, "`grade time` is the time limit of one case in seconds, more than 0 and at most 3600 (e.g. `grade time: 10 s`), not `" +
                                        l.value + "`.");
            return;
        }
        g.time_limit_s = seconds;
    } else if (sub == "sanitize") {
        if (l.value == "yes" || l.value == "on") g.sanitize = true;
        else if (l.value == "no" || l.value == "off") g.sanitize = false;
        else error(l.line, l.column, "`grade sanitize` is `yes` or `no`, not `" + l.value + "`.");
    } else if (sub == "score") {
        // `correct N, speed M`, in either order, adding up to 100.
        int correct = -1, speed = 0;
        for (const Word& part : split_args(l.value)) {
            const std::vector<Word> w = split_words(part.text);
            const int at = l.column + static_cast<int>(part.pos);
            double points = 0;
            if (w.size() != 2 || (w[0].text != "correct" && w[0].text != "speed") || !parse_number(w[1].text, points) ||
                points < 0 || points > 100 || points != static_cast<int>(points)) {
                error(l.line, at, "`grade score` is `correct N, speed M`, whole points adding up to 100 (e.g. `correct 80, speed 20`), not `" +
                                      part.text + "`.");
                return;
            }
            (w[0].text == "correct" ? correct : speed) = static_cast<int>(points);
        }
        if (correct < 0) correct = 100 - speed;
        if (correct + speed != 100) {
            error(l.line, l.column, "`grade score` gives " + std::to_string(correct) + " points for correct results and " +
                                        std::to_string(speed) + " for speed: they must add up to 100.");
            return;
        }
        g.correct_points = correct;
        g.speed_points = speed;
    } else {
        error(l.line, column_of(1), "unknown `grade " + sub + "`. It is one of " + kGradeKeys + ".");
    }
}

void check_grade(const std::string& file, const KernelSpec& spec, std::vector<Diagnostic>& diags) {
    const GradeSpec& g = spec.grade;
    const int first = g.lines.empty() ? 0 : g.lines.front();
    if (g.cases.empty()) {
        diags.push_back(make_diagnostic(file, first, 1, Severity::Error,
                                        "an assignment needs at least one `grade case NAME: ...` line: the hidden inputs "
                                        "its submissions run on (e.g. `grade case odd: n = 1000003`)."));
        return;
    }
    if (!has_check(spec))
        diags.push_back(make_diagnostic(file, first, 1, Severity::Error,
                                        "an assignment needs a `reference:` (or `result` lines) to check the submissions "
                                        "against; without one no case can be graded."));
    for (size_t i = 0; i < g.cases.size(); ++i) {
        const GradeCase& c = g.cases[i];
        for (size_t j = 0; j < i; ++j)
            if (g.cases[j].name == c.name)
                diags.push_back(make_diagnostic(file, c.line, c.column, Severity::Error,
                                                "case `" + c.name + "` is given twice (first on line " +
                                                    std::to_string(g.cases[j].line) + "); give each case its own name."));
        for (size_t k = 0; k < c.sets.size(); ++k) {
            const std::string& name = c.sets[k].first;
            for (size_t m = 0; m < k; ++m)
                if (c.sets[m].first == name)
                    diags.push_back(make_diagnostic(file, c.line, c.column, Severity::Error,
                                                    "case `" + c.name + "` sets `" + name + "` twice; keep one."));
            const auto param = std::find_if(spec.params.begin(), spec.params.end(),
                                            [&](const ParamSpec& p) { return p.name == name; });
            const auto buffer = std::find_if(spec.buffers.begin(), spec.buffers.end(),
                                             [&](const BufferSpec& b) { return b.name == name; });
            if (param != spec.params.end()) {
                if (param->derived)
                    diags.push_back(make_diagnostic(file, c.line, c.column, Severity::Error,
                                                    "case `" + c.name + "` sets `" + name + "`, which follows its image (`" +
                                                        param->default_expr + "`): set the image instead."));
            } else if (buffer != spec.buffers.end()) {
                if (!is_image_buffer(&*buffer))
                    diags.push_back(make_diagnostic(file, c.line, c.column, Severity::Error,
                                                    "case `" + c.name + "` sets buffer `" + name +
                                                        "`, which is not read from an image: a case sets params and image buffers only."));
            } else {
                std::vector<std::string> names;
                for (const ParamSpec& p : spec.params)
                    if (!p.derived) names.push_back(p.name);
                for (const BufferSpec& b : spec.buffers)
                    if (is_image_buffer(&b)) names.push_back(b.name);
                diags.push_back(make_diagnostic(file, c.line, c.column, Severity::Error,
                                                "case `" + c.name + "` sets `" + name + "`, which the header does not have" +
                                                    (names.empty() ? std::string(".") : "; it can set " + join(names, ", ") + ".")));
            }
        }
    }
}

}  // namespace cp
