// CUDA-GL interop: device buffer -> registered GL texture's cudaArray with cuMemcpy2D (device to array),
// never through host memory. Uses the core's run-time-loaded driver table, so the same binary starts on
// machines without a GPU; there make_cuda_gl_copier fails and outputs are uploaded from host memory.
#include "render/device_copier.h"

#include "core/cuda/cuda_backend_factory.h"
#include "core/cuda/cuda_driver.h"

#include <atomic>
#include <algorithm>
#include <cstring>
#include <map>

namespace cp::render {
namespace {

constexpr unsigned kGlTexture2D = 0x0DE1;  // GL_TEXTURE_2D, spelled out to keep GL headers out of here

class CudaGlCopier final : public DeviceCopier {
public:
    CudaGlCopier(const CudaDriver& driver, CUdevice device, CUcontext context)
        : cu_(driver), device_(device), context_(context) {}
    ~CudaGlCopier() override {
        cu_.CtxSetCurrent(context_);
        for (auto& [texture, resource] : registered_) cu_.GraphicsUnregisterResource(resource);
        for (auto& [handle, address] : imported_) cu_.IpcCloseMemHandle(CUdeviceptr(address));
        cu_.DevicePrimaryCtxRelease(device_);
    }

    Result<bool> copy_to_texture(uint64_t device_address, size_t row_bytes, size_t height, unsigned texture) override {
        // The engine's worker thread uses this same primary context; making it current here is cheap and
        // guards against anything that changed this thread's current context since.
        if (CUresult r = cu_.CtxSetCurrent(context_); r != CUDA_SUCCESS) return fail("cuCtxSetCurrent", r);
        auto it = registered_.find(texture);
        if (it == registered_.end()) {
            CUgraphicsResource resource = nullptr;
            if (CUresult r = cu_.GraphicsGLRegisterImage(&resource, texture, kGlTexture2D,
                                                         CU_GRAPHICS_REGISTER_FLAGS_WRITE_DISCARD);
                r != CUDA_SUCCESS)
                return fail("cuGraphicsGLRegisterImage", r);
            it = registered_.emplace(texture, resource).first;
        }
        CUgraphicsResource resource = it->second;
        if (CUresult r = cu_.GraphicsMapResources(1, &resource, nullptr); r != CUDA_SUCCESS)
            return fail("cuGraphicsMapResources", r);
        CUarray array = nullptr;
        CUresult r = cu_.GraphicsSubResourceGetMappedArray(&array, resource, 0, 0);
        if (r == CUDA_SUCCESS) {
            CUDA_MEMCPY2D copy{};
            copy.srcMemoryType = CU_MEMORYTYPE_DEVICE;
            copy.srcDevice = CUdeviceptr(device_address);
            copy.srcPitch = row_bytes;
            copy.dstMemoryType = CU_MEMORYTYPE_ARRAY;
            copy.dstArray = array;
            copy.WidthInBytes = row_bytes;
            copy.Height = height;
            r = cu_.Memcpy2D(&copy);
        }
        // Unmapping orders the copy before any GL work issued afterwards.
        const CUresult unmapped = cu_.GraphicsUnmapResources(1, &resource, nullptr);
        if (r != CUDA_SUCCESS) return fail("cuMemcpy2D (device to texture)", r);
        if (unmapped != CUDA_SUCCESS) return fail("cuGraphicsUnmapResources", unmapped);
        return true;
    }

    void forget(unsigned texture) override {
        auto it = registered_.find(texture);
        if (it == registered_.end()) return;
        cu_.CtxSetCurrent(context_);
        cu_.GraphicsUnregisterResource(it->second);
        registered_.erase(it);
    }

    Result<uint64_t> import_ipc(const std::vector<uint8_t>& handle) override {
        if (auto it = imported_.find(handle); it != imported_.end()) return it->second;
        if (!cu_.IpcOpenMemHandle || !cu_.IpcCloseMemHandle)
            return make_error(ErrorKind::Unsupported, "this CUDA driver has no IPC entry points");
        CUipcMemHandle ipc{};
        if (handle.size() != sizeof(ipc.reserved)) return make_error(ErrorKind::Internal, "malformed CUDA IPC handle");
        std::memcpy(ipc.reserved, handle.data(), handle.size());
        if (CUresult r = cu_.CtxSetCurrent(context_); r != CUDA_SUCCESS) return fail("cuCtxSetCurrent", r);
        CUdeviceptr address = 0;
        if (CUresult r = cu_.IpcOpenMemHandle(&address, ipc, CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS); r != CUDA_SUCCESS)
            return fail("cuIpcOpenMemHandle", r);
        imported_.emplace(handle, uint64_t(address));
        return uint64_t(address);
    }

    void keep_only(const std::vector<std::vector<uint8_t>>& in_use) override {
        for (auto it = imported_.begin(); it != imported_.end();) {
            if (std::find(in_use.begin(), in_use.end(), it->first) != in_use.end()) {
                ++it;
                continue;
            }
            cu_.CtxSetCurrent(context_);
            cu_.IpcCloseMemHandle(CUdeviceptr(it->second));
            it = imported_.erase(it);
        }
    }

    std::string describe() const override { return "CUDA-GL interop (device buffer -> texture, cuMemcpy2D)"; }

private:
    Error fail(const char* what, CUresult r) const {
        return make_error(ErrorKind::Unsupported, std::string(what) + " failed: " + cu_.error_name(r),
                          "the output is shown from host memory instead; the OpenGL context may be on another GPU "
                          "than CUDA (headless: the EGL device; window: the display's GPU)");
    }

    const CudaDriver& cu_;
    CUdevice device_;
    CUcontext context_;
    std::map<unsigned, CUgraphicsResource> registered_;
    std::map<std::vector<uint8_t>, uint64_t> imported_;  // IPC handle -> address here
};

}  // namespace

namespace {
std::atomic<bool> g_interop_distrusted{false};
}  // namespace

// A kernel that faulted in this process's CUDA worker counts as a stale copy already seen: no texture is
// registered or copied after it (the copy would stall, or leave the texture stale, until the GPU is reset).
bool interop_distrusted() { return g_interop_distrusted.load() || gpu_faults_in_this_process() > 0; }
void distrust_interop() { g_interop_distrusted.store(true); }
void trust_interop_again_for_tests() { g_interop_distrusted.store(false); }

Result<std::unique_ptr<DeviceCopier>> make_cuda_gl_copier(int device_ordinal) {
    std::string why;
    const CudaDriver* cu = cuda_driver(&why);
    if (!cu) return make_error(ErrorKind::Unsupported, why);
    if (!cu->GraphicsGLRegisterImage || !cu->GraphicsMapResources || !cu->GraphicsUnmapResources ||
        !cu->GraphicsSubResourceGetMappedArray || !cu->GraphicsUnregisterResource)
        return make_error(ErrorKind::Unsupported, "this CUDA driver lacks the OpenGL interop entry points");
    if (CUresult r = cu->Init(0); r != CUDA_SUCCESS)
        return make_error(ErrorKind::Unsupported, "cuInit failed: " + cu->error_name(r));
    CUdevice device = 0;
    if (CUresult r = cu->DeviceGet(&device, device_ordinal); r != CUDA_SUCCESS)
        return make_error(ErrorKind::Unsupported,
                          "no CUDA device " + std::to_string(device_ordinal) + ": " + cu->error_name(r));
    // The engine's context is the device's primary context: retaining it here shares it, so device
    // pointers from the engine are valid on this (the GL) thread.
    CUcontext context = nullptr;
    if (CUresult r = cu->DevicePrimaryCtxRetain(&context, device); r != CUDA_SUCCESS)
        return make_error(ErrorKind::Unsupported, "cuDevicePrimaryCtxRetain failed: " + cu->error_name(r));
    if (CUresult r = cu->CtxSetCurrent(context); r != CUDA_SUCCESS) {
        cu->DevicePrimaryCtxRelease(device);
        return make_error(ErrorKind::Unsupported, "cuCtxSetCurrent failed: " + cu->error_name(r));
    }
    return std::unique_ptr<DeviceCopier>(std::make_unique<CudaGlCopier>(*cu, device, context));
}

}  // namespace cp::render
