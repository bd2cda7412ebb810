// The one scan of CUDA source for its __global__ functions, and the one C++ tokenizer (tokenize_code). The header
// checks (kernel_signature.cpp), the CPU backend (source_prep.cpp), the instrumented launches (kernel_definition.cpp)
// and compare variants (variants.cpp) all find kernels with it, so they cannot disagree about what a file holds;
// blanking comments, strings and preprocessor lines (blank_comments_and_strings) and the signature reader's tokens
// are read off the same tokens.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace cp {

// One token of C++ source. Comments are skipped; a preprocessor line (with its `\` continuations) is one
// Directive token; string and character literals (raw strings too) are one token each. Nothing is evaluated.
struct CodeToken {
    enum Kind { Ident, Number, String, Char, Punct, Directive } kind = Punct;
    size_t begin = 0, end = 0;  // offsets in the source: [begin, end)
    int line = 1;               // of `begin`
};

std::vector<CodeToken> tokenize_code(const std::string& source);

inline constexpr size_t kNoOffset = static_cast<size_t>(-1);

// A __global__ function as written: offsets are into the scanned source.
struct ScannedKernel {
    std::string name;
    int line = 0;          // the name's line
    size_t global_at = 0;  // `__global__`
    size_t name_at = 0;
    size_t params_open = 0, params_close = 0;  // the parameter list's '(' and ')'
    std::string params_text;                   // between them, as written
    // `template <class T, int N>` before `__global__`: the whole text (spaces collapsed) and its '<' and '>'.
    bool is_template = false;
    std::string template_text;
    size_t template_open = kNoOffset, template_close = kNoOffset;
    // `__launch_bounds__(256, 2)` between `__global__` and the name, as written; empty when there is none.
    std::string launch_bounds;
    size_t launch_bounds_at = kNoOffset;
    // A definition has a body: its '{' and '}' (body_close is kNoOffset when the body never ends).
    bool definition = false;
    size_t body_open = kNoOffset, body_close = kNoOffset;
};

// A `__global__` the scan could not read as a function. Decided here, worded by whoever reports it.
struct KernelScanProblem {
    enum Kind {
        NotAFunction,      // `__global__` not followed by `NAME(`
        ParamsNeverClosed  // `NAME(` without its `)`: nothing after it is scanned
    } kind;
    int line = 0;
    std::string name;  // ParamsNeverClosed: the kernel's name
};

struct KernelScan {
    std::vector<ScannedKernel> kernels;  // in order of appearance, declarations included
    std::vector<KernelScanProblem> problems;
};

// Every __global__ function of `source`, skipping comments, strings, character literals and preprocessor
// lines (a `#define K __global__` is not a kernel). An explicit specialisation (`__global__ void k<float>(...)`)
// is not one either: its primary template is. Linear in the source's length.
KernelScan scan_kernels(const std::string& source);

// The kernels that have a body, each name once (its first definition), in order.
std::vector<ScannedKernel> defined_kernels(const KernelScan& scan);

}  // namespace cp
