// ProgramHostState: a program's allocations and launches in the CPU worker (program_host.h).
#include "core/cpu/program_host.h"

#include "core/clock.h"
#include "core/cpu/fault_report.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>

namespace cp {

namespace {

Dim3 dim3_of(cp_abi::Uint3 v) { return Dim3{v.x, v.y, v.z}; }

void write_all(int fd, const std::string& text) {
    size_t done = 0;
    while (done < text.size()) {
        const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
        if (n <= 0) return;
        done += size_t(n);
    }
}

}  // namespace

int ProgramHostState::cuda_error_for(const std::string& name) {
    if (name == "OUT_OF_BOUNDS" || name == "INVALID_ADDRESS") return 700;  // cudaErrorIllegalAddress
    if (name == "ASSERT") return 710;                 // cudaErrorAssert
    if (name == "STACK_OVERFLOW") return 714;         // cudaErrorHardwareStackError
    if (name == "ILLEGAL_INSTRUCTION") return 715;    // cudaErrorIllegalInstruction
    if (name == "MISALIGNED_ADDRESS") return 716;     // cudaErrorMisalignedAddress
    return 719;                                       // cudaErrorLaunchFailure: a trap, a deadlock...
}

ProgramHostState::ProgramHostState(WorkerPool& pool, KernelModule& module, const ProgramRunRequest& request,
                                   const ProgramLaunchSink& on_launch, ThreadOrder order, uint64_t seed)
    : pool_(pool), module_(module), request_(request), on_launch_(on_launch), order_(order), seed_(seed) {
    table_.context = this;
    table_.allocate = [](void* c, unsigned long long bytes, int kind, const char* name, int line) {
        return static_cast<ProgramHostState*>(c)->allocate(bytes, kind, name, line);
    };
    table_.release = [](void* c, void* pointer, int kind) {
        return static_cast<ProgramHostState*>(c)->release(pointer, kind);
    };
    table_.find = [](void* c, const void* pointer, cp_abi::ProgramAllocation* out) {
        const Allocation* a = static_cast<ProgramHostState*>(c)->find(pointer);
        if (!a) return 0;
        *out = cp_abi::ProgramAllocation{a->memory.data(), a->memory.size(), a->kind};
        return 1;
    };
    table_.launch = [](void* c, const cp_abi::ProgramLaunch* l) { return static_cast<ProgramHostState*>(c)->launch(*l); };
    table_.workers = [](void* c) { return static_cast<ProgramHostState*>(c)->pool_.size(); };
    table_.wants_entry = 1;  // which instantiation each launch ran (ProgramLaunchRecord::entry); the memory stays the host's
    table_.device_access = [](void* c, int open) { static_cast<ProgramHostState*>(c)->device_access(open != 0); };
}

ProgramHostState::~ProgramHostState() { device_access(true); }  // the buffers are unmapped open, as they were made

void ProgramHostState::device_access(bool open) {
    open_count_ += open ? 1 : -1;
    if ((open && open_count_ != 1) || (!open && open_count_ != 0)) return;  // nested: the outermost decides
    for (auto& [start, a] : allocations_)
        if (a.kind == cp_abi::kDeviceMemory) a.memory.set_accessible(open);
}

const std::string* ProgramHostState::device_allocation_at(uintptr_t address) const {
    const Allocation* a = find(reinterpret_cast<const void*>(address));
    if (!a || a->kind != cp_abi::kDeviceMemory) return nullptr;
    return reinterpret_cast<uintptr_t>(a->memory.data()) + a->memory.size() > address ? &a->name : nullptr;
}

void* ProgramHostState::allocate(uint64_t bytes, int kind, const char* name, int line) {
    if (bytes > request_.memory_limit || allocated_bytes_ + bytes > request_.memory_limit) return nullptr;
    auto memory = GuardedBuffer::allocate(bytes, std::max<size_t>(request_.buffer_align, 1));
    if (!memory) return nullptr;
    void* data = memory->data();
    allocated_bytes_ += bytes;
    // Device memory is closed to the host code, as a GPU's is (managed and pinned memory stay open to it).
    if (kind == cp_abi::kDeviceMemory && open_count_ == 0) memory->set_accessible(false);
    allocations_[reinterpret_cast<uintptr_t>(data)] = Allocation{name ? name : "", kind, line, std::move(*memory)};
    return data;
}

int ProgramHostState::release(void* pointer, int kind) {
    auto it = allocations_.find(reinterpret_cast<uintptr_t>(pointer));
    if (it == allocations_.end()) return 1;
    const bool host_family = kind == cp_abi::kPinnedHostMemory;
    if (host_family != (it->second.kind == cp_abi::kPinnedHostMemory)) return 1;
    allocated_bytes_ -= it->second.memory.size();
    allocations_.erase(it);
    return 0;
}

bool ProgramHostState::append_capture(const std::byte* data, uint64_t bytes) {
    uint64_t done = 0;
    while (done < bytes) {
        const ssize_t n = ::write(request_.capture_fd, data + done, size_t(std::min<uint64_t>(bytes - done, 1u << 30)));
        if (n <= 0) return false;
        done += uint64_t(n);
    }
    captured_ += bytes;
    return true;
}

const ProgramHostState::Allocation* ProgramHostState::find(const void* pointer) const {
    const uintptr_t p = reinterpret_cast<uintptr_t>(pointer);
    auto it = allocations_.upper_bound(p);
    if (it == allocations_.begin()) return nullptr;
    --it;
    // Its end too: `d + n` is a valid pointer, and a zero-byte copy there is fine.
    return p <= it->first + it->second.memory.size() ? &it->second : nullptr;
}

int ProgramHostState::launch(const cp_abi::ProgramLaunch& l) {
    ProgramLaunchRecord record;
    record.kernel = l.kernel ? l.kernel : "";
    record.line = l.line;
    record.file = l.file ? l.file : "";
    record.grid = dim3_of(l.grid);
    record.block = dim3_of(l.block);
    record.shared_bytes = l.shared_bytes;
    record.stream = l.stream;
    if (l.entry && l.entry->function)
        record.entry = uint64_t(reinterpret_cast<uintptr_t>(l.entry->function)) - module_.load_base();
    // A change the app asked for at this launch (the window's "run the program with this change"): the grid, the
    // block, and the scalars in the thunk's own copies of the arguments, which the blocks read.
    // The arguments as the kernel took them (its entry probe's copies: a literal `0` for an `int`, a `2` for a
    // `float`, converted), which is what a replay passes and a change is made of; as passed without a probe.
    const bool converted = l.entry && l.entry->function && l.entry->count == l.param_count;
    if (auto change = request_.changes.find(launches_made_++); change != request_.changes.end()) {
        record.changed =
            apply_launch_change(change->second, record.grid, record.block, l.values, l.params, l.param_count);
        if (converted)
            record.changed = apply_launch_change(change->second, record.grid, record.block, l.entry->values,
                                                 l.entry->params, l.entry->count) ||
                             record.changed;
    }
    auto tell = [&](int cuda_error) {
        record.cuda_error = cuda_error;
        if (on_launch_) on_launch_(record);
        return cuda_error;
    };
    if (auto refused = check_launch_limits(record.grid, record.block, l.shared_bytes, module_.tls_bytes())) {
        record.error = std::move(refused);
        return tell(kRefusedLaunchError);
    }
    // The kernel's threads (and the capture and the fault report) read device memory: open while the launch runs.
    device_access(true);
    struct Close {
        ProgramHostState* self;
        ~Close() { self->device_access(false); }
    } close{this};
    // Each argument as the kernel took it; a pointer also as the allocation it points into. The fault report names those
    // allocations with the element size the argument gives (and below, by name only, the others a wild index can
    // still reach).
    std::vector<const Allocation*> reached;
    FaultReportContext report{&module_, request_.module, {}};
    for (unsigned i = 0; i < l.param_count; ++i) {
        const cp_abi::ParamInfo& info = converted ? l.entry->params[i] : l.params[i];
        const void* bytes = converted ? l.entry->values[i] : l.values[i];
        ProgramArg arg;
        arg.size = info.size;
        arg.pointer = info.is_pointer != 0;
        arg.bytes_hex = hex_of_bytes(bytes, arg.size);
        if (arg.pointer && bytes) {
            const void* value = *static_cast<void* const*>(bytes);
            if (const Allocation* a = find(value)) {
                arg.buffer = a->name;
                arg.offset = uint64_t(static_cast<const std::byte*>(value) - a->memory.data());
                report.buffers.push_back({a->name, &a->memory, info.pointee_size});
                if (std::find(reached.begin(), reached.end(), a) == reached.end()) reached.push_back(a);
            }
        }
        record.args.push_back(std::move(arg));
    }
    KernelEntry entry;
    entry.name = record.kernel;
    entry.run_plain = l.run_plain;
    entry.run_one = l.run_one;
    entry.params.assign(l.params, l.params + l.param_count);

    for (const auto& [start, a] : allocations_) {
        const bool listed = std::any_of(report.buffers.begin(), report.buffers.end(),
                                        [&](const BufferForReport& r) { return r.memory == &a.memory; });
        if (!listed) report.buffers.push_back({a.name, &a.memory, 0});
    }

    // The buffers it can reach, before (and after, below), while the capture has room; the rest without data.
    for (const Allocation* a : reached) {
        ProgramBuffer b;
        b.name = a->name;
        b.bytes = a->memory.size();
        if (request_.capture_fd >= 0 && captured_ + 2 * b.bytes <= request_.capture_limit &&
            append_capture(a->memory.data(), b.bytes)) {
            b.captured = true;
            b.before_at = captured_ - b.bytes;
        }
        record.buffers.push_back(std::move(b));
    }
    if (on_launch_) {  // the app knows which launch a time-out stopped
        record.running = true;
        on_launch_(record);
        record.running = false;
    }
    GridLaunch job;
    job.module = &module_;
    job.entry = &entry;
    job.args = l.args;
    job.grid = record.grid;
    job.block = record.block;
    job.dynamic_shared_bytes = uint32_t(l.shared_bytes);  // at most 48 KiB: check_launch_limits refused more
    job.order = order_;
    job.seed = seed_;
    job.capture_printf = true;
    if (request_.blocks_total && request_.blocks_done) {
        request_.blocks_done->store(0, std::memory_order_relaxed);
        request_.blocks_total->store(record.grid.count(), std::memory_order_relaxed);
        job.blocks_done = request_.blocks_done;
    }
    const auto start = std::chrono::steady_clock::now();
    GridOutcome outcome = pool_.run(job);
    record.ms = ms_since(start);
    if (!outcome.printf_output.empty()) {
        std::fflush(stdout);  // what the host printed before the launch comes first
        write_all(1, outcome.printf_output);
    }
    // Writes next to a buffer that no guard catches (the C library's memset): found now, as for a lesson.
    for (auto& [begin, a] : allocations_) {
        const std::optional<GuardedBuffer::Location> loc = a.memory.written_outside();
        if (!loc || record.error || !outcome.ok) continue;
        uint32_t element_size = 0;
        for (const BufferForReport& r : report.buffers)
            if (r.memory == &a.memory && r.element_size) element_size = r.element_size;
        record.error = engine_error(
            ErrorKind::OutOfBounds, "OUT_OF_BOUNDS",
            written_outside_text("buffer `" + a.name + "`", a.memory.size(), *loc, element_size) + kFoundAfterLaunch,
            loc->where == GuardedBuffer::Where::PastEnd ? "look for a missing bounds check (if (i < n)) or an index one "
                                                          "too large"
                                                        : "look for a negative index, e.g. a[i - 1] when i is 0");
    }
    if (!outcome.ok) record.error = describe_crash(outcome.failure, report, &record.site);
    for (size_t i = 0; i < reached.size(); ++i) {
        ProgramBuffer& b = record.buffers[i];
        if (!b.captured || !append_capture(reached[i]->memory.data(), b.bytes)) continue;
        b.after_at = captured_ - b.bytes;
        b.has_after = true;
    }
    // A block stopped at a barrier some threads never reach (ErrorKind::Hang) would wait forever on a GPU: the program
    // sees what CUDA reports for a launch stopped by its watchdog, cudaErrorLaunchTimeout.
    if (record.error && record.error->kind == ErrorKind::Hang) return tell(702);
    return tell(record.error ? cuda_error_for(record.error->name) : 0);
}

}  // namespace cp
