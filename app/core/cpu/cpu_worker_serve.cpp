// The CPU worker process itself: entered from a static initialiser before main() when CP_CPU_WORKER is set.
// It keeps only its socket and the status page, leaves last words for the app if kernel code ends the
// process, enters the sandbox, and only then serves requests with a CpuExecutor (the first dlopen of
// kernel code, with its static constructors, happens inside the sandbox).
#include "core/cpu/cpu_executor.h"
#include "core/clock.h"
#include "core/cpu/cpu_worker_protocol.h"
#include "core/cpu/fault_trap.h"
#include "core/cpu/worker_status.h"
#include "core/engine/engine_wire.h"
#include "core/worker/sandbox.h"
#include "core/worker/worker_process.h"

#include <chrono>
#include <cstring>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <ucontext.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>

namespace cp {

namespace {

constexpr const char* kWorkerEnv = "CP_CPU_WORKER";
constexpr int kSocketFd = 3, kStatusFd = 4;

WorkerStatus* g_status = nullptr;

// ---- last words (async-signal-safe: runs in exit handlers and signal handlers) ---------------------------

bool in_kernel_code(uint64_t address) {
    for (const auto& m : g_status->modules)
        if (m.id.load(std::memory_order_relaxed) && address >= m.code_begin.load(std::memory_order_relaxed) &&
            address < m.code_end.load(std::memory_order_relaxed))
            return true;
    return false;
}

// The kernel code a thread is in, innermost first, into `out` (WorkerStatus::kAddresses of them, 0 past the last):
// `instruction` when it is kernel code, then the return addresses into kernel code on the stack at `stack_pointer`
// (a kernel inside a call: exit, abort, memcpy, a barrier), the first `Words` of it. Async-signal-safe.
template <size_t Words>
void kernel_code_at(uint64_t instruction, uint64_t stack_pointer, uint64_t (&out)[WorkerStatus::kAddresses]) {
    int found = 0;
    for (uint64_t& c : out) c = 0;
    if (instruction && in_kernel_code(instruction)) out[found++] = instruction;
    uint64_t words[Words];
    iovec local{words, sizeof words}, remote{reinterpret_cast<void*>(stack_pointer), sizeof words};
    const ssize_t got = stack_pointer ? process_vm_readv(getpid(), &local, 1, &remote, 1, 0) : -1;
    for (ssize_t i = 0; i < got / ssize_t(sizeof(uint64_t)) && found < WorkerStatus::kAddresses; ++i)
        if (in_kernel_code(words[i])) out[found++] = words[i] - 1;  // inside the call
}

void leave_last_words(WorkerStatus::End end, int exit_status, int signal, uint64_t fault_address,
                      uint64_t stack_pointer, uint64_t instruction) {
    if (!g_status) return;
    int32_t expected = WorkerStatus::kRunning;
    if (!g_status->end.compare_exchange_strong(expected, end)) return;  // another thread got there first
    g_status->exit_status = exit_status;
    g_status->signal = signal;
    g_status->fault_address = fault_address;
    g_status->tid = int32_t(syscall(SYS_gettid));
    if (const FaultTrap* trap = current_fault_trap(); trap && trap->state) {
        g_status->on_kernel_thread = 1;
        g_status->thread = trap->state->thread_idx;
        g_status->block = trap->state->block_idx;
    }
    // The kernel's call (to exit, abort, memcpy...) left its return address on the stack.
    kernel_code_at<2048>(instruction, stack_pointer, g_status->code_addresses);
}

void on_exit_called(int status, void*) {
    // A program's exit(): its GPU launches are told, and what it printed reaches the app's pipes.
    if (ProgramDevice* device = current_program_device()) device->finish();
    std::fflush(nullptr);
    leave_last_words(WorkerStatus::kExit, status, 0, 0, uint64_t(__builtin_frame_address(0)), 0);
    _exit(status);  // nothing else runs: no destructors of a half-finished launch
}

void on_quick_exit_called() {
    leave_last_words(WorkerStatus::kQuickExit, 0, 0, 0, uint64_t(__builtin_frame_address(0)), 0);
    _exit(0);
}

uint64_t context_sp(const void* context) {
#if defined(__x86_64__)
    return uint64_t(static_cast<const ucontext_t*>(context)->uc_mcontext.gregs[REG_RSP]);
#elif defined(__aarch64__)
    return uint64_t(static_cast<const ucontext_t*>(context)->uc_mcontext.sp);
#else
    (void)context;
    return 0;
#endif
}

uint64_t context_ip(const void* context) {
#if defined(__x86_64__)
    return uint64_t(static_cast<const ucontext_t*>(context)->uc_mcontext.gregs[REG_RIP]);
#elif defined(__aarch64__)
    return uint64_t(static_cast<const ucontext_t*>(context)->uc_mcontext.pc);
#else
    (void)context;
    return 0;
#endif
}

void on_abort(int, siginfo_t*, void* context) {
    leave_last_words(WorkerStatus::kAbort, 0, SIGABRT, 0, context_sp(context), context_ip(context));
    _exit(128 + SIGABRT);
}

void on_unhandled_fault(int signal, const siginfo_t* info, const void* context) {
    leave_last_words(WorkerStatus::kCrash, 0, signal, uint64_t(info->si_addr), context_sp(context),
                     context_ip(context));
}

// The app's watchdog asks where this pool thread is (WorkerStatus::ThreadSlot::sampled): the kernel code it runs.
void on_sample(int, siginfo_t*, void* context) {
    if (!g_status) return;
    const int32_t me = int32_t(syscall(SYS_gettid));
    for (auto& slot : g_status->threads) {
        if (slot.tid.load(std::memory_order_relaxed) != me) continue;
        // On the running fiber's own stack: a smaller window of it than the last words read.
        kernel_code_at<1024>(context_ip(context), context_sp(context), slot.sampled_code);
        slot.sampled.store(1, std::memory_order_release);
        return;
    }
}

void publish_thread_state(int index, const cp_abi::ThreadState* state) {
    if (!g_status || index < 0 || index >= WorkerStatus::kThreads) return;
    g_status->threads[index].tid.store(int32_t(syscall(SYS_gettid)), std::memory_order_relaxed);
    g_status->threads[index].state.store(uint64_t(state), std::memory_order_release);
}

void publish_module(ModuleId id, const ModuleFacts* facts) {
    for (auto& m : g_status->modules) {
        if (facts && m.id.load() == 0) {
            m.load_base = facts->load_base;
            m.code_begin = facts->code_begin;
            m.code_end = facts->code_end;
            m.id.store(id, std::memory_order_release);
            return;
        }
        if (!facts && m.id.load() == id) m.id.store(0);
    }
}

// ---- serving --------------------------------------------------------------------------------------------

using nlohmann::json;

WireMessage answer(const json& j) {
    return WireMessage{j.dump(-1, ' ', false, json::error_handler_t::replace), {}, {}};
}

WireMessage handle(KernelRunner& executor, const json& j, WireMessage& in) {
    const std::string op = j.at("op").get<std::string>();
    if (op == "map") {
        json errors = json::array();
        const json& buffers = j.at("buffers");
        for (size_t i = 0; i < buffers.size(); ++i) {
            const BufferId id = buffers[i].at("id").get<BufferId>();
            const int fd = i < in.fds.size() ? in.fds[i] : -1;
            auto e = executor.map_buffer(id, buffers[i].at("name").get<std::string>(), fd,
                                         buffers[i].at("bytes").get<uint64_t>(),
                                         buffers[i].value("align", size_t(1)));
            if (e)
                errors.push_back(
                    {{"id", id}, {"message", e->message}, {"hint", e->hint}, {"kind", error_kind_name(e->kind)}});
        }
        return answer({{"errors", errors}});
    }
    if (op == "unmap") {
        for (const json& id : j.at("buffers")) executor.unmap_buffer(id.get<BufferId>());
        for (const json& id : j.at("modules")) {
            executor.unload_module(id.get<ModuleId>());
            publish_module(id.get<ModuleId>(), nullptr);
        }
        return answer(json::object());
    }
    if (op == "load") {
        const ModuleId id = j.at("id").get<ModuleId>();
        auto facts = executor.load_module(id, j.at("library").get<std::string>(), j.at("kernel").get<std::string>(),
                                          j.at("subject").get<std::string>());
        if (!facts) return answer({{"error", error_json(facts.error())}});
        publish_module(id, &*facts);
        return answer({{"facts", facts_json(*facts)}});
    }
    if (op == "launch") {
        Result<Request> request = decode_request(WireMessage{j.at("request").dump(), {}, {}});
        if (!request || !std::holds_alternative<LaunchRequest>(*request)) throw std::runtime_error("not a launch");
        const auto started = std::chrono::steady_clock::now();
        ExecutorLaunch run = executor.launch(std::get<LaunchRequest>(*request));
        run.result.backend_ms =
            ms_since(started);
        // The result as it was encoded travels in the frame's blob: its JSON (result_bytes), then its own blob (a
        // debugger recording's tables, hundreds of megabytes for a long block), neither parsed nor dumped again.
        WireMessage result = encode_response(run.result);
        WireMessage out = answer({{"result_bytes", result.json.size()}, {"site", site_json(run.site)}});
        out.blob.resize(result.json.size() + result.blob.size());
        std::memcpy(out.blob.data(), result.json.data(), result.json.size());
        if (!result.blob.empty())
            std::memcpy(out.blob.data() + result.json.size(), result.blob.data(), result.blob.size());
        return out;
    }
    if (op == "call") {
        const HostCallResult r = executor.call_host(host_call_from(j));
        return answer({{"ok", r.ok}, {"ms", r.ms}, {"error", error_json(r.error)}, {"site", site_json(r.site)}});
    }
    if (op == "program") {
        // The program's standard output and error are the app's pipes while it runs; /dev/null again after.
        if (in.fds.size() != 3 && in.fds.size() != 4) throw std::runtime_error("a program needs its three pipes");
        std::fflush(stdout);
        std::fflush(stderr);
        const int saved_out = ::dup(1), saved_err = ::dup(2);
        ::dup2(in.fds[0], 1);
        ::dup2(in.fds[1], 2);
        const int events = in.fds[2];
        ProgramRunRequest request = program_request_from(j);
        if (request.device_image) {  // the cubin comes as the message's blob
            auto image = std::make_shared<ProgramDeviceImage>(*request.device_image);
            image->image = in.blob;
            request.device_image = std::move(image);
        }
        request.blocks_total = &g_status->launch_blocks_total;
        request.blocks_done = &g_status->launch_blocks_done;
        request.capture_fd = in.fds.size() == 4 ? in.fds[3] : -1;
        ProgramRunResult r = executor.run_program(request, [events](const ProgramLaunchRecord& l) {
            const std::string line = launch_record_json(l).dump(-1, ' ', false, json::error_handler_t::replace) + "\n";
            size_t done = 0;
            while (done < line.size()) {
                const ssize_t n = ::write(events, line.data() + done, line.size() - done);
                if (n <= 0) break;
                done += size_t(n);
            }
        });
        std::fflush(stdout);
        std::fflush(stderr);
        ::dup2(saved_out, 1);
        ::dup2(saved_err, 2);
        ::close(saved_out);
        ::close(saved_err);
        return answer(program_result_json(r));
    }
    throw std::runtime_error("unknown request " + op);
}

}  // namespace

int serve_cpu_worker(const WorkerEntry& entry, const ProgramDeviceHooks* device) {
    prctl(PR_SET_PDEATHSIG, SIGKILL);  // never outlive the app, even inside a kernel that does not end
    ExecutorOptions options;
    options.device = device;
    unsigned long long seed = 1;
    int order = 0;
    if (std::sscanf(entry.spec.c_str(), "%d,%d,%llu", &options.workers, &order, &seed) != 3) return 3;
    options.order = ThreadOrder(order);
    options.seed = seed;
    // Only the socket, the status page and the standard streams (all /dev/null) stay open.
    syscall(SYS_close_range, kStatusFd + 1, ~0u, 0);
    void* page = mmap(nullptr, sizeof(WorkerStatus), PROT_READ | PROT_WRITE, MAP_SHARED, kStatusFd, 0);
    if (page == MAP_FAILED) return 4;
    close(kStatusFd);
    g_status = static_cast<WorkerStatus*>(page);
    on_exit(on_exit_called, nullptr);
    at_quick_exit(on_quick_exit_called);
    struct sigaction abort_action {};
    abort_action.sa_sigaction = on_abort;
    abort_action.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigaction(SIGABRT, &abort_action, nullptr);
    struct sigaction sample_action {};
    sample_action.sa_sigaction = on_sample;
    sample_action.sa_flags = SA_SIGINFO | SA_RESTART;
    sigaction(WorkerStatus::kSampleSignal, &sample_action, nullptr);
    install_fault_handlers();
    set_unhandled_fault_hook(on_unhandled_fault);

    // The greeting says which wire protocol this binary speaks; the app refuses another build's worker.
    json greeting = {{"ok", true}, {"message", ""}, {"protocol", kWireProtocolVersion}};
    WireMessage hello;
    // A GPU program worker opens its device before the sandbox closes the file system; the sandbox then lets it
    // control those descriptors (ioctl) and nothing else.
    WorkerSandboxOptions confinement;
    std::optional<Error> device_problem;
    if (device) {
        auto fds = device->prepare();
        if (fds) {
            confinement.device_fds = *fds;
            confinement.driver_threads = true;
            greeting["device"] = json::parse(device->facts());
        } else {
            device_problem = fds.error();
        }
    }
    const Result<int> listener = device_problem ? Result<int>(*device_problem) : enter_worker_sandbox(confinement);
    if (!listener)
        greeting = {{"ok", false}, {"message", listener.error().message}, {"protocol", kWireProtocolVersion}};
    else if (*listener >= 0)
        hello.fds.push_back(*listener);  // none: refusals are not supervised here
    hello.json = greeting.dump();
    const bool sent = write_message(entry.fd, hello);
    close_fds(hello.fds);
    if (!sent || !listener) return 1;

    // Threads start here, inside the sandbox.
    std::unique_ptr<KernelRunner> executor = make_cpu_executor(options, publish_thread_state);
    for (;;) {
        WireMessage in;
        if (read_message(entry.fd, -1, &in) != ReadStatus::Ok) return 0;  // the app closed the connection
        WireMessage out;
        try {
            out = handle(*executor, json::parse(in.json), in);
        } catch (const std::exception&) {
            return 2;  // the app sent nonsense: end, and let it start a fresh worker
        }
        close_fds(in.fds);
        if (!write_message(entry.fd, out)) return 0;
    }
}

namespace {

// Runs before main() in every process that links this file; only a worker (CP_CPU_WORKER set) stops here.
const bool g_is_worker = [] {
    const std::optional<WorkerEntry> entry = take_worker_entry(kWorkerEnv);
    if (!entry) return false;
    std::_Exit(serve_cpu_worker(*entry, nullptr));
}();

}  // namespace

// Referenced by the app's side, so that every binary able to start a CPU worker also contains this file.
void link_cpu_worker_entry() {
    (void)g_is_worker;
}

}  // namespace cp
