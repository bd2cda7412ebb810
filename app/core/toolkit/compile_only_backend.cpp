// A backend that compiles with NVRTC for the default architecture and runs nothing: what the window's engine
// uses when no registered backend can run kernels here, so the editor still gets diagnostics and usage.
#include "core/toolkit/nvrtc_compiler.h"
#include "core/toolkit/compile_only_backend.h"

#include "core/engine/backend.h"

namespace cp {
namespace {

class CompileOnlyBackend final : public Backend {
public:
    explicit CompileOnlyBackend(std::string why) : why_(std::move(why)) {}

    InfoResult info() override {
        InfoResult r;
        r.device.backend = "none";
        r.device.name = "no device (compile only)";
        r.device.arch = kArchWithoutDevice;
        r.device.caps.launches = false;
        r.device.notes = why_;
        return r;
    }
    CompileResult compile(const CompileRequest& request) override {
        return compile_with_nvrtc(request, kArchWithoutDevice, nullptr);  // module stays 0: nothing to load
    }
    AllocateResult allocate(const AllocateRequest&) override { return {0, 0, refusal(), {}}; }
    UploadResult upload(const UploadRequest&) override { return {refusal()}; }
    LaunchResult launch(const LaunchRequest&) override {
        LaunchResult r;
        r.error = refusal();
        return r;
    }
    ReadBackResult read_back(const ReadBackRequest&) override { return {{}, refusal()}; }
    ReleaseResult release(const ReleaseRequest&) override { return {}; }

private:
    EngineError refusal() const {
        return engine_error(ErrorKind::Unsupported, "no backend", "nothing can run kernels here: " + why_);
    }
    std::string why_;
};

}  // namespace

std::unique_ptr<Backend> make_compile_only_backend(std::string why) {
    return std::make_unique<CompileOnlyBackend>(std::move(why));
}

}  // namespace cp
