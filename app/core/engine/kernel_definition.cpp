// Locating a kernel's definition in its source (kernel_definition.h): a light scan that skips comments,
// strings and character literals, as the instrumented variants need no more than the declarator.
#include "core/engine/kernel_definition.h"

#include <cctype>

namespace cp {
namespace {

bool ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// Positions of code (not comments, strings or character literals) where `word` starts as a whole word.
std::vector<size_t> find_word(const std::string& s, const std::string& word) {
    std::vector<size_t> hits;
    for (size_t i = 0; i < s.size();) {
        if (s.compare(i, 2, "//") == 0) {
            i = s.find('\n', i);
            if (i == std::string::npos) break;
            continue;
        }
        if (s.compare(i, 2, "/*") == 0) {
            i = s.find("*/", i + 2);
            if (i == std::string::npos) break;
            i += 2;
            continue;
        }
        if (s[i] == '"' || s[i] == '\'') {
            const char q = s[i++];
            while (i < s.size() && s[i] != q) i += s[i] == '\\' ? 2 : 1;
            ++i;
            continue;
        }
        if (s.compare(i, word.size(), word) == 0 && (i == 0 || !ident_char(s[i - 1])) &&
            (i + word.size() >= s.size() || !ident_char(s[i + word.size()]))) {
            hits.push_back(i);
            i += word.size();
            continue;
        }
        ++i;
    }
    return hits;
}

// The index just past the parenthesis matching the one at `open`.
size_t skip_parens(const std::string& s, size_t open) {
    int depth = 0;
    for (size_t i = open; i < s.size(); ++i) {
        if (s[i] == '(') ++depth;
        if (s[i] == ')' && --depth == 0) return i + 1;
    }
    return std::string::npos;
}

std::string trim(const std::string& s) {
    size_t a = 0, b = s.size();
    while (a < b && std::isspace(static_cast<unsigned char>(s[a]))) ++a;
    while (b > a && std::isspace(static_cast<unsigned char>(s[b - 1]))) --b;
    return s.substr(a, b - a);
}

}  // namespace

std::optional<KernelDefinition> find_kernel_definition(const std::string& source, const std::string& kernel_name,
                                                       std::string& why) {
    KernelDefinition def;
    // The __global__ whose declarator names the kernel.
    bool found = false;
    for (size_t g : find_word(source, "__global__")) {
        const size_t paren = source.find('(', g);
        if (paren == std::string::npos) continue;
        // The kernel's name is the last identifier before the parameter list's '(' (after any
        // __launch_bounds__(...), which has its own parentheses).
        size_t open = paren;
        std::string head = source.substr(g, open - g);
        while (trim(head).size() >= 17 && trim(head).substr(trim(head).size() - 17) == "__launch_bounds__") {
            const size_t after = skip_parens(source, open);
            if (after == std::string::npos) break;
            open = source.find('(', after);
            if (open == std::string::npos) break;
            head = source.substr(g, open - g);
        }
        if (open == std::string::npos) continue;
        size_t end = open;
        while (end > g && std::isspace(static_cast<unsigned char>(source[end - 1]))) --end;
        size_t start = end;
        while (start > g && ident_char(source[start - 1])) --start;
        if (source.compare(start, end - start, kernel_name) == 0 && end - start == kernel_name.size()) {
            def.global = g;
            def.name_at = start;
            found = true;
            break;
        }
    }
    if (!found) {
        why = "its __global__ definition was not found";
        return std::nullopt;
    }
    def.open = source.find('(', def.name_at);
    def.close = skip_parens(source, def.open);
    if (def.close == std::string::npos) {
        why = "its parameter list does not end";
        return std::nullopt;
    }
    def.params_text = source.substr(def.open + 1, def.close - def.open - 2);

    // Parameter names: the last identifier of each top-level, comma-separated declaration.
    int depth = 0;
    size_t decl_start = 0;
    auto finish = [&](size_t decl_end) -> bool {
        size_t a = decl_start, b = decl_end;
        while (a < b && std::isspace(static_cast<unsigned char>(def.params_text[a]))) ++a;
        while (b > a && std::isspace(static_cast<unsigned char>(def.params_text[b - 1]))) --b;
        const std::string p = def.params_text.substr(a, b - a);
        if (p.empty() || p == "void") return true;
        size_t e = p.size();
        while (e > 0 && p[e - 1] == ']') {  // a `float a[]` parameter
            e = p.rfind('[', e - 1);
            if (e == std::string::npos) return false;
            while (e > 0 && std::isspace(static_cast<unsigned char>(p[e - 1]))) --e;
        }
        size_t s = e;
        while (s > 0 && ident_char(p[s - 1])) --s;
        if (s == e || std::isdigit(static_cast<unsigned char>(p[s]))) return false;
        def.params.push_back({p.substr(s, e - s), a, b, a + s});
        return true;
    };
    for (size_t i = 0; i < def.params_text.size(); ++i) {
        const char c = def.params_text[i];
        if (c == '(' || c == '<' || c == '[') ++depth;
        if (c == ')' || c == '>' || c == ']') --depth;
        if (c == ',' && depth == 0) {
            if (!finish(i)) {
                why = "a parameter has no name";
                return std::nullopt;
            }
            decl_start = i + 1;
        }
    }
    if (!finish(def.params_text.size())) {
        why = "a parameter has no name";
        return std::nullopt;
    }

    def.between = source.substr(def.global + 10, def.name_at - def.global - 10);  // "void __launch_bounds__(..) "
    if (size_t lb = def.between.find("__launch_bounds__"); lb != std::string::npos) {
        const size_t lb_open = def.between.find('(', lb);
        const size_t lb_close = skip_parens(def.between, lb_open);
        if (lb_close != std::string::npos) {
            def.bounds = def.between.substr(lb, lb_close - lb);
            def.between.replace(lb, lb_close - lb, std::string(lb_close - lb, ' '));
        }
    }
    return def;
}

}  // namespace cp
