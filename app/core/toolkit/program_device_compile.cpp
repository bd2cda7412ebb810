// compile_program_device_code: NVRTC over the program's device part, names from the host library (program_device_compile.h).
#include "core/toolkit/program_device_compile.h"

#include "core/kernel_file/host_code.h"
#include "core/kernel_file/kernel_scan.h"
#include "core/kernel_file/local_includes.h"
#include "core/toolkit/elf_symbols.h"
#include "core/toolkit/nvrtc_compiler.h"

#include <map>
#include <set>

namespace cp {

SymbolName symbol_name(const std::string& d) {
    if (d.find("[clone") != std::string::npos || d.find("(anonymous namespace)") != std::string::npos) return {};
    // The name ends at the parameters' '(' (functions) or the end (variables), outside template arguments.
    int angle = 0;
    size_t end = d.size();
    for (size_t i = 0; i < d.size(); ++i) {
        if (d[i] == '<') ++angle;
        else if (d[i] == '>') --angle;
        else if (d[i] == '(' && angle == 0) {
            end = i;
            break;
        }
    }
    std::string name = d.substr(0, end);
    const std::string params = end < d.size() ? d.substr(end) : std::string();
    // A template function's return type comes first (`void axpy<float>`): after the last space outside `<...>`.
    angle = 0;
    size_t start = 0;
    for (size_t i = 0; i < name.size(); ++i) {
        if (name[i] == '<') ++angle;
        else if (name[i] == '>') --angle;
        else if (name[i] == ' ' && angle == 0) start = i + 1;
    }
    name = name.substr(start);
    if (name.empty()) return {};
    std::string base = name;
    if (base.back() == '>') {
        int depth = 0;
        for (size_t i = base.size(); i-- > 0;) {
            if (base[i] == '>') ++depth;
            if (base[i] == '<' && --depth == 0) {
                base = base.substr(0, i);
                break;
            }
        }
    }
    if (const size_t colon = base.rfind("::"); colon != std::string::npos) base = base.substr(colon + 2);
    return {name, base, params};
}

std::vector<DeviceVariable> device_variables(const std::string& s) {
    const std::vector<CodeToken> tokens = tokenize_code(s);
    auto text = [&](const CodeToken& t) { return s.substr(t.begin, t.end - t.begin); };
    auto punct = [&](const CodeToken& t, char c) { return t.kind == CodeToken::Punct && s[t.begin] == c; };
    std::vector<DeviceVariable> names;
    int braces = 0;
    for (size_t k = 0; k < tokens.size(); ++k) {
        if (punct(tokens[k], '{')) ++braces;
        if (punct(tokens[k], '}')) --braces;
        if (braces != 0 || tokens[k].kind != CodeToken::Ident) continue;
        const std::string w = text(tokens[k]);
        if (w != "__constant__" && w != "__device__" && w != "__managed__") continue;
        size_t last = 0;
        bool function = false, managed = w == "__managed__";
        size_t m = k + 1;
        for (; m < tokens.size(); ++m) {
            if (tokens[m].kind == CodeToken::Ident && text(tokens[m]) == "__managed__") managed = true;
            if (punct(tokens[m], '(')) {
                function = true;
                break;
            }
            if (punct(tokens[m], ';') || punct(tokens[m], '=') || punct(tokens[m], '[') || punct(tokens[m], '{'))
                break;
            if (tokens[m].kind == CodeToken::Ident) last = m;
        }
        if (!function && last > k) names.push_back({text(tokens[last]), managed});
        k = m > k ? m - 1 : k;
    }
    return names;
}

ProgramDeviceCompile compile_program_device_code(const std::string& source, const std::string& path,
                                                 const std::vector<std::string>& include_dirs,
                                                 const std::vector<ElfSymbol>& host_symbols, const std::string& arch) {
    ProgramDeviceCompile out;
    const std::string device_source = separate_host_code(source, true).kernel_source;
    // The kernels and variables of the file and of its own headers (as NVRTC reads them: device code only).
    std::vector<std::string> device_texts = {device_source};
    for (const LocalHeader& h : resolve_local_includes(source, path, true, include_dirs).headers)
        device_texts.push_back(h.contents);
    std::set<std::string> kernels;
    std::set<std::string> variables, managed;
    for (const std::string& text : device_texts) {
        for (const ScannedKernel& k : defined_kernels(scan_kernels(text))) kernels.insert(k.name);
        for (const DeviceVariable& v : device_variables(text)) {
            variables.insert(v.name);
            if (v.managed) managed.insert(v.name);
        }
    }
    std::map<uint64_t, std::string> managed_at;  // host offset -> symbol

    // Name expressions, kernels first (compile_with_nvrtc checks that its first one is a __global__ function).
    std::map<std::string, std::vector<uint64_t>> kernel_at, variable_at;  // expression -> host offsets
    std::map<std::string, std::string> kernel_named;                      // expression -> the kernel as C++ names it
    struct Found {
        SymbolName name;
        uint64_t at;
    };
    std::vector<Found> found;
    std::map<std::string, std::set<std::string>> signatures;  // qualified name -> parameter lists seen
    for (const ElfSymbol& sym : host_symbols) {
        const std::string d = demangled(sym.name);
        const bool mangled = d != sym.name;
        const SymbolName n = mangled ? symbol_name(d) : SymbolName{sym.name, sym.name, {}};  // extern "C": the name
        if (sym.function) {
            if (n.base.empty() || !kernels.count(n.base)) continue;
            found.push_back({n, sym.value});
            signatures[n.qualified].insert(n.params);
        } else {
            if (n.base.empty() || !variables.count(n.base)) continue;
            // NVRTC takes no name expression of a __managed__ variable ("cannot be used as a constant"); a
            // variable's name is mangled alike by both compilers, so the host's symbol is the device's.
            if (managed.count(n.base)) managed_at[sym.value] = sym.name;
            else variable_at["&" + n.qualified].push_back(sym.value);
        }
    }
    // An overloaded kernel (`scale(float*, ...)` and `scale(double*, ...)`) is named with its type.
    for (const Found& f : found) {
        const bool overloaded = signatures[f.name.qualified].size() > 1 && !f.name.params.empty();
        const std::string expression =
            overloaded ? "static_cast<void (*)" + f.name.params + ">(" + f.name.qualified + ")" : f.name.qualified;
        kernel_at[expression].push_back(f.at);
        kernel_named[expression] = f.name.qualified + (overloaded ? f.name.params : std::string());
    }
    out.image = std::make_shared<ProgramDeviceImage>();
    out.image->arch = arch;
    if (kernel_at.empty() && variable_at.empty() && managed_at.empty()) {
        out.result.ok = true;  // no kernel launched: nothing for the GPU to load
        return out;
    }
    CompileRequest request;
    request.source = device_source;
    request.path = path;
    request.include_dirs = include_dirs;
    for (const auto& [expression, offsets] : kernel_at)
        (request.kernel_name.empty() ? request.kernel_name : request.also_kernels.emplace_back()) = expression;
    for (const auto& [expression, offsets] : variable_at) request.also_kernels.push_back(expression);
    std::string first_lowered;
    std::map<std::string, std::string> lowered;
    out.result = compile_with_nvrtc(request, arch, &out.image->image, &first_lowered, &lowered);
    if (!out.result.ok) {
        out.image.reset();
        return out;
    }
    if (!request.kernel_name.empty()) lowered[request.kernel_name] = first_lowered;
    for (const auto& [expression, offsets] : kernel_at)
        if (auto it = lowered.find(expression); it != lowered.end() && !it->second.empty())
            for (uint64_t at : offsets) {
                out.image->kernels[at] = it->second;
                out.image->kernel_names[at] = kernel_named[expression];
            }
    for (const auto& [expression, offsets] : variable_at)
        if (auto it = lowered.find(expression); it != lowered.end() && !it->second.empty())
            for (uint64_t at : offsets) out.image->symbols[at] = it->second;
    for (const auto& [at, symbol] : managed_at) {
        out.image->symbols[at] = symbol;
        out.image->managed.insert(at);
    }
    return out;
}

}  // namespace cp
