// The C++ tokenizer and the __global__ scan over it (kernel_scan.h). Bracket pairs and the next `;` or `{` are
// found once for the whole token list, so each token is visited a bounded number of times: linear time even
// on hostile input (a file of nothing but `__global__`, or a million open parentheses).
#include "core/kernel_file/kernel_scan.h"

#include "core/text_util.h"

#include <algorithm>
#include <cctype>
#include <unordered_set>

namespace cp {
std::vector<CodeToken> tokenize_code(const std::string& s) {
    std::vector<CodeToken> out;
    size_t i = 0;
    int line = 1;
    bool line_start = true;
    auto skip_quoted = [&](char quote) {  // i at the opening quote
        ++i;
        while (i < s.size() && s[i] != quote && s[i] != '\n') {
            if (s[i] == '\\' && i + 1 < s.size()) {
                if (s[i + 1] == '\n') ++line;
                ++i;
            }
            ++i;
        }
        if (i < s.size() && s[i] == quote) ++i;
    };
    while (i < s.size()) {
        const char c = s[i];
        if (c == '\n') {
            ++line;
            ++i;
            line_start = true;
            continue;
        }
        if (std::isspace(static_cast<unsigned char>(c))) {
            ++i;
            continue;
        }
        if (c == '/' && i + 1 < s.size() && s[i + 1] == '/') {
            while (i < s.size() && s[i] != '\n') ++i;
            continue;
        }
        if (c == '/' && i + 1 < s.size() && s[i + 1] == '*') {
            i += 2;
            while (i + 1 < s.size() && !(s[i] == '*' && s[i + 1] == '/')) {
                if (s[i] == '\n') ++line;
                ++i;
            }
            i = std::min(s.size(), i + 2);
            continue;
        }
        const size_t begin = i;
        const int begin_line = line;
        if (c == '#' && line_start) {
            while (i < s.size() && s[i] != '\n') {
                if (s[i] == '\\' && i + 1 < s.size() && s[i + 1] == '\n') {
                    ++line;
                    ++i;
                }
                ++i;
            }
            out.push_back({CodeToken::Directive, begin, i, begin_line});
            continue;
        }
        line_start = false;
        if (is_ident_start(c)) {
            while (i < s.size() && is_ident_char(s[i])) ++i;
            const std::string word = s.substr(begin, i - begin);
            const bool raw = !word.empty() && word.back() == 'R' &&
                             (word == "R" || word == "u8R" || word == "uR" || word == "UR" || word == "LR");
            if (raw && i < s.size() && s[i] == '"') {
                const size_t paren = s.find('(', i);
                if (paren == std::string::npos) {
                    i = s.size();
                } else {
                    const std::string close = ")" + s.substr(i + 1, paren - i - 1) + "\"";
                    const size_t end = s.find(close, paren);
                    const size_t stop = end == std::string::npos ? s.size() : end + close.size();
                    line += int(std::count(s.begin() + long(i), s.begin() + long(stop), '\n'));
                    i = stop;
                }
                out.push_back({CodeToken::String, begin, i, begin_line});
                continue;
            }
            out.push_back({CodeToken::Ident, begin, i, begin_line});
            continue;
        }
        if (std::isdigit(static_cast<unsigned char>(c)) ||
            (c == '.' && i + 1 < s.size() && std::isdigit(static_cast<unsigned char>(s[i + 1])))) {
            while (i < s.size()) {
                const char d = s[i];
                if ((d == '+' || d == '-') &&
                    (s[i - 1] == 'e' || s[i - 1] == 'E' || s[i - 1] == 'p' || s[i - 1] == 'P')) {
                    ++i;
                } else if (is_ident_char(d) || d == '.' || (d == '\'' && i + 1 < s.size() && is_ident_char(s[i + 1]))) {
                    ++i;
                } else {
                    break;
                }
            }
            out.push_back({CodeToken::Number, begin, i, begin_line});
            continue;
        }
        if (c == '"' || c == '\'') {
            skip_quoted(c);
            out.push_back({c == '"' ? CodeToken::String : CodeToken::Char, begin, i, begin_line});
            continue;
        }
        ++i;
        out.push_back({CodeToken::Punct, begin, i, begin_line});
    }
    return out;
}

namespace {

bool is_punct(const std::string& s, const CodeToken& t, char c) {
    return t.kind == CodeToken::Punct && s[t.begin] == c;
}

bool is_word(const std::string& s, const CodeToken& t, std::string_view word) {
    return t.kind == CodeToken::Ident && std::string_view(s).substr(t.begin, t.end - t.begin) == word;
}

// For each opening (, [ or { the index of its closing token (tokens.size() when it never closes). Each kind
// is counted on its own, so a stray `]` does not unbalance the parentheses.
std::vector<size_t> match_brackets(const std::string& s, const std::vector<CodeToken>& tokens) {
    std::vector<size_t> match(tokens.size(), tokens.size());
    std::vector<size_t> open[3];
    const char opens[3] = {'(', '[', '{'}, closes[3] = {')', ']', '}'};
    for (size_t i = 0; i < tokens.size(); ++i) {
        if (tokens[i].kind != CodeToken::Punct) continue;
        for (int k = 0; k < 3; ++k) {
            if (s[tokens[i].begin] == opens[k]) open[k].push_back(i);
            if (s[tokens[i].begin] == closes[k] && !open[k].empty()) {
                match[open[k].back()] = i;
                open[k].pop_back();
            }
        }
    }
    return match;
}

// Words between `__global__` and the name that take a parenthesised argument which is not the parameter list.
bool attribute_word(std::string_view w) {
    return w == "__launch_bounds__" || w == "__attribute__" || w == "__declspec" || w == "alignas" ||
           w == "__align__" || w == "__maxnreg__" || w == "__cluster_dims__" || w == "decltype";
}

}  // namespace

KernelScan scan_kernels(const std::string& s) {
    KernelScan scan;
    const std::vector<CodeToken> tokens = tokenize_code(s);
    const size_t n = tokens.size();
    const std::vector<size_t> match = match_brackets(s, tokens);
    // next_stop[i]: the first `;` or `{` at or after token i (n when none).
    std::vector<size_t> next_stop(n + 1, n);
    for (size_t i = n; i-- > 0;)
        next_stop[i] = is_punct(s, tokens[i], ';') || is_punct(s, tokens[i], '{') ? i : next_stop[i + 1];
    auto word = [&](size_t i) { return std::string_view(s).substr(tokens[i].begin, tokens[i].end - tokens[i].begin); };

    auto ends_declaration = [&](size_t i) {
        return is_punct(s, tokens[i], ';') || is_punct(s, tokens[i], '{') || is_punct(s, tokens[i], '}');
    };
    // The first `template <...>` of the current declaration (declarations end at `;`, `{` and `}`): its
    // `template` token and the `>` that closes its list (angle brackets counted alone), found once.
    size_t template_at = n, template_end = n;
    for (size_t g = 0; g < n; ++g) {
        const CodeToken& t = tokens[g];
        if (ends_declaration(g)) {
            template_at = template_end = n;
            continue;
        }
        if (template_at == n && is_word(s, t, "template") && g + 1 < n && is_punct(s, tokens[g + 1], '<')) {
            template_at = g;
            int depth = 0;
            for (size_t i = g + 1; i < n && !ends_declaration(i); ++i) {
                if (is_punct(s, tokens[i], '<')) ++depth;
                if (is_punct(s, tokens[i], '>') && --depth == 0) {
                    template_end = i;
                    break;
                }
            }
        }
        if (!is_word(s, t, "__global__")) continue;

        ScannedKernel k;
        k.global_at = t.begin;
        if (template_end < g) {
            k.is_template = true;
            k.template_open = tokens[template_at + 1].begin;
            k.template_close = tokens[template_end].begin;
            k.template_text = collapse_spaces(
                s.substr(tokens[template_at].begin, tokens[template_end].end - tokens[template_at].begin));
        }
        // The name: the last identifier before the parameter list's `(`, past attributes with their own parentheses.
        size_t name = n, i = g + 1;
        for (; i < n; ++i) {
            const CodeToken& w = tokens[i];
            if (w.kind == CodeToken::Ident && attribute_word(word(i)) && i + 1 < n && is_punct(s, tokens[i + 1], '(')) {
                const size_t close = match[i + 1];
                if (close < n && word(i) == "__launch_bounds__" && k.launch_bounds.empty()) {
                    k.launch_bounds = s.substr(w.begin, tokens[close].end - w.begin);
                    k.launch_bounds_at = w.begin;
                }
                i = close;  // n when it never closes: the loop ends
                continue;
            }
            if (w.kind == CodeToken::Ident)
                name = i;
            else if (is_punct(s, w, '(') || is_punct(s, w, '<') || is_punct(s, w, ';') || is_punct(s, w, '{'))
                break;
        }
        if (i < n && is_punct(s, tokens[i], '<') && name != n) {
            g = i;  // `__global__ void k<float>(...)`: an explicit specialisation; the primary template is the kernel
            continue;
        }
        if (i >= n || !is_punct(s, tokens[i], '(') || name == n) {
            scan.problems.push_back({KernelScanProblem::NotAFunction, t.line, {}});
            if (i >= n) break;
            g = i - 1;  // the `;`, `{` or `<` that stopped the search is looked at again (it ends a declaration)
            continue;
        }
        k.name = std::string(word(name));
        k.line = tokens[name].line;
        k.name_at = tokens[name].begin;
        const size_t close = match[i];
        if (close >= n) {
            scan.problems.push_back({KernelScanProblem::ParamsNeverClosed, tokens[i].line, k.name});
            break;
        }
        k.params_open = tokens[i].begin;
        k.params_close = tokens[close].begin;
        k.params_text = s.substr(k.params_open + 1, k.params_close - k.params_open - 1);
        const size_t stop = next_stop[close + 1];
        if (stop < n && is_punct(s, tokens[stop], '{')) {
            k.definition = true;
            k.body_open = tokens[stop].begin;
            if (match[stop] < n) k.body_close = tokens[match[stop]].begin;
        }
        scan.kernels.push_back(std::move(k));
        g = close;
    }
    return scan;
}

std::vector<ScannedKernel> defined_kernels(const KernelScan& scan) {
    std::vector<ScannedKernel> defined;
    std::unordered_set<std::string> names;  // not a search of `defined` per kernel: linear in the kernel count
    for (const ScannedKernel& k : scan.kernels)
        if (k.definition && names.insert(k.name).second) defined.push_back(k);
    return defined;
}

}  // namespace cp
