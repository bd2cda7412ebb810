// Loading the CUDA driver API with dlopen/dlsym, so that a machine without an NVIDIA driver can still run
// the app (CPU backend, compile-only) and gets a plain explanation instead of a loader error.
#include "core/cuda/cuda_driver.h"

#include <dlfcn.h>

#include <cstdlib>

namespace cp {

namespace {

// Resolves `symbol` into `slot`; records the first missing required symbol in `missing`.
template <class Fn>
void resolve(void* library, const char* symbol, Fn& slot, bool required, std::string& missing) {
    slot = reinterpret_cast<Fn>(dlsym(library, symbol));
    if (!slot && required && missing.empty()) missing = symbol;
}

}  // namespace

std::string CudaDriver::error_name(CUresult r) const {
    const char* name = nullptr;
    if (GetErrorName && GetErrorName(r, &name) == CUDA_SUCCESS && name) return name;
    return "CUDA error " + std::to_string(int(r));
}

std::string CudaDriver::error_string(CUresult r) const {
    const char* text = nullptr;
    if (GetErrorString && GetErrorString(r, &text) == CUDA_SUCCESS && text) return text;
    return "unknown CUDA error " + std::to_string(int(r));
}

std::string cuda_version_text(int version) {
    return std::to_string(version / 1000) + "." + std::to_string((version % 1000) / 10);
}

std::optional<CudaDriver> load_cuda_driver(const std::string& library, std::string* why, std::string* detail) {
    dlerror();
    void* handle = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
        if (why) *why = "no NVIDIA driver found (" + library + " could not be loaded)";
        if (detail) {
            const char* e = dlerror();
            *detail = e ? e : "";
        }
        return std::nullopt;
    }
    CudaDriver d;
    d.library = handle;
    d.library_name = library;
    std::string missing;
    auto need = [&](const char* symbol, auto& slot) { resolve(handle, symbol, slot, true, missing); };
    auto want = [&](const char* symbol, auto& slot) { resolve(handle, symbol, slot, false, missing); };

    need("cuInit", d.Init);
    need("cuDriverGetVersion", d.DriverGetVersion);
    need("cuDeviceGetCount", d.DeviceGetCount);
    need("cuDeviceGet", d.DeviceGet);
    need("cuDeviceGetName", d.DeviceGetName);
    need("cuDeviceGetAttribute", d.DeviceGetAttribute);
    need("cuDeviceTotalMem_v2", d.DeviceTotalMem);
    need("cuGetErrorName", d.GetErrorName);
    need("cuGetErrorString", d.GetErrorString);

    need("cuDevicePrimaryCtxRetain", d.DevicePrimaryCtxRetain);
    need("cuDevicePrimaryCtxRelease_v2", d.DevicePrimaryCtxRelease);
    need("cuDevicePrimaryCtxReset_v2", d.DevicePrimaryCtxReset);
    need("cuCtxSetCurrent", d.CtxSetCurrent);
    need("cuCtxGetCurrent", d.CtxGetCurrent);
    need("cuCtxSynchronize", d.CtxSynchronize);
    need("cuCtxSetLimit", d.CtxSetLimit);

    need("cuMemGetInfo_v2", d.MemGetInfo);
    need("cuMemAlloc_v2", d.MemAlloc);
    need("cuMemFree_v2", d.MemFree);
    need("cuMemcpyHtoD_v2", d.MemcpyHtoD);
    need("cuMemcpyDtoH_v2", d.MemcpyDtoH);
    need("cuMemcpyDtoD_v2", d.MemcpyDtoD);
    need("cuMemsetD8_v2", d.MemsetD8);
    need("cuMemsetD16_v2", d.MemsetD16);
    need("cuMemsetD32_v2", d.MemsetD32);
    need("cuMemcpy2D_v2", d.Memcpy2D);

    need("cuModuleLoadDataEx", d.ModuleLoadDataEx);
    need("cuModuleUnload", d.ModuleUnload);
    need("cuModuleGetFunction", d.ModuleGetFunction);
    want("cuModuleGetGlobal_v2", d.ModuleGetGlobal);
    need("cuFuncGetAttribute", d.FuncGetAttribute);
    need("cuFuncSetAttribute", d.FuncSetAttribute);
    want("cuFuncGetParamInfo", d.FuncGetParamInfo);
    need("cuLaunchKernel", d.LaunchKernel);
    want("cuLaunchCooperativeKernel", d.LaunchCooperativeKernel);
    want("cuOccupancyMaxPotentialBlockSize", d.OccupancyMaxPotentialBlockSize);
    want("cuOccupancyMaxActiveBlocksPerMultiprocessor", d.OccupancyMaxActiveBlocksPerMultiprocessor);

    want("cuStreamCreate", d.StreamCreate);
    want("cuStreamDestroy_v2", d.StreamDestroy);
    want("cuStreamSynchronize", d.StreamSynchronize);
    want("cuStreamWaitEvent", d.StreamWaitEvent);
    want("cuMemcpyHtoDAsync_v2", d.MemcpyHtoDAsync);
    want("cuMemcpyDtoHAsync_v2", d.MemcpyDtoHAsync);

    need("cuEventCreate", d.EventCreate);
    need("cuEventDestroy_v2", d.EventDestroy);
    need("cuEventRecord", d.EventRecord);
    need("cuEventSynchronize", d.EventSynchronize);
    want("cuEventElapsedTime_v2", d.EventElapsedTime);
    if (!d.EventElapsedTime) need("cuEventElapsedTime", d.EventElapsedTime);  // same signature before 12.8

    // Optional: the toolkit's stub library has none of the GL entry points.
    want("cuMemAllocHost_v2", d.MemAllocHost);
    want("cuMemFreeHost", d.MemFreeHost);
    want("cuMemAllocManaged", d.MemAllocManaged);
    want("cuMemHostAlloc", d.MemHostAlloc);
    want("cuMemcpy", d.Memcpy);
    want("cuMemcpyAsync", d.MemcpyAsync);
    want("cuMemsetD8Async", d.MemsetD8Async);
    want("cuStreamQuery", d.StreamQuery);
    want("cuEventQuery", d.EventQuery);
    want("cuIpcGetMemHandle", d.IpcGetMemHandle);
    want("cuIpcOpenMemHandle_v2", d.IpcOpenMemHandle);
    want("cuIpcCloseMemHandle", d.IpcCloseMemHandle);
    want("cuGraphicsGLRegisterImage", d.GraphicsGLRegisterImage);
    want("cuGraphicsGLRegisterBuffer", d.GraphicsGLRegisterBuffer);
    want("cuGraphicsMapResources", d.GraphicsMapResources);
    want("cuGraphicsUnmapResources", d.GraphicsUnmapResources);
    want("cuGraphicsSubResourceGetMappedArray", d.GraphicsSubResourceGetMappedArray);
    want("cuGraphicsResourceGetMappedPointer_v2", d.GraphicsResourceGetMappedPointer);
    want("cuGraphicsUnregisterResource", d.GraphicsUnregisterResource);
    need("cuSurfObjectCreate", d.SurfObjectCreate);
    need("cuSurfObjectDestroy", d.SurfObjectDestroy);

    if (!missing.empty()) {
        if (why) *why = "the NVIDIA driver is too old (" + library + " has no " + missing + ")";
        if (detail) *detail = "update the NVIDIA driver (kernels compiled by this NVRTC need one at least as new as its CUDA version)";
        dlclose(handle);
        return std::nullopt;
    }
    return d;
}

const CudaDriver* cuda_driver(std::string* why, std::string* detail) {
    struct Loaded {
        std::optional<CudaDriver> driver;
        std::string why, detail;
    };
    // Loaded once per process (thread-safe static initialisation); the library is never unloaded.
    static const Loaded loaded = [] {
        Loaded l;
        // CUDA_PLAYGROUND_LIBCUDA names another driver library (an unusual install; tests use the stub).
        const char* library = std::getenv("CUDA_PLAYGROUND_LIBCUDA");
        l.driver = load_cuda_driver(library && *library ? library : "libcuda.so.1", &l.why, &l.detail);
        return l;
    }();
    if (loaded.driver) return &*loaded.driver;
    if (why) *why = loaded.why;
    if (detail) *detail = loaded.detail;
    return nullptr;
}

}  // namespace cp
