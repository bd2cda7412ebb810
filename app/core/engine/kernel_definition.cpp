// Locating a kernel's definition in its source (kernel_definition.h): the shared kernel scan finds it
// (kernel_scan.h); here its parameters are named, as the instrumented variants need no more than the declarator.
#include "core/engine/kernel_definition.h"

#include "core/kernel_file/kernel_scan.h"

#include <cctype>

namespace cp {
namespace {

bool ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }
}  // namespace

std::optional<KernelDefinition> find_kernel_definition(const std::string& source, const std::string& kernel_name,
                                                       std::string& why) {
    // The kernel's definition (a declaration before it is not where the wrapper goes), else its first declaration.
    const KernelScan scan = scan_kernels(source);
    const ScannedKernel* found = nullptr;
    for (const ScannedKernel& k : scan.kernels)
        if (k.name == kernel_name && (!found || (!found->definition && k.definition))) found = &k;
    if (!found) {
        why = scan.problems.empty() || scan.problems.back().kind != KernelScanProblem::ParamsNeverClosed
                  ? "its __global__ definition was not found"
                  : "its parameter list does not end";
        return std::nullopt;
    }
    KernelDefinition def;
    def.global = found->global_at;
    def.name_at = found->name_at;
    def.open = found->params_open;
    def.close = found->params_close + 1;
    def.params_text = found->params_text;

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
    if (!found->launch_bounds.empty()) {
        def.bounds = found->launch_bounds;
        def.between.replace(found->launch_bounds_at - def.global - 10, def.bounds.size(), std::string(def.bounds.size(), ' '));
    }
    return def;
}

}  // namespace cp
