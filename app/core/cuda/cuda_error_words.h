// What CUDA driver errors mean for someone learning CUDA: a plain-words phrase, a hint, and whether the
// error is "sticky" (the context is unusable afterwards and must be reset).
#pragma once

#include "core/result.h"

#include <cuda.h>

#include <string>

namespace cp {

struct CudaErrorWords {
    std::string what;  // completes "kernel `k` (grid ..., block ...) <what>", e.g. "accessed memory outside any allocation"
    std::string hint;  // what to check; may be empty
};

CudaErrorWords cuda_error_words(CUresult r);

// Errors after which every later call in the context fails the same way (CUDA_ERROR_ILLEGAL_ADDRESS,
// CUDA_ERROR_LAUNCH_FAILED, ...). The backend also probes for stickiness, since this list is not exhaustive.
bool is_sticky_cuda_error(CUresult r);

// What kind of failure a driver error is, wherever it came from (a launch refines CUDA_ERROR_INVALID_VALUE
// on its own call into a refused launch): illegal address -> Fault, out of resources -> LaunchRefused...
ErrorKind cuda_error_kind(CUresult r);

}  // namespace cp
