// Kernel source preparation for the CPU backend: over the shared C++ tokens (kernel_scan.h), the
// unsupported-feature scan, the `__shared__` rewrites (dynamic and static arrays) and the
// generated entry points. Line numbers are kept with #line so compiler messages name the user's lines.
#include "core/cpu/source_prep.h"

#include "core/kernel_file/kernel_scan.h"
#include "core/kernel_file/program_file.h"
#include "core/kernel_file/reference_section.h"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <optional>
#include <set>

namespace cp {
namespace {

using Token = CodeToken;

bool ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

std::string text_of(const std::string& s, const Token& t) { return s.substr(t.begin, t.end - t.begin); }

// A directive's words with whitespace and comments removed: "#  if !defined(X) // why" -> "if!defined(X)".
std::string squeeze(const std::string& directive) {
    std::string out;
    for (size_t k = 0; k < directive.size(); ++k) {
        if (directive.compare(k, 2, "//") == 0) break;
        if (directive.compare(k, 2, "/*") == 0) {
            const size_t end = directive.find("*/", k + 2);
            if (end == std::string::npos) break;
            k = end + 1;
            continue;
        }
        const char c = directive[k];
        if (!std::isspace(static_cast<unsigned char>(c)) && c != '#') out += c;
    }
    return out;
}

// Marks tokens inside #if branches that are never compiled on the CPU backend, i.e. guarded by
// __CUDA_PLAYGROUND_CPU__ (or a lesson's PLAYGROUND_REFERENCE section), so that code written for both backends is not refused for what the CPU skips.
std::vector<bool> cpu_skipped(const std::string& s, const std::vector<Token>& tokens) {
    std::vector<bool> skipped(tokens.size(), false);
    struct Group {
        int cpu_branch;  // 1: first branch is the CPU's; -1: the #else branch is; 0: unrelated
        bool in_else;
    };
    std::vector<Group> groups;
    auto skipping = [&] {
        return std::any_of(groups.begin(), groups.end(), [](const Group& g) {
            return (g.cpu_branch == 1 && g.in_else) || (g.cpu_branch == -1 && !g.in_else);
        });
    };
    for (size_t k = 0; k < tokens.size(); ++k) {
        const Token& t = tokens[k];
        if (t.kind != Token::Directive) {
            skipped[k] = skipping();
            continue;
        }
        const std::string d = squeeze(text_of(s, t));
        if (d.rfind("ifdef__CUDA_PLAYGROUND_CPU__", 0) == 0 || d.rfind("ifdefined(__CUDA_PLAYGROUND_CPU__)", 0) == 0)
            groups.push_back({1, false});
        else if (d.rfind("ifndef__CUDA_PLAYGROUND_CPU__", 0) == 0 || d.rfind("if!defined(__CUDA_PLAYGROUND_CPU__)", 0) == 0)
            groups.push_back({-1, false});
        // A lesson's in-file reference: host code the kernel compile never sees (reference_section.h).
        else if (d == "ifdefPLAYGROUND_REFERENCE" || d == "ifdefined(PLAYGROUND_REFERENCE)" || d == "ifdefinedPLAYGROUND_REFERENCE")
            groups.push_back({-1, false});
        else if (d.rfind("if", 0) == 0)
            groups.push_back({0, false});
        else if ((d.rfind("else", 0) == 0 || d.rfind("elif", 0) == 0) && !groups.empty())
            groups.back().in_else = true;
        else if (d.rfind("endif", 0) == 0 && !groups.empty())
            groups.pop_back();
    }
    return skipped;
}

struct Feature {
    const char* what;
    std::set<std::string> identifiers;
};

const std::vector<Feature>& unsupported_features() {
    static const std::vector<Feature> features = {
        {"inline assembly (asm / PTX)", {"asm", "__asm__", "__asm"}},
        {"textures and surfaces ; read a plain buffer instead (`const float* src`, `src[y * width + x]`), clamping x "
         "and y "
         "as the texture's address mode did",
         {"tex1D",
          "tex2D",
          "tex3D",
          "tex1Dfetch",
          "tex1DLod",
          "tex2DLod",
          "tex3DLod",
          "tex2DGrad",
          "tex2Dgather",
          "tex1DLayered",
          "tex2DLayered",
          "texCubemap",
          "cudaTextureObject_t",
          "cudaSurfaceObject_t",
          "surf1Dread",
          "surf1Dwrite",
          "surf2Dread",
          "surf2Dwrite",
          "surf3Dread",
          "surf3Dwrite"}},
        {"multi-grid and cluster groups (this_multi_grid, this_cluster) ; split the work into separate launches",
         {"this_multi_grid", "multi_grid_group", "this_cluster", "cluster_group"}},
        {"coalesced_threads() and labeled/binary partitions ; use __activemask() with __shfl_*_sync and a mask",
         {"coalesced_threads", "coalesced_group", "labeled_partition", "binary_partition"}},
        {"cg::inclusive_scan / exclusive_scan ; write the scan with tile.shfl_up(v, offset) in a loop",
         {"inclusive_scan", "exclusive_scan"}},
        {"half-precision types (__half, __nv_bfloat16)", {"__half", "__half2", "__nv_bfloat16", "__nv_bfloat162"}},
        {"tensor core operations (wmma)", {"wmma"}},
        {"managed memory (__managed__) ; declare the data as a `buffer` line in the header and take it as a pointer "
         "parameter",
         {"__managed__"}},
        {"device-side CUDA runtime calls (dynamic parallelism) ; the playground's CUDA backend does not link the "
         "device runtime either: launch each kernel from the header, one `step:` line per launch",
         {"cudaMalloc", "cudaFree", "cudaMemcpyAsync", "cudaDeviceSynchronize", "cudaLaunchDevice",
          "cudaGetParameterBuffer", "cudaStreamCreateWithFlags"}},
        {"asynchronous copies (memcpy_async / __pipeline_*)",
         {"memcpy_async", "__pipeline_memcpy_async", "__pipeline_commit", "__pipeline_wait_prior"}},
        {"thread block clusters", {"__cluster_dims__"}},
    };
    return features;
}

// Warp intrinsics without _sync were removed in CUDA 9 for Volta and later.
const std::set<std::string>& legacy_warp_intrinsics() {
    static const std::set<std::string> names = {"__shfl", "__shfl_up", "__shfl_down", "__shfl_xor",
                                                "__any", "__all", "__ballot"};
    return names;
}

std::string unsupported_include(const std::string& directive) {
    const std::string d = squeeze(directive);
    if (d.rfind("include", 0) != 0) return {};
    const std::string target = d.substr(7);
    auto has = [&](const char* name) { return target.find(name) != std::string::npos; };
    if (has("cooperative_groups/") && !has("cooperative_groups/reduce.h"))
        return "cooperative-groups headers other than <cooperative_groups.h> and <cooperative_groups/reduce.h>";
    if (has("cuda_fp16") || has("cuda_bf16") || has("cuda_fp8")) return "half-precision types (cuda_fp16.h, cuda_bf16.h)";
    if (has("mma.h")) return "tensor core operations (mma.h)";
    if (has("cub/") || has("thrust/") || has("cuda/")) return "CUB, Thrust and libcu++ headers";
    if (has("texture_fetch") || has("surface_functions")) return "textures and surfaces";
    return {};
}

// `what` may carry the plain-CUDA way to write it after " ; ".
Diagnostic unsupported(const std::string& path, const Token& t, const std::string& what) {
    const size_t split = what.find(" ; ");
    const std::string feature = what.substr(0, split);
    const std::string instead = split == std::string::npos ? std::string() : ": " + what.substr(split + 3);
    // Without a plain-CUDA way, compile_for_cpu says whether --backend cuda runs it (when NVRTC compiles the file).
    return Diagnostic{path, t.line, 0, Severity::Error, feature + " is not supported by the CPU backend" + instead};
}

// `in_device` (programs): per token, whether it is inside a __global__ or __device__ function; its host code may
// use the CUDA runtime, managed memory and launches, which device code may not. Empty: all of it is device code.
void scan_unsupported(const std::string& s, const std::vector<Token>& tokens, const std::vector<bool>& skipped,
                      const std::string& path, std::vector<Diagnostic>& diags,
                      const std::vector<bool>& in_device = {}, bool kernels_elsewhere = false) {
    const bool program = !in_device.empty();
    std::set<std::string> reported;  // one message per feature: the first line that uses it
    std::set<std::string> grid_names;  // variables of type grid_group
    auto report = [&](const Token& t, const std::string& what) {
        if (reported.insert(what).second) diags.push_back(unsupported(path, t, what));
    };
    for (size_t k = 0; k < tokens.size(); ++k) {
        const Token& t = tokens[k];
        if (skipped[k]) continue;
        if (t.kind == Token::Directive) {
            if (const std::string what = unsupported_include(text_of(s, t)); !what.empty()) report(t, what);
            continue;
        }
        if (t.kind == Token::Punct && s[t.begin] == '<' && k + 2 < tokens.size() && tokens[k + 1].begin == t.end &&
            tokens[k + 2].begin == t.end + 1 && s[tokens[k + 1].begin] == '<' && s[tokens[k + 2].begin] == '<' &&
            (!program || in_device[k])) {
            report(t,
                   "launching kernels from a kernel (dynamic parallelism, <<<...>>>) ; the playground's CUDA backend "
                   "does not link the device runtime either: launch each kernel from the header, one `step:` line "
                   "per launch");
            continue;
        }
        if (t.kind != Token::Ident) continue;
        const std::string word = text_of(s, t);
        const bool called = k + 1 < tokens.size() && s[tokens[k + 1].begin] == '(';
        // Cooperative-groups pieces the shim lacks, refused here with the user's line (not by our header).
        if ((word == "tiled_partition" || word == "thread_block_tile") && k + 2 < tokens.size() &&
            s[tokens[k + 1].begin] == '<' && tokens[k + 2].kind == Token::Number) {
            const unsigned long n = std::strtoul(text_of(s, tokens[k + 2]).c_str(), nullptr, 0);
            if (n == 0 || n > 32 || (n & (n - 1)) != 0)
                report(t, "`" + word + "<" + std::to_string(n) +
                              ">` (tiles of other than 1, 2, 4, 8, 16 or 32 threads) ; "
                              "use tiles of at most 32 threads, or the whole block (this_thread_block()) with "
                              "__syncthreads()");
        }
        if (word == "grid_group" && k + 1 < tokens.size() && tokens[k + 1].kind == Token::Ident)
            grid_names.insert(text_of(s, tokens[k + 1]));
        const bool grid_sync = (word == "this_grid" && k + 5 < tokens.size() && text_of(s, tokens[k + 3]) == "." &&
                                text_of(s, tokens[k + 4]) == "sync") ||
                               (grid_names.count(word) && k + 2 < tokens.size() && text_of(s, tokens[k + 1]) == "." &&
                                text_of(s, tokens[k + 2]) == "sync") ||
                               (word == "sync" && k + 2 < tokens.size() && s[tokens[k + 1].begin] == '(' &&
                                grid_names.count(text_of(s, tokens[k + 2])));
        if (grid_sync && kernels_elsewhere) continue;  // a whole program on a GPU: a cooperative launch syncs it
        if (grid_sync) {
            report(t, program ? "grid-wide sync (this_grid().sync()) ; run the program on a GPU "
                                "(--backend cuda), or end the kernel there and launch a second kernel for what "
                                "follows: a launch boundary syncs the whole grid"
                              : "grid-wide sync (this_grid().sync()) ; end the kernel at that point and run what "
                                "follows as a second kernel (a `step:` line each): a launch boundary syncs the "
                                "whole grid");
            continue;
        }
        if (word == "texture" && k + 1 < tokens.size() && s[tokens[k + 1].begin] == '<') {
            report(t, unsupported_features()[1].what);
            continue;
        }
        if (called && legacy_warp_intrinsics().count(word)) {
            report(t, "`" + word + "` (warp intrinsics without _sync, removed in CUDA 9) ; use " + word +
                          "_sync with a mask of the threads taking part (0xffffffff for a whole warp)");
            continue;
        }
        for (const Feature& f : unsupported_features()) {
            // A program's host code allocates, copies, synchronizes and declares managed variables.
            const std::string what = f.what;
            const bool host_feature =
                what.rfind("managed memory", 0) == 0 || what.rfind("device-side CUDA runtime", 0) == 0;
            if (program && host_feature && !in_device[k]) continue;
            // Cooperative groups' scans exist only in device code: a host function of that name (a reference
            // `inclusive_scan`, std::inclusive_scan) is the program's own.
            if (program && what.rfind("cg::inclusive_scan", 0) == 0 && !in_device[k]) continue;
            if (f.identifiers.count(word)) report(t, f.what);
        }
    }
}

bool is_punct(const std::string& s, const Token& t, char c) { return t.kind == Token::Punct && s[t.begin] == c; }

// Index of the token closing the bracket opened at `open` (or tokens.size()).
size_t matching(const std::string& s, const std::vector<Token>& tokens, size_t open, char o, char c) {
    int depth = 0;
    for (size_t k = open; k < tokens.size(); ++k) {
        if (is_punct(s, tokens[k], o)) ++depth;
        if (is_punct(s, tokens[k], c) && --depth == 0) return k;
    }
    return tokens.size();
}

std::string escape_for_line_directive(const std::string& path) {
    std::string out;
    for (char c : path) {
        if (c == '\\' || c == '"') out += '\\';
        out += c;
    }
    return out;
}

// Appends a token's text, with a space only where two words would otherwise run together.
void append_token(std::string& out, const std::string& word) {
    if (!out.empty() && !word.empty() && ident_char(out.back()) && ident_char(word.front())) out += ' ';
    out += word;
}

// Rewrites one static `__shared__` declaration, tokens [first, semi), to guarded storage per array (see
// cuda_shim.h, shared_slot): `__shared__ float a[32][33], b[8];` becomes
// `auto& a = ::cp_shim::shared_slot<float [32][33], 1>(0u, "a"); auto& b = ...;` inside a function, a macro at
// namespace scope. Each array also keeps an unused thread-local twin, so the library's thread-local size still
// bounds the kernel's static shared memory (occupancy, the 48 KiB limit). Scalars stay thread-local.
// Returns false, leaving the text alone, for a shape it does not know (initialisers, parentheses, labels).
bool rewrite_static_shared(const std::string& s, const std::vector<Token>& tokens, size_t first, size_t semi,
                           bool namespace_scope, unsigned vector_align, const std::string& path, unsigned& next_id,
                           std::string& out) {
    std::vector<size_t> rest;  // the tokens left once __shared__, static, __device__ and alignment are taken out
    std::string align_text;    // __align__(N) / alignas(N) / __attribute__((...)), kept for scalars
    unsigned align = 1;
    for (size_t m = first; m < semi; ++m) {
        const std::string w = text_of(s, tokens[m]);
        if (w == "__shared__" || w == "static" || w == "__device__") continue;
        if ((w == "__align__" || w == "alignas" || w == "__attribute__") && m + 1 < semi &&
            is_punct(s, tokens[m + 1], '(')) {
            const size_t close = matching(s, tokens, m + 1, '(', ')');
            if (close >= semi) return false;
            align_text += s.substr(tokens[m].begin, tokens[close].end - tokens[m].begin) + " ";
            const Token& arg = tokens[m + 2];
            const unsigned long n = arg.kind == Token::Number ? std::strtoul(text_of(s, arg).c_str(), nullptr, 0) : 16;
            if (w != "__attribute__" && n > 0 && (n & (n - 1)) == 0) align = std::max(align, unsigned(std::min(n, 4096ul)));
            m = close;
            continue;
        }
        rest.push_back(m);
    }
    // Declarators, split at top-level commas (template arguments and array sizes may hold commas).
    std::vector<std::vector<size_t>> parts(1);
    int square = 0, angle = 0;
    for (const size_t m : rest) {
        const Token& t = tokens[m];
        if (t.kind == Token::Punct) {
            const char c = s[t.begin];
            if (c == '[') ++square;
            if (c == ']') --square;
            if (square == 0 && c == '<') ++angle;
            if (square == 0 && c == '>') --angle;
            if (square == 0 && (c == '(' || c == ')' || c == '{' || c == '}' || c == '=')) return false;
            if (c == ':' && !((m > first && is_punct(s, tokens[m - 1], ':')) || (m + 1 < semi && is_punct(s, tokens[m + 1], ':'))))
                return false;  // a label, not `::`
            if (square == 0 && angle == 0 && c == ',') {
                parts.emplace_back();
                continue;
            }
        }
        parts.back().push_back(m);
    }
    if (square != 0 || angle != 0) return false;
    struct Declarator {
        size_t name = 0;   // token index
        std::string type;  // the declarator's type-id, the name taken out
        bool array = false;
        std::string text;  // the declarator as written
    };
    std::string base;  // the first declarator's specifiers, without its own * and &
    std::vector<Declarator> decls;
    for (size_t p = 0; p < parts.size(); ++p) {
        const std::vector<size_t>& part = parts[p];
        size_t name_pos = part.size();
        int depth = 0;
        for (size_t q = 0; q < part.size(); ++q) {
            const Token& t = tokens[part[q]];
            if (is_punct(s, t, '[') || is_punct(s, t, '<')) ++depth;
            if (is_punct(s, t, ']') || is_punct(s, t, '>')) --depth;
            if (depth == 0 && t.kind == Token::Ident) name_pos = q;
        }
        if (name_pos == part.size() || (p == 0 && name_pos == 0)) return false;
        size_t spec_end = 0;  // where this declarator's own tokens start
        if (p == 0) {
            spec_end = name_pos;
            while (spec_end > 0 && (is_punct(s, tokens[part[spec_end - 1]], '*') || is_punct(s, tokens[part[spec_end - 1]], '&')))
                --spec_end;
            for (size_t q = 0; q < spec_end; ++q) append_token(base, text_of(s, tokens[part[q]]));
            if (base.empty()) return false;
        }
        Declarator d;
        d.name = part[name_pos];
        d.type = base + " ";
        for (size_t q = spec_end; q < part.size(); ++q) {
            const std::string w = text_of(s, tokens[part[q]]);
            append_token(d.text, w);
            if (q == name_pos) continue;
            append_token(d.type, w);
            if (q > name_pos && w == "[") d.array = true;
        }
        decls.push_back(std::move(d));
    }
    if (std::none_of(decls.begin(), decls.end(), [](const Declarator& d) { return d.array; })) return false;
    const unsigned slot_align = std::max(align, vector_align);
    std::string text;
    for (const Declarator& d : decls) {
        const std::string name = text_of(s, tokens[d.name]);
        if (!d.array) {  // at namespace scope on a line of its own: a #line follows the statement
            text += (namespace_scope ? "\n" : "") + std::string("__shared__ ") + align_text + base + " " + d.text + "; ";
            continue;
        }
        const std::string id = std::to_string(next_id++);
        const std::string slot = "::cp_shim::shared_slot<" + d.type + ", " + std::to_string(slot_align) + ">(" + id +
                                 "u, \"" + name + "\")";
        const std::string twin =
            "__attribute__((used)) static thread_local ::cp_shim::same_type<" + d.type + "> cp_shared_twin_" + id + "; ";
        if (namespace_scope)
            text += "\n" + twin + "\n#define " + name + " (" + slot + ")\n";
        else
            text += twin + "auto& " + name + " = " + slot + "; ";
    }
    const int newlines = int(std::count(s.begin() + long(tokens[first].begin), s.begin() + long(tokens[semi].end), '\n'));
    if (namespace_scope)
        out += text + "\n#line " + std::to_string(tokens[semi].line) + " \"" + escape_for_line_directive(path) + "\"\n";
    else
        out += text + std::string(size_t(newlines), '\n');
    return true;
}

// Rewrites each `extern __shared__ T name[];` to a pointer to the running block's dynamic shared memory
// (a local variable inside functions, a macro at namespace scope), and each static `__shared__` array to
// its own guarded storage (rewrite_static_shared). Lines do not move: newlines are kept, or #line resyncs.
std::string rewrite_shared(const std::string& s, const std::vector<Token>& tokens, const std::string& path,
                           unsigned vector_align, std::vector<Diagnostic>& diags) {
    std::string out;
    size_t copied = 0;
    unsigned next_id = 0;
    std::vector<bool> namespace_braces;  // per open brace: does it open a namespace / extern "C" block?
    for (size_t k = 0; k < tokens.size(); ++k) {
        const Token& t = tokens[k];
        if (is_punct(s, t, '{')) {
            bool namespace_like = false;
            for (size_t b = k; b-- > 0 && k - b <= 8;) {
                const std::string w = text_of(s, tokens[b]);
                if (w == "namespace" || (w == "extern" && b + 1 < k && tokens[b + 1].kind == Token::String)) namespace_like = true;
                if (w == ";" || w == "}" || w == "{" || w == ")") break;
            }
            namespace_braces.push_back(namespace_like);
            continue;
        }
        if (is_punct(s, t, '}')) {
            if (!namespace_braces.empty()) namespace_braces.pop_back();
            continue;
        }
        const bool at_namespace_scope =
            std::all_of(namespace_braces.begin(), namespace_braces.end(), [](bool b) { return b; });
        if (t.kind == Token::Ident && text_of(s, t) == "__shared__" && !(k > 0 && text_of(s, tokens[k - 1]) == "extern")) {
            size_t first = k;  // the statement's first token
            while (first > 0) {
                const Token& b = tokens[first - 1];
                if (b.kind == Token::Directive || is_punct(s, b, ';') || is_punct(s, b, '{') || is_punct(s, b, '}')) break;
                --first;
            }
            size_t semi = k + 1;
            while (semi < tokens.size() && !is_punct(s, tokens[semi], ';') && !is_punct(s, tokens[semi], '{') &&
                   !is_punct(s, tokens[semi], '}'))
                ++semi;
            if (semi == tokens.size() || !is_punct(s, tokens[semi], ';')) continue;
            std::string text;
            if (rewrite_static_shared(s, tokens, first, semi, at_namespace_scope, vector_align, path, next_id, text)) {
                out += s.substr(copied, tokens[first].begin - copied) + text;
                copied = tokens[semi].end;
                k = semi;
            }
            continue;
        }
        if (!(t.kind == Token::Ident && text_of(s, t) == "extern" && k + 1 < tokens.size() &&
              text_of(s, tokens[k + 1]) == "__shared__"))
            continue;
        size_t semi = k + 2;
        while (semi < tokens.size() && !is_punct(s, tokens[semi], ';')) ++semi;
        // Expect: <type words and attributes> name [ ] ;
        const bool shape_ok = semi < tokens.size() && semi >= k + 5 && is_punct(s, tokens[semi - 1], ']') &&
                              is_punct(s, tokens[semi - 2], '[') && tokens[semi - 3].kind == Token::Ident;
        if (!shape_ok) {
            diags.push_back({path, t.line, 0, Severity::Error,
                             "the CPU backend understands `extern __shared__ T name[];` (one array of unknown size per "
                             "declaration); rewrite this declaration in that form"});
            continue;
        }
        const std::string name = text_of(s, tokens[semi - 3]);
        std::string type;
        for (size_t m = k + 2; m < semi - 3; ++m) {
            const std::string w = text_of(s, tokens[m]);
            if ((w == "__align__" || w == "alignas" || w == "__attribute__") && m + 1 < semi &&
                is_punct(s, tokens[m + 1], '(')) {
                m = matching(s, tokens, m + 1, '(', ')');
                continue;
            }
            if (!type.empty()) type += ' ';
            type += w;
        }
        const int newlines = int(std::count(s.begin() + long(t.begin), s.begin() + long(tokens[semi].end), '\n'));
        out += s.substr(copied, t.begin - copied);
        const std::string pointer = "(static_cast<" + type + "*>(::cp_shim::dynamic_shared()))";
        if (at_namespace_scope) {
            out += "\n#define " + name + " " + pointer + "\n#line " + std::to_string(tokens[semi].line) + " \"" +
                   escape_for_line_directive(path) + "\"\n";
        } else {
            out += type + "* const " + name + " = " + pointer + ";" + std::string(size_t(newlines), '\n');
        }
        copied = tokens[semi].end;
        k = semi;
    }
    out += s.substr(copied);
    return out;
}

// A function defined at namespace scope: its tokens [first, last] and the names its body uses.
struct TopFunction {
    std::string name;
    size_t first = 0, last = 0;
    std::set<std::string> uses;
};

std::vector<TopFunction> top_functions(const std::string& s, const std::vector<Token>& tokens) {
    std::vector<TopFunction> out;
    size_t start = 0;  // the token after the last `;`, `}` or namespace `{` at namespace depth
    for (size_t k = 0; k < tokens.size(); ++k) {
        const Token& t = tokens[k];
        if (t.kind == Token::Directive) {
            if (start == k) start = k + 1;
            continue;
        }
        if (is_punct(s, t, ';') || is_punct(s, t, '}')) {
            start = k + 1;
            continue;
        }
        if (!is_punct(s, t, '{')) continue;
        bool namespace_like = false;
        for (size_t b = start; b < k; ++b) {
            const std::string w = text_of(s, tokens[b]);
            if (w == "namespace" || (w == "extern" && b + 1 < k && tokens[b + 1].kind == Token::String))
                namespace_like = true;
        }
        if (namespace_like) {
            start = k + 1;
            continue;
        }
        const size_t close = matching(s, tokens, k, '{', '}');
        // A function: `... name ( ... ) [qualifiers] {`; the last `)` before the brace closes its parameters.
        size_t paren = k;
        while (paren > start && !is_punct(s, tokens[paren - 1], ')')) --paren;
        bool is_function = paren > start;
        for (size_t b = start; b < k && is_function; ++b) {
            const std::string w = text_of(s, tokens[b]);
            if (w == "struct" || w == "class" || w == "union" || w == "enum" || w == "=") is_function = false;
        }
        if (is_function) {
            int depth = 0;
            size_t open = paren - 1;
            for (size_t b = paren; b-- > start;) {
                if (is_punct(s, tokens[b], ')')) ++depth;
                if (is_punct(s, tokens[b], '(') && --depth == 0) {
                    open = b;
                    break;
                }
            }
            TopFunction f;
            if (open > start && tokens[open - 1].kind == Token::Ident) f.name = text_of(s, tokens[open - 1]);
            f.first = start;
            f.last = std::min(close, tokens.size() - 1);
            for (size_t b = open; b <= f.last; ++b)
                if (tokens[b].kind == Token::Ident) f.uses.insert(text_of(s, tokens[b]));
            out.push_back(std::move(f));
        }
        k = close;
        start = close + 1;
    }
    return out;
}

// The source with every function the chosen kernel cannot reach (by calls, transitively) that uses a feature the
// CPU backend lacks blanked out, newlines kept: a texture kernel beside a plain one does not stop the plain one.
std::string without_unreachable_unsupported(const std::string& s, const std::vector<Token>& tokens,
                                            const std::string& kernel) {
    const std::vector<TopFunction> functions = top_functions(s, tokens);
    std::set<std::string> reachable = {kernel}, names;
    for (const TopFunction& f : functions) names.insert(f.name);
    for (bool grew = true; grew;) {
        grew = false;
        for (const TopFunction& f : functions) {
            if (!reachable.count(f.name)) continue;
            for (const std::string& u : f.uses)
                if (names.count(u) && reachable.insert(u).second) grew = true;
        }
    }
    std::string out = s;
    for (const TopFunction& f : functions) {
        if (reachable.count(f.name)) continue;
        bool unsupported = s.substr(tokens[f.first].begin, tokens[f.last].end - tokens[f.first].begin).find("<<<") !=
                           std::string::npos;
        for (size_t k = f.first; k <= f.last && !unsupported; ++k) {
            if (tokens[k].kind != Token::Ident) continue;
            const std::string w = text_of(s, tokens[k]);
            for (const Feature& feature : unsupported_features())
                if (feature.identifiers.count(w)) unsupported = true;
        }
        if (!unsupported) continue;
        for (size_t c = tokens[f.first].begin; c < tokens[f.last].end; ++c)
            if (out[c] != '\n') out[c] = ' ';
    }
    return out;
}

}  // namespace

std::vector<KernelDecl> find_kernels(const std::string& source) {
    std::vector<KernelDecl> kernels;
    std::set<std::string> seen;  // not a search of `kernels` per kernel: linear in the kernel count
    for (const ScannedKernel& k : scan_kernels(source).kernels)
        if (seen.insert(k.name).second) kernels.push_back({k.name, k.line, k.is_template});
    return kernels;
}

namespace {

// A kernel's name expression as part of a C symbol: `reduce<float, 256>` -> `reduce_float_256_<hash>`
// (the hash keeps `a<b_c>` and `a<b, c>` apart).
std::string symbol_part(const std::string& kernel) {
    std::string out;
    bool plain = true;
    for (char c : kernel) {
        if (ident_char(c)) {
            out += c;
        } else {
            plain = false;
            if (c != ' ' && !out.empty() && out.back() != '_') out += '_';
        }
    }
    if (plain) return out;
    uint32_t h = 2166136261u;  // FNV-1a
    for (char c : kernel) h = (h ^ static_cast<unsigned char>(c)) * 16777619u;
    return out + "_" + std::to_string(h);
}

}  // namespace

size_t buffer_start_alignment(const std::string& source) {
    static const std::set<std::string> sixteen = {
        "int4",  "uint4",  "float4",   "double2",    "double4",    "long2",       "ulong2",      "long4",
        "ulong4", "longlong2", "ulonglong2", "longlong4", "ulonglong4", "double4_16a", "long4_16a", "ulong4_16a",
        "longlong4_16a", "ulonglong4_16a"};
    const std::string code = without_reference_sections(source);
    const std::vector<Token> tokens = tokenize_code(code);
    size_t align = 1;
    for (size_t k = 0; k < tokens.size(); ++k) {
        if (tokens[k].kind != Token::Ident) continue;
        const std::string word = text_of(code, tokens[k]);
        if (sixteen.count(word) || word.find("_32a") != std::string::npos) align = std::max<size_t>(align, 16);
        if ((word == "__align__" || word == "alignas") && k + 2 < tokens.size() &&
            text_of(code, tokens[k + 1]) == "(" && tokens[k + 2].kind == Token::Number) {
            const unsigned long n = std::strtoul(text_of(code, tokens[k + 2]).c_str(), nullptr, 0);
            if (n >= 16 && (n & (n - 1)) == 0) align = std::max<size_t>(align, std::min<size_t>(n, 256));
        }
    }
    return align;
}

std::string plain_entry_symbol(const std::string& kernel) { return "cp_run_plain_" + symbol_part(kernel); }
std::string fiber_entry_symbol(const std::string& kernel) { return "cp_run_one_" + symbol_part(kernel); }
std::string params_symbol(const std::string& kernel) { return "cp_params_" + symbol_part(kernel); }

PreparedSource prepare_kernel_source(const std::string& whole_source, const std::string& display_path,
                                     const std::string& kernel_name, size_t shared_align) {
    PreparedSource out;
    const std::string path = display_path.empty() ? std::string("kernel.cu") : display_path;
    out.kernels = find_kernels(whole_source);
    const std::string wanted = kernel_name.empty() && out.kernels.size() == 1
                                   ? out.kernels[0].name
                                   : kernel_name.substr(0, kernel_name.find('<'));
    const std::string source = wanted.empty()
                                   ? whole_source
                                   : without_unreachable_unsupported(whole_source, tokenize_code(whole_source), wanted);
    const std::vector<Token> tokens = tokenize_code(source);
    scan_unsupported(source, tokens, cpu_skipped(source, tokens), path, out.diagnostics);

    std::string names;
    for (const KernelDecl& k : out.kernels) names += (names.empty() ? "" : ", ") + k.name;
    // `reduce<float, 256>`: the function `reduce`, instantiated by the entry points' `&::reduce<float, 256>`.
    const std::string base_name = kernel_name.substr(0, kernel_name.find('<'));
    const bool instantiated = base_name.size() != kernel_name.size();
    if (kernel_name.empty()) {
        if (out.kernels.size() == 1) {
            out.kernel_name = out.kernels[0].name;
        } else {
            out.diagnostics.push_back({path, 0, 0, Severity::Error,
                                       out.kernels.empty() ? "no __global__ function found in this file"
                                                           : "several __global__ functions (" + names +
                                                                 "): say which kernel to compile"});
        }
    } else {
        out.kernel_name = kernel_name;
        const auto it = std::find_if(out.kernels.begin(), out.kernels.end(),
                                     [&](const KernelDecl& k) { return k.name == base_name; });
        if (it == out.kernels.end()) {
            out.diagnostics.push_back({path, 0, 0, Severity::Error,
                                       "no __global__ function named `" + base_name + "` in this file" +
                                           (names.empty() ? std::string() : " (found: " + names + ")")});
        } else if (it->is_template && !instantiated) {
            out.diagnostics.push_back({path, it->line, 0, Severity::Error,
                                       "kernel `" + kernel_name + "` is a template: name the instantiation to run, "
                                       "e.g. `kernel: " + kernel_name + "<float>` in the header"});
        }
    }
    if (has_errors(out.diagnostics)) return out;

    const std::string k = out.kernel_name;
    out.text = "#line 1 \"" + escape_for_line_directive(path) + "\"\n" +
               rewrite_shared(source, tokens, path, unsigned(shared_align), out.diagnostics);
    if (has_errors(out.diagnostics)) {
        out.text.clear();
        return out;
    }
    out.text += std::string("\n#line 1 \"") + kEntryPointsFile + "\"\n";
    // `::` and prefixed parameter names: a kernel may be called `count` or `args`.
    out.text += "CP_SHIM_EXPORT void " + plain_entry_symbol(k) +
                "(void** cp_args, const cp_abi::PlainRun* cp_run) { ::cp_shim::run_plain<&::" + k + ">(cp_args, cp_run); }\n";
    out.text += "CP_SHIM_EXPORT void " + fiber_entry_symbol(k) + "(void** cp_args) { ::cp_shim::run_one<&::" + k +
                ">(cp_args); }\n";
    out.text += "CP_SHIM_EXPORT const cp_abi::ParamInfo* " + params_symbol(k) +
                "(int* cp_count) { return ::cp_shim::param_infos(&::" + k + ", cp_count); }\n";
    return out;
}

// ---- whole programs ----------------------------------------------------------------------------------------

namespace {

// The CUDA runtime calls cuda_program.h provides; any other `cuda...(` call in host code is refused with its line.
const std::set<std::string>& runtime_subset() {
    static const std::set<std::string> names = {
        "cudaMalloc", "cudaMallocManaged", "cudaMallocHost", "cudaHostAlloc", "cudaFree", "cudaFreeHost",
        "cudaMemcpy", "cudaMemcpyAsync", "cudaMemset", "cudaMemsetAsync", "cudaMemcpyToSymbol",
        "cudaMemcpyFromSymbol", "cudaMemcpyToSymbolAsync", "cudaGetSymbolAddress", "cudaDeviceSynchronize",
        "cudaThreadSynchronize", "cudaDeviceReset", "cudaGetLastError", "cudaPeekAtLastError", "cudaGetErrorString",
        "cudaGetErrorName", "cudaGetDeviceCount", "cudaSetDevice", "cudaGetDevice", "cudaGetDeviceProperties",
        "cudaDeviceGetAttribute", "cudaMemGetInfo", "cudaDriverGetVersion", "cudaRuntimeGetVersion",
        "cudaMemPrefetchAsync", "cudaStreamCreate", "cudaStreamCreateWithFlags", "cudaStreamCreateWithPriority",
        "cudaStreamDestroy", "cudaStreamSynchronize", "cudaStreamQuery", "cudaStreamWaitEvent", "cudaEventCreate",
        "cudaEventCreateWithFlags", "cudaEventDestroy", "cudaEventRecord", "cudaEventSynchronize", "cudaEventQuery",
        "cudaEventElapsedTime", "cudaLaunchKernel", "cudaLaunchCooperativeKernel"};
    return names;
}

// What a call outside the subset is, and what to do instead.
std::string outside_subset(const std::string& call) {
    auto starts = [&](const char* p) { return call.rfind(p, 0) == 0; };
    if (starts("cudaGraphics") || starts("cudaGL") || starts("cudaEGL") || starts("cudaD3D") || starts("cudaVDPAU"))
        return "graphics interop ; the playground shows a program's buffers itself: write the picture to a buffer and "
               "open the program in the window";
    if (starts("cudaCreateTextureObject") || starts("cudaCreateSurfaceObject") || starts("cudaMallocArray") ||
        starts("cudaMalloc3DArray") || starts("cudaMemcpyToArray") || starts("cudaMemcpy2DToArray") ||
        starts("cudaCreateChannelDesc") || starts("cudaBindTexture"))
        return "textures and CUDA arrays ; read a plain buffer instead (`src[y * width + x]`), clamping x and y as the "
               "texture's address mode did";
    if (starts("cudaGraph") || starts("cudaStreamBeginCapture") || starts("cudaStreamEndCapture"))
        return "CUDA graphs ; launch the kernels one after another";
    if (starts("cudaMallocPitch") || starts("cudaMemcpy2D") || starts("cudaMemcpy3D") || starts("cudaMalloc3D"))
        return "pitched allocations and 2D/3D copies ; allocate width * height elements with cudaMalloc and copy "
               "with cudaMemcpy";
    if (starts("cudaIpc") || starts("cudaDeviceEnablePeerAccess") || starts("cudaMemcpyPeer"))
        return "several GPUs and IPC ; the playground's programs run on one device";
    return "outside the CUDA runtime calls the playground's programs run against ; see README, \"Run your own "
           "program\", for the calls it covers";
}

const std::vector<std::pair<std::string, std::string>>& refused_libraries() {
    static const std::vector<std::pair<std::string, std::string>> libraries = {
        {"cublas", "cuBLAS"}, {"cufft", "cuFFT"}, {"curand", "cuRAND"}, {"cusparse", "cuSPARSE"},
        {"cusolver", "cuSOLVER"}, {"cudnn", "cuDNN"}, {"nccl", "NCCL"}, {"nvtx", "NVTX"}};
    return libraries;
}

// Per token: inside the body or parameters of a function declared __global__ or __device__ (not __host__ __device__,
// whose body is also host code: the scan treats it as device code, which is the stricter reading).
std::vector<bool> device_function_tokens(const std::string& s, const std::vector<Token>& tokens) {
    std::vector<bool> in_device(tokens.size(), false);
    for (const TopFunction& f : top_functions(s, tokens)) {
        bool device = false;
        for (size_t k = f.first; k <= f.last && k < tokens.size(); ++k) {
            if (is_punct(s, tokens[k], '{')) break;
            const std::string w = text_of(s, tokens[k]);
            if (w == "__global__" || w == "__device__") device = true;
        }
        if (!device) continue;
        for (size_t k = f.first; k <= f.last && k < tokens.size(); ++k) in_device[k] = true;
    }
    return in_device;
}

bool three(const std::string& s, const std::vector<Token>& tokens, size_t k, char c) {
    return k + 2 < tokens.size() && is_punct(s, tokens[k], c) && is_punct(s, tokens[k + 1], c) &&
           is_punct(s, tokens[k + 2], c) && tokens[k + 1].begin == tokens[k].end &&
           tokens[k + 2].begin == tokens[k + 1].end;
}

// The first token of the kernel expression that ends just before `<<<` at `k`: `kernel`, `ns::kernel`,
// `reduce<float, 256>`; k itself when there is none.
size_t kernel_expression_start(const std::string& s, const std::vector<Token>& tokens, size_t k) {
    size_t b = k;
    for (;;) {
        if (b > 0 && is_punct(s, tokens[b - 1], '>')) {  // template arguments: back to their '<'
            int depth = 0;
            size_t m = b;
            while (m > 0) {
                --m;
                if (is_punct(s, tokens[m], '>')) ++depth;
                if (is_punct(s, tokens[m], '<') && --depth == 0) break;
                if (is_punct(s, tokens[m], ';') || is_punct(s, tokens[m], '{') || is_punct(s, tokens[m], '}'))
                    return k;
            }
            if (depth != 0) return k;
            b = m;
        }
        if (b == 0 || tokens[b - 1].kind != Token::Ident) return b == k ? k : k;
        --b;
        if (b >= 2 && is_punct(s, tokens[b - 1], ':') && is_punct(s, tokens[b - 2], ':')) {
            b -= 2;
            if (b > 0 && tokens[b - 1].kind == Token::Ident) continue;
            return b;  // `::kernel`
        }
        return b;
    }
}

// `kernel<<<grid, block[, shared[, stream]]>>>(args...)` in host code becomes
// `::cp_rt::launch(LINE, "kernel", ::cp_rt::LaunchConfig(grid, block...), [&](auto&... cp_a) { kernel(cp_a...); },
// args...)` (cuda_program.h): the lambda lets the compiler convert the arguments and deduce a template kernel's
// arguments as the launch would. Newlines are kept, so every line stays where it was.
std::string rewrite_launches(const std::string& s, const std::vector<Token>& tokens, const std::vector<bool>& in_device,
                             const std::string& path, std::vector<Diagnostic>& diags, const std::string& header = {}) {
    std::string out;
    size_t copied = 0;
    for (size_t k = 0; k < tokens.size(); ++k) {
        if (in_device[k] || !three(s, tokens, k, '<')) continue;
        const size_t first = kernel_expression_start(s, tokens, k);
        if (first == k) {
            diags.push_back({path, tokens[k].line, 0, Severity::Error,
                             "the playground launches a kernel named before <<<...>>> (`kernel<<<grid, block>>>(...)`, "
                             "`ns::kernel<float><<<...>>>`); call it by its name here"});
            continue;
        }
        int depth = 0;
        size_t close = k + 3;
        for (; close < tokens.size(); ++close) {
            const Token& t = tokens[close];
            if (is_punct(s, t, '(') || is_punct(s, t, '[') || is_punct(s, t, '{')) ++depth;
            if (is_punct(s, t, ')') || is_punct(s, t, ']') || is_punct(s, t, '}')) --depth;
            if (depth == 0 && three(s, tokens, close, '>')) break;
            if (depth < 0 || is_punct(s, t, ';')) {
                close = tokens.size();
                break;
            }
        }
        const size_t open_args = close + 3;
        if (close >= tokens.size() || open_args >= tokens.size() || !is_punct(s, tokens[open_args], '(')) {
            diags.push_back({path, tokens[k].line, 0, Severity::Error,
                             "a launch is written `kernel<<<grid, block>>>(arguments)`: this one has no matching "
                             ">>> and argument list"});
            continue;
        }
        const size_t close_args = matching(s, tokens, open_args, '(', ')');
        if (close_args >= tokens.size()) continue;
        const std::string kernel = s.substr(tokens[first].begin, tokens[k - 1].end - tokens[first].begin);
        std::string kernel_words;  // for the message: newlines and quotes out
        for (char c : kernel)
            if (c != '"' && c != '\\') kernel_words += (c == '\n' || c == '\r' || c == '\t') ? ' ' : c;
        const std::string config = s.substr(tokens[k + 2].end, tokens[close].begin - tokens[k + 2].end);
        // A literal 0 or NULL argument stays a null pointer constant (the kernel's `int* p` takes it) and an integer
        // zero (its `int n` does): it is passed as ::cp_rt::Zero, which converts to either (cuda_program.h).
        std::string args;
        for (size_t part = open_args + 1, m = open_args + 1, nesting = 0; m <= close_args; ++m) {
            if (m < close_args && !(nesting == 0 && is_punct(s, tokens[m], ','))) {
                if (is_punct(s, tokens[m], '(') || is_punct(s, tokens[m], '[') || is_punct(s, tokens[m], '{')) ++nesting;
                if (is_punct(s, tokens[m], ')') || is_punct(s, tokens[m], ']') || is_punct(s, tokens[m], '}')) --nesting;
                continue;
            }
            // [part, m) is one argument; tokens[part - 1] the '(' or ',' before it.
            const size_t before = tokens[part - 1].end;
            static const std::set<std::string> zeros = {"0", "NULL", "0L", "0l", "0U", "0u", "0UL", "0ul"};
            if (m == part + 1 && zeros.count(text_of(s, tokens[part]))) {
                args += s.substr(before, tokens[part].begin - before) + "::cp_rt::Zero{}";
                const std::string after = s.substr(tokens[part].end, tokens[m].begin - tokens[part].end);
                args += std::string(size_t(std::count(after.begin(), after.end(), '\n')), '\n');
            } else {
                args += s.substr(before, tokens[m].begin - before);
            }
            if (m < close_args) args += ",";
            part = m + 1;
        }
        const bool no_args = open_args + 1 == close_args;
        out += s.substr(copied, tokens[first].begin - copied);
        std::string header_words;  // a C string literal of the header's name
        for (char c : header)
            if (c != '"' && c != '\\' && c != '\n' && c != '\r') header_words += c;
        out += (header.empty() ? std::string("::cp_rt::launch(") : "::cp_rt::launch_in(\"" + header_words + "\", ") +
               std::to_string(tokens[k].line) + ", \"" + kernel_words +
               "\", ::cp_rt::LaunchConfig(" + config + "), [&](auto&... cp_a) { " + kernel + "(cp_a...); }" +
               (no_args ? "" : ", ") + args + ")";
        copied = tokens[close_args].end;
        k = close_args;
    }
    out += s.substr(copied);
    return out;
}

// The names a parameter list declares, in order (`const T* x, int n` -> x, n; `typename T, int N = 4, class... Ts` ->
// T, N, Ts...). A parameter without a name (`float*`, `int`, `typename`, `const T&`) gets one, `cp_unnamed_N`,
// inserted at `inserts` (offsets into `list`), so that the probe can pass it on; nothing when a part has no place for
// a name the scan can find (a function pointer `void (*)(int)`).
struct DeclaredNames {
    std::vector<std::string> names;
    std::vector<std::pair<size_t, std::string>> inserts;
};
std::optional<DeclaredNames> declared_names(const std::string& list, unsigned& unnamed) {
    static const std::set<std::string> type_words = {"int", "char", "float", "double", "long", "short", "unsigned",
                                                     "signed", "bool", "void", "const", "volatile", "__restrict__",
                                                     "__restrict", "typename", "class", "auto"};
    const std::vector<Token> tokens = tokenize_code(list);
    DeclaredNames out;
    std::vector<Token> part;
    auto punct_of = [&](const Token& t) { return t.kind == Token::Punct ? list[t.begin] : char(0); };
    auto finish = [&]() -> bool {
        if (part.empty()) return true;
        size_t end = part.size();
        int depth = 0;
        for (size_t i = 0; i < part.size(); ++i) {
            const char c = punct_of(part[i]);
            if (c == '(' || c == '[' || c == '<' || c == '{') ++depth;
            if (c == ')' || c == ']' || c == '>' || c == '}') --depth;
            if (c == '=' && depth == 0) {
                end = i;
                break;
            }
        }
        if (end == 1 && part[0].kind == Token::Ident && text_of(list, part[0]) == "void" && out.names.empty()) {
            part.clear();
            return true;  // `(void)`
        }
        // The declarator's name comes before its array bounds (`float tile[32][33]`, `float[]`).
        size_t last = end;
        while (last > 0 && punct_of(part[last - 1]) == ']') {
            int d = 0;
            size_t i = last;
            while (i-- > 0) {
                if (punct_of(part[i]) == ']') ++d;
                if (punct_of(part[i]) == '[' && --d == 0) break;
            }
            if (i == size_t(-1) || i == 0) return false;
            last = i;
        }
        if (last == 0) return false;
        bool pack = false;
        for (size_t i = 0; i < last; ++i)
            if (punct_of(part[i]) == '.') pack = true;
        const Token& tail = part[last - 1];
        const bool named = tail.kind == Token::Ident && last > 1 && !type_words.count(text_of(list, tail));
        if (named) {
            out.names.push_back(text_of(list, tail) + (pack ? "..." : ""));
        } else {
            const char c = punct_of(tail);
            // Only after a type word, a type's name, `*`, `&` or a pack's `...` is a name's place certain.
            if (!(tail.kind == Token::Ident || c == '*' || c == '&' || c == '.' || c == '>')) return false;
            const std::string name = "cp_unnamed_" + std::to_string(unnamed++);
            out.inserts.push_back({tail.end, " " + name});
            out.names.push_back(name + (pack ? "..." : ""));
        }
        part.clear();
        return true;
    };
    int depth = 0;
    for (const Token& t : tokens) {
        const char c = punct_of(t);
        if (c == '(' || c == '[' || c == '<' || c == '{') ++depth;
        if (c == ')' || c == ']' || c == '>' || c == '}') --depth;
        if (c == ',' && depth == 0) {
            if (!finish()) return std::nullopt;
            continue;
        }
        part.push_back(t);
    }
    if (!finish()) return std::nullopt;
    return out;
}

// Each program kernel's body starts with its entry probe on the brace's line: a GPU launches the instantiation it
// names with the parameters as the call converted them (cuda_program.h),
// `CP_RT_KERNEL_ENTRY(static_cast<void (*)(decltype(a), decltype(x), decltype(rest)...)>(&axpy<T, N, Rest...>), a,
// x, rest...)`: the cast picks the kernel among overloads of its name. Unnamed parameters are named first.
std::string add_entry_probes(const std::string& text) {
    const KernelScan scan = scan_kernels(text);
    std::vector<std::pair<size_t, std::string>> inserts;
    unsigned unnamed = 0;
    for (const ScannedKernel& k : scan.kernels) {
        if (!k.definition || k.body_open == kNoOffset) continue;
        const auto params = declared_names(k.params_text, unnamed);
        if (!params) continue;
        std::string function = "&" + k.name;
        std::optional<DeclaredNames> template_names;
        if (k.is_template) {
            if (k.template_open == kNoOffset || k.template_close == kNoOffset) continue;
            template_names =
                declared_names(text.substr(k.template_open + 1, k.template_close - k.template_open - 1), unnamed);
            if (!template_names) continue;
            function += "<";
            for (size_t i = 0; i < template_names->names.size(); ++i)
                function += (i ? ", " : "") + template_names->names[i];
            function += ">";
            for (const auto& [at, name] : template_names->inserts) inserts.push_back({k.template_open + 1 + at, name});
        }
        for (const auto& [at, name] : params->inserts) inserts.push_back({k.params_open + 1 + at, name});
        std::string type = "void (*)(";
        std::string args;
        for (size_t i = 0; i < params->names.size(); ++i) {
            const std::string& p = params->names[i];
            const bool pack = p.size() > 3 && p.compare(p.size() - 3, 3, "...") == 0;
            type += (i ? ", " : "") + ("decltype(" + (pack ? p.substr(0, p.size() - 3) : p) + ")") + (pack ? "..." : "");
            args += ", " + p;
        }
        type += ")";
        inserts.push_back({k.body_open + 1, " CP_RT_KERNEL_ENTRY(static_cast<" + type + ">(" + function + ")" + args + ") "});
    }
    std::stable_sort(inserts.begin(), inserts.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    std::string out;
    out.reserve(text.size() + 128 * inserts.size());
    size_t copied = 0;
    for (const auto& [at, piece] : inserts) {
        out.append(text, copied, at - copied);
        out += piece;
        copied = at;
    }
    out.append(text, copied, std::string::npos);
    return out;
}

// Host code: the runtime calls outside the subset, and the CUDA libraries, refused at their line.
void refuse_outside_subset(const std::string& source, const std::vector<Token>& tokens, const std::vector<bool>& skipped,
                           const std::vector<bool>& in_device, const std::string& path,
                           std::vector<Diagnostic>& diagnostics) {
    std::set<std::string> reported;
    for (size_t k = 0; k < tokens.size(); ++k) {
        const Token& t = tokens[k];
        if (skipped[k]) continue;
        if (t.kind == Token::Directive) {
            const std::string d = squeeze(text_of(source, t));
            if (d.rfind("include", 0) != 0) continue;
            for (const auto& [prefix, library] : refused_libraries())
                if (d.find(prefix) != std::string::npos && reported.insert(library).second)
                    diagnostics.push_back(
                        {path, t.line, 0, Severity::Error,
                         library + " is not part of the playground's CUDA runtime: its programs run their own kernels "
                                   "only; write the step as a kernel of the file"});
            if ((d.find("cuda_gl_interop") != std::string::npos || d.find("cuda_egl_interop") != std::string::npos) &&
                reported.insert("interop").second)
                diagnostics.push_back({path, t.line, 0, Severity::Error,
                                       "graphics interop is not part of the playground's CUDA runtime: the "
                                       "playground shows a program's buffers itself"});
            continue;
        }
        if (t.kind != Token::Ident || in_device[k] || k + 1 >= tokens.size() || !is_punct(source, tokens[k + 1], '('))
            continue;
        const std::string word = text_of(source, t);
        const bool runtime_call = word.size() > 4 && word.compare(0, 4, "cuda") == 0 && std::isupper(static_cast<unsigned char>(word[4]));
        if (!runtime_call || runtime_subset().count(word) || !reported.insert(word).second) continue;
        const std::string what = outside_subset(word);
        const size_t split = what.find(" ; ");
        diagnostics.push_back({path, t.line, 0, Severity::Error,
                               "`" + word + "` (" + what.substr(0, split) +
                                   ") is not part of the playground's CUDA runtime: " + what.substr(split + 3)});
    }
}

// What a program's file and its own headers share: refusals, launches rewritten, `__shared__` rewritten, probes.
// Empty text when refused (the diagnostics say why).
std::string prepare_program_part(const std::string& source, const std::string& path, size_t shared_align,
                                 bool kernels_elsewhere, bool is_header, std::vector<Diagnostic>& diagnostics) {
    const std::vector<Token> tokens = tokenize_code(source);
    const std::vector<bool> in_device = device_function_tokens(source, tokens);
    const std::vector<bool> skipped = cpu_skipped(source, tokens);
    scan_unsupported(source, tokens, skipped, path, diagnostics, in_device, kernels_elsewhere);
    refuse_outside_subset(source, tokens, skipped, in_device, path, diagnostics);
    if (!is_header && !main_function_line(source))
        diagnostics.push_back({path, 0, 0, Severity::Error,
                               "no main() in this file: a program needs one (a file of kernels alone runs with a "
                               "/*@playground ... */ header; `cuda-playground describe` proposes one)"});
    if (has_errors(diagnostics)) return {};
    const std::string launched =
        rewrite_launches(source, tokens, in_device, path, diagnostics, is_header ? path : std::string());
    if (has_errors(diagnostics)) return {};
    const std::vector<Token> launched_tokens = tokenize_code(launched);
    std::string text =
        add_entry_probes(rewrite_shared(launched, launched_tokens, path, unsigned(shared_align), diagnostics));
    if (has_errors(diagnostics)) return {};
    return text;
}

}  // namespace

PreparedSource prepare_program_source(const std::string& source, const std::string& display_path,
                                      size_t shared_align, bool kernels_elsewhere) {
    PreparedSource out;
    const std::string path = display_path.empty() ? std::string("program.cu") : display_path;
    out.kernels = find_kernels(source);
    const std::string text = prepare_program_part(source, path, shared_align, kernels_elsewhere, false, out.diagnostics);
    if (has_errors(out.diagnostics)) return out;
    out.text = "#line 1 \"" + escape_for_line_directive(path) + "\"\n" + text;
    out.text += std::string("\n#line 1 \"") + kEntryPointsFile + "\"\n";
    out.text +=
        "CP_SHIM_EXPORT int cp_program_main(int cp_argc, char** cp_argv, const cp_abi::ProgramHost* cp_host) {\n"
        "    ::cp_rt::host = cp_host;\n"
        "    return ::cp_rt::call_main(&::main, cp_argc, cp_argv);\n"
        "}\n";
    return out;
}

std::string prepare_program_header(const std::string& header, const std::string& name, size_t shared_align,
                                   bool kernels_elsewhere, std::vector<Diagnostic>& diagnostics) {
    if (header.find("__global__") == std::string::npos && header.find("<<<") == std::string::npos &&
        header.find("__shared__") == std::string::npos)
        return header;
    return prepare_program_part(header, name, shared_align, kernels_elsewhere, true, diagnostics);
}

}  // namespace cp
