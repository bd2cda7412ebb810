// The CUDA driver API loaded at run time (dlopen "libcuda.so.1"): one table of entry points shared by the
// CUDA backend and the render layer's GL interop, so the binary starts and runs without an NVIDIA driver.
#pragma once

#include <cuda.h>  // types and prototypes only: nothing here links against libcuda

#include <optional>
#include <string>

namespace cp {

// Entry points, named after the driver function without its "cu" prefix (the prefixed names are macros
// in cuda.h that map to versioned symbols; the loader resolves exactly those versioned symbols).
// Members marked optional may be null on older drivers; every other member is non-null once loaded.
struct CudaDriver {
    void* library = nullptr;  // dlopen handle (never closed: the driver stays loaded for the process)
    std::string library_name;

    // Initialisation, devices
    decltype(&::cuInit) Init = nullptr;
    decltype(&::cuDriverGetVersion) DriverGetVersion = nullptr;
    decltype(&::cuDeviceGetCount) DeviceGetCount = nullptr;
    decltype(&::cuDeviceGet) DeviceGet = nullptr;
    decltype(&::cuDeviceGetName) DeviceGetName = nullptr;
    decltype(&::cuDeviceGetAttribute) DeviceGetAttribute = nullptr;
    decltype(&::cuDeviceTotalMem_v2) DeviceTotalMem = nullptr;
    decltype(&::cuGetErrorName) GetErrorName = nullptr;
    decltype(&::cuGetErrorString) GetErrorString = nullptr;

    // Contexts (the device's primary context, shared with anything else in the process)
    decltype(&::cuDevicePrimaryCtxRetain) DevicePrimaryCtxRetain = nullptr;
    decltype(&::cuDevicePrimaryCtxRelease_v2) DevicePrimaryCtxRelease = nullptr;
    decltype(&::cuDevicePrimaryCtxReset_v2) DevicePrimaryCtxReset = nullptr;
    decltype(&::cuCtxSetCurrent) CtxSetCurrent = nullptr;
    decltype(&::cuCtxGetCurrent) CtxGetCurrent = nullptr;
    decltype(&::cuCtxSynchronize) CtxSynchronize = nullptr;
    decltype(&::cuCtxSetLimit) CtxSetLimit = nullptr;

    // Memory
    decltype(&::cuMemGetInfo_v2) MemGetInfo = nullptr;
    decltype(&::cuMemAlloc_v2) MemAlloc = nullptr;
    decltype(&::cuMemFree_v2) MemFree = nullptr;
    decltype(&::cuMemcpyHtoD_v2) MemcpyHtoD = nullptr;
    decltype(&::cuMemcpyDtoH_v2) MemcpyDtoH = nullptr;
    decltype(&::cuMemcpyDtoD_v2) MemcpyDtoD = nullptr;
    decltype(&::cuMemsetD8_v2) MemsetD8 = nullptr;
    decltype(&::cuMemsetD16_v2) MemsetD16 = nullptr;
    decltype(&::cuMemsetD32_v2) MemsetD32 = nullptr;
    decltype(&::cuMemcpy2D_v2) Memcpy2D = nullptr;
    // Page-locked host memory (pinned transfers); optional
    decltype(&::cuMemAllocHost_v2) MemAllocHost = nullptr;
    decltype(&::cuMemFreeHost) MemFreeHost = nullptr;
    // Whole programs' runtime (core/cuda/cuda_program_device.cpp); optional
    decltype(&::cuMemAllocManaged) MemAllocManaged = nullptr;
    decltype(&::cuMemHostAlloc) MemHostAlloc = nullptr;
    decltype(&::cuMemcpy) Memcpy = nullptr;
    decltype(&::cuMemcpyAsync) MemcpyAsync = nullptr;
    decltype(&::cuMemsetD8Async) MemsetD8Async = nullptr;
    decltype(&::cuStreamQuery) StreamQuery = nullptr;
    decltype(&::cuEventQuery) EventQuery = nullptr;
    // Sharing buffers between processes (worker backend -> window interop); optional
    decltype(&::cuIpcGetMemHandle) IpcGetMemHandle = nullptr;
    decltype(&::cuIpcOpenMemHandle_v2) IpcOpenMemHandle = nullptr;
    decltype(&::cuIpcCloseMemHandle) IpcCloseMemHandle = nullptr;

    // Modules and launches
    decltype(&::cuModuleLoadDataEx) ModuleLoadDataEx = nullptr;
    decltype(&::cuModuleUnload) ModuleUnload = nullptr;
    decltype(&::cuModuleGetFunction) ModuleGetFunction = nullptr;
    decltype(&::cuModuleGetGlobal_v2) ModuleGetGlobal = nullptr;  // optional: traced launches need it
    decltype(&::cuFuncGetAttribute) FuncGetAttribute = nullptr;
    decltype(&::cuFuncSetAttribute) FuncSetAttribute = nullptr;
    decltype(&::cuFuncGetParamInfo) FuncGetParamInfo = nullptr;  // optional (driver >= 12.4)
    decltype(&::cuLaunchKernel) LaunchKernel = nullptr;
    decltype(&::cuLaunchCooperativeKernel) LaunchCooperativeKernel = nullptr;  // optional
    // Occupancy (optional: the launch panel's block size suggestion falls back to an estimate without them)
    decltype(&::cuOccupancyMaxPotentialBlockSize) OccupancyMaxPotentialBlockSize = nullptr;
    decltype(&::cuOccupancyMaxActiveBlocksPerMultiprocessor) OccupancyMaxActiveBlocksPerMultiprocessor = nullptr;

    // Streams and asynchronous copies (StreamsRequest); optional: without them a streamed run is refused
    decltype(&::cuStreamCreate) StreamCreate = nullptr;
    decltype(&::cuStreamDestroy_v2) StreamDestroy = nullptr;
    decltype(&::cuStreamSynchronize) StreamSynchronize = nullptr;
    decltype(&::cuStreamWaitEvent) StreamWaitEvent = nullptr;
    decltype(&::cuMemcpyHtoDAsync_v2) MemcpyHtoDAsync = nullptr;
    decltype(&::cuMemcpyDtoHAsync_v2) MemcpyDtoHAsync = nullptr;

    // Events (timing)
    decltype(&::cuEventCreate) EventCreate = nullptr;
    decltype(&::cuEventDestroy_v2) EventDestroy = nullptr;
    decltype(&::cuEventRecord) EventRecord = nullptr;
    decltype(&::cuEventSynchronize) EventSynchronize = nullptr;
    decltype(&::cuEventElapsedTime_v2) EventElapsedTime = nullptr;  // _v2, or the original on older drivers

    // OpenGL interop for the render layer, all optional (check for null before use). GLuint and GLenum
    // are spelled `unsigned int` so that the core needs no GL header.
    CUresult (*GraphicsGLRegisterImage)(CUgraphicsResource* resource, unsigned int gl_image, unsigned int gl_target,
                                        unsigned int flags) = nullptr;
    CUresult (*GraphicsGLRegisterBuffer)(CUgraphicsResource* resource, unsigned int gl_buffer,
                                         unsigned int flags) = nullptr;
    decltype(&::cuGraphicsMapResources) GraphicsMapResources = nullptr;
    decltype(&::cuGraphicsUnmapResources) GraphicsUnmapResources = nullptr;
    decltype(&::cuGraphicsSubResourceGetMappedArray) GraphicsSubResourceGetMappedArray = nullptr;
    decltype(&::cuGraphicsResourceGetMappedPointer_v2) GraphicsResourceGetMappedPointer = nullptr;
    decltype(&::cuGraphicsUnregisterResource) GraphicsUnregisterResource = nullptr;
    decltype(&::cuSurfObjectCreate) SurfObjectCreate = nullptr;
    decltype(&::cuSurfObjectDestroy) SurfObjectDestroy = nullptr;

    // "CUDA_ERROR_ILLEGAL_ADDRESS" / the driver's own sentence for a result code (never null).
    std::string error_name(CUresult r) const;
    std::string error_string(CUresult r) const;
};

// The process-wide driver table, loaded on first use from libcuda.so.1 (or $CUDA_PLAYGROUND_LIBCUDA). Null when the library is missing
// or lacks a required entry point; `why` then receives a plain-words reason such as
// "no NVIDIA driver found (libcuda.so.1 could not be loaded)" (and `detail`, if given, dlerror's text).
const CudaDriver* cuda_driver(std::string* why = nullptr, std::string* detail = nullptr);

// Loads a driver table from a given library (for tests: a missing file, the toolkit's stub libcuda).
std::optional<CudaDriver> load_cuda_driver(const std::string& library, std::string* why,
                                           std::string* detail = nullptr);

// "13.0" from cuDriverGetVersion's 13000.
std::string cuda_version_text(int version);

}  // namespace cp
