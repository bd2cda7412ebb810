// The trace-instrumented variant of a kernel, made from its source without the user changing anything: the
// user's __global__ function becomes a __device__ function, and a __global__ function with the same name and
// parameters calls it between reading %globaltimer, then records %smid and the end time per block.
#pragma once

#include "core/result.h"

#include <string>

namespace cp {

// The __device__ pointer the instrumented kernel writes to: 3 x uint64 per block (SM, start, end), indexed by
// the linear block index. Null (the default) records nothing.
inline constexpr const char* kTraceRecordsSymbol = "cp_trace_records";
inline constexpr int kTraceWordsPerBlock = 3;

// `source` holds one __global__ function named `kernel_name`. The Error says why it could not be wrapped
// (the kernel is not found, or its parameter list cannot be read).
Result<std::string> make_trace_wrapper(const std::string& source, const std::string& kernel_name);

}  // namespace cp
