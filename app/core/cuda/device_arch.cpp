// The architecture of the first CUDA device, for compile-only use (`compile`), without starting a backend.
#include "core/cuda/cuda_backend_factory.h"
#include "core/cuda/cuda_driver.h"

namespace cp {

std::string cuda_device_arch() {
    const CudaDriver* d = cuda_driver();
    if (!d || d->Init(0) != CUDA_SUCCESS) return {};
    int count = 0;
    CUdevice device = 0;
    if (d->DeviceGetCount(&count) != CUDA_SUCCESS || count < 1 || d->DeviceGet(&device, 0) != CUDA_SUCCESS) return {};
    int major = 0, minor = 0;
    if (d->DeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, device) != CUDA_SUCCESS ||
        d->DeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, device) != CUDA_SUCCESS)
        return {};
    return "sm_" + std::to_string(major) + std::to_string(minor);
}

}  // namespace cp
