// The step-through debugger's copy of a kernel on the CPU backend: before every statement of the kernel's body a
// probe, `::cp_shim::dbg_step(LINE, "a,b,c", a, b, c);`, hands the debugger the user's line and every local variable
// in scope there (the shim's dbg_step, cuda_shim.h). The statements and the variables come from clang's syntax tree
// (its JSON dump) of the CPU backend's prepared source (source_prep.h), so the probes land exactly where the compiler
// sees statements; text is only inserted, on the statement's own line, so every line stays the user's.
#pragma once

#include "core/cpu/host_compiler.h"
#include "core/result.h"
#include "core/types.h"

#include <string>
#include <vector>

namespace cp {

struct DebugProbeSite {
    int line = 0;                        // the user's line (after #line directives) of the statement the probe precedes
    std::vector<std::string> variables;  // the names passed, in the order passed
};

struct DebugInstrumented {
    std::string text;                   // the prepared text with the probes inserted; every #line kept, lines unchanged
    std::vector<DebugProbeSite> sites;  // one per inserted probe, in text order
};

// Pure (no process started): inserts the probes into `prepared_text` (PreparedSource::text) for the kernel named
// `kernel` (template arguments and a namespace are ignored: "k<float>" and "ns::k" find `k`), from
// `clang_ast_json`, clang's JSON AST of exactly that text (one JSON value, or several one after the other as
// `-ast-dump-filter` prints them).
// Each statement that is a direct child of a block inside the kernel's body gets a probe (after a label or case, before
// its statement); a loop's or if's body that is a single statement without braces is wrapped in braces with its probe;
// one more probe goes before the body's closing brace. The variables: the kernel's parameters, then the locals declared
// before the statement in its enclosing blocks (a for-statement's and a condition's declarations too), outermost
// first, an inner declaration hiding an outer one of the same name; references (the `__shared__` arrays, which
// the debugger shows as shared memory), static and extern locals, unnamed ones, names starting with `cp_` or `__` and
// variable-length arrays are left out. Lambdas and other functions are not instrumented, nor statements that come
// out of a macro's expansion (a macro's use as a whole is a statement like any other).
// Errors: the JSON does not parse (Internal), it does not describe this text (Internal), the kernel has no
// definition in the text's own file (UserInput).
Result<DebugInstrumented> instrument_for_debug(const std::string& prepared_text, const std::string& kernel,
                                               const std::string& clang_ast_json);

// Runs clang on `prepared_text` (written to a file in a fresh temporary folder) with the host compile flags
// (host_compile_options(shim, extra_options)) and `-fsyntax-only -Xclang -ast-dump=json -Xclang
// -ast-dump-filter=<kernel>` and returns its JSON (stdout; its messages go elsewhere). The kernel file's own folder
// (the first #line directive's) is searched for its local headers. clang: $CUDA_PLAYGROUND_CLANG, else clang++,
// clang++-19 ... clang++-14 on PATH; none is an Unsupported error. clang refusing the text is a Compile error with
// its messages; running past 60 s, a Hang.
Result<std::string> kernel_ast_json(const std::string& prepared_text, const std::string& kernel,
                                    const ShimLocation& shim, const std::vector<std::string>& extra_options = {});

// kernel_ast_json, then instrument_for_debug (preparing the source is the caller's).
Result<DebugInstrumented> instrument_kernel_for_debug(const std::string& prepared_text, const std::string& kernel,
                                                      const ShimLocation& shim,
                                                      const std::vector<std::string>& extra_options = {});

}  // namespace cp
