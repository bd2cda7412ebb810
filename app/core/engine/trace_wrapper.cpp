// Source-to-source wrapping for traced launches (see trace_wrapper.h). Only the text from `__global__` to the
// kernel's name and its parameter list change; the body, and so every line number the compiler reports, stay.
#include "core/engine/trace_wrapper.h"

#include <cctype>
#include <vector>

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

Result<std::string> make_trace_wrapper(const std::string& source, const std::string& kernel_name) {
    const auto unusable = [&](const std::string& why) {
        return make_error("cannot instrument kernel `" + kernel_name + "` for tracing: " + why,
                          "a traced launch needs `extern \"C\" __global__ void NAME(...)` with named parameters");
    };
    // The __global__ whose declarator names the kernel.
    size_t global = std::string::npos, name_at = std::string::npos;
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
            global = g;
            name_at = start;
            break;
        }
    }
    if (global == std::string::npos) return unusable("its __global__ definition was not found");
    const size_t open = source.find('(', name_at);
    const size_t close = skip_parens(source, open);
    if (close == std::string::npos) return unusable("its parameter list does not end");
    const std::string params_text = source.substr(open + 1, close - open - 2);

    // Parameter names: the last identifier of each top-level, comma-separated declaration.
    std::vector<std::string> names;
    int depth = 0;
    std::string current;
    auto finish = [&]() -> bool {
        std::string p = trim(current);
        current.clear();
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
        names.push_back(p.substr(s, e - s));
        return true;
    };
    for (char c : params_text) {
        if (c == '(' || c == '<' || c == '[') ++depth;
        if (c == ')' || c == '>' || c == ']') --depth;
        if (c == ',' && depth == 0) {
            if (!finish()) return unusable("a parameter has no name");
            continue;
        }
        current += c;
    }
    if (!finish()) return unusable("a parameter has no name");

    // __launch_bounds__ belongs to the __global__ function: move it to the wrapper.
    std::string between = source.substr(global + 10, name_at - global - 10);  // "void __launch_bounds__(..) "
    std::string bounds;
    if (size_t lb = between.find("__launch_bounds__"); lb != std::string::npos) {
        const size_t lb_open = between.find('(', lb);
        const size_t lb_close = skip_parens(between, lb_open);
        if (lb_close != std::string::npos) {
            bounds = between.substr(lb, lb_close - lb);
            between.replace(lb, lb_close - lb, std::string(lb_close - lb, ' '));
        }
    }
    const std::string body_name = kernel_name + "__cp_user";
    std::string out = source.substr(0, global);
    out += "__device__ __forceinline__" + between + body_name;
    out += source.substr(name_at + kernel_name.size());

    std::string args;
    for (size_t i = 0; i < names.size(); ++i) args += (i ? ", " : "") + names[i];
    out += "\n\n// ---- added by CUDA Playground for a traced launch: where and when each block ran ----\n";
    out += "__device__ unsigned long long* " + std::string(kTraceRecordsSymbol) + " = 0;\n";
    out += "extern \"C\" __global__ void " + bounds + (bounds.empty() ? "" : " ") + kernel_name + "(" + params_text + ")\n{\n";
    out += "    const bool cp_leader = threadIdx.x == 0 && threadIdx.y == 0 && threadIdx.z == 0;\n"
           "    unsigned long long cp_start = 0;\n"
           "    if (cp_leader) asm volatile(\"mov.u64 %0, %%globaltimer;\" : \"=l\"(cp_start));\n";
    out += "    " + body_name + "(" + args + ");\n";
    out += "    __syncthreads();\n"
           "    if (cp_leader && " + std::string(kTraceRecordsSymbol) + ") {\n"
           "        unsigned long long cp_end;\n"
           "        unsigned int cp_sm;\n"
           "        asm volatile(\"mov.u64 %0, %%globaltimer;\" : \"=l\"(cp_end));\n"
           "        asm volatile(\"mov.u32 %0, %%smid;\" : \"=r\"(cp_sm));\n"
           "        const unsigned long long cp_block = blockIdx.x + (unsigned long long)gridDim.x *\n"
           "            (blockIdx.y + (unsigned long long)gridDim.y * blockIdx.z);\n"
           "        unsigned long long* cp_rec = " + std::string(kTraceRecordsSymbol) + " + 3 * cp_block;\n"
           "        cp_rec[0] = cp_sm;\n"
           "        cp_rec[1] = cp_start;\n"
           "        cp_rec[2] = cp_end;\n"
           "    }\n}\n";
    return out;
}

}  // namespace cp
