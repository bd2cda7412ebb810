// The write-counting variant of a kernel, made from its source without the user changing anything: each
// output pointer parameter `T* out` reaches the user's code (now a __device__ function) as a cp_counted<T>,
// which behaves like the pointer for indexing, dereferencing and pointer arithmetic, and whose element stores
// (=, +=, ++, ...) record per element how many threads wrote it. A __global__ function with the user's name
// and parameters, plus two counter arrays per output, calls it. Works on NVRTC and on the CPU backend's shim.
#pragma once

#include "core/result.h"

#include <cstdint>
#include <string>
#include <vector>

namespace cp {

// One output the variant counts: the kernel's pointer parameter, and the units it counts writers of (the
// buffer's elements; a store counts in every unit it touches, stores outside the units count nowhere).
struct CountedBuffer {
    std::string param;
    uint32_t unit_bytes = 1;
    uint64_t units = 0;
};

// The extra parameters of the variant, appended after the kernel's own, per counted buffer in order: the
// writer counts (units x uint32) and the last writer's tag (units x uint32), both zeroed before launch.
// Per unit, the count grows by one each time a store comes from a different thread than the last one, so
// it is 0 (never stored), 1 (one thread) or >= 2 (two or more threads; a thread writing again after another
// counts again).
std::string count_param_name(const std::string& param, int which);  // which: 0 counts, 1 writers

// `source` holds one non-template __global__ function named `kernel_name`. The Error says why no variant
// could be made (the kernel is not found, an output is not declared `T* name`). A variant that then fails to
// compile (the pointer is cast, passed on as a plain pointer, an element's member is assigned) is refused by
// the compiler with the line: its writes cannot be counted, and nothing is counted falsely.
Result<std::string> make_count_wrapper(const std::string& source, const std::string& kernel_name,
                                       const std::vector<CountedBuffer>& counted);

}  // namespace cp
