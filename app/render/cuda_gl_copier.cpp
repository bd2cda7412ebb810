// CUDA-GL interop: device buffer -> registered GL texture's cudaArray with cuMemcpy2D (device to array),
// never through host memory. The driver is loaded at run time (dlopen libcuda.so.1) so the same binary
// starts on machines without a GPU; there make_cuda_gl_copier fails and outputs are uploaded from host.
#include "render/device_copier.h"

#include <cuda.h>
#include <dlfcn.h>

#include <map>

namespace cp::render {
namespace {

constexpr unsigned kGlTexture2D = 0x0DE1;  // GL_TEXTURE_2D, spelled out to keep GL headers out of here

// The few driver entry points interop needs, with the versioned symbol names cuda.h maps to.
struct InteropDriver {
    void* library = nullptr;
    CUresult (*init)(unsigned) = nullptr;
    CUresult (*device_get)(CUdevice*, int) = nullptr;
    CUresult (*primary_retain)(CUcontext*, CUdevice) = nullptr;
    CUresult (*primary_release)(CUdevice) = nullptr;
    CUresult (*ctx_set_current)(CUcontext) = nullptr;
    CUresult (*register_image)(CUgraphicsResource*, unsigned, unsigned, unsigned) = nullptr;
    CUresult (*unregister)(CUgraphicsResource) = nullptr;
    CUresult (*map)(unsigned, CUgraphicsResource*, CUstream) = nullptr;
    CUresult (*unmap)(unsigned, CUgraphicsResource*, CUstream) = nullptr;
    CUresult (*mapped_array)(CUarray*, CUgraphicsResource, unsigned, unsigned) = nullptr;
    CUresult (*memcpy_2d)(const CUDA_MEMCPY2D*) = nullptr;
    CUresult (*error_name)(CUresult, const char**) = nullptr;

    template <class F>
    bool load(F& fn, const char* symbol) {
        fn = reinterpret_cast<F>(dlsym(library, symbol));
        return fn != nullptr;
    }
    bool open() {
        library = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
        if (!library) return false;
        return load(init, "cuInit") && load(device_get, "cuDeviceGet") &&
               load(primary_retain, "cuDevicePrimaryCtxRetain") &&
               load(primary_release, "cuDevicePrimaryCtxRelease_v2") && load(ctx_set_current, "cuCtxSetCurrent") &&
               load(register_image, "cuGraphicsGLRegisterImage") && load(unregister, "cuGraphicsUnregisterResource") &&
               load(map, "cuGraphicsMapResources") && load(unmap, "cuGraphicsUnmapResources") &&
               load(mapped_array, "cuGraphicsSubResourceGetMappedArray") && load(memcpy_2d, "cuMemcpy2D_v2") &&
               load(error_name, "cuGetErrorName");
    }
    std::string name(CUresult r) const {
        const char* s = nullptr;
        if (error_name && error_name(r, &s) == CUDA_SUCCESS && s) return s;
        return "CUDA error " + std::to_string(int(r));
    }
};

class CudaGlCopier final : public DeviceCopier {
public:
    CudaGlCopier(InteropDriver driver, CUdevice device, CUcontext context)
        : driver_(driver), device_(device), context_(context) {}
    ~CudaGlCopier() override {
        for (auto& [texture, resource] : registered_) driver_.unregister(resource);
        driver_.primary_release(device_);
        // The library stays loaded: the engine may still be using the driver.
    }

    Result<bool> copy_to_texture(uint64_t device_address, size_t row_bytes, size_t height, unsigned texture) override {
        // The engine's worker thread also uses this primary context; making it current here is cheap and
        // protects against anything that changed this thread's current context since.
        if (CUresult r = driver_.ctx_set_current(context_); r != CUDA_SUCCESS) return fail("cuCtxSetCurrent", r);
        auto it = registered_.find(texture);
        if (it == registered_.end()) {
            CUgraphicsResource resource = nullptr;
            if (CUresult r = driver_.register_image(&resource, texture, kGlTexture2D,
                                                    CU_GRAPHICS_REGISTER_FLAGS_WRITE_DISCARD);
                r != CUDA_SUCCESS)
                return fail("cuGraphicsGLRegisterImage", r);
            it = registered_.emplace(texture, resource).first;
        }
        CUgraphicsResource resource = it->second;
        if (CUresult r = driver_.map(1, &resource, nullptr); r != CUDA_SUCCESS) return fail("cuGraphicsMapResources", r);
        CUarray array = nullptr;
        CUresult r = driver_.mapped_array(&array, resource, 0, 0);
        if (r == CUDA_SUCCESS) {
            CUDA_MEMCPY2D copy{};
            copy.srcMemoryType = CU_MEMORYTYPE_DEVICE;
            copy.srcDevice = CUdeviceptr(device_address);
            copy.srcPitch = row_bytes;
            copy.dstMemoryType = CU_MEMORYTYPE_ARRAY;
            copy.dstArray = array;
            copy.WidthInBytes = row_bytes;
            copy.Height = height;
            r = driver_.memcpy_2d(&copy);
        }
        // Unmapping orders the copy before any GL work issued afterwards.
        CUresult unmapped = driver_.unmap(1, &resource, nullptr);
        if (r != CUDA_SUCCESS) return fail("cuMemcpy2D (device to texture)", r);
        if (unmapped != CUDA_SUCCESS) return fail("cuGraphicsUnmapResources", unmapped);
        return true;
    }

    void forget(unsigned texture) override {
        auto it = registered_.find(texture);
        if (it == registered_.end()) return;
        driver_.ctx_set_current(context_);
        driver_.unregister(it->second);
        registered_.erase(it);
    }

    std::string describe() const override { return "CUDA-GL interop (device buffer -> texture, cuMemcpy2D)"; }

private:
    Error fail(const char* what, CUresult r) const {
        return make_error(std::string(what) + " failed: " + driver_.name(r),
                          "the output is shown from host memory instead; the OpenGL context may be on a "
                          "different GPU than CUDA (headless: the EGL device; window: the display's GPU)");
    }

    InteropDriver driver_;
    CUdevice device_;
    CUcontext context_;
    std::map<unsigned, CUgraphicsResource> registered_;
};

}  // namespace

Result<std::unique_ptr<DeviceCopier>> make_cuda_gl_copier(int device_ordinal) {
    InteropDriver d;
    if (!d.open()) return make_error("the CUDA driver (libcuda.so.1) is not available");
    if (CUresult r = d.init(0); r != CUDA_SUCCESS) return make_error("cuInit failed: " + d.name(r));
    CUdevice device = 0;
    if (CUresult r = d.device_get(&device, device_ordinal); r != CUDA_SUCCESS)
        return make_error("no CUDA device " + std::to_string(device_ordinal) + ": " + d.name(r));
    CUcontext context = nullptr;
    if (CUresult r = d.primary_retain(&context, device); r != CUDA_SUCCESS)
        return make_error("cuDevicePrimaryCtxRetain failed: " + d.name(r));
    if (CUresult r = d.ctx_set_current(context); r != CUDA_SUCCESS) {
        d.primary_release(device);
        return make_error("cuCtxSetCurrent failed: " + d.name(r));
    }
    return std::unique_ptr<DeviceCopier>(std::make_unique<CudaGlCopier>(d, device, context));
}

}  // namespace cp::render
