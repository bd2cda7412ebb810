// Parsing the `/*@playground ... */` metadata block of a kernel file, line by line, into a KernelSpec.
// Every problem becomes a Diagnostic with its line (and column) and a sentence on how to fix it.
// Sections: line splitting - keys - param - buffer (and initialisers) - launch keys - view - the rest.
#include "core/expr.h"
#include "core/kernel_file_parts.h"
#include "core/references.h"
#include "core/text_util.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <map>

namespace cp {

namespace {

const std::vector<std::string> kKeys = {"title", "category", "tags", "about", "param", "buffer", "block",
                                        "grid", "shared", "problem", "view", "reference", "tolerance", "traffic"};
const std::vector<std::string> kNamedKeys = {"param", "buffer", "view"};
const std::vector<std::string> kScalarTypes = {"int", "uint", "float", "double"};
const std::vector<std::string> kColormaps = {"gray", "viridis", "magma", "coolwarm"};
const std::vector<std::string> kInits = {"zeros", "constant", "random", "ramp", "image"};
const char* const kInitForms =
    "zeros, constant(V), random(seed=S, min=A, max=B), ramp(start=A, step=B), image(\"file.png\")";

std::string format_number(double v) {
    char text[32];
    std::snprintf(text, sizeof text, "%g", v);
    return text;
}

bool contains(const std::vector<std::string>& v, const std::string& s) {
    return std::find(v.begin(), v.end(), s) != v.end();
}

struct Word {
    std::string text;
    size_t pos;  // offset in the text it came from
};

std::vector<Word> split_words(const std::string& s) {
    std::vector<Word> words;
    size_t i = 0;
    while (i < s.size()) {
        while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
        const size_t start = i;
        while (i < s.size() && !std::isspace(static_cast<unsigned char>(s[i]))) ++i;
        if (i > start) words.push_back({s.substr(start, i - start), start});
    }
    return words;
}

// Splits "A x B x C" on an `x` standing alone between spaces, so `block.x` and `max(x, 2)` stay whole.
// A bare "16x16" (digits only) is also accepted.
std::vector<Word> split_dims(const std::string& s) {
    std::vector<Word> parts;
    size_t start = 0, depth = 0;
    for (size_t i = 0; i < s.size(); ++i) {
        if (s[i] == '(') ++depth;
        if (s[i] == ')' && depth) --depth;
        // At either end too, so "16 x " reads as a missing size rather than a name `x`.
        const bool standalone_x = depth == 0 && (s[i] == 'x' || s[i] == 'X') && trim(s) != "x" &&
                                  (i == 0 || std::isspace(static_cast<unsigned char>(s[i - 1]))) &&
                                  (i + 1 == s.size() || std::isspace(static_cast<unsigned char>(s[i + 1])));
        if (standalone_x) {
            parts.push_back({s.substr(start, i - start), start});
            start = i + 1;
        }
    }
    parts.push_back({s.substr(start), start});
    if (parts.size() == 1) {
        const std::string t = trim(s);
        const bool compact = !t.empty() && std::all_of(t.begin(), t.end(), [](char c) {
            return std::isdigit(static_cast<unsigned char>(c)) || c == 'x' || c == 'X';
        }) && std::isdigit(static_cast<unsigned char>(t.front())) && std::isdigit(static_cast<unsigned char>(t.back()));
        if (compact && t.find_first_of("xX") != std::string::npos) {
            parts.clear();
            const size_t base = s.find(t);
            size_t p = 0;
            while (p <= t.size()) {
                const size_t q = std::min(t.find_first_of("xX", p), t.size());
                parts.push_back({t.substr(p, q - p), base + p});
                p = q + 1;
            }
        }
    }
    // Offsets point at the first non-space character of each part.
    for (auto& part : parts) {
        size_t lead = 0;
        while (lead < part.text.size() && std::isspace(static_cast<unsigned char>(part.text[lead]))) ++lead;
        part.pos += lead;
        part.text = trim(part.text);
    }
    return parts;
}

// Splits on commas outside parentheses and quotes.
std::vector<Word> split_args(const std::string& s) {
    std::vector<Word> parts;
    size_t start = 0;
    int depth = 0;
    bool quoted = false;
    for (size_t i = 0; i <= s.size(); ++i) {
        if (i < s.size()) {
            if (s[i] == '"') quoted = !quoted;
            if (quoted) continue;
            if (s[i] == '(') ++depth;
            if (s[i] == ')') --depth;
            if (s[i] != ',' || depth > 0) continue;
        }
        size_t lead = start;
        while (lead < i && std::isspace(static_cast<unsigned char>(s[lead]))) ++lead;
        parts.push_back({trim(s.substr(start, i - start)), lead});
        start = i + 1;
    }
    if (parts.size() == 1 && parts[0].text.empty()) parts.clear();
    return parts;
}

class HeaderParser {
public:
    HeaderParser(const std::string& file, KernelSpec& spec, std::vector<Diagnostic>& diagnostics, HeaderState& state)
        : file_(file), spec_(spec), diags_(diagnostics), state_(state) {}

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

    void error(int line, int column, std::string message) {
        diags_.push_back(make_diagnostic(file_, line, column, Severity::Error, std::move(message)));
    }
    void warning(int line, int column, std::string message) {
        diags_.push_back(make_diagnostic(file_, line, column, Severity::Warning, std::move(message)));
    }

    void parse_line(const std::string& raw, int line, int column_base) {
        const std::string content = trim(raw);
        if (content.empty()) {
            last_key_.clear();  // a blank line ends an `about:` paragraph
            return;
        }
        size_t indent = 0;
        while (indent < raw.size() && (raw[indent] == ' ' || raw[indent] == '\t')) ++indent;
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
        const bool named = contains(kNamedKeys, key);
        if (named && lhs.size() != 2) {
            const std::string example = key == "param"    ? "param n: int = 1000"
                                        : key == "buffer" ? "buffer a: float[n] in"
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
        if (!named) {
            if (auto it = first_line_of_.find(key); it != first_line_of_.end()) {
                error(line, key_column, "`" + key + "` is given twice (first on line " + std::to_string(it->second) +
                                            "); keep one.");
                return;
            }
            first_line_of_[key] = line;
        }
        if (value.empty() && key != "about" && key != "tags") {
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
        else if (key == "block") parse_dims(l, "block", HeaderExpr::Context::Block, spec_.launch.block_expr);
        else if (key == "grid") {
            state_.grid_line = line;
            parse_dims(l, "grid", HeaderExpr::Context::Grid, spec_.launch.grid_expr);
        } else if (key == "shared") {
            spec_.launch.shared_expr = value;
            remember(HeaderExpr::Context::Shared, value, "`shared`", l.line, l.column);
        } else if (key == "problem") parse_problem(l);
        else if (key == "reference") parse_reference(l);
        else if (key == "tolerance") parse_tolerance(l);
        else if (key == "traffic") {
            spec_.traffic_expr = value;
            remember(HeaderExpr::Context::Traffic, value, "`traffic`", l.line, l.column);
        }
        if (key == "block" || key == "grid" || key == "shared" || key == "problem") {
            if (spec_.launch.line == 0) spec_.launch.line = line;
        }
    }

    struct Line {
        int line;
        int column;         // of value's first character
        std::string value;  // trimmed
    };

    void remember(HeaderExpr::Context context, const std::string& text, const std::string& where, int line,
                  int column, const std::string& owner = {}) {
        state_.exprs.push_back(HeaderExpr{context, text, where, owner, line, column});
    }

    // Evaluates a constant (no names) such as a range bound; reports and returns false on failure.
    bool constant(const std::string& text, int line, int column, const std::string& what, double& out) {
        auto v = eval_expr(text, {});
        if (!v) {
            error(line, column, what + " must be a number, not `" + text + "`.");
            return false;
        }
        out = *v;
        return true;
    }

    void parse_tags(const Line& l) {
        for (const auto& part : split_args(l.value))
            if (!part.text.empty()) spec_.tags.push_back(part.text);
    }

    // ---- param NAME: TYPE = DEFAULT [range A..B] [step S] [enum label=value ...] ----

    void parse_param(const std::string& name, int name_column, const Line& l) {
        const size_t errors_before = diags_.size();
        parse_param_body(name, name_column, l);
        if (diags_.size() != errors_before) state_.broken_names.insert(name);
    }

    void parse_param_body(const std::string& name, int name_column, const Line& l) {
        if (!is_identifier(name)) {
            error(l.line, name_column, "`" + name + "` is not a valid param name: use letters, digits and `_`, "
                                       "not starting with a digit (it must match the kernel's parameter name).");
            return;
        }
        const size_t eq = l.value.find('=');
        const std::string type_text = trim(l.value.substr(0, eq));
        auto type = parse_scalar_type(type_text);
        if (!type) {
            error(l.line, l.column, "unknown param type `" + type_text + "`." + did_you_mean(type_text, kScalarTypes) +
                                        " Param types are: " + join(kScalarTypes, ", ") +
                                        " (arrays are declared with `buffer`).");
            return;
        }
        if (eq == std::string::npos) {
            error(l.line, l.column + static_cast<int>(l.value.size()),
                  "param `" + name + "` has no default value. Write e.g. `param " + name + ": " + type_text + " = 1`.");
            return;
        }
        ParamSpec p;
        p.name = name;
        p.type = *type;
        p.line = l.line;

        const std::string rest = l.value.substr(eq + 1);
        const int rest_column = l.column + static_cast<int>(eq) + 1;
        const std::vector<Word> words = split_words(rest);
        auto is_option = [](const std::string& w) { return w == "range" || w == "step" || w == "enum"; };
        size_t i = 0;
        while (i < words.size() && !is_option(words[i].text)) ++i;
        const size_t default_end = i < words.size() ? words[i].pos : rest.size();
        p.default_expr = trim(rest.substr(0, default_end));
        int default_column = rest_column;
        if (!words.empty()) default_column += static_cast<int>(words[0].pos);
        if (p.default_expr.empty()) {
            error(l.line, rest_column, "param `" + name + "` has no default value after `=`.");
            return;
        }

        while (i < words.size()) {
            const std::string option = words[i].text;
            const int option_column = rest_column + static_cast<int>(words[i].pos);
            size_t j = i + 1;
            while (j < words.size() && !is_option(words[j].text)) ++j;
            std::vector<Word> args(words.begin() + static_cast<long>(i) + 1, words.begin() + static_cast<long>(j));
            if (option == "range") {
                std::string joined;
                for (const auto& a : args) joined += a.text;
                const size_t dots = joined.find("..");
                if (dots == std::string::npos) {
                    error(l.line, option_column, "`range` needs the form `range A..B`, e.g. `range 1..1024`.");
                    return;
                }
                double lo = 0, hi = 0;
                if (!constant(joined.substr(0, dots), l.line, option_column, "the start of the range", lo) ||
                    !constant(joined.substr(dots + 2), l.line, option_column, "the end of the range", hi))
                    return;
                if (lo > hi) {
                    error(l.line, option_column, "the range " + joined + " is empty: its start is above its end.");
                    return;
                }
                p.min = lo;
                p.max = hi;
            } else if (option == "step") {
                double step = 0;
                if (args.size() != 1) {
                    error(l.line, option_column, "`step` takes one number, e.g. `step 0.5`.");
                    return;
                }
                if (!constant(args[0].text, l.line, option_column, "the step", step)) return;
                if (step <= 0) {
                    error(l.line, option_column, "the step must be above 0, not " + args[0].text + ".");
                    return;
                }
                p.step = step;
            } else {  // enum label=value ...
                if (args.empty()) {
                    error(l.line, option_column, "`enum` needs choices, e.g. `enum box=0 gauss=1`.");
                    return;
                }
                for (const auto& a : args) {
                    const size_t e = a.text.find('=');
                    double v = 0;
                    const int arg_column = rest_column + static_cast<int>(a.pos);
                    if (e == std::string::npos || e == 0 || !parse_number(a.text.substr(e + 1), v) || v != static_cast<double>(static_cast<int64_t>(v))) {
                        error(l.line, arg_column, "enum choice `" + a.text + "` must be `label=whole-number`, e.g. `box=0`.");
                        return;
                    }
                    const std::string label = a.text.substr(0, e);
                    for (const auto& [existing, ev] : p.choices) {
                        if (existing == label) {
                            error(l.line, arg_column, "enum label `" + label + "` is given twice.");
                            return;
                        }
                    }
                    p.choices.emplace_back(label, static_cast<int64_t>(v));
                }
            }
            i = j;
        }

        // An enum default may be written as its label.
        for (const auto& [label, v] : p.choices)
            if (p.default_expr == label) p.default_expr = std::to_string(v);
        if (!check_constant_default(p, default_column)) return;
        remember(HeaderExpr::Context::ParamDefault, p.default_expr, "the default of param `" + name + "`", l.line,
                 default_column, name);
        spec_.params.push_back(std::move(p));
    }

    // A default without names can be checked against the param's type, range and choices right away.
    bool check_constant_default(const ParamSpec& p, int column) {
        if (!expr_names(p.default_expr).empty()) return true;
        auto v = eval_expr(p.default_expr, {});
        if (!v) return true;  // syntax errors are reported with the other expressions
        const bool integral = p.type == ScalarType::Int || p.type == ScalarType::UInt;
        if (integral && *v != static_cast<double>(static_cast<int64_t>(*v))) {
            error(p.line, column, "param `" + p.name + "` is " + scalar_type_name(p.type) + " but its default `" +
                                      p.default_expr + "` is not a whole number.");
            return false;
        }
        if (p.type == ScalarType::UInt && *v < 0) {
            error(p.line, column, "param `" + p.name + "` is uint but its default is negative.");
            return false;
        }
        if ((p.min && *v < *p.min) || (p.max && *v > *p.max)) {
            error(p.line, column, "the default " + p.default_expr + " of param `" + p.name + "` is outside its range " +
                                      format_number(p.min.value_or(-INFINITY)) + ".." +
                                      format_number(p.max.value_or(INFINITY)) + ".");
            return false;
        }
        if (!p.choices.empty() &&
            std::none_of(p.choices.begin(), p.choices.end(), [&](const auto& c) { return double(c.second) == *v; })) {
            error(p.line, column, "the default " + p.default_expr + " of param `" + p.name + "` is not one of its enum values.");
            return false;
        }
        return true;
    }

    // ---- buffer NAME: TYPE[COUNT] in|out|inout [INIT] ----

    void parse_buffer(const std::string& name, int name_column, const Line& l) {
        const size_t errors_before = diags_.size();
        parse_buffer_body(name, name_column, l);
        if (diags_.size() != errors_before) state_.broken_names.insert(name);
    }

    void parse_buffer_body(const std::string& name, int name_column, const Line& l) {
        if (!is_identifier(name)) {
            error(l.line, name_column, "`" + name + "` is not a valid buffer name: use letters, digits and `_`, "
                                       "not starting with a digit (it must match the kernel's parameter name).");
            return;
        }
        const size_t open = l.value.find('[');
        if (open == std::string::npos) {
            error(l.line, l.column, "buffer `" + name + "` needs an element count in brackets, e.g. `buffer " + name +
                                        ": float[n] in`.");
            return;
        }
        const std::string type_text = trim(l.value.substr(0, open));
        auto type = parse_elem_type(type_text);
        if (!type) {
            error(l.line, l.column, "unknown element type `" + type_text + "`." +
                                        did_you_mean(type_text, elem_type_names()) +
                                        " Element types are: " + join(elem_type_names(), ", ") + ".");
            return;
        }
        size_t close = open + 1;
        for (int depth = 1; close < l.value.size(); ++close) {
            if (l.value[close] == '[') ++depth;
            if (l.value[close] == ']' && --depth == 0) break;
        }
        if (close >= l.value.size()) {
            error(l.line, l.column + static_cast<int>(open), "the `[` of buffer `" + name + "` is never closed with `]`.");
            return;
        }
        BufferSpec b;
        b.name = name;
        b.type = *type;
        b.line = l.line;
        b.count_expr = trim(l.value.substr(open + 1, close - open - 1));
        if (b.count_expr.empty()) {
            error(l.line, l.column + static_cast<int>(open), "buffer `" + name + "` has an empty count `[]`; write how many "
                                                             "elements it holds, e.g. `[n]` or `[width * height]`.");
            return;
        }
        const std::string after = l.value.substr(close + 1);
        const int after_column = l.column + static_cast<int>(close) + 1;
        const std::vector<Word> words = split_words(after);
        const std::vector<std::string> directions = {"in", "out", "inout"};
        if (words.empty() || !contains(directions, words[0].text)) {
            const std::string got = words.empty() ? std::string("nothing") : "`" + words[0].text + "`";
            const std::string suggestion = words.empty() ? std::string() : did_you_mean(words[0].text, directions);
            error(l.line, words.empty() ? after_column : after_column + static_cast<int>(words[0].pos),
                  "buffer `" + name + "` needs a direction after `[" + b.count_expr + "]`: in, out or inout (got " + got +
                      ")." + suggestion);
            return;
        }
        b.direction = words[0].text == "in" ? Direction::In : words[0].text == "out" ? Direction::Out : Direction::InOut;
        const size_t init_start = words.size() > 1 ? words[1].pos : after.size();
        const std::string init = trim(after.substr(init_start));
        if (!init.empty() && !parse_init(b, init, l.line, after_column + static_cast<int>(init_start))) return;
        remember(HeaderExpr::Context::BufferCount, b.count_expr, "the count of buffer `" + name + "`", l.line,
                 l.column + static_cast<int>(open) + 1);
        spec_.buffers.push_back(std::move(b));
    }

    bool parse_init(BufferSpec& b, const std::string& text, int line, int column) {
        size_t name_end = 0;
        while (name_end < text.size() && (std::isalnum(static_cast<unsigned char>(text[name_end])) || text[name_end] == '_'))
            ++name_end;
        const std::string kind = text.substr(0, name_end);
        if (!contains(kInits, kind)) {
            error(line, column, "unknown initialiser `" + (kind.empty() ? text : kind) + "` for buffer `" + b.name + "`." +
                                    did_you_mean(kind, kInits) + " Initialisers: " + kInitForms + ".");
            return false;
        }
        std::string args_text;
        const std::string rest = trim(text.substr(name_end));
        if (!rest.empty()) {
            if (rest.front() != '(' || rest.back() != ')') {
                error(line, column, "`" + text + "` is not a valid initialiser: write `" + kind + "(...)` with its "
                                    "arguments in parentheses. Initialisers: " + kInitForms + ".");
                return false;
            }
            args_text = rest.substr(1, rest.size() - 2);
        }
        const std::vector<Word> args = split_args(args_text);
        BufferInit& init = b.init;

        // key=value arguments; `allowed` keys, with `positional` the key a bare value stands for.
        auto keyed = [&](const std::vector<std::string>& allowed, const std::string& positional,
                         std::map<std::string, double>& out) {
            for (const auto& a : args) {
                const size_t eq = a.text.find('=');
                std::string key = eq == std::string::npos ? positional : trim(a.text.substr(0, eq));
                const std::string val = eq == std::string::npos ? a.text : trim(a.text.substr(eq + 1));
                if (key.empty()) {
                    error(line, column, "`" + kind + "` takes named arguments (" + join(allowed, "=, ") + "=), got `" +
                                            a.text + "`.");
                    return false;
                }
                if (!contains(allowed, key)) {
                    error(line, column, "`" + kind + "` has no argument `" + key + "`." + did_you_mean(key, allowed) +
                                            " Its arguments are: " + join(allowed, ", ") + ".");
                    return false;
                }
                double v = 0;
                if (!constant(val, line, column, "`" + key + "` of `" + kind + "`", v)) return false;
                out[key] = v;
            }
            return true;
        };

        std::map<std::string, double> values;
        if (kind == "zeros") {
            if (!args.empty()) {
                error(line, column, "`zeros` takes no arguments; for another value use `constant(V)`.");
                return false;
            }
            init.kind = BufferInit::Kind::Zeros;
        } else if (kind == "constant") {
            if (args.size() != 1 || !keyed({"value"}, "value", values)) {
                if (args.size() != 1) error(line, column, "`constant` takes one value, e.g. `constant(-1)`.");
                return false;
            }
            init.kind = BufferInit::Kind::Constant;
            init.constant = values["value"];
        } else if (kind == "random") {
            if (!keyed({"seed", "min", "max"}, "", values)) return false;
            init.kind = BufferInit::Kind::Random;
            if (values.count("seed")) {
                const double s = values["seed"];
                if (s < 0 || s != static_cast<double>(static_cast<uint64_t>(s))) {
                    error(line, column, "the seed of `random` must be a whole number 0 or above.");
                    return false;
                }
                init.seed = static_cast<uint64_t>(s);
            }
            if (values.count("min")) init.min = values["min"];
            if (values.count("max")) init.max = values["max"];
            if (init.min > init.max) {
                error(line, column, "`random` has min above max; swap them.");
                return false;
            }
        } else if (kind == "ramp") {
            if (!keyed({"start", "step"}, "", values)) return false;
            init.kind = BufferInit::Kind::Ramp;
            if (values.count("start")) init.start = values["start"];
            if (values.count("step")) init.step = values["step"];
        } else {  // image
            if (args.size() != 1) {
                error(line, column, "`image` takes one file name in quotes, e.g. `image(\"coffee.png\")`.");
                return false;
            }
            std::string path = args[0].text;
            if (path.size() >= 2 && path.front() == '"' && path.back() == '"') path = path.substr(1, path.size() - 2);
            if (path.empty() || path.find('"') != std::string::npos) {
                error(line, column, "`image` takes one file name in quotes, e.g. `image(\"coffee.png\")`.");
                return false;
            }
            const std::vector<ElemType> image_types = {ElemType::UChar4, ElemType::UChar, ElemType::UChar3,
                                                       ElemType::Float, ElemType::Float3, ElemType::Float4};
            if (std::find(image_types.begin(), image_types.end(), b.type) == image_types.end()) {
                error(line, column, std::string("buffer `") + b.name + "` holds " + elem_info(b.type).name +
                                        ", which an image cannot fill; use uchar4 (RGBA), uchar (gray), uchar3, "
                                        "float (gray 0..1), float3 or float4 (RGBA 0..1).");
                return false;
            }
            if (b.direction == Direction::Out) {
                warning(line, column, "buffer `" + b.name + "` is `out` but filled from an image; the kernel does not "
                                      "read it. Make it `in` or `inout`, or use `zeros`.");
            }
            init.kind = BufferInit::Kind::Image;
            init.image = path;
        }
        return true;
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
        if (!find_reference(l.value)) {
            error(l.line, l.column, "unknown reference `" + l.value + "`." + did_you_mean(l.value, reference_names()) +
                                        " Known references: " + join(reference_names(), ", ") +
                                        ". (Leave out `reference:` if there is none for this kernel.)");
            return;
        }
        spec_.reference = l.value;
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

    const std::string& file_;
    KernelSpec& spec_;
    std::vector<Diagnostic>& diags_;
    HeaderState& state_;
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

void parse_header(const std::string& source, const std::string& file, KernelSpec& spec,
                  std::vector<Diagnostic>& diagnostics, HeaderState& state) {
    static const std::string kOpen = "/*@playground";
    const size_t open = source.find(kOpen);
    if (open == std::string::npos) return;
    spec.has_metadata = true;
    spec.header_first_line = line_of(source, open);
    const size_t body = open + kOpen.size();
    const size_t close = source.find("*/", body);
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
