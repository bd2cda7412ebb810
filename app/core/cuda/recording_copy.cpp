// The memory recording's copy of a kernel as a cubin, compiled by nvJitLink and kept on disk (recording_copy.h).
#include "core/cuda/recording_copy.h"
#include "core/clock.h"

#include "core/toolkit/cubin_cache.h"
#include "core/toolkit/nvrtc_compiler.h"

#include <nvJitLink.h>

#include <chrono>
#include <cstring>

namespace cp {

namespace {

// The register limit the driver's JIT was given for the copy (cuda_backend.cpp's CU_JIT_MAX_REGISTERS): at most
// 64 a thread keeps a 1024-thread block launchable, as the plain kernel's was.
constexpr const char* kMaxRegistersOption = "-maxrregcount=64";

std::string nvjitlink_version() {
    unsigned major = 0, minor = 0;
    if (nvJitLinkVersion(&major, &minor) != NVJITLINK_SUCCESS) return "?";
    return std::to_string(major) + "." + std::to_string(minor);
}

std::string nvjitlink_log(nvJitLinkHandle handle) {
    size_t size = 0;
    if (nvJitLinkGetErrorLogSize(handle, &size) != NVJITLINK_SUCCESS || size == 0) return {};
    std::string log(size, '\0');
    if (nvJitLinkGetErrorLog(handle, log.data()) != NVJITLINK_SUCCESS) return {};
    while (!log.empty() && (log.back() == '\0' || log.back() == '\n')) log.pop_back();
    return log;
}

bool contains(const std::string& text, const char* word) { return text.find(word) != std::string::npos; }

// nvJitLink's answer for `ptx` on `arch`: the cubin, or an Error with its log.
Result<std::vector<std::byte>> ptx_to_cubin(const std::string& ptx, const std::string& arch) {
    if (arch.rfind("sm_", 0) != 0)
        return make_error(ErrorKind::Unsupported, "`" + arch + "` is not a real architecture: no cubin is made for it",
                          "the driver compiles the PTX when it loads it");
    const std::string arch_option = "-arch=" + arch;
    const char* options[] = {arch_option.c_str(), kMaxRegistersOption};
    nvJitLinkHandle handle = nullptr;
    if (nvJitLinkCreate(&handle, 2, options) != NVJITLINK_SUCCESS)
        return make_error(ErrorKind::Internal, "nvJitLink could not start for " + arch,
                          "the driver compiles the PTX when it loads it");
    std::string failure;
    if (nvJitLinkAddData(handle, NVJITLINK_INPUT_PTX, ptx.data(), ptx.size(), "recording") != NVJITLINK_SUCCESS)
        failure = "nvJitLink did not take the recording copy's PTX";
    else if (nvJitLinkComplete(handle) != NVJITLINK_SUCCESS)
        failure = "nvJitLink could not compile the recording copy";
    std::vector<std::byte> cubin;
    size_t size = 0;
    if (failure.empty() && (nvJitLinkGetLinkedCubinSize(handle, &size) != NVJITLINK_SUCCESS || size == 0))
        failure = "nvJitLink gave no cubin";
    if (failure.empty()) {
        cubin.resize(size);
        if (nvJitLinkGetLinkedCubin(handle, cubin.data()) != NVJITLINK_SUCCESS) failure = "nvJitLink gave no cubin";
    }
    const std::string log = failure.empty() ? std::string() : nvjitlink_log(handle);
    nvJitLinkDestroy(&handle);
    if (!failure.empty())
        return make_error(ErrorKind::Internal, failure + (log.empty() ? "" : ": " + log),
                          "the driver compiles the PTX when it loads it");
    return cubin;
}

}  // namespace

RecordingCopy compile_recording_copy(const CompileRequest& request, const std::string& arch) {
    RecordingCopy copy;
    // The recording variables after the user's code (their lines keep their numbers), compiled to PTX for the
    // virtual architecture; NVRTC caches that PTX under its own key (the source differs from the plain kernel's).
    CompileRequest wrapped = request;
    wrapped.source = request.source + "\n" + memory_recorder_source();
    wrapped.instrument_memory = true;
    std::vector<std::byte> ptx_image;
    copy.result = compile_with_nvrtc(wrapped, memory_ptx_arch(arch), &ptx_image, &copy.lowered, &copy.also_lowered);
    if (!copy.result.ok) return copy;
    const std::string ptx(reinterpret_cast<const char*>(ptx_image.data()),
                          strnlen(reinterpret_cast<const char*>(ptx_image.data()), ptx_image.size()));
    auto rewritten = instrument_ptx_memory(ptx, request.path.empty() ? std::string("kernel.cu") : request.path);
    if (!rewritten) {
        copy.result.ok = false;
        copy.result.error = to_engine_error(rewritten.error(), "NOT_INSTRUMENTABLE", ErrorKind::Unsupported);
        return copy;
    }
    copy.sites = std::move(rewritten->sites);
    copy.prints = contains(rewritten->ptx, "vprintf") || contains(rewritten->ptx, "__assertfail");
    copy.asserts = contains(rewritten->ptx, "__assertfail");

    // The cubin: kept on disk under the rewritten PTX, the architecture and the compiler's version, so a copy
    // prepared before (by the window in the background, or an earlier run) is not compiled again.
    const std::filesystem::path dir = cubin_cache_dir();
    const std::string key = cache_key("recording cubin\n" + arch + "\n" + nvjitlink_version() + "\n" +
                                      kMaxRegistersOption + "\n" + rewritten->ptx);
    if (!dir.empty())
        if (auto kept = load_cached_compile(dir, key); kept && !kept->image.empty()) {
            copy.image = std::move(kept->image);
            copy.cubin = copy.cubin_kept = true;
            return copy;
        }
    const auto started = std::chrono::steady_clock::now();
    auto cubin = ptx_to_cubin(rewritten->ptx, arch);
    if (cubin) {
        copy.cubin_ms = ms_since(started);
        copy.image = std::move(*cubin);
        copy.cubin = true;
        if (!dir.empty()) {
            CachedCompile entry;
            entry.image = copy.image;
            store_cached_compile(dir, key, entry);  // not kept: compiled again next time, nothing else lost
        }
        return copy;
    }
    copy.cubin_note = cubin.error().message;
    copy.image.assign(reinterpret_cast<const std::byte*>(rewritten->ptx.data()),
                      reinterpret_cast<const std::byte*>(rewritten->ptx.data()) + rewritten->ptx.size());
    copy.image.push_back(std::byte{0});  // cuModuleLoadDataEx takes PTX as a NUL-terminated string
    return copy;
}

}  // namespace cp
