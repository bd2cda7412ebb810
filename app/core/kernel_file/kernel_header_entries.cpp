// Reading the `param` and `buffer` lines of a metadata header (with ranges, enums and initialisers), and
// the text helpers the header parser shares.
#include "core/kernel_file/scalar_range.h"
#include "core/kernel_file/expr.h"
#include "core/kernel_file/kernel_header_parser.h"
#include "core/text_util.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <limits>
#include <map>

namespace cp::header {

namespace {

// A whole number within [lo, hi], tested before any cast: casting a double outside the target type's
// range (1e52 to uint64_t) is undefined behaviour (found by fuzzing).
bool whole_between(double v, double lo, double hi) {
    return std::isfinite(v) && v >= lo && v <= hi && v == std::floor(v);
}

const std::vector<std::string> kScalarTypes = {"int", "uint", "float", "double"};
const std::vector<std::string> kInits = {"zeros", "constant", "random", "ramp", "image", "data"};
const char* const kInitForms =
    "zeros, constant(V), random(seed=S, min=A, max=B), ramp(start=A, step=B), image(\"file.png\"), "
    "data(\"file.bin\")";

}  // namespace

std::string format_number(double v) {
    char text[48];
    // Whole numbers as whole numbers (1000000, not 1e+06); others with %g's six digits.
    if (std::isfinite(v) && v == std::floor(v) && std::abs(v) < 1e15) std::snprintf(text, sizeof text, "%.0f", v);
    else std::snprintf(text, sizeof text, "%g", v);
    return text;
}

bool contains(const std::vector<std::string>& v, const std::string& s) {
    return std::find(v.begin(), v.end(), s) != v.end();
}

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

bool HeaderEntryParser::constant(const std::string& text, int line, int column, const std::string& what, double& out) {
    auto v = eval_expr(text, {});
    if (!v) {
        error(line, column, what + " must be a number, not `" + text + "`.");
        return false;
    }
    out = *v;
    return true;
}

// ---- param NAME: TYPE = DEFAULT [range A..B] [step S] [enum label=value ...] ----

void HeaderEntryParser::parse_param(const std::string& name, int name_column, const Line& l) {
    const size_t errors_before = diags_.size();
    parse_param_body(name, name_column, l);
    if (diags_.size() != errors_before) state_.broken_names.insert(name);
}

void HeaderEntryParser::parse_param_body(const std::string& name, int name_column, const Line& l) {
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
                if (e == std::string::npos || e == 0 || !parse_number(a.text.substr(e + 1), v) || !whole_between(v, std::numeric_limits<int32_t>::min(), std::numeric_limits<int32_t>::max())) {
                    error(l.line, arg_column,
                          "enum choice `" + a.text + "` must be `label=whole-number` (an int), e.g. `box=0`.");
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
bool HeaderEntryParser::check_constant_default(const ParamSpec& p, int column) {
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
    // As `--set` refuses it (run_choices.cpp): a default the kernel's argument cannot hold would reach the
    // kernel as another number (3e9 as an int is -1294967296).
    if (const auto [lo, hi] = scalar_range(p.type); *v < lo || *v > hi) {
        char value[32], from[32], to[32];
        std::snprintf(value, sizeof value, "%.15g", *v);
        std::snprintf(from, sizeof from, "%.15g", lo);
        std::snprintf(to, sizeof to, "%.15g", hi);
        error(p.line, column,
              "parameter `" + p.name + "` = " + value + " (its default `" + p.default_expr +
                  "`) does not fit the kernel's `" + scalar_type_name(p.type) + "` (" + from + ".." + to +
                  "): use a smaller default.");
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

void HeaderEntryParser::parse_buffer(const std::string& name, int name_column, const Line& l) {
    const size_t errors_before = diags_.size();
    parse_buffer_body(name, name_column, l);
    if (diags_.size() != errors_before) state_.broken_names.insert(name);
}

void HeaderEntryParser::parse_buffer_body(const std::string& name, int name_column, const Line& l) {
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
    std::string init = trim(after.substr(init_start));
    // `... offset K`: the kernel gets a pointer K elements into the buffer (a program's `d_in + RADIUS`).
    if (words.size() >= 3 && words[words.size() - 2].text == "offset") {
        const Word& k = words.back();
        double v = 0;
        if (!constant(k.text, l.line, after_column + static_cast<int>(k.pos), "the offset of buffer `" + name + "`", v))
            return;
        if (!whole_between(v, 0, 0x1p53)) {
            error(l.line, after_column + static_cast<int>(k.pos),
                  "the offset of buffer `" + name + "` must be a whole number of elements from 0, e.g. `offset 3`.");
            return;
        }
        b.offset = static_cast<uint64_t>(v);
        const size_t offset_at = words[words.size() - 2].pos;
        init = offset_at > init_start ? trim(after.substr(init_start, offset_at - init_start)) : std::string();
    }
    if (!init.empty() && !parse_init(b, init, l.line, after_column + static_cast<int>(init_start))) return;
    remember(HeaderExpr::Context::BufferCount, b.count_expr, "the count of buffer `" + name + "`", l.line,
             l.column + static_cast<int>(open) + 1);
    spec_.buffers.push_back(std::move(b));
}

// `result NAME: data("file")`: what buffer NAME must hold after the launch (checked by check_header).
void HeaderEntryParser::parse_result(const std::string& name, const Line& l) {
    const std::string value = trim(l.value);
    const std::string call = value.rfind("data", 0) == 0 ? trim(value.substr(4)) : std::string();  // "(...)"
    if (call.size() < 2 || call.front() != '(' || call.back() != ')') {
        error(l.line, l.column, "`result " + name + ":` takes `data(\"file.bin\")`: the file of what `" + name +
                                    "` must hold after the launch, next to this file.");
        return;
    }
    std::string file;
    if (!data_file_argument(split_args(call.substr(1, call.size() - 2)), l.line, l.column, file)) return;
    spec_.results.push_back(ResultSpec{name, file, l.line});
}

// `data("file.bin")`'s one argument: a file name in quotes, relative to the kernel file's folder and inside it
// (a kernel file is untrusted: it reads no file elsewhere). Into `file`; false (with an error) otherwise.
bool HeaderEntryParser::data_file_argument(const std::vector<Word>& args, int line, int column, std::string& file) {
    std::string path = args.size() == 1 ? args[0].text : std::string();
    if (path.size() >= 2 && path.front() == '"' && path.back() == '"') path = path.substr(1, path.size() - 2);
    else path.clear();
    if (path.empty() || path.find('"') != std::string::npos) {
        error(line, column, "`data` takes one file name in quotes, e.g. `data(\"x.bin\")`: a file of the buffer's "
                            "elements as raw bytes, next to this file.");
        return false;
    }
    const std::filesystem::path p(path);
    bool inside = p.is_relative() && !p.has_root_name();
    for (const auto& part : p)
        if (part == "..") inside = false;
    if (!inside) {
        error(line, column, "`data(\"" + path + "\")` names a file outside this file's folder; a data file must lie "
                            "next to the kernel file or in a folder below it (e.g. `data(\"x.bin\")`).");
        return false;
    }
    file = path;
    return true;
}

bool HeaderEntryParser::parse_init(BufferSpec& b, const std::string& text, int line, int column) {
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
            if (!whole_between(s, 0, 0x1p64 - 2048)) {  // the largest double below 2^64
                error(line, column, "the seed of `random` must be a whole number from 0 to 2^64-1.");
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
    } else if (kind == "data") {
        std::string file;
        if (!data_file_argument(args, line, column, file)) return false;
        init.kind = BufferInit::Kind::Data;
        init.data = file;
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

}  // namespace cp::header
