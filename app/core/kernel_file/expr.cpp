// A recursive-descent evaluator for metadata expressions. All arithmetic is in double, so
// `ceil(n / block.x)` rounds up as a reader expects (no C-style integer division).
#include "core/kernel_file/expr.h"

#include "core/text_util.h"

#include <cctype>
#include <cmath>
#include <functional>
#include <set>

namespace cp {

namespace {

struct Function {
    const char* name;
    size_t min_args, max_args;
    double (*apply)(const std::vector<double>&);
};

const std::vector<Function>& functions() {
    static const std::vector<Function> table = {
        {"ceil", 1, 1, [](const std::vector<double>& a) { return std::ceil(a[0]); }},
        {"floor", 1, 1, [](const std::vector<double>& a) { return std::floor(a[0]); }},
        {"round", 1, 1, [](const std::vector<double>& a) { return std::round(a[0]); }},
        {"abs", 1, 1, [](const std::vector<double>& a) { return std::fabs(a[0]); }},
        {"sqrt", 1, 1, [](const std::vector<double>& a) { return std::sqrt(a[0]); }},
        {"log2", 1, 1, [](const std::vector<double>& a) { return std::log2(a[0]); }},
        {"pow", 2, 2, [](const std::vector<double>& a) { return std::pow(a[0], a[1]); }},
        {"div_up", 2, 2, [](const std::vector<double>& a) { return std::ceil(a[0] / a[1]); }},
        {"min", 2, 16, [](const std::vector<double>& a) {
             double m = a[0];
             for (double v : a) m = std::min(m, v);
             return m;
         }},
        {"max", 2, 16, [](const std::vector<double>& a) {
             double m = a[0];
             for (double v : a) m = std::max(m, v);
             return m;
         }},
    };
    return table;
}

std::vector<std::string> function_names() {
    std::vector<std::string> names;
    for (const auto& f : functions()) names.push_back(f.name);
    return names;
}

struct Failure {
    ExprProblem problem;
};

// Parses and (when `scope` is set) evaluates. In check mode names resolve to 1 and arithmetic
// errors are ignored: only the text's form is judged.
class ExprParser {
public:
    ExprParser(const std::string& text, const Scope* scope, const std::vector<std::string>* known)
        : text_(text), scope_(scope), known_(known) {}

    double parse_all() {
        skip_spaces();
        if (pos_ >= text_.size()) fail(1, "the expression is empty", "Write a number or a formula, e.g. `ceil(n / block.x)`.");
        const double v = parse_sum();
        skip_spaces();
        if (pos_ < text_.size()) {
            const char c = text_[pos_];
            if (c == ')') fail(col(), "unmatched `)`", "Remove it or add the matching `(` before it.");
            fail(col(), std::string("unexpected `") + c + "`",
                 "Operators are + - * / % and parentheses; a function call looks like `ceil(x)`.");
        }
        return v;
    }

private:
    [[noreturn]] void fail(int column, std::string message, std::string hint = {}) {
        throw Failure{ExprProblem{column, std::move(message), std::move(hint)}};
    }
    int col() const { return static_cast<int>(pos_) + 1; }
    bool evaluating() const { return scope_ != nullptr; }

    void skip_spaces() {
        while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
    }
    bool accept(char c) {
        skip_spaces();
        if (pos_ < text_.size() && text_[pos_] == c) {
            ++pos_;
            return true;
        }
        return false;
    }

    double parse_sum() {
        double v = parse_product();
        for (;;) {
            if (accept('+')) v += parse_product();
            else if (accept('-')) v -= parse_product();
            else return v;
        }
    }

    double parse_product() {
        double v = parse_unary();
        for (;;) {
            skip_spaces();
            const int op_col = col();
            if (accept('*')) {
                v *= parse_unary();
            } else if (accept('/')) {
                const double d = parse_unary();
                if (evaluating() && d == 0) fail(op_col, "division by zero", "Check the values of the names in the divisor.");
                v /= d;
            } else if (accept('%')) {
                const double d = parse_unary();
                if (evaluating() && d == 0) fail(op_col, "remainder by zero (`% 0`)", "Check the values of the names in the divisor.");
                v = std::fmod(v, d);
            } else {
                return v;
            }
        }
    }

    // Every level of nesting (parentheses, call arguments, unary signs) passes through here, so the depth is
    // bounded here: a kernel file is untrusted, and 100000 `(` would otherwise overflow the stack.
    double parse_unary() {
        if (depth_ >= kMaxDepth) {
            fail(col(), "the expression nests more than " + std::to_string(kMaxDepth) + " levels deep",
                 "Write it with fewer parentheses and signs, e.g. with intermediate parameters.");
        }
        ++depth_;
        double v = 0;
        if (accept('-')) v = -parse_unary();
        else if (accept('+')) v = parse_unary();
        else v = parse_primary();
        --depth_;
        return v;
    }

    double parse_primary() {
        skip_spaces();
        if (pos_ >= text_.size()) fail(col(), "the expression ends too early", "Something is missing after the last operator.");
        const char c = text_[pos_];
        if (c == '(') {
            const int open_col = col();
            ++pos_;
            const double v = parse_sum();
            if (!accept(')')) fail(open_col, "`(` is never closed", "Add the matching `)`.");
            return v;
        }
        if (std::isdigit(static_cast<unsigned char>(c)) || c == '.') return parse_number_token();
        if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') return parse_name();
        fail(col(), std::string("unexpected `") + c + "`", "Expected a number, a name or `(` here.");
    }

    double parse_number_token() {
        const size_t start = pos_;
        if (text_[pos_] == '0' && pos_ + 1 < text_.size() && (text_[pos_ + 1] == 'x' || text_[pos_ + 1] == 'X')) {
            pos_ += 2;
            while (pos_ < text_.size() && std::isxdigit(static_cast<unsigned char>(text_[pos_]))) ++pos_;
        } else {
            while (pos_ < text_.size() && (std::isdigit(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '.')) ++pos_;
            if (pos_ < text_.size() && (text_[pos_] == 'e' || text_[pos_] == 'E')) {
                size_t p = pos_ + 1;
                if (p < text_.size() && (text_[p] == '+' || text_[p] == '-')) ++p;
                if (p < text_.size() && std::isdigit(static_cast<unsigned char>(text_[p]))) {
                    pos_ = p;
                    while (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_]))) ++pos_;
                }
            }
        }
        // A number glued to letters ("16x", "2n") is a typo, not a multiplication.
        size_t end = pos_;
        while (end < text_.size() && (std::isalnum(static_cast<unsigned char>(text_[end])) || text_[end] == '_' || text_[end] == '.')) ++end;
        const std::string token = text_.substr(start, end - start);
        double v = 0;
        if (end != pos_ || !parse_number(token, v)) {
            fail(static_cast<int>(start) + 1, "`" + token + "` is not a number",
                 "Numbers look like 42, 1.5, 1e-6 or 0x10; write `2 * n`, not `2n`.");
        }
        pos_ = end;
        return v;
    }

    std::string read_name() {
        const size_t start = pos_;
        for (;;) {
            while (pos_ < text_.size() && (std::isalnum(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '_')) ++pos_;
            // A dot continues the name only when a name part follows (block.x, src.width).
            if (pos_ + 1 < text_.size() && text_[pos_] == '.' &&
                (std::isalpha(static_cast<unsigned char>(text_[pos_ + 1])) || text_[pos_ + 1] == '_')) {
                ++pos_;
                continue;
            }
            break;
        }
        return text_.substr(start, pos_ - start);
    }

    double parse_name() {
        const int name_col = col();
        const std::string name = read_name();
        skip_spaces();
        if (pos_ < text_.size() && text_[pos_] == '(') return parse_call(name, name_col);
        if (scope_) {
            if (auto it = scope_->find(name); it != scope_->end()) return it->second;
            std::vector<std::string> known;
            for (const auto& [k, v] : *scope_) known.push_back(k);
            unknown_name(name, name_col, known);
        }
        if (known_ && std::find(known_->begin(), known_->end(), name) == known_->end())
            unknown_name(name, name_col, *known_);
        return 1;
    }

    [[noreturn]] void unknown_name(const std::string& name, int column, const std::vector<std::string>& known) {
        for (const auto& f : functions())
            if (name == f.name)
                fail(column, "`" + name + "` is a function", "Call it with parentheses, e.g. `" + name + "(x)`.");
        std::string hint = did_you_mean(name, known);
        hint = trim(hint + (known.empty() ? " No names are defined here." : " Known names: " + join(known, ", ") + "."));
        fail(column, "unknown name `" + name + "`", hint);
    }

    double parse_call(const std::string& name, int name_col) {
        const Function* fn = nullptr;
        for (const auto& f : functions())
            if (name == f.name) fn = &f;
        if (!fn) {
            fail(name_col, "unknown function `" + name + "`",
                 trim(did_you_mean(name, function_names()) + " Functions: " + join(function_names(), ", ") + "."));
        }
        const int open_col = col();
        ++pos_;  // '('
        std::vector<double> args;
        if (!accept(')')) {
            for (;;) {
                args.push_back(parse_sum());
                if (accept(',')) continue;
                if (accept(')')) break;
                skip_spaces();
                if (pos_ >= text_.size()) fail(open_col, "`(` of `" + name + "(` is never closed", "Add the matching `)`.");
                fail(col(), std::string("unexpected `") + text_[pos_] + "` in the arguments of `" + name + "`",
                     "Separate arguments with commas.");
            }
        }
        if (args.size() < fn->min_args || args.size() > fn->max_args) {
            const std::string wanted = fn->min_args == fn->max_args
                                           ? std::to_string(fn->min_args)
                                           : "at least " + std::to_string(fn->min_args);
            fail(name_col, "`" + name + "` takes " + wanted + " argument" + (fn->max_args == 1 ? "" : "s") +
                               ", got " + std::to_string(args.size()));
        }
        if (!evaluating()) return 1;
        if (name == "div_up" && args[1] == 0) fail(name_col, "div_up by zero", "Check the values of its second argument.");
        if (name == "sqrt" && args[0] < 0) fail(name_col, "sqrt of a negative number");
        if (name == "log2" && args[0] <= 0) fail(name_col, "log2 of a number that is not positive");
        return fn->apply(args);
    }

    static constexpr int kMaxDepth = 200;

    const std::string& text_;
    const Scope* scope_;
    const std::vector<std::string>* known_;
    size_t pos_ = 0;
    int depth_ = 0;  // parse_unary calls in progress (fail() throws, so it need not unwind)
};

}  // namespace

Result<double> eval_expr(const std::string& text, const Scope& scope) {
    try {
        ExprParser parser(text, &scope, nullptr);
        const double v = parser.parse_all();
        if (!std::isfinite(v))
            return make_error(ErrorKind::UserInput, "`" + text + "` does not give a finite number",
                              "Check the values it uses.");
        return v;
    } catch (const Failure& f) {
        return make_error(ErrorKind::UserInput,
                          "in `" + text + "` at column " + std::to_string(f.problem.column) + ": " + f.problem.message,
                          f.problem.hint);
    }
}

std::optional<ExprProblem> check_expr(const std::string& text, const std::vector<std::string>& known) {
    try {
        ExprParser parser(text, nullptr, &known);
        parser.parse_all();
        return std::nullopt;
    } catch (const Failure& f) {
        return f.problem;
    }
}

std::vector<std::string> expr_names(const std::string& text) {
    // Tolerant scan: names anywhere in the text, even if it does not parse, minus function calls.
    std::vector<std::string> names;
    std::set<std::string> seen;
    size_t i = 0;
    while (i < text.size()) {
        const char c = text[i];
        if (std::isdigit(static_cast<unsigned char>(c))) {
            while (i < text.size() && (std::isalnum(static_cast<unsigned char>(text[i])) || text[i] == '.' || text[i] == '_')) ++i;
            continue;
        }
        if (!(std::isalpha(static_cast<unsigned char>(c)) || c == '_')) {
            ++i;
            continue;
        }
        const size_t start = i;
        for (;;) {
            while (i < text.size() && (std::isalnum(static_cast<unsigned char>(text[i])) || text[i] == '_')) ++i;
            if (i + 1 < text.size() && text[i] == '.' &&
                (std::isalpha(static_cast<unsigned char>(text[i + 1])) || text[i + 1] == '_')) {
                ++i;
                continue;
            }
            break;
        }
        const std::string name = text.substr(start, i - start);
        size_t j = i;
        while (j < text.size() && std::isspace(static_cast<unsigned char>(text[j]))) ++j;
        const bool is_call = j < text.size() && text[j] == '(';
        if (!is_call && seen.insert(name).second) names.push_back(name);
    }
    return names;
}

}  // namespace cp
