// Comparisons: the variants a lesson is compared with (`compare:` in its header, `run --compare OTHER`, the
// window's side-by-side view), each turned into a kernel file to run on the same inputs and choices, and the
// speed ratio between two runs. The command line and the window share these.
#pragma once

#include "core/kernel_file/kernel_file.h"
#include "core/result.h"
#include "core/session/run_choices.h"
#include "core/session/run_report.h"

#include <optional>
#include <string>
#include <vector>

namespace cp {

// A variant's name: a kernel of `main`'s file (a name or an instantiation, run with main's header and its
// `kernel:` swapped) or a file: a path (relative to main's folder, or as given) or a library name
// (`matrix/matmul_tiled`, `matmul_tiled`). An Error names what was tried and the kernels main's file has.
// `where` starts the message: "--compare matmul_tild", "`compare:` (line 7) matmul_tild".
Result<KernelFile> load_variant(const KernelFile& main, const std::string& variant, const std::string& where);

// The file's own variants (`compare:`), each loaded as load_variant does; a variant that cannot be loaded is an
// Error in its slot, so the others still run.
std::vector<std::pair<std::string, Result<KernelFile>>> header_variants(const KernelFile& main);

// main's choices for a variant. A kernel of main's file (the same header) takes them all: the same block, grid,
// thread order, parameters and images. A variant in another file keeps its own launch (its header's block and
// grid) and gets main's parameter values as main's run resolved them (`main_resolved`, when it got that far)
// and main's images, wherever it has a parameter or image buffer of the same name: the same inputs. A step
// cut-off is main's alone.
RunChoices variant_choices(const KernelFile& main, const RunChoices& main_choices, const ResolvedRun* main_resolved,
                           const KernelFile& variant);

// How many times faster `variant` is than `main` (median times); nullopt unless both ran and were timed.
std::optional<double> speedup(const RunReport& main, const RunReport& variant);

// How much a run's repeats vary: the interquartile range of its launch times over their median (with fewer than
// four, the whole range); 0 with one sample.
double relative_spread(const TimingStats& timing);

// A comparison judged against the noise of its repeats: the ratio of medians, and the spread a ratio of two such
// runs has (the two runs' relative spreads added). A difference no larger than the spread is "the same within
// noise": 6-7 us kernels flipped between "1.06x faster" and "1.1x slower" from run to run.
struct SpeedupVerdict {
    double ratio = 0;   // main's median / variant's: > 1 is the variant faster
    double spread = 0;  // relative, 0.08 for ±8%
    bool within_noise = false;
    // The middle half of either run's launches spreads over half its median or more (± 50% and up): no ratio can
    // be told ("2.28x slower ± 111%" read as a finding); the words say so instead of judging.
    bool too_noisy = false;
    bool emulated = false;  // both ran on the CPU backend: the emulation's times, not a GPU's
    int samples = 0;    // the fewer repeats of the two runs
};
std::optional<SpeedupVerdict> speedup_verdict(const RunReport& main, const RunReport& variant);

// "1.06x faster ± 8%: the same within noise", "4.3x faster ± 2%", "1.2x slower ± 3%", "2.3x slower ± 111%: too
// noisy to tell"; with `than`, the kernel compared with named after the way: "4.3x faster than matmul_naive ± 2%";
// on the CPU backend "(CPU emulation, not GPU times)" after it.
std::string speedup_words(const SpeedupVerdict& v, const std::string& than = "");

// "matmul_tiled: 4.3x faster than matmul_naive ± 2%" or "k2: 1.06x faster than k1 ± 8%: the same within noise";
// "" unless both ran.
std::string speedup_text(const RunReport& main, const RunReport& variant);

}  // namespace cp
