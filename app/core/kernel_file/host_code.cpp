// Recognising a host program around pasted kernels and blanking it out of the compiled text: a top-level
// scan of functions (brace depth, qualifiers before the parameter list) and of #include lines.
#include "core/kernel_file/host_code.h"

#include "core/kernel_file/kernel_file_parts.h"
#include "core/kernel_file/reference_section.h"
#include "core/text_util.h"

#include <algorithm>
#include <cctype>
#include <string_view>

namespace cp {

namespace {

// Line numbers by binary search over the newlines, found once: counting from the start for every function
// and include made a large pasted file quadratic.
class LineIndex {
public:
    explicit LineIndex(const std::string& s) {
        for (size_t k = 0; k < s.size(); ++k)
            if (s[k] == '\n') newlines_.push_back(k);
    }
    int line_at(size_t pos) const {
        return 1 + int(std::lower_bound(newlines_.begin(), newlines_.end(), pos) - newlines_.begin());
    }
    // Where line `line` (1-based) starts.
    size_t line_start(int line) const {
        if (line <= 1 || newlines_.empty()) return 0;
        return newlines_[std::min(size_t(line - 2), newlines_.size() - 1)] + 1;
    }

private:
    std::vector<size_t> newlines_;
};

// Replaces [from, to) by spaces, keeping newlines so line numbers stay.
void blank(std::string& s, size_t from, size_t to) {
    for (size_t k = from; k < to && k < s.size(); ++k)
        if (s[k] != '\n') s[k] = ' ';
}

std::vector<std::string> words_in(const std::string& code, size_t from, size_t to) {
    std::vector<std::string> out;
    for (size_t i = from; i < to;) {
        if (is_ident_char(code[i])) {
            const size_t b = i;
            while (i < to && is_ident_char(code[i])) ++i;
            out.push_back(code.substr(b, i - b));
        } else {
            ++i;
        }
    }
    return out;
}

// Headers a device compile never needs and NVRTC does not have: the samples' helpers and the runtime API.
bool host_only_header(const std::string& name) {
    static const std::vector<std::string> exact = {
        "cuda_runtime.h", "cuda_runtime_api.h", "cuda.h", "device_launch_parameters.h", "stdlib.h", "cstdlib",
        "string.h", "cstring", "iostream", "vector", "string", "memory", "chrono", "time.h", "ctime", "fstream",
        "sstream", "iomanip", "random", "exception", "stdexcept", "map", "numeric", "cuda_profiler_api.h",
        "limits"};
    // helper_math.h is the samples' float2/float4 operators: device code, kept (next to the file, it is found).
    if (name == "helper_math.h") return false;
    return name.rfind("helper_", 0) == 0 || std::find(exact.begin(), exact.end(), name) != exact.end();
}

// A statement at namespace scope that ends in `;`: a host global when it is none of the things device code may use.
bool host_global(const std::string& code, size_t from, size_t to) {
    const std::vector<std::string> words = words_in(code, from, to);
    if (words.empty()) return false;
    static const std::vector<std::string> device_or_declaration = {
        "__device__", "__constant__", "__shared__",    "__managed__", "__global__", "typedef",
        "using",      "template",     "static_assert", "namespace",   "extern",     "constexpr",
        "friend",     "operator",     "struct",        "class",       "enum",       "union"};
    for (const std::string& w : words)
        if (std::find(device_or_declaration.begin(), device_or_declaration.end(), w) != device_or_declaration.end())
            return false;
    const std::string text = code.substr(from, to - from);
    // `const int N = 16;` is a compile-time constant kernels may use; `const char* name = ...` is a host variable.
    const bool is_const = std::find(words.begin(), words.end(), "const") != words.end();
    if (is_const && text.find('*') == std::string::npos && text.find('(') == std::string::npos) return false;
    return true;
}

struct HostFunction {
    std::string name;
    size_t head, body_end;  // from the first word of its declaration to its closing brace
    bool device = false;    // __global__ or __device__ (or constexpr: callable from device code)
    bool uses_runtime = false;
};

}  // namespace

HostCodeScan separate_host_code(const std::string& original, bool as_program) {
    HostCodeScan scan;
    scan.kernel_source = original;
    // A lesson's in-file reference is host code by design (compiled apart, see reference_section.h): not a
    // pasted program, so it is neither reported nor blanked.
    const std::string source = without_reference_sections(original);
    const std::string code = blank_comments_and_strings(source);

    // Top-level functions: `... name ( ... ) [qualifiers] {` at namespace depth.
    std::vector<HostFunction> functions;
    std::vector<std::pair<size_t, size_t>> globals;  // host globals: [first word, `;`]
    size_t head = 0;
    std::vector<bool> transparent;
    for (size_t i = 0; i < code.size(); ++i) {
        const char c = code[i];
        if (c == ';' && host_global(code, head, i)) {
            size_t first = head;
            while (first < i && std::isspace(static_cast<unsigned char>(code[first]))) ++first;
            globals.push_back({first, i + 1});
        }
        if (c == ';' || c == '}') {
            if (c == '}' && !transparent.empty()) transparent.pop_back();
            head = i + 1;
            continue;
        }
        if (c != '{') continue;
        const std::vector<std::string> words = words_in(code, head, i);
        const bool is_namespace = std::find(words.begin(), words.end(), "namespace") != words.end() ||
                                  (words.size() == 1 && words[0] == "extern");
        if (is_namespace) {
            transparent.push_back(true);
            head = i + 1;
            continue;
        }
        // The matching brace.
        size_t end = i;
        for (int d = 0; end < code.size(); ++end) {
            if (code[end] == '{') ++d;
            if (code[end] == '}' && --d == 0) break;
        }
        size_t close = i;
        while (close > head && code[close] != ')') --close;
        // Searches stay inside this declaration ([head, close), the body below): a search to the end of the file
        // from every function is quadratic in a large paste.
        const size_t open =
            close > head ? head + std::min(std::string_view(code).substr(head, close - head).find('('), close - head)
                         : close;
        // A function template's parameter list (`template <class T>`) says nothing about what is declared: past it,
        // `struct`/`class` make a type and anything else with a parameter list a function.
        size_t declared = head;
        while (declared < i && std::isspace(static_cast<unsigned char>(code[declared]))) ++declared;
        if (code.compare(declared, 8, "template") == 0) {
            size_t k = code.find('<', declared);
            for (int depth = 0; k < i; ++k) {
                if (code[k] == '<') ++depth;
                if (code[k] == '>' && --depth == 0) break;
            }
            if (k < i) declared = k + 1;
        }
        const std::vector<std::string> kind = words_in(code, declared, i);
        const bool is_function = close > declared && open < close &&
                                 std::find(kind.begin(), kind.end(), "struct") == kind.end() &&
                                 std::find(kind.begin(), kind.end(), "class") == kind.end() &&
                                 std::find(kind.begin(), kind.end(), "enum") == kind.end() &&
                                 std::find(kind.begin(), kind.end(), "union") == kind.end();
        if (is_function) {
            HostFunction f;
            const std::vector<std::string> before = words_in(code, head, open);
            f.name = before.empty() ? std::string() : before.back();
            f.head = head;
            while (f.head < i && std::isspace(static_cast<unsigned char>(code[f.head]))) ++f.head;
            f.body_end = std::min(end + 1, code.size());
            for (const std::string& w : before)
                if (w == "__global__" || w == "__device__" || w == "constexpr") f.device = true;
            for (const std::string& w : words_in(code, i, f.body_end)) {
                if ((w.rfind("cuda", 0) == 0 && w.size() > 4 && std::isupper(static_cast<unsigned char>(w[4]))) ||
                    w == "checkCudaErrors" || w == "getLastCudaError") {
                    f.uses_runtime = true;
                    if (scan.reason.empty()) scan.reason = "`" + w + "`";
                }
            }
            if (std::string_view(code).substr(i, f.body_end - i).find("<<<") != std::string_view::npos) {
                f.uses_runtime = true;
                if (scan.reason.empty()) scan.reason = "a `<<<...>>>` launch";
            }
            if (!f.device) functions.push_back(f);
        }
        i = end;
        head = end + 1;
    }

    bool program = as_program;
    for (const HostFunction& f : functions) {
        if (f.name == "main") {
            program = true;
            scan.reason = "`main`";
        }
        program = program || f.uses_runtime;
    }

    const LineIndex lines(source);
    // #include lines of host-only headers, with where each line starts.
    std::vector<HostCodePart> includes;
    std::vector<size_t> include_at;
    size_t pos = 0;
    while (pos < source.size()) {
        const size_t eol = std::min(source.find('\n', pos), source.size());
        const std::string line = trim(source.substr(pos, eol - pos));
        if (line.rfind("#", 0) == 0) {
            std::string rest = trim(line.substr(1));
            if (rest.rfind("include", 0) == 0) {
                rest = trim(rest.substr(7));
                const size_t close = rest.find_first_of(">\"", 1);
                const std::string name = rest.size() > 2 && close != std::string::npos ? rest.substr(1, close - 1) : "";
                if (host_only_header(name)) {
                    const int number = lines.line_at(pos);
                    includes.push_back({"#include " + rest.substr(0, close + 1), number, number});
                    include_at.push_back(pos);
                    if (name.rfind("helper_", 0) == 0) {
                        program = true;
                        if (scan.reason.empty()) scan.reason = "`" + name + "`";
                    }
                }
            }
        }
        pos = eol + 1;
    }
    if (!program) {
        // A kernels-only paste: its host-only includes (<stdlib.h>, <vector>...) are left out too, as in the whole
        // file, unless the code calls what <cstdlib> declares (a kernel that calls exit() must still meet the sandbox).
        const bool needs_stdlib = code.find("exit(") != std::string::npos || code.find("abort(") != std::string::npos ||
                                  code.find("system(") != std::string::npos ||
                                  code.find("getenv(") != std::string::npos;
        bool any = false;
        for (const HostCodePart& inc : includes) {
            if (needs_stdlib &&
                (inc.what.find("stdlib") != std::string::npos || inc.what.find("cstdlib") != std::string::npos))
                continue;
            scan.parts.push_back(inc);
            const size_t at = lines.line_start(inc.first_line);
            blank(scan.kernel_source, at, std::min(source.find('\n', at), source.size()));
            any = true;
        }
        if (any) scan.reason = "host-only includes";
        return scan;
    }

    for (const auto& [from, to] : globals) {
        const std::vector<std::string> words = words_in(code, from, to);
        const size_t eq = code.find('=', from);
        const std::vector<std::string> named =
            words_in(code, from, std::min({eq, code.find('(', from), code.find('[', from), to}));
        std::string name = named.empty() ? words.back() : named.back();
        scan.parts.push_back({"host global `" + name + "`", lines.line_at(from), lines.line_at(to - 1)});
        blank(scan.kernel_source, from, to);
    }
    for (const HostFunction& f : functions) {
        scan.parts.push_back({"`" + f.name + "`", lines.line_at(f.head), lines.line_at(f.body_end - 1)});
        blank(scan.kernel_source, f.head, f.body_end);
    }
    for (size_t k = 0; k < includes.size(); ++k) {
        scan.parts.push_back(includes[k]);
        blank(scan.kernel_source, include_at[k], std::min(source.find('\n', include_at[k]), source.size()));
    }
    std::sort(scan.parts.begin(), scan.parts.end(),
              [](const HostCodePart& a, const HostCodePart& b) { return a.first_line < b.first_line; });
    return scan;
}

Diagnostic host_code_note(const std::string& file, const HostCodeScan& scan, bool whole_program) {
    std::vector<std::string> parts;
    for (const HostCodePart& p : scan.parts) {
        const std::string lines = p.first_line == p.last_line
                                      ? "line " + std::to_string(p.first_line)
                                      : "lines " + std::to_string(p.first_line) + "-" + std::to_string(p.last_line);
        parts.push_back(p.what + " (" + lines + ")");
    }
    Diagnostic d;
    d.file = file;
    d.line = scan.parts.empty() ? 0 : scan.parts.front().first_line;
    d.severity = Severity::Note;
    d.message = "this file holds host code (" + scan.reason + "): " + join(parts, ", ") +
                (whole_program
                     ? ". It is a whole program (a main() and no /*@playground ... */ header): `cuda-playground run` "
                       "and File > Open run it as written; here its device code alone is compiled."
                     : ". The playground allocates, fills and launches the kernel itself from the header, so host code "
                       "is left out of the compile; keep it or delete it, it is not run.");
    return d;
}

}  // namespace cp
