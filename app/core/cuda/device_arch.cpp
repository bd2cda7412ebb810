// What is remembered per user about the machine's GPUs, as the driver lists them in /proc (read without
// starting CUDA): the architecture of the first CUDA device, for compile-only use (`compile`; starting CUDA
// costs ~200 ms per visible GPU), and whether a kernel faulted on them since the machine started.
#include "core/toolkit/cubin_cache.h"
#include "core/cuda/cuda_backend_factory.h"
#include "core/cuda/cuda_driver.h"

#include <algorithm>
#include <atomic>
#include <chrono>
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
    if (!memo.empty() && !arch.empty()) (void)write_file_whole(memo, key + ' ' + arch + '\n');
    return arch;
}

// ---- faults ----

namespace {

std::atomic<int> g_faults_in_this_process{0};

// The GPUs and this boot of the machine (a reboot, or a driver reload, forgets the fault).
std::string machine_state() {
    const std::string identity = gpu_identity();
    if (identity.empty()) return {};
    return cache_key(identity + "\nboot " + read_text("/proc/sys/kernel/random/boot_id"));
}

fs::path fault_file() {
    const fs::path cache = user_cache_dir();
    return cache.empty() ? fs::path() : cache / "gpu-fault";
}

}  // namespace

void remember_gpu_fault_in(const fs::path& file, const std::string& machine, int64_t when) {
    if (file.empty() || machine.empty()) return;
    (void)write_file_whole(file, machine + ' ' + std::to_string(when) + '\n');
}

std::optional<int64_t> remembered_gpu_fault_in(const fs::path& file, const std::string& machine) {
    if (file.empty() || machine.empty()) return std::nullopt;
    std::istringstream remembered(read_text(file));
    std::string k;
    int64_t when = 0;
    if (remembered >> k >> when && k == machine) return when;
    return std::nullopt;
}

void remember_gpu_fault() {
    ++g_faults_in_this_process;
    const int64_t now =
        std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count();
    remember_gpu_fault_in(fault_file(), machine_state(), now);
}

int gpu_faults_in_this_process() { return g_faults_in_this_process.load(); }
void forget_gpu_faults_in_this_process_for_tests() { g_faults_in_this_process.store(0); }

std::optional<int64_t> remembered_gpu_fault() { return remembered_gpu_fault_in(fault_file(), machine_state()); }

}  // namespace cp
