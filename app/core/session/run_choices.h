// The user's choices over a kernel file's defaults (parameter values, images, block and grid), as plain
// values: the window's panels edit them and the command line fills them from --set/--block/--grid. Both
// check a "--set NAME=VALUE" with apply_set(), and the session checks every choice again when it resolves a
// run: one set of rules and one set of messages for the window and the command line.
#pragma once

#include "core/kernel_file/kernel_spec.h"
#include "core/result.h"

#include <map>
#include <optional>
#include <string>

namespace cp {

struct RunChoices {
    std::map<std::string, double> params;       // by name; absent: the file's default
    std::map<std::string, std::string> images;  // image-initialised buffer -> path as the user wrote it
    std::optional<Dim3> block, grid;            // absent: the file's expressions
    // The order of each block's threads, where the backend lets it be chosen (capabilities().thread_order);
    // absent: the backend's default.
    std::optional<ThreadOrderChoice> thread_order;
    // A file with steps: run steps 1..until_step only, to see the buffers as that step left them (the check,
    // which is about the last step's result, is then skipped). Absent: every step.
    std::optional<int> until_step;
    // Every random buffer's seed: this mixed with the buffer's own `random(seed=...)`, so that two buffers still
    // differ (an assignment's `grade case ...: seed = 7`). Absent: the header's seeds.
    std::optional<uint64_t> seed;

    bool operator==(const RunChoices&) const = default;
    // Forgets choices whose names `file` does not have (or can no longer take, e.g. a param now derived).
    void keep_only_those_of(const KernelFile& file);
};

// A choice the session refuses, named by where the user entered it: a parameter or image-buffer name,
// "block" or "grid" ("" when no single choice is to blame).
struct InputProblem {
    std::string field;
    Error error;
};

// "--set NAME=VALUE": for a parameter a number or one of its enum labels, for an image buffer a path (checked
// when the run loads it). An Error says what is wrong and how to fix it; `choices` is unchanged then.
Result<bool> apply_set(const KernelFile& file, RunChoices& choices, const std::string& name, const std::string& value);

// Why `value` cannot be given to `p` (derived, not whole, out of the C type's or the metadata's range);
// nullopt when it can.
std::optional<Error> check_param_value(const ParamSpec& p, double value);

// Why the thread order cannot be chosen on `device` (its backend schedules threads itself), with what to do.
Error thread_order_unavailable(const DeviceInfo& device);

// 67108864 rather than 6.71089e+07, for messages.
std::string format_number(double v);

}  // namespace cp
