// A small arithmetic expression language for metadata: sizes, launch configs, defaults.
// Numbers, names (width, block.x, src.width), + - * / % ( ), unary -, comparisons are not needed;
// functions ceil floor round min max abs sqrt pow log2 div_up(a,b).
#pragma once

#include "core/result.h"

#include <map>
#include <string>

namespace cp {

using Scope = std::map<std::string, double>;

// Errors name the unknown identifier or the column of the syntax error.
Result<double> eval_expr(const std::string& text, const Scope& scope);

// Names an expression refers to (for dependency checks and "derived" detection).
std::vector<std::string> expr_names(const std::string& text);

}  // namespace cp
