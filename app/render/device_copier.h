// Copying a CUDA device buffer into an OpenGL texture on the GPU (CUDA-GL interop), behind an interface
// so the texture code does not see the CUDA driver API. Buffers of a backend in this process are used by
// address; those of the CUDA worker process are imported through their IPC handles first.
#pragma once

#include "core/result.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace cp::render {

class DeviceCopier {
public:
    virtual ~DeviceCopier() = default;
    // Copies `height` rows of `row_bytes` from `device_address` (rows `row_bytes` apart) into mip level 0
    // of `texture` (GL_TEXTURE_2D whose texel size * width == row_bytes). The texture is registered
    // with CUDA on first use and stays registered until forget().
    virtual Result<bool> copy_to_texture(uint64_t device_address, size_t row_bytes, size_t height,
                                         unsigned texture) = 0;
    // Unregisters a texture (call before deleting it).
    virtual void forget(unsigned texture) = 0;

    // The engine's CUDA backend runs in a worker process: its buffers reach this process as CUDA IPC handles.
    // Opens one (once; later calls return the same address) and gives its address in this process.
    virtual Result<uint64_t> import_ipc(const std::vector<uint8_t>& handle) = 0;
    // Closes the imported handles not in `in_use` (buffers the worker freed or replaced).
    virtual void keep_only(const std::vector<std::vector<uint8_t>>& in_use) = 0;
    virtual std::string describe() const = 0;
};

// Loads the CUDA driver at run time and makes the device's primary context (the engine's) current on
// the calling thread, which must be the thread that owns the GL context. Fails plainly where there is
// no driver or device; callers then upload from host memory.
Result<std::unique_ptr<DeviceCopier>> make_cuda_gl_copier(int device_ordinal = 0);

// Once a copy through CUDA-GL interop is caught leaving a texture stale (the NVIDIA driver does so after a
// kernel faulted on the GPU, until the GPU is reset), no later copy in this process is trusted: outputs come
// through host memory. A later texture registration may even spin inside the driver for minutes (seen on an
// H200, driver 580, for the second and third picture of a compare lesson), so none is attempted. A kernel
// fault in this process's CUDA worker (remember_gpu_fault, core/cuda/cuda_backend_factory.h) counts the same.
bool interop_distrusted();
void distrust_interop();
void trust_interop_again_for_tests();

}  // namespace cp::render
