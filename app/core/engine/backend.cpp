// Choosing a backend: CUDA when a device is usable, else the CPU emulator (or exactly what was asked).
#include "core/engine/backend.h"

namespace cp {

Response dispatch_request(Backend& b, const Request& request) {
    return std::visit(
        [&b](const auto& r) -> Response {
            using T = std::decay_t<decltype(r)>;
            if constexpr (std::is_same_v<T, InfoRequest>) return b.info();
            else if constexpr (std::is_same_v<T, CompileRequest>) return b.compile(r);
            else if constexpr (std::is_same_v<T, AllocateRequest>) return b.allocate(r);
            else if constexpr (std::is_same_v<T, UploadRequest>) return b.upload(r);
            else if constexpr (std::is_same_v<T, LaunchRequest>) return b.launch(r);
            else if constexpr (std::is_same_v<T, ReadBackRequest>) return b.read_back(r);
            else if constexpr (std::is_same_v<T, ReleaseRequest>) return b.release(r);
            else return b.occupancy(r);
        },
        request);
}

OccupancyResult Backend::occupancy(const OccupancyRequest& request) {
    OccupancyResult out;
    out.error = EngineError{"not supported",
                            std::string("the ") + backend_name(kind()) + " backend has no occupancy API to ask about `" +
                                request.kernel_name + "`",
                            "the block size can still be estimated from the kernel's resource usage", false};
    return out;
}

std::optional<BackendChoice> backend_choice_from_name(const std::string& name) {
    if (name == "auto") return BackendChoice::Auto;
    if (name == "cuda") return BackendChoice::Cuda;
    if (name == "cpu") return BackendChoice::Cpu;
    return std::nullopt;
}

Result<std::unique_ptr<Backend>> make_backend(BackendChoice choice, std::string* why_not_cuda) {
    if (choice == BackendChoice::Cpu) return make_cpu_backend();
    auto cuda = make_cuda_backend();
    if (cuda.ok() || choice == BackendChoice::Cuda) return cuda;
    if (why_not_cuda) *why_not_cuda = cuda.error().message;
    return make_cpu_backend();
}

}  // namespace cp
