// The architecture of the first CUDA device, for compile-only use (`compile`), without starting a backend.
// Starting CUDA costs ~200 ms per visible GPU, so the answer is remembered per user for the machine's GPUs as
// the driver lists them in /proc (read without starting CUDA).
#include "core/cuda/cubin_cache.h"
#include "core/cuda/cuda_backend_factory.h"
#include "core/cuda/cuda_driver.h"

#include <unistd.h>
#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace cp {

namespace fs = std::filesystem;

namespace {

std::string read_text(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

// The driver's version and each GPU's information file (model, bus, ...), plus CUDA_VISIBLE_DEVICES: what decides
// which device is CUDA's first. Empty when the driver shows none (no GPU, or /proc hidden): nothing is remembered.
std::string gpu_identity() {
    const fs::path root = "/proc/driver/nvidia";
    std::string id = read_text(root / "version");
    if (id.empty()) return {};
    std::error_code ec;
    std::vector<fs::path> gpus;
    for (const auto& e : fs::directory_iterator(root / "gpus", ec)) gpus.push_back(e.path());
    if (gpus.empty()) return {};
    std::sort(gpus.begin(), gpus.end());
    for (const fs::path& g : gpus) id += "\n" + g.filename().string() + "\n" + read_text(g / "information");
    const char* visible = std::getenv("CUDA_VISIBLE_DEVICES");
    return id + "\nCUDA_VISIBLE_DEVICES=" + (visible ? visible : "(unset)");
}

std::string arch_from_driver() {
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

}  // namespace

std::string cuda_device_arch() {
    const std::string identity = gpu_identity();
    const fs::path cache = user_cache_dir();
    const fs::path memo = cache.empty() || identity.empty() ? fs::path() : cache / "device_arch";
    const std::string key = identity.empty() ? std::string() : cache_key(identity);
    if (!memo.empty()) {
        std::istringstream remembered(read_text(memo));
        std::string k, arch;
        if (remembered >> k >> arch && k == key && arch.rfind("sm_", 0) == 0) return arch;
    }
    const std::string arch = arch_from_driver();
    if (!memo.empty() && !arch.empty()) {
        // Written whole or not at all (temporary file + rename): two processes may race here.
        std::error_code ec;
        fs::create_directories(memo.parent_path(), ec);
        const fs::path tmp = memo.string() + "." + std::to_string(::getpid());
        {
            std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
            out << key << ' ' << arch << '\n';
        }
        fs::rename(tmp, memo, ec);
        if (ec) fs::remove(tmp, ec);
    }
    return arch;
}

}  // namespace cp
