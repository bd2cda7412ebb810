// The one seam between "where a kernel's output lives" and "the texture that shows it": an output reaches
// its texture either from host memory (CPU backend, or read-back data) or straight from device memory
// (CUDA-GL interop, no host round trip). Code above this interface does not care which.
#pragma once

#include "core/result.h"

#include <cstddef>
#include <cstdint>

namespace cp::render {

class TextureSink {
public:
    virtual ~TextureSink() = default;
    // `data` holds the whole buffer, rows tightly packed, in the element type the sink was made for.
    virtual Result<bool> upload_from_host(const std::byte* data, size_t bytes) = 0;
    // A device pointer in this process's CUDA context (the engine's primary context). Call only while
    // the engine is idle (after its run returned), so the buffer is not being written.
    virtual Result<bool> copy_from_device(uint64_t device_address, size_t bytes) = 0;
    // False where the element type or the machine has no device path; use upload_from_host then.
    virtual bool can_copy_from_device() const = 0;
};

}  // namespace cp::render
