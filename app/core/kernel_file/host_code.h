// Host code pasted with a kernel (a sample's main(), cudaMalloc/cudaMemcpy, helper_cuda.h): recognised,
// explained once, and left out of what the compilers see, since the playground allocates and launches itself.
#pragma once

#include "core/types.h"

#include <string>
#include <vector>

namespace cp {

struct HostCodePart {
    std::string what;  // "`main`", "#include <helper_cuda.h>"
    int first_line = 0, last_line = 0;
};

struct HostCodeScan {
    std::vector<HostCodePart> parts;  // empty: the file has no host program in it
    std::string kernel_source;        // the source with those parts blanked (lines kept); == source when none
    std::string reason;               // what gave it away: "`main`", "`cudaMalloc`", "<<<...>>>"
};

// Finds host code. Only a file that holds a host *program* (main, a CUDA runtime call, a <<<...>>> launch,
// a helper_*.h include) is changed: then every function that is neither __global__ nor __device__ (a device
// cannot call those) and every include of a host-only header is blanked.
// `as_program`: treat the text as host code's even without a program in it (a helper header shared with the
// host: its host functions, globals and host-only includes are left out of device compiles).
HostCodeScan separate_host_code(const std::string& source, bool as_program = false);

// The one message explaining it (a note on the first host line); `whole_program`: the file has a main() and no header,
// so `run` runs it as written (the note says so instead of "it is not run").
Diagnostic host_code_note(const std::string& file, const HostCodeScan& scan, bool whole_program = false);

}  // namespace cp
