// Fuzz target: the metadata expression language (eval_expr, check_expr, expr_names). Expressions come from
// kernel files, which are untrusted. Besides not crashing, the three must agree: a text check_expr refuses
// never evaluates, and every name the tolerant expr_names scan finds in a text that checks is a known one.
#include "core/kernel_file/expr.h"
#include "fuzz_check.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string text(reinterpret_cast<const char*>(data), size);
    // Names as a kernel file's header and resolve define them (params, image sizes, the launch).
    static const cp::Scope scope = {{"n", 1000003},     {"width", 600},      {"height", 400},  {"radius", 3},
                                    {"src.width", 600}, {"src.height", 400}, {"block.x", 256}, {"block.y", 1},
                                    {"block.z", 1},     {"grid.x", 3907},    {"scale", -0.5},  {"zero", 0}};
    std::vector<std::string> known;
    for (const auto& [name, value] : scope) known.push_back(name);

    const cp::Result<double> value = cp::eval_expr(text, scope);
    if (value)
        FUZZ_CHECK(std::isfinite(*value), "eval_expr returned a value that is not finite for `" + text + "`");
    else
        FUZZ_CHECK(!value.error().message.empty(), "eval_expr failed without a message");

    const std::optional<cp::ExprProblem> problem = cp::check_expr(text, known);
    if (problem) {
        FUZZ_CHECK(!value, "check_expr refused `" + text + "` (" + problem->message + ") but eval_expr evaluated it");
        FUZZ_CHECK(!problem->message.empty(), "check_expr refused without a message");
        FUZZ_CHECK(problem->column >= 1 && size_t(problem->column) <= text.size() + 1,
                   "check_expr's column " + std::to_string(problem->column) + " is outside `" + text + "`");
    } else {
        for (const std::string& name : cp::expr_names(text))
            FUZZ_CHECK(std::find(known.begin(), known.end(), name) != known.end(),
                       "expr_names found `" + name + "` in `" + text + "`, which check_expr accepted");
    }
    return 0;
}
