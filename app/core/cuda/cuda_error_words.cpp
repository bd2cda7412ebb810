// Plain-words explanations of the CUDA errors a kernel author meets.
#include "core/cuda/cuda_error_words.h"

namespace cp {

CudaErrorWords cuda_error_words(CUresult r) {
    switch (r) {
        case CUDA_ERROR_ILLEGAL_ADDRESS:
            return {"accessed memory outside any allocation",
                    "check the bounds guards (e.g. `if (i < n)`) and the index arithmetic against the buffer "
                    "sizes; compute-sanitizer --tool memcheck names the faulting line"};
        case CUDA_ERROR_MISALIGNED_ADDRESS:
            return {"accessed memory at an address not aligned to the size of the access",
                    "a pointer cast to a wider type (float4, double, int2...) must be aligned to that type's "
                    "size; check offsets added to pointers before such casts"};
        case CUDA_ERROR_LAUNCH_FAILED:
            return {"stopped with an exception while running (e.g. a trap or a memory fault)",
                    "compute-sanitizer --tool memcheck usually names the cause and line"};
        case CUDA_ERROR_ILLEGAL_INSTRUCTION:
            return {"executed an illegal instruction",
                    "often a non-void function that ends without `return`, or a call through a bad function pointer"};
        case CUDA_ERROR_ASSERT:
            return {"failed a device-side assert()", "the assert's message is in the kernel's printf output"};
        case CUDA_ERROR_HARDWARE_STACK_ERROR:
            return {"overflowed its call stack",
                    "look for deep or unbounded recursion, or very large local arrays"};
        case CUDA_ERROR_INVALID_PC:
            return {"jumped to an invalid instruction address", "check function pointers and virtual calls"};
        case CUDA_ERROR_INVALID_ADDRESS_SPACE:
            // Seen on an H100 for a plain write 6 GB past the end of a buffer: far-off addresses land in
            // no memory space at all, so this is usually an out-of-bounds index, not a shared pointer.
            return {"accessed an address that belongs to no memory (usually an index far outside a buffer)",
                    "check the bounds guards (e.g. `if (i < n)`) and the index arithmetic; also check pointers into "
                    "__shared__ or local arrays used after their scope; compute-sanitizer --tool memcheck names the "
                    "faulting line"};
        case CUDA_ERROR_LAUNCH_TIMEOUT:
            return {"ran longer than the display watchdog allows and was stopped",
                    "make the launch smaller, or check for a loop that never ends"};
        case CUDA_ERROR_ECC_UNCORRECTABLE:
            return {"hit an uncorrectable memory error in the GPU (hardware)", "this is not caused by the kernel"};
        case CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES:
            return {"needs more registers than one block of this size can have "
                    "(registers per thread x threads per block exceeds the limit)",
                    "use a smaller block, or `__launch_bounds__(threads)` so the compiler uses fewer registers"};
        case CUDA_ERROR_INVALID_VALUE:
            return {"was refused: the launch configuration is not valid on this device",
                    "check the block and grid dimensions and the dynamic shared memory size against the limits "
                    "in the Device panel"};
        case CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE:
            return {"asked for more blocks than can run at the same time", "use fewer blocks"};
        case CUDA_ERROR_OUT_OF_MEMORY:
            return {"ran out of GPU memory", "use smaller buffers, or release others first"};
        case CUDA_ERROR_NO_BINARY_FOR_GPU:
        case CUDA_ERROR_INVALID_IMAGE:
        case CUDA_ERROR_INVALID_PTX:
        case CUDA_ERROR_UNSUPPORTED_PTX_VERSION:
            return {"could not be loaded: the compiled code does not suit this GPU or driver",
                    "the NVIDIA driver may be older than the NVRTC used to compile; update the driver"};
        case CUDA_ERROR_NOT_FOUND:
            return {"was not found in the compiled module", "check the kernel's name"};
        default:
            return {"failed", ""};
    }
}

bool is_sticky_cuda_error(CUresult r) {
    switch (r) {
        case CUDA_ERROR_ILLEGAL_ADDRESS:
        case CUDA_ERROR_MISALIGNED_ADDRESS:
        case CUDA_ERROR_LAUNCH_FAILED:
        case CUDA_ERROR_ILLEGAL_INSTRUCTION:
        case CUDA_ERROR_ASSERT:
        case CUDA_ERROR_HARDWARE_STACK_ERROR:
        case CUDA_ERROR_INVALID_PC:
        case CUDA_ERROR_INVALID_ADDRESS_SPACE:
        case CUDA_ERROR_LAUNCH_TIMEOUT:
        case CUDA_ERROR_ECC_UNCORRECTABLE:
        case CUDA_ERROR_CONTAINED:
        case CUDA_ERROR_TENSOR_MEMORY_LEAK:
        case CUDA_ERROR_CONTEXT_IS_DESTROYED:
            return true;
        default:
            return false;
    }
}

ErrorKind cuda_error_kind(CUresult r) {
    switch (r) {
        case CUDA_SUCCESS:
            return ErrorKind::Unknown;
        case CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES:
        case CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE:
            return ErrorKind::LaunchRefused;
        case CUDA_ERROR_LAUNCH_TIMEOUT:
            return ErrorKind::Hang;
        case CUDA_ERROR_OUT_OF_MEMORY:
            return ErrorKind::OutOfMemory;
        case CUDA_ERROR_NO_BINARY_FOR_GPU:
        case CUDA_ERROR_INVALID_IMAGE:
        case CUDA_ERROR_INVALID_PTX:
        case CUDA_ERROR_UNSUPPORTED_PTX_VERSION:
        case CUDA_ERROR_NOT_FOUND:
            return ErrorKind::Compile;
        case CUDA_ERROR_NOT_SUPPORTED:
            return ErrorKind::Unsupported;
        default:
            break;
    }
    // Illegal address, misaligned address, assert, trap, illegal instruction...: the kernel crashed.
    return is_sticky_cuda_error(r) ? ErrorKind::Fault : ErrorKind::Unknown;
}

}  // namespace cp
