// Dispatching requests to a backend, choosing a backend by name, and the occupancy default.
#include "core/engine/backend.h"

#include "core/engine/engine_wire.h"

#include <type_traits>

namespace cp {

Response failed_response(const Request& request, const EngineError& error, const std::optional<DeviceInfo>& info) {
    return std::visit(
        [&](const auto& r) -> Response {
            using Answer = ResponseFor<std::decay_t<decltype(r)>>;
            Answer out{};
            if constexpr (std::is_same_v<Answer, InfoResult>) {
                if (info) out.device = *info;
                out.device.notes = error.message;
            } else if constexpr (!std::is_same_v<Answer, ReleaseResult>) {
                out.error = error;
            }
            return out;
        },
        request);
}

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
            else if constexpr (std::is_same_v<T, OccupancyRequest>) return b.occupancy(r);
            else return b.streams(r);
        },
        request);
}

OccupancyResult Backend::occupancy(const OccupancyRequest& request) {
    OccupancyResult out;
    out.error = engine_error(
        ErrorKind::Unsupported, "not supported",
        "the " + info().device.backend + " backend has no occupancy API to ask about `" + request.kernel_name + "`",
        "the block size can still be estimated from the kernel's resource usage");
    return out;
}

StreamsResult Backend::streams(const StreamsRequest& request) {
    StreamsResult out;
    out.error = engine_error(
        ErrorKind::Unsupported, "not supported",
        "the " + info().device.backend + " backend cannot run `" + request.kernel_name + "` split over streams",
        "run it on the cuda or cpu backend");
    return out;
}

const char* stream_op_name(StreamOpKind k) {
    switch (k) {
        case StreamOpKind::H2D: return "h2d";
        case StreamOpKind::Kernel: return "kernel";
        case StreamOpKind::D2H: return "d2h";
    }
    return "?";
}

const BackendEntry* find_backend(const std::string& name) {
    for (const BackendEntry& e : backend_registry())
        if (e.name == name) return &e;
    return nullptr;
}

std::string backend_choices_text() {
    const auto& registry = backend_registry();
    std::string text = "auto";
    for (size_t i = 0; i < registry.size(); ++i) text += (i + 1 == registry.size() ? " or " : ", ") + registry[i].name;
    return text;
}

Result<std::string> check_backend_name(const std::string& name) {
    if (name == "auto" || find_backend(name)) return name;
    return make_error(ErrorKind::UserInput, "unknown backend `" + name + "`", "use " + backend_choices_text());
}

Result<MadeBackend> make_backend(const std::string& name, int device) {
    if (auto known = check_backend_name(name); !known) return known.error();
    if (device < 0)
        return make_error(ErrorKind::UserInput,
                          "there is no device " + std::to_string(device) + ": devices are numbered from 0",
                          "use 0 for the first device");
    MadeBackend made;
    if (name != "auto") {
        auto backend = find_backend(name)->make(device);
        if (!backend) return backend.error();
        made.backend = std::move(*backend);
        return made;
    }
    std::string reasons, hint;
    for (const BackendEntry& e : backend_registry()) {
        auto backend = e.make(device);
        if (backend) {
            made.backend = std::move(*backend);
            return made;
        }
        made.passed_over.emplace_back(e.name, backend.error());
        reasons += (reasons.empty() ? "" : "; ") + e.name + ": " + backend.error().message;
        if (hint.empty()) hint = backend.error().hint;
    }
    return make_error(ErrorKind::Unsupported, "no backend can run kernels here (" + reasons + ")", hint);
}

}  // namespace cp
