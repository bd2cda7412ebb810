// A whole program's kernels on the GPU, in the GPU program worker (cuda_program_device.h).
#include "core/cuda/cuda_program_device.h"

#include "core/cpu/shim/cp_shim_abi.h"
#include "core/cuda/cuda_driver.h"

#include <nlohmann/json.hpp>

#include <dirent.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <deque>
#include <map>

namespace cp {
namespace {

// The device the worker opened before its sandbox (prepare), for every run after.
struct OpenedGpu {
    const CudaDriver* driver = nullptr;
    CUdevice device = 0;
    CUcontext context = nullptr;
    cp_abi::ProgramDeviceFacts facts{};
};
OpenedGpu& opened() {
    static OpenedGpu g;
    return g;
}

int attribute(CUdevice_attribute a) {
    int v = 0;
    opened().driver->DeviceGetAttribute(&v, a, opened().device);
    return v;
}

Error driver_error(CUresult r, const std::string& what) {
    const CudaDriver* d = opened().driver;
    return make_error(ErrorKind::Unsupported,
                      what + " failed: " + (d ? d->error_name(r) + " (" + d->error_string(r) + ")" : std::string("?")),
                      "the GPU could not be opened for programs; run the program on the CPU backend (--backend cpu)");
}

Result<std::vector<int>> prepare_gpu() {
    std::string why;
    OpenedGpu& g = opened();
    g.driver = cuda_driver(&why);
    if (!g.driver) return make_error(ErrorKind::Unsupported, why, "run the program on the CPU backend (--backend cpu)");
    const CudaDriver& d = *g.driver;
    if (CUresult r = d.Init(0)) return driver_error(r, "cuInit");
    int count = 0;
    if (CUresult r = d.DeviceGetCount(&count)) return driver_error(r, "cuDeviceGetCount");
    if (count < 1) return make_error(ErrorKind::Unsupported, "no CUDA device", "run the program on the CPU backend");
    if (CUresult r = d.DeviceGet(&g.device, 0)) return driver_error(r, "cuDeviceGet");
    if (CUresult r = d.DevicePrimaryCtxRetain(&g.context, g.device)) return driver_error(r, "cuDevicePrimaryCtxRetain");
    if (CUresult r = d.CtxSetCurrent(g.context)) return driver_error(r, "cuCtxSetCurrent");
    if (!d.MemAllocManaged || !d.MemHostAlloc || !d.Memcpy || !d.MemcpyAsync || !d.MemsetD8Async || !d.StreamCreate ||
        !d.StreamQuery || !d.EventQuery || !d.ModuleGetGlobal || !d.MemFreeHost || !d.StreamSynchronize ||
        !d.StreamDestroy)
        return make_error(ErrorKind::Unsupported, "this NVIDIA driver lacks calls whole programs need",
                          "update the driver, or run the program on the CPU backend (--backend cpu)");
    // Everything the driver opens files for, done once now: after the sandbox it can open none (its device files stay
    // open: the runs' managed and pinned memory, streams and events use them).
    CUdeviceptr managed = 0;
    void* pinned = nullptr;
    if (CUresult r = d.MemAllocManaged(&managed, 4096, CU_MEM_ATTACH_GLOBAL)) return driver_error(r, "cuMemAllocManaged");
    if (CUresult r = d.MemHostAlloc(&pinned, 4096, 0)) return driver_error(r, "cuMemHostAlloc");
    CUstream stream = nullptr;
    if (CUresult r = d.StreamCreate(&stream, CU_STREAM_DEFAULT)) return driver_error(r, "cuStreamCreate");
    d.StreamDestroy(stream);
    CUevent event = nullptr;
    if (CUresult r = d.EventCreate(&event, CU_EVENT_DEFAULT)) return driver_error(r, "cuEventCreate");
    d.EventDestroy(event);

    cp_abi::ProgramDeviceFacts& f = g.facts;
    d.DeviceGetName(f.name, sizeof f.name, g.device);
    size_t total = 0, free_bytes = 0;
    d.DeviceTotalMem(&total, g.device);
    d.MemGetInfo(&free_bytes, &total);
    f.total_memory = total;
    f.free_memory = free_bytes;
    f.shared_per_block = uint64_t(attribute(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK));
    f.shared_per_block_optin = uint64_t(attribute(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN));
    f.shared_per_sm = uint64_t(attribute(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR));
    f.constant_memory = uint64_t(attribute(CU_DEVICE_ATTRIBUTE_TOTAL_CONSTANT_MEMORY));
    f.l2_bytes = uint64_t(attribute(CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE));
    f.regs_per_block = attribute(CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK);
    f.regs_per_sm = attribute(CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR);
    f.sm_count = attribute(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
    f.cc_major = attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
    f.cc_minor = attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
    f.max_threads_per_block = attribute(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
    f.max_threads_per_sm = attribute(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR);
    f.max_blocks_per_sm = attribute(CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR);
    f.warp_size = attribute(CU_DEVICE_ATTRIBUTE_WARP_SIZE);
    f.bus_width = attribute(CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH);
    f.clock_khz = attribute(CU_DEVICE_ATTRIBUTE_CLOCK_RATE);
    f.memory_clock_khz = attribute(CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE);
    f.async_engines = attribute(CU_DEVICE_ATTRIBUTE_ASYNC_ENGINE_COUNT);
    f.concurrent_managed = attribute(CU_DEVICE_ATTRIBUTE_CONCURRENT_MANAGED_ACCESS);
    f.cooperative = attribute(CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH);
    f.pci_bus = attribute(CU_DEVICE_ATTRIBUTE_PCI_BUS_ID);
    f.pci_device = attribute(CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID);
    f.pci_domain = attribute(CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID);
    f.integrated = attribute(CU_DEVICE_ATTRIBUTE_INTEGRATED);
    f.ecc = attribute(CU_DEVICE_ATTRIBUTE_ECC_ENABLED);
    f.max_block[0] = attribute(CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X);
    f.max_block[1] = attribute(CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y);
    f.max_block[2] = attribute(CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z);
    f.max_grid[0] = attribute(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X);
    f.max_grid[1] = attribute(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y);
    f.max_grid[2] = attribute(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z);

    // The device files the driver holds: the sandbox lets the worker's threads control these (ioctl).
    std::vector<int> fds;
    if (DIR* dir = opendir("/proc/self/fd")) {
        while (dirent* e = readdir(dir)) {
            if (e->d_name[0] == '.') continue;
            char target[256] = {};
            const std::string link = std::string("/proc/self/fd/") + e->d_name;
            if (readlink(link.c_str(), target, sizeof target - 1) > 0 && std::strncmp(target, "/dev/nvidia", 11) == 0)
                fds.push_back(std::atoi(e->d_name));
        }
        closedir(dir);
    }
    (void)managed;  // kept: freeing them could let the driver close what it reopens later
    (void)pinned;
    return fds;
}

std::string gpu_facts() {
    const cp_abi::ProgramDeviceFacts& f = opened().facts;
    return nlohmann::json{{"name", f.name}, {"cc_major", f.cc_major}, {"cc_minor", f.cc_minor}, {"sm_count", f.sm_count}}
        .dump();
}

class CudaProgramDevice final : public ProgramDevice {
public:
    explicit CudaProgramDevice(const ProgramDeviceRun& run) : run_(run), d_(*opened().driver) {
        table_.context = this;
        table_.allocate = [](void* c, unsigned long long bytes, int kind, const char* name, int line) {
            return self(c).allocate(bytes, kind, name ? name : "", line);
        };
        table_.release = [](void* c, void* p, int kind) { return self(c).release(p, kind); };
        table_.find = [](void* c, const void* p, cp_abi::ProgramAllocation* out) { return self(c).find(p, out); };
        table_.launch = [](void* c, const cp_abi::ProgramLaunch* l) { return self(c).launch(*l); };
        table_.workers = [](void*) { return opened().facts.sm_count; };
        table_.wants_entry = 1;
        table_.copy = [](void* c, void* dst, const void* src, unsigned long long bytes, unsigned long long stream,
                         int async) { return self(c).copy(dst, src, bytes, stream, async != 0); };
        table_.fill = [](void* c, void* dst, int value, unsigned long long bytes, unsigned long long stream, int async) {
            return self(c).fill(dst, value, bytes, stream, async != 0);
        };
        table_.synchronize = [](void* c, unsigned long long stream, int all) {
            return self(c).synchronize(stream, all != 0);
        };
        table_.symbol = [](void* c, const void* host, void** address, unsigned long long* bytes) {
            return self(c).symbol(host, address, bytes);
        };
        table_.stream = [](void* c, int op, unsigned long long n) { return self(c).stream_op(op, n); };
        table_.event = [](void* c, int op, unsigned long long n, unsigned long long other, float* ms) {
            return self(c).event_op(op, n, other, ms);
        };
        table_.device = [](void*, cp_abi::ProgramDeviceFacts* out) {
            *out = opened().facts;
            size_t free_bytes = 0, total = 0;
            if (opened().driver->MemGetInfo(&free_bytes, &total) == CUDA_SUCCESS) out->free_memory = free_bytes;
            return 0;
        };
    }
    ~CudaProgramDevice() override {
        d_.CtxSynchronize();
        for (auto& [start, a] : allocations_) {
            if (a.kind == cp_abi::kPinnedHostMemory) d_.MemFreeHost(reinterpret_cast<void*>(start));
            else d_.MemFree(CUdeviceptr(start));
        }
        for (auto& [n, s] : streams_) d_.StreamDestroy(s);
        for (auto& [n, e] : events_) d_.EventDestroy(e);
        for (const Pending& p : pending_) {
            d_.EventDestroy(p.start);
            d_.EventDestroy(p.end);
            for (const Snapshot& s : p.snapshots)
                if (s.bytes) {
                    d_.MemFree(s.before);
                    d_.MemFree(s.after);
                }
        }
        if (module_) d_.ModuleUnload(module_);
    }

    std::optional<Error> load() {
        if (CUresult r = d_.CtxSetCurrent(opened().context)) return driver_error(r, "cuCtxSetCurrent");
        if (!run_.image) return make_error(ErrorKind::Internal, "the program's device code did not reach the GPU worker");
        if (run_.image->image.empty()) return std::nullopt;  // no kernel: nothing to load
        if (CUresult r = d_.ModuleLoadDataEx(&module_, run_.image->image.data(), 0, nullptr, nullptr))
            return make_error(ErrorKind::Compile,
                              "the GPU refused the program's device code: " + d_.error_name(r) + " (" +
                                  d_.error_string(r) + ")",
                              "the device code was compiled for " + run_.image->arch);
        // __managed__ variables: the device's, and the host's twin with what was last seen of it.
        for (uint64_t offset : run_.image->managed) {
            auto name = run_.image->symbols.find(offset);
            if (name == run_.image->symbols.end()) continue;
            CUdeviceptr at = 0;
            size_t bytes = 0;
            if (d_.ModuleGetGlobal(&at, &bytes, module_, name->second.c_str()) != CUDA_SUCCESS) continue;
            Managed m;
            m.device = reinterpret_cast<unsigned char*>(uintptr_t(at));
            m.host = reinterpret_cast<unsigned char*>(run_.library_base + offset);
            m.seen.assign(m.host, m.host + bytes);
            std::memcpy(m.device, m.host, bytes);
            managed_.push_back(std::move(m));
        }
        return std::nullopt;
    }

    const cp_abi::ProgramHost* table() const override { return &table_; }

    const std::string* device_allocation_at(uintptr_t address) const override {
        const auto* a = containing(reinterpret_cast<const void*>(address));
        if (!a || a->second.kind != cp_abi::kDeviceMemory || address >= a->first + a->second.bytes) return nullptr;
        return &a->second.name;
    }

    void finish() override {
        if (d_.CtxSynchronize() == CUDA_SUCCESS) managed_to_host();
        resolve(true);
    }

private:
    struct Allocation {
        uint64_t bytes = 0;
        int kind = 0;
        std::string name;
    };
    struct Managed {
        unsigned char* device = nullptr;  // the module's variable (managed memory: the host may read it)
        unsigned char* host = nullptr;    // the host library's twin, which the program's host code reads and writes
        std::vector<unsigned char> seen;  // the twin as last made equal
    };
    // A buffer's bytes just before and just after a launch, copied on the device (capture runs only).
    struct Snapshot {
        uintptr_t from = 0;
        uint64_t bytes = 0;  // 0: not captured
        CUdeviceptr before = 0, after = 0;
    };
    struct Pending {
        ProgramLaunchRecord record;
        CUevent start = nullptr, end = nullptr;
        std::vector<Snapshot> snapshots;  // per record.buffers entry
    };

    static CudaProgramDevice& self(void* c) { return *static_cast<CudaProgramDevice*>(c); }

    void* allocate(uint64_t bytes, int kind, const std::string& name, int) {
        if (run_.memory_limit && (bytes > run_.memory_limit || allocated_ > run_.memory_limit - bytes)) return nullptr;
        void* p = nullptr;
        if (kind == cp_abi::kPinnedHostMemory) {
            if (d_.MemHostAlloc(&p, bytes, 0) != CUDA_SUCCESS) return nullptr;
        } else {
            CUdeviceptr dp = 0;
            const CUresult r = kind == cp_abi::kManagedMemory ? d_.MemAllocManaged(&dp, bytes, CU_MEM_ATTACH_GLOBAL)
                                                               : d_.MemAlloc(&dp, bytes);
            if (r != CUDA_SUCCESS) return nullptr;
            p = reinterpret_cast<void*>(dp);
        }
        allocations_[reinterpret_cast<uintptr_t>(p)] = Allocation{bytes, kind, name};
        allocated_ += bytes;
        return p;
    }
    int release(void* p, int kind) {
        auto it = allocations_.find(reinterpret_cast<uintptr_t>(p));
        if (it == allocations_.end()) return 1;
        const bool pinned = it->second.kind == cp_abi::kPinnedHostMemory;
        if (pinned != (kind == cp_abi::kPinnedHostMemory)) return 1;
        const CUresult r = pinned ? d_.MemFreeHost(p) : d_.MemFree(CUdeviceptr(uintptr_t(p)));
        allocated_ -= it->second.bytes;
        allocations_.erase(it);
        resolve(false);  // cudaFree waits for the device
        return r == CUDA_SUCCESS ? 0 : int(r);
    }
    const std::pair<const uintptr_t, Allocation>* containing(const void* p) const {
        const uintptr_t at = reinterpret_cast<uintptr_t>(p);
        auto it = allocations_.upper_bound(at);
        if (it == allocations_.begin()) return nullptr;
        --it;
        return at <= it->first + it->second.bytes ? &*it : nullptr;
    }
    int find(const void* p, cp_abi::ProgramAllocation* out) const {
        const auto* a = containing(p);
        if (!a) return 0;
        out->base = reinterpret_cast<void*>(a->first);
        out->bytes = a->second.bytes;
        out->kind = a->second.kind;
        return 1;
    }

    CUstream stream_of(uint64_t n) const {
        auto it = streams_.find(n);
        return it == streams_.end() ? nullptr : it->second;
    }

    int copy(void* dst, const void* src, uint64_t bytes, uint64_t stream, bool async) {
        const CUresult r = async ? d_.MemcpyAsync(CUdeviceptr(uintptr_t(dst)), CUdeviceptr(uintptr_t(src)), bytes,
                                                  stream_of(stream))
                                 : d_.Memcpy(CUdeviceptr(uintptr_t(dst)), CUdeviceptr(uintptr_t(src)), bytes);
        if (!async) {
            resolve(false);
            if (r == CUDA_SUCCESS) managed_to_host();
        }
        return int(r);
    }
    int fill(void* dst, int value, uint64_t bytes, uint64_t stream, bool async) {
        const CUresult r = async ? d_.MemsetD8Async(CUdeviceptr(uintptr_t(dst)), static_cast<unsigned char>(value), bytes,
                                                    stream_of(stream))
                                 : d_.MemsetD8(CUdeviceptr(uintptr_t(dst)), static_cast<unsigned char>(value), bytes);
        return int(r);
    }
    int synchronize(uint64_t stream, bool all) {
        const CUresult r = all ? d_.CtxSynchronize() : d_.StreamSynchronize(stream_of(stream));
        resolve(false);
        if (r == CUDA_SUCCESS) managed_to_host();
        return int(r);
    }
    int symbol(const void* host, void** address, unsigned long long* bytes) {
        const uint64_t offset = uint64_t(reinterpret_cast<uintptr_t>(host) - run_.library_base);
        auto it = run_.image->symbols.find(offset);
        if (it == run_.image->symbols.end()) return 13;  // cudaErrorInvalidSymbol
        CUdeviceptr dp = 0;
        size_t size = 0;
        if (CUresult r = d_.ModuleGetGlobal(&dp, &size, module_, it->second.c_str())) return r == CUDA_ERROR_NOT_FOUND ? 13 : int(r);
        *address = reinterpret_cast<void*>(dp);
        *bytes = size;
        return 0;
    }
    int stream_op(int op, uint64_t n) {
        switch (op) {
            case cp_abi::kStreamCreate: {
                CUstream s = nullptr;
                if (CUresult r = d_.StreamCreate(&s, CU_STREAM_DEFAULT)) return int(r);
                streams_[n] = s;
                return 0;
            }
            case cp_abi::kStreamDestroy: {
                auto it = streams_.find(n);
                if (it == streams_.end()) return 400;
                d_.StreamDestroy(it->second);
                streams_.erase(it);
                return 0;
            }
            case cp_abi::kStreamQuery: {
                const CUresult r = d_.StreamQuery(stream_of(n));
                if (r == CUDA_SUCCESS) resolve(false);
                return int(r);
            }
        }
        return 1;
    }
    int event_op(int op, uint64_t n, uint64_t other, float* ms) {
        if (op == cp_abi::kEventCreate) {
            CUevent e = nullptr;
            if (CUresult r = d_.EventCreate(&e, CU_EVENT_DEFAULT)) return int(r);
            events_[n] = e;
            return 0;
        }
        auto it = events_.find(n);
        if (it == events_.end()) return 400;  // cudaErrorInvalidResourceHandle
        switch (op) {
            case cp_abi::kEventRecord: return int(d_.EventRecord(it->second, stream_of(other)));
            case cp_abi::kEventSynchronize: {
                const CUresult r = d_.EventSynchronize(it->second);
                resolve(false);
                if (r == CUDA_SUCCESS) managed_to_host();
                return int(r);
            }
            case cp_abi::kEventQuery: return int(d_.EventQuery(it->second));
            case cp_abi::kEventDestroy:
                d_.EventDestroy(it->second);
                events_.erase(it);
                return 0;
            case cp_abi::kEventElapsed: {
                auto end = events_.find(other);
                if (end == events_.end()) return 400;
                return int(d_.EventElapsedTime(ms, it->second, end->second));
            }
        }
        return 1;
    }

    void tell(const ProgramLaunchRecord& r) const {
        if (run_.on_launch && *run_.on_launch) (*run_.on_launch)(r);
    }

    // Appends `bytes` of device (or managed, pinned) memory at `at` to the capture file; false when it could not.
    // cuMemcpy waits for the work before it on the default stream (the snapshot copies, in launch order).
    bool capture(uintptr_t at, uint64_t bytes) {
        std::vector<unsigned char> host(bytes);
        if (d_.Memcpy(CUdeviceptr(reinterpret_cast<uintptr_t>(host.data())), CUdeviceptr(at), bytes) != CUDA_SUCCESS)
            return false;
        uint64_t done = 0;
        while (done < bytes) {
            const ssize_t n = ::write(run_.capture_fd, host.data() + done, bytes - done);
            if (n <= 0) return false;
            done += uint64_t(n);
        }
        captured_ += bytes;
        return true;
    }

    int launch(const cp_abi::ProgramLaunch& l) {
        ProgramLaunchRecord record;
        record.kernel = l.kernel ? l.kernel : "";
        record.line = l.line;
        record.file = l.file ? l.file : "";
        record.grid = Dim3{l.grid.x, l.grid.y, l.grid.z};
        record.block = Dim3{l.block.x, l.block.y, l.block.z};
        record.shared_bytes = l.shared_bytes;
        record.stream = l.stream;
        const size_t index = launches_made_++;
        auto refuse = [&](int code, EngineError error) {
            record.cuda_error = code;
            record.error = std::move(error);
            tell(record);
            return code;
        };
        const std::string* lowered = nullptr;
        if (l.entry) {
            record.entry = uint64_t(reinterpret_cast<uintptr_t>(l.entry->function) - run_.library_base);
            auto it = run_.image->kernels.find(record.entry);
            if (it != run_.image->kernels.end()) lowered = &it->second;
        }
        if (!lowered)
            return refuse(98, engine_error(ErrorKind::Unsupported, "INVALID_DEVICE_FUNCTION",
                                           "the playground cannot find `" + record.kernel +
                                               "` in the program's device code, so it cannot launch it on the GPU",
                                           "a kernel in an anonymous namespace, or one with a parameter the "
                                           "playground cannot name (an unnamed function pointer), runs on the CPU "
                                           "backend only (--backend cpu); give it a name to run it here"));
        CUfunction& function = functions_[*lowered];
        if (!function)
            if (CUresult r = d_.ModuleGetFunction(&function, module_, lowered->c_str()))
                return refuse(int(r), engine_error(ErrorKind::Internal, "INVALID_DEVICE_FUNCTION",
                                                   "the GPU module has no `" + *lowered + "`: " + d_.error_name(r)));
        // A change the app asked for at this launch: grid, block and scalars (in the probe's copies, which are
        // what the kernel gets).
        if (run_.changes)
            if (auto change = run_.changes->find(index); change != run_.changes->end())
                record.changed = apply_launch_change(change->second, record.grid, record.block, l.entry->values,
                                                     l.entry->params, l.entry->count);
        // The parameters as the kernel took them, and the allocations they point into.
        std::vector<void*> params(l.entry->count);
        std::vector<std::pair<uintptr_t, uint64_t>> reached;
        for (unsigned i = 0; i < l.entry->count; ++i) {
            params[i] = const_cast<void*>(l.entry->values[i]);
            ProgramArg arg;
            arg.size = l.entry->params[i].size;
            arg.pointer = l.entry->params[i].is_pointer != 0;
            arg.bytes_hex = hex_of_bytes(l.entry->values[i], arg.size);
            if (arg.pointer) {
                const void* value = *static_cast<void* const*>(l.entry->values[i]);
                if (const auto* a = containing(value)) {
                    arg.buffer = a->second.name;
                    arg.offset = uint64_t(reinterpret_cast<uintptr_t>(value) - a->first);
                    if (std::find_if(reached.begin(), reached.end(), [&](const auto& r) { return r.first == a->first; }) ==
                        reached.end())
                        reached.push_back({a->first, a->second.bytes});
                }
            }
            record.args.push_back(std::move(arg));
        }
        // A capture sees each buffer before and after: snapshots copied on the device in the launch's stream, just
        // before and just after it (a few microseconds for megabytes), written to the capture file when the launch is
        // known to have ended. Launches stay asynchronous; the program's own event timing sees only the copies.
        Pending pending;
        managed_to_device();
        CUstream stream = stream_of(l.stream);
        for (const auto& [at, bytes] : reached) {
            ProgramBuffer b;
            b.name = allocations_.at(at).name;
            b.bytes = bytes;
            Snapshot s;
            if (run_.capture_fd >= 0 && captured_ + reserved_ + 2 * bytes <= run_.capture_limit &&
                d_.MemAlloc(&s.before, bytes) == CUDA_SUCCESS) {
                if (d_.MemAlloc(&s.after, bytes) == CUDA_SUCCESS &&
                    d_.MemcpyAsync(s.before, CUdeviceptr(at), bytes, stream) == CUDA_SUCCESS) {
                    b.captured = true;
                    s.from = at;
                    s.bytes = bytes;
                    reserved_ += 2 * bytes;
                } else {
                    if (s.after) d_.MemFree(s.after);
                    d_.MemFree(s.before);
                    s = Snapshot{};
                }
            }
            pending.snapshots.push_back(s);
            record.buffers.push_back(std::move(b));
        }
        d_.EventCreate(&pending.start, CU_EVENT_DEFAULT);
        d_.EventCreate(&pending.end, CU_EVENT_DEFAULT);
        d_.EventRecord(pending.start, stream);
        // cudaLaunchCooperativeKernel: all blocks resident at once, so that they may sync the grid.
        const CUresult r =
            l.cooperative && d_.LaunchCooperativeKernel
                ? d_.LaunchCooperativeKernel(function, record.grid.x, record.grid.y, record.grid.z, record.block.x,
                                             record.block.y, record.block.z, unsigned(l.shared_bytes), stream,
                                             params.data())
                : d_.LaunchKernel(function, record.grid.x, record.grid.y, record.grid.z, record.block.x,
                                  record.block.y, record.block.z, unsigned(l.shared_bytes), stream, params.data(),
                                  nullptr);
        if (r != CUDA_SUCCESS) {
            d_.EventDestroy(pending.start);
            d_.EventDestroy(pending.end);
            release_snapshots(pending, stream);
            for (ProgramBuffer& b : record.buffers) b.captured = false;  // it ran nothing: nothing to see
            const bool refused = r == CUDA_ERROR_INVALID_VALUE || r == CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES ||
                                 r == CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE;
            return refuse(int(r), engine_error(refused ? ErrorKind::LaunchRefused : ErrorKind::Fault,
                                               refused ? "INVALID_CONFIGURATION" : d_.error_name(r),
                                               "the GPU refused the launch of `" + record.kernel + "` (grid " +
                                                   record.grid.str() + ", block " + record.block.str() + ", " +
                                                   std::to_string(l.shared_bytes) + " bytes of dynamic shared memory): " +
                                                   d_.error_name(r) + " (" + d_.error_string(r) + ")",
                                               r == CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE
                                                   ? "a cooperative launch's blocks must all be on the GPU at once: "
                                                     "at most as many as its SMs hold (cudaOccupancyMaxActiveBlocks"
                                                     "PerMultiprocessor times the SM count)"
                                               : refused ? "a block has at most 1024 threads (z at most 64), a grid's y "
                                                           "and z at most 65535, and shared memory is limited per block"
                                                         : ""));
        }
        d_.EventRecord(pending.end, stream);
        for (const Snapshot& s : pending.snapshots)
            if (s.bytes) d_.MemcpyAsync(s.after, CUdeviceptr(s.from), s.bytes, stream);
        pending.record = std::move(record);
        ProgramLaunchRecord running = pending.record;
        running.running = true;
        tell(running);
        pending_.push_back(std::move(pending));
        return 0;
    }

    // The snapshots of a launch the GPU refused (once its before copies are done).
    void release_snapshots(Pending& p, CUstream stream) {
        d_.StreamSynchronize(stream);
        for (const Snapshot& s : p.snapshots) {
            if (!s.bytes) continue;
            d_.MemFree(s.before);
            d_.MemFree(s.after);
            reserved_ -= 2 * s.bytes;
        }
        p.snapshots.clear();
    }

    // Tells the launches known to have ended (all of them when `wait`), in order, with their times.
    void resolve(bool wait) {
        while (!pending_.empty()) {
            Pending& p = pending_.front();
            CUresult r = wait ? d_.EventSynchronize(p.end) : d_.EventQuery(p.end);
            if (r == CUDA_ERROR_NOT_READY) return;
            if (r == CUDA_SUCCESS) {
                float ms = 0;
                d_.EventElapsedTime(&ms, p.start, p.end);
                p.record.ms = ms;
            } else {
                p.record.cuda_error = int(r);
                p.record.error = engine_error(ErrorKind::Fault, d_.error_name(r),
                                              "a kernel faulted on the GPU (" + d_.error_name(r) + ": " +
                                                  d_.error_string(r) + "); the program sees " +
                                                  cuda_error_name(int(r)) + " from now on",
                                              "run it on the CPU backend (--backend cpu) to be told the thread, the "
                                              "line and the element");
            }
            // Its snapshots into the capture file (the after copy follows the end event in its stream: cuMemcpy
            // waits for it).
            for (size_t i = 0; i < p.record.buffers.size() && i < p.snapshots.size(); ++i) {
                ProgramBuffer& b = p.record.buffers[i];
                const Snapshot& s = p.snapshots[i];
                if (!b.captured || !s.bytes) continue;
                b.captured = capture(uintptr_t(s.before), s.bytes);
                if (b.captured) b.before_at = captured_ - s.bytes;
                if (b.captured && r == CUDA_SUCCESS && capture(uintptr_t(s.after), s.bytes)) {
                    b.has_after = true;
                    b.after_at = captured_ - s.bytes;
                }
                d_.MemFree(s.before);
                d_.MemFree(s.after);
                reserved_ -= 2 * s.bytes;
            }
            tell(p.record);
            d_.EventDestroy(p.start);
            d_.EventDestroy(p.end);
            pending_.pop_front();
        }
    }

    ProgramDeviceRun run_;
    const CudaDriver& d_;
    cp_abi::ProgramHost table_{};
    CUmodule module_ = nullptr;
    std::map<uintptr_t, Allocation> allocations_;
    uint64_t allocated_ = 0;
    uint64_t captured_ = 0;  // bytes in the capture file
    uint64_t reserved_ = 0;  // ... and in snapshots not yet written to it
    size_t launches_made_ = 0;  // the index of the next launch (ProgramDeviceRun::changes)
    std::map<uint64_t, CUstream> streams_;
    std::map<uint64_t, CUevent> events_;
    std::map<std::string, CUfunction> functions_;
    std::deque<Pending> pending_;
    std::vector<Managed> managed_;

    // Before a launch: what the host code wrote to a __managed__ variable reaches the device's.
    void managed_to_device() {
        for (Managed& m : managed_)
            if (std::memcmp(m.host, m.seen.data(), m.seen.size()) != 0) {
                std::memcpy(m.device, m.host, m.seen.size());
                std::memcpy(m.seen.data(), m.host, m.seen.size());
            }
    }
    // After the host waited for the device: what the kernels wrote reaches the host's twin.
    void managed_to_host() {
        for (Managed& m : managed_) {
            std::memcpy(m.host, m.device, m.seen.size());
            std::memcpy(m.seen.data(), m.host, m.seen.size());
        }
    }
};

Result<std::unique_ptr<ProgramDevice>> start_gpu_run(const ProgramDeviceRun& run) {
    if (!opened().driver || !opened().context)
        return make_error(ErrorKind::Unsupported, "the GPU was not opened in this worker");
    auto device = std::make_unique<CudaProgramDevice>(run);
    if (auto e = device->load()) return *e;
    return std::unique_ptr<ProgramDevice>(std::move(device));
}

}  // namespace

const ProgramDeviceHooks& cuda_program_device_hooks() {
    static const ProgramDeviceHooks hooks{"cuda", prepare_gpu, gpu_facts, start_gpu_run};
    return hooks;
}

}  // namespace cp
