// A small arithmetic expression language for metadata: sizes, launch configs, defaults.
// Numbers, names (width, block.x, src.width), + - * / % ( ), unary -, comparisons are not needed;
// functions ceil floor round min max abs sqrt pow log2 div_up(a,b).
#pragma once

#include "core/result.h"

#include <map>
#include <string>
#include <optional>
#include <vector>

namespace cp {

using Scope = std::map<std::string, double>;

// Errors name the unknown identifier or the column of the syntax error.
Result<double> eval_expr(const std::string& text, const Scope& scope);

// A problem found without evaluating: a syntax error, an unknown function, or a name not in `known`.
struct ExprProblem {
    int column = 0;        // 1-based within the expression text
    std::string message;   // without the column
    std::string hint;      // "Did you mean `width`?" and/or the known names
};
// Checks syntax, functions and names without values (so no division-by-zero false alarms).
std::optional<ExprProblem> check_expr(const std::string& text, const std::vector<std::string>& known);

// Names an expression refers to (for dependency checks and "derived" detection).
std::vector<std::string> expr_names(const std::string& text);

}  // namespace cp
