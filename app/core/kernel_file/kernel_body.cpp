// Reading a kernel's body for `describe` (kernel_body.h): one pass over its tokens, pattern by pattern. It
// guesses, as a reader skimming the code would; `describe` says each guess in the header it writes.
#include "core/kernel_file/kernel_body.h"

#include <algorithm>
#include <cctype>
#include <set>

namespace cp {

namespace {

bool is_ident(const std::string& w) {
    return !w.empty() && (std::isalpha(static_cast<unsigned char>(w[0])) || w[0] == '_');
}
bool is_number(const std::string& w) {
    return !w.empty() && std::isdigit(static_cast<unsigned char>(w[0]));
}

// `#define NAME 16` and `const int NAME = 16;` (also constexpr, static, unsigned) anywhere in the file.
std::map<std::string, long> file_constants(const std::string& s, const std::vector<CodeToken>& tokens) {
    std::map<std::string, long> out;
    auto text = [&](size_t i) { return s.substr(tokens[i].begin, tokens[i].end - tokens[i].begin); };
    for (size_t i = 0; i < tokens.size(); ++i) {
        if (tokens[i].kind == CodeToken::Directive) {
            std::vector<CodeToken> inner = tokenize_code(text(i).substr(1));
            const std::string d = text(i).substr(1);
            auto word = [&](size_t j) { return d.substr(inner[j].begin, inner[j].end - inner[j].begin); };
            if (inner.size() == 3 && word(0) == "define" && inner[2].kind == CodeToken::Number)
                out[word(1)] = std::strtol(word(2).c_str(), nullptr, 0);
            if (inner.size() == 5 && word(0) == "define" && word(2) == "(" && word(4) == ")")
                out[word(1)] = std::strtol(word(3).c_str(), nullptr, 0);
            continue;
        }
        // const int NAME = NUMBER ;
        if (text(i) == "const" || text(i) == "constexpr") {
            size_t j = i + 1;
            while (j < tokens.size() && tokens[j].kind == CodeToken::Ident &&
                   (text(j) == "int" || text(j) == "unsigned" || text(j) == "long" || text(j) == "size_t"))
                ++j;
            if (j + 3 < tokens.size() && j > i + 1 && tokens[j].kind == CodeToken::Ident && text(j + 1) == "=" &&
                tokens[j + 2].kind == CodeToken::Number && text(j + 3) == ";")
                out[text(j)] = std::strtol(text(j + 2).c_str(), nullptr, 0);
        }
    }
    return out;
}

}  // namespace

std::string words_text(const Words& w) {
    std::string out;
    for (size_t i = 0; i < w.size(); ++i) {
        const bool tight = w[i] == "." || w[i] == "[" || w[i] == "]" || w[i] == ")" ||
                           (i > 0 && (w[i - 1] == "." || w[i - 1] == "(" || w[i - 1] == "[" || w[i - 1] == "!"));
        if (i > 0 && !tight) out += ' ';
        out += w[i];
    }
    return out;
}

std::optional<long> leading_constant(const Words& w, const std::map<std::string, long>& constants) {
    if (w.empty()) return std::nullopt;
    if (is_number(w[0])) return std::strtol(w[0].c_str(), nullptr, 0);
    if (auto it = constants.find(w[0]); it != constants.end()) return it->second;
    return std::nullopt;
}

KernelBody read_kernel_body(const std::string& source, const ScannedKernel& kernel,
                            const std::vector<std::string>& pointer_params,
                            const std::vector<std::string>& scalar_params) {
    KernelBody body;
    const std::vector<CodeToken> all = tokenize_code(source);
    body.constants = file_constants(source, all);
    if (!kernel.definition || kernel.body_open == kNoOffset) return body;
    const size_t end = kernel.body_close == kNoOffset ? source.size() : kernel.body_close;
    Words w;  // the body's words, between its braces
    for (const CodeToken& t : all)
        if (t.begin > kernel.body_open && t.begin < end && t.kind != CodeToken::Directive)
            w.push_back(source.substr(t.begin, t.end - t.begin));
    body.found = true;
    const size_t n = w.size();
    const std::set<std::string> pointers(pointer_params.begin(), pointer_params.end());
    const std::set<std::string> scalars(scalar_params.begin(), scalar_params.end());
    auto at = [&](size_t i) -> const std::string& {
        static const std::string none;
        return i < n ? w[i] : none;
    };
    // For each `[` or `(`, the index of its closing bracket (n when it never closes), found once: the body
    // is read in linear time whatever it holds.
    std::vector<size_t> match(n, n);
    {
        std::vector<size_t> square, round;
        for (size_t i = 0; i < n; ++i) {
            if (w[i] == "[") square.push_back(i);
            if (w[i] == "(") round.push_back(i);
            if (w[i] == "]" && !square.empty()) {
                match[square.back()] = i;
                square.pop_back();
            }
            if (w[i] == ")" && !round.empty()) {
                match[round.back()] = i;
                round.pop_back();
            }
        }
    }
    auto closing = [&](size_t i) { return match[i]; };
    // Definitions, comparisons and declarations are read this far at most (a statement longer than this is
    // not one a guess needs).
    constexpr size_t kLookahead = 64;
    // The words [from, to) (an index expression), at most kLookahead of them.
    auto slice = [&](size_t from, size_t to) {
        to = std::min({to, n, from + kLookahead});
        return from < to ? Words(w.begin() + long(from), w.begin() + long(to)) : Words{};
    };
    // Whether the words from i on assign: `=` (not `==`), `+=`..., `<<=`, `++`, `--`. Set `compound` for
    // those that also read.
    auto assigns = [&](size_t i, bool& compound) {
        while (at(i) == "." && is_ident(at(i + 1))) i += 2;  // p[i].x = ...
        compound = false;
        if (at(i) == "=") return at(i + 1) != "=";
        if ((at(i) == "+" && at(i + 1) == "+") || (at(i) == "-" && at(i + 1) == "-")) return compound = true;
        static const std::set<std::string> ops = {"+", "-", "*", "/", "%", "&", "|", "^"};
        if (ops.count(at(i)) && at(i + 1) == "=") return compound = true;
        if ((at(i) == "<" || at(i) == ">") && at(i + 1) == at(i) && at(i + 2) == "=") return compound = true;
        return false;
    };

    std::map<std::string, std::string> loop_steps;  // `j += ROWS`: j -> ROWS
    std::set<std::string> row_offsets;               // `threadIdx.y + j`: j
    for (size_t i = 0; i < n; ++i) {
        if ((w[i] == "blockIdx" || w[i] == "threadIdx") && at(i + 1) == "." && at(i + 2) == "y") body.two_d = true;
        if (w[i] == "blockIdx") body.block_index = true;
        if (is_ident(w[i]) && at(i + 1) == "+" && at(i + 2) == "=" && (is_ident(at(i + 3)) || std::isdigit(static_cast<unsigned char>(at(i + 3)[0]))) &&
            at(i + 4) != "*" && at(i + 4) != "+" && at(i + 4) != "-" && at(i + 4) != "/")
            loop_steps.emplace(w[i], at(i + 3));
        if (w[i] == "threadIdx" && at(i + 1) == "." && at(i + 2) == "y" && at(i + 3) == "+" && is_ident(at(i + 4)))
            row_offsets.insert(at(i + 4));
        if (w[i] == "+" && at(i + 1) == "threadIdx" && at(i + 2) == "." && at(i + 3) == "y" && i > 0 && is_ident(at(i - 1)))
            row_offsets.insert(at(i - 1));

        // A local variable's first definition: `NAME = EXPR ;` (or `,`), and which thread axis it follows.
        if (is_ident(w[i]) && at(i + 1) == "=" && at(i + 2) != "=" && !pointers.count(w[i]) && !scalars.count(w[i]) &&
            !body.axis.count(w[i]) && (i == 0 || (at(i - 1) != "." && at(i - 1) != "]"))) {
            // `NAME = X * K;` or `NAME = K * X;` with K 2..4: a packed-channel offset.
            auto factor = [](const std::string& t) { return t == "2" || t == "3" || t == "4" ? t[0] - '0' : 0; };
            if (at(i + 3) == "*" && (at(i + 5) == ";" || at(i + 5) == ",") && !body.scaled.count(w[i])) {
                if (is_ident(at(i + 2)) && factor(at(i + 4))) body.scaled[w[i]] = factor(at(i + 4));
                if (is_ident(at(i + 4)) && factor(at(i + 2))) body.scaled[w[i]] = factor(at(i + 2));
            }
            for (size_t j = i + 2; j < n && j < i + kLookahead && w[j] != ";" && w[j] != ","; ++j) {
                if ((w[j] == "blockIdx" || w[j] == "threadIdx") && at(j + 1) == ".") {
                    body.axis[w[i]] = at(j + 2) == "x" ? 0 : at(j + 2) == "y" ? 1 : 2;
                    break;
                }
                if (auto a = body.axis.find(w[j]); a != body.axis.end() && w[j] != w[i]) {
                    body.axis[w[i]] = a->second;
                    break;
                }
            }
        }

        // Comparisons: `v < EXPR` bounds v; a thread-derived v compared with a size is a bounds check.
        const bool less = w[i] == "<" && at(i + 1) != "<" && (i == 0 || at(i - 1) != "<");
        const bool greater = w[i] == ">" && at(i + 1) != ">" && (i == 0 || (at(i - 1) != ">" && at(i - 1) != "-"));
        if ((less || greater) && i > 0 && is_ident(w[i - 1])) {
            const std::string var = w[i - 1];
            Words expr;
            int depth = 0;
            for (size_t j = i + (at(i + 1) == "=" ? 2 : 1); j < n && j < i + kLookahead; ++j) {
                if (w[j] == "(") ++depth;
                if (w[j] == ")" && --depth < 0) break;
                if (depth == 0 &&
                    (w[j] == ";" || w[j] == "?" || w[j] == "," || ((w[j] == "&" || w[j] == "|") && at(j + 1) == w[j])))
                    break;
                expr.push_back(w[j]);
            }
            const bool sized =
                std::any_of(expr.begin(), expr.end(), [&](const std::string& e) { return scalars.count(e) > 0; });
            if (less && !body.bounds.count(var) && !expr.empty()) body.bounds[var] = expr;
            if (sized && body.axis.count(var)) body.guarded = true;
        }

        // __shared__ arrays: `[extern] __shared__ TYPE NAME[A][B];`
        if (w[i] == "__shared__") {
            SharedArray a;
            a.is_extern = i > 0 && at(i - 1) == "extern";
            size_t j = i + 1;
            for (; j < n && j < i + kLookahead && w[j] != "[" && w[j] != ";"; ++j)
                if (is_ident(w[j])) {
                    if (!a.name.empty()) a.type += (a.type.empty() ? "" : " ") + a.name;
                    a.name = w[j];
                }
            while (j < n && w[j] == "[" && a.dims.size() < 3) {
                const size_t close = closing(j);
                a.dims.push_back(slice(j + 1, close));
                j = close + 1;
            }
            if (!a.name.empty() && !a.dims.empty() && body.shared.size() < 16) body.shared.push_back(std::move(a));
            i = j < n ? j - 1 : n;
            continue;
        }

        if (pointers.count(w[i])) {
            PointerUse& use = body.pointers[w[i]];
            if (i > 0 && at(i - 1) == ".") continue;  // a member of something else
            const bool in_atomic =
                (i >= 3 && at(i - 1) == "&" && at(i - 2) == "(" && at(i - 3).rfind("atomic", 0) == 0) ||
                (i >= 2 && at(i - 1) == "(" && at(i - 2).rfind("atomic", 0) == 0);
            if (at(i + 1) == "[") {
                const size_t close = closing(i + 1);
                Words index = slice(i + 2, close);
                bool compound = false;
                if (in_atomic) {
                    use.atomic = true;
                    use.writes.push_back(index);
                } else if (assigns(close + 1, compound)) {
                    use.written = true;
                    use.writes.push_back(index);
                    if (compound) use.read = true;
                } else if ((at(i - 1) == "+" && at(i - 2) == "+") || (at(i - 1) == "-" && at(i - 2) == "-")) {
                    use.read = use.written = true;
                    use.writes.push_back(index);
                } else {
                    use.read = true;
                    use.reads.push_back(index);
                }
                continue;
            }
            if (in_atomic)
                use.atomic = true;
            else
                use.other = true;
        }
        for (SharedArray& a : body.shared)
            if (w[i] == a.name && at(i + 1) == "[") {
                const size_t close = closing(i + 1);
                if (a.indexes.size() < kLookahead) a.indexes.push_back(slice(i + 2, close));
            }
    }
    for (const std::string& v : row_offsets)
        if (auto step = loop_steps.find(v); step != loop_steps.end()) {
            body.row_step = step->second;
            break;
        }
    return body;
}

}  // namespace cp
