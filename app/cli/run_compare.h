// `run --compare`: the variants to run beside FILE's kernel (the ones named, else the header's `compare:`), each
// run on the same inputs and choices in its own session, and how they are printed and written to JSON.
#pragma once

#include "cli/args.h"
#include "core/session/session.h"

#include <nlohmann/json.hpp>

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace cp::cli {

struct CompareRun {
    std::string name;                        // as given (`matmul_tiled`, `matrix/matmul_tiled`)
    std::unique_ptr<KernelSession> session;  // keeps its buffers until the results are written
    std::optional<RunReport> report;         // nullopt: it could not be read (problem says why)
    Error problem;
};

// The variants `--compare` asks for: its values, or (given alone) the header's `compare:` list; an Error when
// there are none.
Result<std::vector<std::string>> compare_names(const Args& args, const KernelFile& main);

// Runs each variant with `main_session`'s choices (variant_choices, with `main_report`'s resolved parameters) and
// `options`. `before` / `after` print a variant's header and results (text output); a variant that cannot be read is
// kept with its problem.
std::vector<CompareRun> run_variants(const std::vector<std::string>& names, Engine& engine,
                                     const KernelSession& main_session, const RunReport& main_report,
                                     const RunOptions& options, const std::function<void(const RunReport&)>& before,
                                     const std::function<void(const RunReport&)>& after);

// "speed-up: matmul_tiled takes 1.2 ms, matmul_naive 5.1 ms (median): 4.25x faster", one line per variant.
void print_speedups(const RunReport& main, const std::vector<CompareRun>& others);

// Adds to main's result `compare` / `speedup` (the first variant, as before) and `variants` (each
// variant's result with its `speedup` over main, or its `error`).
void add_variants_json(nlohmann::json& report_json, const RunReport& main, const std::vector<CompareRun>& others);

}  // namespace cp::cli
