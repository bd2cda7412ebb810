// A kernel library (.so) built by the host compiler and loaded with dlopen: its entry points, parameter
// layout, the address range of its code (to map a faulting instruction back to a source line).
#pragma once

#include "core/cpu/shim/cp_shim_abi.h"
#include "core/result.h"

#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace cp {

struct KernelEntry {
    std::string name;
    void (*run_plain)(void** args, const cp_abi::PlainRun* run) = nullptr;
    void (*run_one)(void** args) = nullptr;
    std::vector<cp_abi::ParamInfo> params;
};

class KernelModule {
public:
    // `temporary_dir` (may be empty) is deleted with the module.
    static Result<std::unique_ptr<KernelModule>> load(const std::filesystem::path& library,
                                                      std::filesystem::path temporary_dir);
    ~KernelModule();
    KernelModule(const KernelModule&) = delete;
    KernelModule& operator=(const KernelModule&) = delete;

    // The entry points of `kernel`; an error when the library has none for that name.
    Result<const KernelEntry*> kernel(const std::string& name);

    // The calling OS thread's state block inside the library.
    cp_abi::ThreadState* thread_state() const { return state_fn_(); }

    const std::filesystem::path& library() const { return library_; }
    bool contains(uintptr_t address) const { return address >= code_begin_ && address < code_end_; }
    uintptr_t load_base() const { return base_; }
    uintptr_t code_begin() const { return code_begin_; }
    uintptr_t code_end() const { return code_end_; }
    // Any exported symbol (e.g. a host function a lesson calls), or null.
    void* symbol(const std::string& name) const;
    // Bytes of thread-local storage: the kernel's static __shared__ variables plus the shim's thread state.
    uint64_t tls_bytes() const { return tls_bytes_; }
    // Different for every module loaded in this process (an address may be reused after an unload).
    uint64_t serial() const { return serial_; }
    // Compiled to record every load and store (CompileRequest::instrument_memory, access_recorder.h).
    bool records_accesses() const { return records_accesses_; }

private:
    KernelModule() = default;

    void* handle_ = nullptr;
    std::filesystem::path library_, temporary_dir_;
    cp_abi::ThreadState* (*state_fn_)() = nullptr;
    uintptr_t base_ = 0, code_begin_ = 0, code_end_ = 0;
    uint64_t tls_bytes_ = 0;
    uint64_t serial_ = 0;
    bool records_accesses_ = false;
    std::map<std::string, KernelEntry> entries_;
};

}  // namespace cp
