// main_function_line (program_file.h): a walk over the shared C++ tokens at brace depth 0 (namespaces and
// extern "C" blocks count as depth 0).
#include "core/kernel_file/program_file.h"

#include "core/kernel_file/kernel_scan.h"
#include "core/kernel_file/reference_section.h"

#include <vector>

namespace cp {

int main_function_line(const std::string& whole) {
    const std::string s = without_reference_sections(whole);
    const std::vector<CodeToken> tokens = tokenize_code(s);
    auto text = [&](size_t k) { return s.substr(tokens[k].begin, tokens[k].end - tokens[k].begin); };
    auto punct = [&](size_t k, char c) { return tokens[k].kind == CodeToken::Punct && s[tokens[k].begin] == c; };
    std::vector<bool> braces;  // per open brace: namespace-like (its inside is still namespace scope)
    size_t statement = 0;      // first token of the current namespace-scope statement
    for (size_t k = 0; k < tokens.size(); ++k) {
        const bool at_namespace_scope = [&] {
            for (bool b : braces)
                if (!b) return false;
            return true;
        }();
        if (tokens[k].kind == CodeToken::Directive) continue;
        if (punct(k, '{')) {
            bool namespace_like = false;
            for (size_t b = statement; b < k; ++b) {
                const std::string w = text(b);
                if (w == "namespace" || (w == "extern" && b + 1 < k && tokens[b + 1].kind == CodeToken::String))
                    namespace_like = true;
            }
            braces.push_back(namespace_like);
            statement = k + 1;
            continue;
        }
        if (punct(k, '}')) {
            if (!braces.empty()) braces.pop_back();
            statement = k + 1;
            continue;
        }
        if (punct(k, ';')) {
            statement = k + 1;
            continue;
        }
        if (!at_namespace_scope || tokens[k].kind != CodeToken::Ident || text(k) != "main") continue;
        if (k + 1 >= tokens.size() || !punct(k + 1, '(')) continue;
        if (k > 0 && (punct(k - 1, ':') || punct(k - 1, '.') || punct(k - 1, '>'))) continue;  // S::main, a.main
        // `main ( ... ) [qualifiers] {`: a definition, not a declaration or a call.
        int depth = 0;
        size_t m = k + 1;
        for (; m < tokens.size(); ++m) {
            if (punct(m, '(')) ++depth;
            if (punct(m, ')') && --depth == 0) break;
        }
        for (++m; m < tokens.size() && tokens[m].kind == CodeToken::Ident; ++m) {
        }
        if (m < tokens.size() && punct(m, '{')) return tokens[k].line;
    }
    return 0;
}

}  // namespace cp
