// `run --compare`: the variants to run beside FILE's kernel (the ones named, else the header's `compare:`; run by
// core's CompareRunner, as the window's are), and how they are printed and written to JSON.
#pragma once

#include "cli/args.h"
#include "core/session/compare_runner.h"

#include <nlohmann/json.hpp>

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace cp::cli {

// The variants `--compare` asks for: its values, or (given alone) the header's `compare:` list; an Error when
// there are none.
Result<std::vector<std::string>> compare_names(const Args& args, const KernelFile& main);

// "speed-up: matmul_tiled takes 1.2 ms, matmul_naive 5.1 ms (median): 4.25x faster", one line per variant.
void print_speedups(const RunReport& main, const std::vector<VariantRun>& others);

// Adds to main's result `compare` / `speedup` (the first variant, as before) and `variants` (each
// variant's result with its `speedup` over main, or its `error`).
void add_variants_json(nlohmann::json& report_json, const RunReport& main, const std::vector<VariantRun>& others);

}  // namespace cp::cli
