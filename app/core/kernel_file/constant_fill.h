// `__constant__` memory filled from the header (`constant c_Kernel: float[17] = gaussian(sigma)`): the lines
// read and checked, the file's __constant__ variables found, and their values written into what the compilers see.
#pragma once

#include "core/kernel_file/expr.h"
#include "core/kernel_file/kernel_spec.h"

#include <string>
#include <vector>

namespace cp {

// One `constant NAME: TYPE[COUNT] = FILL` line. FILL is `gaussian(SIGMA)` (COUNT normalised weights of a
// Gaussian centred on the middle element), `values(A, B, ...)` (one expression per element) or one expression
// that every element takes (`= scale`). Expressions may use params.
struct ConstantFill {
    enum class Kind { Gaussian, Values, Each };
    std::string name;
    std::string type;        // float, double, int or uint
    std::string count_expr;  // "17"; "1" without brackets
    Kind kind = Kind::Each;
    std::vector<std::string> exprs;
    std::string text;  // the line's value as written, for the Parameters panel
    int line = 0;
};

// A `__constant__` variable declared in the compiled part of the file.
struct ConstantSymbol {
    std::string name;
    std::string type;          // its element type as written: "float", "unsigned int"
    bool initialised = false;  // `= {...}` in the source
    bool array = false;        // declared with `[...]`
    size_t end = 0;            // the position of its declaration's `;` in the source
    int line = 0;
};

// The header's `constant` lines (problems added to `diagnostics`).
std::vector<ConstantFill> read_constant_lines(const KernelFile& f, std::vector<Diagnostic>* diagnostics = nullptr);
std::vector<ConstantSymbol> find_constant_symbols(const std::string& compile_source);

// Checks the lines against the file's __constant__ variables: a line naming none, a type that differs, a variable
// with an initialiser filled again (errors); a variable nothing fills (a warning: it would hold zeros). Fills
// f.compile_source with the values from the params' defaults.
void check_and_fill_constants(KernelFile& f);

// The compiled text with each `constant` line's values, its expressions evaluated over `params`: the session
// calls it with the run's parameter values. An Error names the line whose expression cannot be evaluated.
Result<std::string> fill_constants(const KernelFile& f, const Scope& params);
// The same for another text of the file (an exported program's): its `__constant__` declarations get the values.
Result<std::string> fill_constants_in(const KernelFile& f, const Scope& params, std::string text);

// "c_Kernel: float[17] = gaussian(sigma)" per line, for the window's Parameters panel.
std::vector<std::string> constant_lines_text(const KernelFile& f);

// What the compilers get: the host code left out, the constants filled (or the source itself).
inline const std::string& text_to_compile(const KernelFile& f) {
    return f.compile_source.empty() ? f.source : f.compile_source;
}

}  // namespace cp
