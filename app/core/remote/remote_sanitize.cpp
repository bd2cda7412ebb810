// The server's side of a sanitized run over --remote: see remote_sanitize.h.
#include "core/remote/remote_sanitize.h"

#include "core/cuda/cuda_backend_factory.h"
#include "core/cuda/sanitizer_report.h"

#include <unistd.h>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace cp {

namespace {

std::string fresh_log_path() {
    std::error_code ec;
    std::filesystem::path dir = std::filesystem::temp_directory_path(ec);
    if (ec) dir = "/tmp";
    const auto log = dir / ("cuda-playground-remote-sanitizer-" + std::to_string(::getpid()) + ".log");
    std::filesystem::remove(log, ec);
    return log.string();
}

}  // namespace

Result<std::unique_ptr<Backend>> make_served_sanitized_backend(const std::string& backend_name, const std::string& tool,
                                                               const std::string& host, std::string* log_path) {
    if (!is_sanitizer_tool(tool))
        return make_error(ErrorKind::UserInput,
                          "--sanitize takes memcheck, racecheck, synccheck or initcheck, not `" + tool + "`",
                          "memcheck finds out-of-bounds accesses; racecheck shared-memory races; synccheck barrier "
                          "misuse; initcheck reads of memory never written");
    *log_path = fresh_log_path();
    if (const char* pretend = std::getenv("CUDA_PLAYGROUND_PRETEND_SANITIZER_LOG"); pretend && *pretend) {
        std::error_code ec;
        std::filesystem::copy_file(pretend, *log_path, std::filesystem::copy_options::overwrite_existing, ec);
        auto made = make_backend(backend_name);
        if (!made) return made.error();
        return std::move(made->backend);
    }
    if (backend_name == "cpu")
        return make_error(ErrorKind::Unsupported,
                          "--sanitize runs compute-sanitizer, which needs the CUDA backend, and this worker on " +
                              host + " was asked for the CPU backend",
                          "on the CPU backend out-of-bounds accesses are always reported; drop --backend cpu");
    // Looked for on the server, where the kernels run: the app's machine may have no toolkit at all.
    if (find_compute_sanitizer().empty())
        return make_error(ErrorKind::Unsupported,
                          "compute-sanitizer was not found on " + host +
                              " (looked in $CUDA_PLAYGROUND_COMPUTE_SANITIZER, $CUDA_HOME/bin, /usr/local/cuda/bin and "
                              "PATH there)",
                          "install the CUDA toolkit's sanitizer on the server (Debian/Ubuntu: apt-get install "
                          "cuda-sanitizer-13-0), or set CUDA_PLAYGROUND_COMPUTE_SANITIZER there, e.g. --remote \"ssh "
                          "gpu01 env CUDA_PLAYGROUND_COMPUTE_SANITIZER=/opt/cuda/bin/compute-sanitizer\"");
    auto made = make_cuda_backend_under_sanitizer(tool, *log_path);
    if (!made)
        return make_error(
            ErrorKind::Unsupported,
            "--sanitize needs the CUDA backend, and it cannot run on " + host + ": " + made.error().message,
            made.error().hint.empty() ? "run on a server with an NVIDIA GPU" : made.error().hint);
    return made;
}


}  // namespace cp
