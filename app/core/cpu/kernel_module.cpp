// Loading kernel libraries: dlopen (RTLD_LOCAL, so two versions of a kernel never clash), the ABI check,
// entry points by name, and the code range and TLS size from the program headers.
#include "core/cpu/kernel_module.h"

#include "core/cpu/access_bounds.h"
#include "core/cpu/access_recorder.h"
#include "core/cpu/source_prep.h"

#include <dlfcn.h>
#include <link.h>
#include <algorithm>
#include <atomic>

namespace cp {
namespace fs = std::filesystem;

namespace {

struct PhdrSearch {
    uintptr_t base = 0;
    bool found = false;
    uintptr_t code_begin = 0, code_end = 0;
    uint64_t tls_bytes = 0;
};

int find_segments(dl_phdr_info* info, size_t, void* data) {
    auto* search = static_cast<PhdrSearch*>(data);
    if (info->dlpi_addr != search->base) return 0;
    search->found = true;
    for (int i = 0; i < info->dlpi_phnum; ++i) {
        const ElfW(Phdr)& ph = info->dlpi_phdr[i];
        if (ph.p_type == PT_LOAD && (ph.p_flags & PF_X)) {
            const uintptr_t begin = info->dlpi_addr + ph.p_vaddr;
            if (!search->code_begin || begin < search->code_begin) search->code_begin = begin;
            search->code_end = std::max(search->code_end, uintptr_t(begin + ph.p_memsz));
        }
        if (ph.p_type == PT_TLS) search->tls_bytes = ph.p_memsz;
    }
    return 1;
}

}  // namespace

Result<std::unique_ptr<KernelModule>> KernelModule::load(const fs::path& library, fs::path temporary_dir) {
    static std::atomic<uint64_t> loaded{0};
    std::unique_ptr<KernelModule> m(new KernelModule);
    m->serial_ = ++loaded;
    m->library_ = library;
    m->temporary_dir_ = std::move(temporary_dir);
    // An instrumented library's code (its static constructors at dlopen included) reads the bounds shadow:
    // mapped before it is loaded.
    const cp_abi::BoundsMap* bounds = bounds_map();
    m->handle_ = ::dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!m->handle_) {
        const char* why = ::dlerror();
        return make_error(ErrorKind::Compile,
                          "cannot load the compiled kernel library: " + std::string(why ? why : "unknown error"),
                          "delete the CPU compile cache (CUDA_PLAYGROUND_CACHE_DIR/cpu) and compile again");
    }
    auto version = reinterpret_cast<int (*)()>(::dlsym(m->handle_, "cp_module_abi_version"));
    m->state_fn_ = reinterpret_cast<cp_abi::ThreadState* (*)()>(::dlsym(m->handle_, "cp_module_state"));
    if (!version || !m->state_fn_ || version() != CP_SHIM_ABI_VERSION)
        return make_error(ErrorKind::Compile,
                          "the compiled kernel library was built against another version of the CPU shim",
                          "delete the CPU compile cache and compile again");
    // Instrumented code checks each access against the guarded buffers' edges (access_bounds.h).
    if (auto bind =
            reinterpret_cast<void (*)(const cp_abi::BoundsMap*)>(::dlsym(m->handle_, "cp_module_bind_bounds"))) {
        if (!bounds)
            return make_error(ErrorKind::OutOfMemory,
                              "the CPU backend's bounds checks need 16 TiB of address space (not memory) at "
                              "0x200000000000, which this process cannot reserve",
                              "another library may have mapped it, or the address space is limited (ulimit -v)");
        bind(bounds);
    }
    // A recording library hands every access to the recorder (access_recorder.h), which keeps them only
    // during a recording launch.
    if (auto bind =
            reinterpret_cast<void (*)(const cp_abi::AccessRecorder*)>(::dlsym(m->handle_, "cp_module_bind_recorder"))) {
        bind(access_recorder());
        m->records_accesses_ = true;
    }
    Dl_info info{};
    if (::dladdr(reinterpret_cast<void*>(m->state_fn_), &info) && info.dli_fbase) {
        PhdrSearch search;
        search.base = reinterpret_cast<uintptr_t>(info.dli_fbase);
        ::dl_iterate_phdr(find_segments, &search);  // no match: the code range stays empty (no line numbers)
        m->base_ = reinterpret_cast<uintptr_t>(info.dli_fbase);
        m->code_begin_ = search.code_begin;
        m->code_end_ = search.code_end;
        m->tls_bytes_ = search.tls_bytes;
    }
    return m;
}

KernelModule::~KernelModule() {
    if (handle_) ::dlclose(handle_);
    if (!temporary_dir_.empty()) {
        std::error_code ec;
        fs::remove_all(temporary_dir_, ec);
    }
}

void* KernelModule::symbol(const std::string& name) const {
    return ::dlsym(handle_, name.c_str());
}

Result<const KernelEntry*> KernelModule::kernel(const std::string& name) {
    if (auto it = entries_.find(name); it != entries_.end()) return &it->second;
    KernelEntry e;
    e.name = name;
    e.run_plain =
        reinterpret_cast<void (*)(void**, const cp_abi::PlainRun*)>(::dlsym(handle_, plain_entry_symbol(name).c_str()));
    e.run_one = reinterpret_cast<void (*)(void**)>(::dlsym(handle_, fiber_entry_symbol(name).c_str()));
    auto params = reinterpret_cast<const cp_abi::ParamInfo* (*)(int*)>(::dlsym(handle_, params_symbol(name).c_str()));
    if (!e.run_plain || !e.run_one || !params)
        return make_error(ErrorKind::Compile, "kernel `" + name + "` is not in this module",
                          "compile the module with this kernel name (the CPU backend builds entry points per kernel)");
    int count = 0;
    const cp_abi::ParamInfo* infos = params(&count);
    e.params.assign(infos, infos + count);
    return &entries_.emplace(name, std::move(e)).first->second;
}

}  // namespace cp
