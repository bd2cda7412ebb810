// The app's side of the CPU worker: starting it (with its status page and the sandbox's supervisor),
// forwarding requests, the watchdog, and plain words for what ended or blocked kernel code.
//
// Sections: words · the worker · start and replace · requests
#include "core/cpu/cpu_worker.h"

#include "core/cpu/cpu_worker_protocol.h"
#include "core/cpu/abi_text.h"
#include "core/cpu/worker_status.h"
#include "core/engine/engine_wire.h"
#include "core/worker/syscall_supervisor.h"
#include "core/worker/worker_process.h"
#include "core/text_util.h"

#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cstring>
#include <chrono>
#include <cstdio>
#include <functional>
#include <map>
#include <mutex>
#include <thread>
#include <set>
#include <variant>

namespace cp {

void link_cpu_worker_entry();  // cpu_worker_serve.cpp: keeps the worker's entry point in every binary

namespace {

using nlohmann::json;

constexpr double kStartTimeoutS = 60;
constexpr double kQuickTimeoutS = 60;  // map, unmap: no kernel code runs
constexpr const char* kCanOnlyCompute = "; kernels can only compute, so the CPU backend refused it";

Dim3 dim3_of(cp_abi::Uint3 v) {
    return Dim3{v.x, v.y, v.z};
}

// An error whose code site's words go at the end of `before` (EngineError::site_at), followed by `after`.
EngineError sited_error(ErrorKind kind, std::string name, const std::string& before, const std::string& after,
                        std::string hint) {
    EngineError e = engine_error(kind, std::move(name), before + after, std::move(hint));
    e.site_at = before.size();
    return e;
}

// Absolute addresses in the worker -> offsets in the module that holds them.
std::optional<CodeSite> site_of(const std::map<ModuleId, ModuleFacts>& modules, const uint64_t* addresses,
                                size_t count) {
    for (const auto& [id, f] : modules) {
        CodeSite site;
        site.module = id;
        for (size_t i = 0; i < count; ++i)
            if (addresses[i] && addresses[i] >= f.code_begin && addresses[i] < f.code_end)
                site.offsets.push_back(addresses[i] - f.load_base);
        if (!site.offsets.empty()) return site;
    }
    return std::nullopt;
}

class CpuWorker final : public KernelRunner {
public:
    explicit CpuWorker(const ExecutorOptions& options) : options_(options) {
        process_.set_before_timeout_kill([this](pid_t pid) { sample_threads(pid); });
    }
    ~CpuWorker() override { stop(); }

    int workers() const override { return std::max(1, options_.workers); }
    Result<ModuleFacts> load_module(ModuleId id, const std::string& library, const std::string& kernel,
                                    const std::string& subject) override;
    void unload_module(ModuleId id) override;
    std::optional<EngineError> map_buffer(BufferId id, const std::string& name, int fd, uint64_t bytes,
                                          size_t start_align) override;
    void unmap_buffer(BufferId id) override;
    ExecutorLaunch launch(const LaunchRequest& request) override;
    HostCallResult call_host(const HostCallRequest& request) override;
    ProgramRunResult run_program(const ProgramRunRequest& request, const ProgramLaunchSink& on_launch) override;

    void prepare() override {
        if (!process_.running()) (void)spawn();
    }
    pid_t pid() const { return process_.pid(); }

private:
    struct Module {
        std::string library, kernel, subject;
        ModuleFacts facts;
    };
    struct Buffer {
        std::string name;
        int fd = -1;  // borrowed
        uint64_t bytes = 0;
        size_t start_align = 1;
    };
    // What ended a request, when it did not answer: the words and where in the code.
    struct Failure {
        EngineError error;
        std::optional<CodeSite> site;
    };

    std::optional<Error> spawn();  // starts the process; start() waits for its greeting
    std::optional<Error> start();
    void stop();
    std::optional<EngineError> map_in_worker(const std::vector<std::pair<BufferId, const Buffer*>>& buffers);
    std::optional<Failure> ensure_loaded(ModuleId id);
    // Sends `request`; a reply that is not an answer becomes the Failure in words, `what` naming the request
    // ("kernel `k`", "while loading ...").
    // `program`: a whole program's run, whose host code may read files of `read_folder`; calls refused while it
    // runs go into `refused` (the program saw them fail and went on) instead of failing the request.
    struct ProgramCall {
        std::string read_folder;
        std::vector<std::string>* refused = nullptr;
    };
    std::variant<json, Failure> call(const WireMessage& request, double timeout_s, const std::string& what,
                                     const std::string& timeout_hint, const std::string& library = {},
                                     const ProgramCall* program = nullptr);
    std::optional<Failure> refused_calls(const std::string& what);
    std::vector<std::byte> last_blob_;  // the last answer's blob (a launch's result: its JSON)
    Failure ended(const WorkerProcess::Reply& reply, const std::string& what);
    void observe(BlockedCall& call);
    // A launch past its time limit, just before the watchdog stops the worker: which CUDA thread each pool thread
    // was running and the kernel code it was in (into hang_samples_).
    void sample_threads(pid_t pid);
    struct HangSample {
        cp_abi::ThreadState state{};
        CodeSite site;
    };
    std::vector<HangSample> hang_samples_;

    ExecutorOptions options_;
    WorkerProcess process_;
    std::unique_ptr<SyscallSupervisor> supervisor_;
    int status_fd_ = -1;
    WorkerStatus* status_ = nullptr;
    std::map<ModuleId, Module> modules_;
    std::map<BufferId, Buffer> buffers_;
    std::map<ModuleId, ModuleFacts> loaded_;  // loaded in the running worker
    bool greeted_ = false;                    // the running worker has said it is ready
    std::string device_facts_;                // its greeting's device (GPU program workers)

public:
    std::string device_facts() {
        if (auto e = start()) return "{}";
        return device_facts_;
    }
};

// ---- start and replace ----------------------------------------------------------------------------------

std::optional<Error> CpuWorker::spawn() {
    stop();
    link_cpu_worker_entry();
    if (!status_) {
        status_fd_ = memfd_create("cp-worker-status", MFD_CLOEXEC);
        if (status_fd_ < 0 || ftruncate(status_fd_, sizeof(WorkerStatus)) != 0)
            return make_error(ErrorKind::WorkerLost,
                              std::string("cannot create the CPU worker's status page: ") + std::strerror(errno));
        void* page = mmap(nullptr, sizeof(WorkerStatus), PROT_READ | PROT_WRITE, MAP_SHARED, status_fd_, 0);
        if (page == MAP_FAILED)
            return make_error(ErrorKind::WorkerLost,
                              std::string("cannot map the CPU worker's status page: ") + std::strerror(errno));
        status_ = static_cast<WorkerStatus*>(page);
    }
    std::memset(static_cast<void*>(status_), 0, sizeof(WorkerStatus));
    status_->magic = WorkerStatus::kMagic;

    WorkerSpawn spawn;
    const bool gpu = !options_.device_name.empty();
    spawn.env_name = gpu ? kGpuProgramWorkerEnv : "CP_CPU_WORKER";
    spawn.spec =
        std::to_string(workers()) + "," + std::to_string(int(options_.order)) + "," + std::to_string(options_.seed);
    spawn.process_name = gpu ? "cuda-playground-gpu-program-worker" : "cuda-playground-cpu-worker";
    spawn.extra_fds = {status_fd_};
    // Kernel code must not see what the app's environment holds (tokens, keys): only what loading needs (and, for
    // the GPU, which devices the driver may use).
    spawn.environment_allowlist =
        std::vector<std::string>{"LD_LIBRARY_PATH", "ASAN_OPTIONS", "UBSAN_OPTIONS", "LSAN_OPTIONS", "TSAN_OPTIONS"};
    if (gpu)
        for (const char* name : {"CUDA_VISIBLE_DEVICES", "CUDA_DEVICE_ORDER", "CUDA_MODULE_LOADING"})
            spawn.environment_allowlist->push_back(name);
    spawn.quiet_stdio = true;
#if !defined(__SANITIZE_ADDRESS__)
    spawn.quiet_stderr = true;  // not even the app's log file: sanitizer builds keep it for their reports
#endif
    return process_.start(spawn);
}

std::optional<Error> CpuWorker::start() {
    if (process_.running() && greeted_) return std::nullopt;
    if (!process_.running())
        if (auto e = spawn()) return e;
    WorkerProcess::Reply hello = process_.receive(kStartTimeoutS);
    std::optional<Error> failure;
    try {
        if (hello.outcome != WorkerProcess::Outcome::Answered) {
            failure = make_error(
                ErrorKind::WorkerLost,
                "the CPU worker process " + std::string(hello.outcome == WorkerProcess::Outcome::TimedOut
                                                            ? "did not start in time"
                                                            : "ended while starting (" + hello.ended_how + ")"));
        } else {
            const json j = json::parse(hello.message.json);
            // First the protocol: a worker from another build may not even word its greeting the same way.
            failure = check_worker_protocol(j.value("protocol", 0), "CPU worker");
            if (!failure && (!j.at("ok").get<bool>() || hello.message.fds.size() > 1))
                failure = options_.device_name.empty()
                              ? make_error(ErrorKind::Unsupported,
                                           "the CPU backend's sandbox cannot be set up here: " +
                                               j.at("message").get<std::string>(),
                                           "kernel code is not run without it; use --backend cuda on a machine with "
                                           "a GPU")
                              : make_error(ErrorKind::Unsupported,
                                           "the GPU program worker cannot start here: " +
                                               j.at("message").get<std::string>(),
                                           "run the program on the CPU backend (--backend cpu)");
            if (!failure) device_facts_ = j.contains("device") ? j.at("device").dump() : std::string();
        }
    } catch (const std::exception& e) {
        failure =
            make_error(ErrorKind::WorkerLost, std::string("the CPU worker process answered nonsense: ") + e.what());
    }
    if (failure) {
        close_fds(hello.message.fds);
        process_.stop(true);
        return failure;
    }
    greeted_ = true;
    if (!hello.message.fds.empty()) {
        supervisor_ = std::make_unique<SyscallSupervisor>(hello.message.fds[0], process_.pid(),
                                                          [this](BlockedCall& c) { observe(c); });
        hello.message.fds.clear();  // the supervisor owns the listener now
    }
    loaded_.clear();
    std::vector<std::pair<BufferId, const Buffer*>> all;
    for (const auto& [id, b] : buffers_) all.emplace_back(id, &b);
    if (auto e = map_in_worker(all)) return to_error(*e);
    return std::nullopt;
}

void CpuWorker::stop() {
    process_.stop(true);
    greeted_ = false;
    supervisor_.reset();  // after the process: its listener then reports the worker gone
    loaded_.clear();
}

// On the supervisor thread, while the refused thread waits: which CUDA thread it was running, and the
// kernel code on its stack.
namespace {

// The CUDA thread a pool thread of the worker `pid` is running (its indices), read from the worker's memory.
bool read_thread_state(pid_t pid, const WorkerStatus::ThreadSlot& slot, cp_abi::ThreadState& state) {
    const uint64_t at = slot.state.load();
    iovec local{&state, sizeof state}, remote{reinterpret_cast<void*>(at), sizeof state};
    return at && process_vm_readv(pid, &local, 1, &remote, 1, 0) == ssize_t(sizeof state);
}

}  // namespace

void CpuWorker::observe(BlockedCall& call) {
    const pid_t pid = process_.pid();
    for (const auto& slot : status_->threads) {
        if (slot.tid.load() != call.tid) continue;
        cp_abi::ThreadState state{};
        if (read_thread_state(pid, slot, state)) {
            call.who = "thread " + uint3_text(state.thread_idx) + " of block " + uint3_text(state.block_idx);
            call.thread = dim3_of(state.thread_idx);
            call.block = dim3_of(state.block_idx);
        }
        break;
    }
    if (!call.stack_pointer) return;
    std::vector<uint64_t> words(2048);
    iovec local{words.data(), words.size() * sizeof(uint64_t)},
        remote{reinterpret_cast<void*>(call.stack_pointer), local.iov_len};
    const ssize_t got = process_vm_readv(pid, &local, 1, &remote, 1, 0);
    for (ssize_t i = 0; i < got / ssize_t(sizeof(uint64_t)) && call.code_addresses.size() < 4; ++i)
        for (const auto& m : status_->modules)
            if (m.id.load() && words[size_t(i)] >= m.code_begin.load() && words[size_t(i)] < m.code_end.load())
                call.code_addresses.push_back(words[size_t(i)] - 1);  // inside the call instruction
}

void CpuWorker::sample_threads(pid_t pid) {
    hang_samples_.clear();
    if (!status_) return;
    std::vector<WorkerStatus::ThreadSlot*> asked;
    for (auto& slot : status_->threads) {
        const int32_t tid = slot.tid.load();
        if (tid <= 0 || !slot.state.load()) continue;
        slot.sampled.store(0);
        if (syscall(SYS_tgkill, pid, tid, WorkerStatus::kSampleSignal) == 0) asked.push_back(&slot);
    }
    // The handlers answer at once; a thread that does not (blocked in the kernel) is left out after 300 ms.
    const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(300);
    for (WorkerStatus::ThreadSlot* slot : asked) {
        while (!slot->sampled.load(std::memory_order_acquire) && std::chrono::steady_clock::now() < until)
            std::this_thread::sleep_for(std::chrono::microseconds(500));
        if (!slot->sampled.load(std::memory_order_acquire)) continue;
        auto site = site_of(loaded_, slot->sampled_code, WorkerStatus::kAddresses);
        if (!site) continue;  // not in kernel code: an idle pool thread
        HangSample h;
        if (!read_thread_state(pid, *slot, h.state)) continue;
        h.site = std::move(*site);
        hang_samples_.push_back(std::move(h));
    }
}

// ---- words ----------------------------------------------------------------------------------------------

std::optional<CpuWorker::Failure> CpuWorker::refused_calls(const std::string& what) {
    if (!supervisor_) return std::nullopt;
    const std::vector<BlockedCall> calls = supervisor_->take_blocked();
    if (calls.empty()) return std::nullopt;
    const BlockedCall& c = calls.front();
    Failure f;
    const std::string who = c.who.empty() ? what : what + ": " + c.who;
    f.error =
        sited_error(ErrorKind::SandboxRefusal, "BLOCKED_SYSTEM_CALL",
                    who + " tried to " + c.attempt + " (" + c.syscall + ")", kCanOnlyCompute,
                    "remove the call: a kernel can read and write its buffers and print with printf, nothing more");
    f.error.thread = c.thread;
    f.error.block = c.block;
    std::set<std::string> others;  // distinct attempts besides the first (repeated runs repeat them)
    for (const BlockedCall& other : calls)
        if (other.attempt != c.attempt || other.syscall != c.syscall)
            others.insert(other.attempt + " (" + other.syscall + ")");
    if (!others.empty()) {
        f.error.hint += "; it also tried to";
        for (const std::string& o : others) f.error.hint += (o == *others.begin() ? " " : ", ") + o;
    }
    f.site = site_of(loaded_, c.code_addresses.data(), c.code_addresses.size());
    return f;
}

CpuWorker::Failure CpuWorker::ended(const WorkerProcess::Reply& reply, const std::string& what) {
    Failure f;
    const WorkerStatus& s = *status_;
    const std::string who =
        s.on_kernel_thread ? what + ": thread " + uint3_text(s.thread) + " of block " + uint3_text(s.block) : what;
    const std::string restarted = "the CPU backend's worker process was replaced; buffers are kept";
    f.site = site_of(loaded_, s.code_addresses, WorkerStatus::kAddresses);
    auto on_its_thread = [&] {  // the CUDA thread that ended the process, as data
        if (!s.on_kernel_thread) return;
        f.error.thread = dim3_of(s.thread);
        f.error.block = dim3_of(s.block);
    };
    switch (s.end.load()) {
        case WorkerStatus::kExit:
        case WorkerStatus::kQuickExit:
            f.error =
                sited_error(ErrorKind::Fault, "KERNEL_EXITED",
                            who + " called " +
                                (s.end.load() == WorkerStatus::kExit ? "exit(" + std::to_string(s.exit_status) + ")"
                                                                     : std::string("quick_exit()")),
                            "; kernels cannot end the program",
                            "return from the kernel instead, or stop it with assert() or __trap(), which report "
                            "the thread and the line; " +
                                restarted);
            on_its_thread();
            return f;
        case WorkerStatus::kAbort:
            f.error = sited_error(ErrorKind::Fault, "KERNEL_ABORTED", who + " called abort()",
                                  "; kernels cannot end the program",
                                  "abort() also comes from failed C++ checks (an exception thrown, std::terminate); "
                                  "use assert() or __trap(), which report the thread and the line; " +
                                      restarted);
            on_its_thread();
            return f;
        case WorkerStatus::kCrash:
            f.error = engine_error(
                ErrorKind::Fault, "KERNEL_CRASHED",
                what + " crashed outside the kernel's threads (" + strsignal(s.signal) + ")",
                "a thread the kernel started, or code that runs when the library loads, crashed; " + restarted);
            return f;
        default:
            break;
    }
    if (reply.wait_status >= 0 && WIFEXITED(reply.wait_status)) {
        f.error = engine_error(ErrorKind::Fault, "KERNEL_EXITED",
                               what + " ended the process (" + reply.ended_how + "); kernels cannot end the program",
                               "return from the kernel instead; " + restarted);
    } else {
        f.error = engine_error(
            ErrorKind::WorkerLost, "WORKER_STOPPED",
            "the CPU backend's worker process stopped unexpectedly during " + what + " (" + reply.ended_how + ")",
            restarted);
    }
    return f;
}

// ---- requests -------------------------------------------------------------------------------------------

std::variant<json, CpuWorker::Failure> CpuWorker::call(const WireMessage& request, double timeout_s,
                                                       const std::string& what, const std::string& timeout_hint,
                                                       const std::string& library, const ProgramCall* program) {
    if (auto e = start())
        return Failure{engine_error(ErrorKind::WorkerLost, "WORKER_UNAVAILABLE", e->message, e->hint), std::nullopt};
    if (supervisor_) {
        (void)supervisor_->take_blocked();  // from an earlier request: already reported or moot
        supervisor_->set_library(library);
        supervisor_->set_read_folder(program ? program->read_folder : std::string());
    }
    WorkerProcess::Reply reply = process_.call(request, timeout_s);
    if (supervisor_) {
        supervisor_->set_library({});
        supervisor_->set_read_folder({});
    }
    std::optional<Failure> refused;
    if (program && program->refused && supervisor_ && reply.outcome == WorkerProcess::Outcome::Answered) {
        for (const BlockedCall& c : supervisor_->take_blocked()) {
            const std::string text = c.attempt + " (" + c.syscall + ")";
            if (std::find(program->refused->begin(), program->refused->end(), text) == program->refused->end() &&
                program->refused->size() < 16)
                program->refused->push_back(text);
        }
    } else {
        refused = refused_calls(what);
    }
    if (reply.outcome == WorkerProcess::Outcome::Answered) {
        close_fds(reply.message.fds);  // the worker has no business sending descriptors
        last_blob_ = std::move(reply.message.blob);
        try {
            json j = json::parse(reply.message.json);
            if (refused) return *refused;
            return j;
        } catch (const std::exception&) {
            stop();
            return Failure{
                engine_error(ErrorKind::WorkerLost, "WORKER_STOPPED",
                             "the CPU backend's worker process answered nonsense during " + what + "; it was replaced"),
                std::nullopt};
        }
    }
    Failure f;
    if (reply.outcome == WorkerProcess::Outcome::TimedOut) {
        // Where it was: the CUDA thread each pool thread was running when the watchdog stopped it (sample_threads).
        std::string where;
        if (!hang_samples_.empty()) {
            const HangSample& h = hang_samples_.front();
            where = ": thread " + uint3_text(h.state.thread_idx) + " of block " + uint3_text(h.state.block_idx) +
                    " was still running";
            if (hang_samples_.size() > 1)
                where += " (" + count_text(hang_samples_.size() - 1, "other block was", "other blocks were") +
                         " running too)";
        }
        f.error = engine_error(ErrorKind::Hang, "LAUNCH_TIMEOUT",
                               what + " did not finish within " + std::to_string(int(timeout_s)) +
                                   " s (CUDA_PLAYGROUND_LAUNCH_TIMEOUT_S) and was stopped" +
                                   (where.empty() ? "; an infinite loop?" : where),
                               timeout_hint);
        if (!hang_samples_.empty()) {
            f.error.thread = dim3_of(hang_samples_.front().state.thread_idx);
            f.error.block = dim3_of(hang_samples_.front().state.block_idx);
            f.site = hang_samples_.front().site;
        }
        hang_samples_.clear();
    } else {
        f = ended(reply, what);
    }
    if (refused) {  // what it tried before it hung or ended is the better lead
        f.error.hint = f.error.message + ". " + f.error.hint;
        f.error.message = refused->error.message;
        f.site = refused->site;
    }
    stop();
    return f;
}

std::optional<EngineError> CpuWorker::map_in_worker(const std::vector<std::pair<BufferId, const Buffer*>>& buffers) {
    for (size_t first = 0; first < buffers.size(); first += 32) {
        WireMessage m;
        json list = json::array();
        for (size_t i = first; i < std::min(buffers.size(), first + 32); ++i) {
            list.push_back({{"id", buffers[i].first},
                            {"name", buffers[i].second->name},
                            {"bytes", buffers[i].second->bytes},
                            {"align", buffers[i].second->start_align}});
            m.fds.push_back(buffers[i].second->fd);
        }
        m.json = json{{"op", "map"}, {"buffers", list}}.dump();
        // Mapping runs no kernel code, so a refusal here would be the worker's own.
        auto r = call(m, kQuickTimeoutS, "mapping buffers", "");
        if (auto* f = std::get_if<Failure>(&r)) return f->error;
        for (const json& e : std::get<json>(r).at("errors"))
            return engine_error(error_kind_in(e, ErrorKind::OutOfMemory), "OUT_OF_MEMORY",
                                e.at("message").get<std::string>(), e.at("hint").get<std::string>());
    }
    return std::nullopt;
}

std::optional<EngineError> CpuWorker::map_buffer(BufferId id, const std::string& name, int fd, uint64_t bytes,
                                                 size_t start_align) {
    Buffer& b = buffers_[id] = Buffer{name, fd, bytes, start_align};
    if (!greeted_) return std::nullopt;  // mapped when the worker has started
    auto e = map_in_worker({{id, &b}});
    if (e) buffers_.erase(id);
    return e;
}

void CpuWorker::unmap_buffer(BufferId id) {
    buffers_.erase(id);
    if (greeted_)
        (void)call(WireMessage{json{{"op", "unmap"}, {"buffers", {id}}, {"modules", json::array()}}.dump(), {}, {}},
                   kQuickTimeoutS, "releasing a buffer", "");
}

Result<ModuleFacts> CpuWorker::load_module(ModuleId id, const std::string& library, const std::string& kernel,
                                           const std::string& subject) {
    modules_[id] = Module{library, kernel, subject, {}};
    if (auto failure = ensure_loaded(id)) {
        modules_.erase(id);
        return make_error(failure->error.kind, failure->error.message, failure->error.hint);
    }
    return modules_[id].facts;
}

std::optional<CpuWorker::Failure> CpuWorker::ensure_loaded(ModuleId id) {
    if (loaded_.count(id)) return std::nullopt;
    Module& m = modules_.at(id);
    WireMessage request{
        json{{"op", "load"}, {"id", id}, {"library", m.library}, {"kernel", m.kernel}, {"subject", m.subject}}.dump(),
        {},
        {}};
    const std::string what = "while loading " + m.subject + ", its code (a static initialiser)";
    auto r = call(request, launch_timeout_s(), what, "code that runs when the library loads must not loop or wait",
                  m.library);
    if (auto* f = std::get_if<Failure>(&r)) return *f;
    const json& j = std::get<json>(r);
    if (j.contains("error"))
        return Failure{
            engine_error(error_kind_in(j["error"], ErrorKind::Compile), "MODULE_LOAD_FAILED",
                         j["error"].at("message").get<std::string>(), j["error"].at("hint").get<std::string>()),
            std::nullopt};
    m.facts = facts_from(j.at("facts"));
    loaded_[id] = m.facts;
    return std::nullopt;
}

void CpuWorker::unload_module(ModuleId id) {
    modules_.erase(id);
    if (loaded_.erase(id) && greeted_)
        (void)call(WireMessage{json{{"op", "unmap"}, {"buffers", json::array()}, {"modules", {id}}}.dump(), {}, {}},
                   kQuickTimeoutS, "releasing a module", "");
}

ExecutorLaunch CpuWorker::launch(const LaunchRequest& request) {
    ExecutorLaunch out;
    const std::string what = "kernel `" + request.kernel_name + "`";
    if (!modules_.count(request.module)) {
        out.result.error =
            engine_error(ErrorKind::Internal, "INVALID_MODULE",
                         "launch of a module that is not loaded (id " + std::to_string(request.module) + ")");
        return out;
    }
    if (auto failure = ensure_loaded(request.module)) {
        out.result.error = failure->error;
        out.site = failure->site;
        return out;
    }
    json message = {{"op", "launch"}, {"request", json::parse(encode_request(request).json)}};
    auto r = call(WireMessage{message.dump(), {}, {}}, launch_timeout_s(),
                  what + " (grid " + request.grid.str() + ", block " + request.block.str() + ")",
                  "look for a loop whose condition never changes, or threads waiting for each other; set "
                  "CUDA_PLAYGROUND_LAUNCH_TIMEOUT_S to allow longer launches; "
                  "the CPU backend's worker process was replaced, buffers are kept");
    if (auto* f = std::get_if<Failure>(&r)) {
        out.result.error = f->error;
        out.site = f->site;
        return out;
    }
    const json& j = std::get<json>(r);
    // The result as the worker encoded it, in the reply's blob: its JSON (result_bytes), then its own blob.
    const auto bytes = j.find("result_bytes");
    Result<Response> response = make_error(ErrorKind::WorkerLost, "a launch's result of another size than it said");
    if (bytes != j.end() && bytes->is_number_unsigned() && bytes->get<uint64_t>() <= last_blob_.size()) {
        const size_t n = size_t(bytes->get<uint64_t>());
        WireMessage result{std::string(reinterpret_cast<const char*>(last_blob_.data()), n),
                           std::vector<std::byte>(last_blob_.begin() + ptrdiff_t(n), last_blob_.end()), {}};
        response = decode_response(std::move(result));
    }
    last_blob_ = {};
    if (!response || !std::holds_alternative<LaunchResult>(*response)) {
        stop();
        out.result.error = engine_error(ErrorKind::WorkerLost, "WORKER_STOPPED",
                                        "the CPU backend's worker process answered nonsense; it was replaced");
        return out;
    }
    out.result = std::get<LaunchResult>(*response);
    out.site = site_from(j.at("site"));
    return out;
}

HostCallResult CpuWorker::call_host(const HostCallRequest& request) {
    HostCallResult out;
    const std::string what = "`" + request.symbol + "`";
    if (!modules_.count(request.module)) {
        out.error = engine_error(ErrorKind::Internal, "INVALID_MODULE",
                                 "call into a module that is not loaded (id " + std::to_string(request.module) + ")");
        return out;
    }
    if (auto failure = ensure_loaded(request.module)) {
        out.error = failure->error;
        out.site = failure->site;
        return out;
    }
    auto r = call(WireMessage{host_call_json(request).dump(), {}, {}}, launch_timeout_s(), what,
                  "look for a loop that never ends; set CUDA_PLAYGROUND_LAUNCH_TIMEOUT_S to allow longer runs");
    if (auto* f = std::get_if<Failure>(&r)) {
        out.error = f->error;
        out.site = f->site;
        return out;
    }
    const json& j = std::get<json>(r);
    out.ok = j.at("ok").get<bool>();
    out.ms = j.at("ms").get<double>();
    out.error = error_from(j.at("error"));
    out.site = site_from(j.at("site"));
    return out;
}

// Reads a pipe to its end on a thread of its own, keeping up to kProgramOutputCap bytes (the rest is read and
// dropped, so that the program never blocks on a full pipe).
class PipeReader {
public:
    PipeReader() = default;
    bool open() {
        if (::pipe2(fds_, O_CLOEXEC) != 0) return false;
        thread_ = std::thread([this] {
            char chunk[65536];
            for (;;) {
                const ssize_t n = ::read(fds_[0], chunk, sizeof chunk);
                if (n < 0 && errno == EINTR) continue;
                if (n <= 0) break;
                std::lock_guard<std::mutex> lock(mutex_);
                const size_t room = kProgramOutputCap > text_.size() ? kProgramOutputCap - text_.size() : 0;
                if (size_t(n) > room) truncated_ = true;
                text_.append(chunk, std::min(room, size_t(n)));
                if (on_line_) split_lines();
            }
        });
        return true;
    }
    int write_end() const { return fds_[1]; }
    void close_write_end() {
        if (fds_[1] >= 0) ::close(fds_[1]);
        fds_[1] = -1;
    }
    // Waits for the end of the pipe (every write end closed).
    void finish() {
        close_write_end();
        if (thread_.joinable()) thread_.join();
        if (fds_[0] >= 0) ::close(fds_[0]);
        fds_[0] = -1;
    }
    ~PipeReader() { finish(); }
    std::string text() {
        std::lock_guard<std::mutex> lock(mutex_);
        return text_;
    }
    bool truncated() const { return truncated_; }
    // Each whole line as it arrives (the events pipe), instead of keeping the text.
    void on_line(std::function<void(const std::string&)> f) { on_line_ = std::move(f); }

private:
    void split_lines() {
        size_t start = 0;
        for (size_t eol; (eol = text_.find('\n', start)) != std::string::npos; start = eol + 1)
            on_line_(text_.substr(start, eol - start));
        text_.erase(0, start);
    }
    int fds_[2] = {-1, -1};
    std::thread thread_;
    std::mutex mutex_;
    std::string text_;
    bool truncated_ = false;
    std::function<void(const std::string&)> on_line_;
};

ProgramRunResult CpuWorker::run_program(const ProgramRunRequest& request, const ProgramLaunchSink& on_launch) {
    ProgramRunResult out;
    if (!modules_.count(request.module)) {
        out.error = engine_error(ErrorKind::Internal, "INVALID_MODULE",
                                 "run of a program that is not loaded (id " + std::to_string(request.module) + ")");
        return out;
    }
    if (auto failure = ensure_loaded(request.module)) {
        out.error = failure->error;
        out.site = failure->site;
        return out;
    }
    PipeReader out_pipe, err_pipe, events_pipe;
    std::mutex running_mutex;
    std::optional<ProgramLaunchRecord> running;  // the launch that has started and not ended
    std::chrono::steady_clock::time_point running_since;
    events_pipe.on_line([&](const std::string& line) {
        ProgramLaunchRecord record;
        try {
            record = launch_record_from(json::parse(line));
        } catch (const std::exception&) {
            return;  // a line the worker did not finish (it ended mid-write)
        }
        {
            std::lock_guard<std::mutex> lock(running_mutex);
            if (record.running) {
                running = record;
                running_since = std::chrono::steady_clock::now();
            }
            else running.reset();
        }
        if (on_launch) on_launch(record);
    });
    if (!out_pipe.open() || !err_pipe.open() || !events_pipe.open()) {
        out.error = engine_error(ErrorKind::Internal, "PIPE_FAILED",
                                 std::string("cannot make the program's output pipes: ") + std::strerror(errno));
        return out;
    }
    WireMessage message{program_request_json(request).dump(), {}, {}};
    if (request.device_image) message.blob = request.device_image->image;  // the cubin
    message.fds = {out_pipe.write_end(), err_pipe.write_end(), events_pipe.write_end()};
    if (request.capture_fd >= 0) message.fds.push_back(request.capture_fd);  // the app's file, written by the worker
    const double limit = request.time_limit_s > 0 ? request.time_limit_s : double(launch_timeout_s());
    const ProgramCall program{request.read_folder, &out.refused};
    auto r = call(message, limit, "the program",
                  "look for a loop that never ends, in the host code or in a kernel; give it longer with --time-limit",
                  {}, &program);
    out_pipe.finish();
    err_pipe.finish();
    events_pipe.finish();
    out.stdout_text = out_pipe.text();
    out.stderr_text = err_pipe.text();
    out.output_truncated = out_pipe.truncated() || err_pipe.truncated();
    if (auto* f = std::get_if<Failure>(&r)) {
        const WorkerStatus& s = *status_;
        const int end = s.end.load();
        if (end == WorkerStatus::kExit && !s.on_kernel_thread) {  // the program's own exit(): its way to end
            out.exited = true;
            out.exit_status = s.exit_status;
            return out;
        }
        if (end == WorkerStatus::kAbort && !s.on_kernel_thread) {
            out.aborted = true;
            out.exit_status = 128 + SIGABRT;
            out.error = engine_error(ErrorKind::Fault, "PROGRAM_ABORTED",
                                     "the program called abort() (a failed assert() in host code, or std::terminate)",
                                     "the program's own message, above, says which check failed");
            out.site = f->site;
            return out;
        }
        out.error = f->error;
        out.site = f->site;
        if (out.error->kind == ErrorKind::Hang) {
            std::lock_guard<std::mutex> lock(running_mutex);
            const std::string limit_text = std::to_string(int(limit)) + " s";
            if (running) {
                out.error->message = "the program was stopped after " + limit_text + ", in the launch of `" +
                                     running->kernel + "` at line " + std::to_string(running->line) + " (grid " +
                                     running->grid.str() + ", block " + running->block.str() + ", " +
                                     std::to_string(running->grid.count() * running->block.count()) + " threads)";
                // Blocks are handed out in order and take about as long as each other: the ones done so far say
                // how long the whole launch would need here.
                const uint64_t total = status_->launch_blocks_total.load(), done = status_->launch_blocks_done.load();
                const double ran_s =
                    std::chrono::duration<double>(std::chrono::steady_clock::now() - running_since).count();
                if (done > 0 && total >= done && ran_s > 0) {
                    char estimate[160];
                    std::snprintf(estimate, sizeof estimate,
                                  "; %llu of its %llu blocks ran in %.1f s: the whole launch would need about %.0f s here",
                                  static_cast<unsigned long long>(done), static_cast<unsigned long long>(total), ran_s,
                                  ran_s * double(total) / double(done));
                    out.error->message += estimate;
                } else if (total > 0) {
                    out.error->message += "; none of its " + std::to_string(total) + " blocks finished (an endless loop?)";
                }
                out.error->hint = options_.device_name.empty()
                                      ? "an endless loop in the kernel, or a launch sized for a GPU: give it longer "
                                        "with --time-limit SECONDS, or run it on a GPU (--backend cuda on a machine "
                                        "with one, or --remote)"
                                      : "an endless loop in the kernel (the GPU worker was stopped with it; the next "
                                        "run starts a fresh one), or a program that needs longer: --time-limit "
                                        "SECONDS";
                out.error->line = running->line;
                // The program's error is at its launch's line; the CUDA thread still running is said in words (the
                // kernel's own line would read as the program's).
                if (const auto& t = out.error->thread, &b = out.error->block; t && b)
                    out.error->message += "; thread " + uint3_text({t->x, t->y, t->z}) + " of block " +
                                          uint3_text({b->x, b->y, b->z}) + " was still running";
                out.site.reset();
            } else {
                out.error->message = "the program was stopped after " + limit_text + " in its host code";
                out.error->hint = "an infinite loop in the host code? (a launch was not running); give it longer "
                                  "with --time-limit SECONDS";
            }
            out.error->site_at.reset();
        }
        return out;
    }
    try {
        ProgramRunResult answered = program_result_from(std::get<json>(r));
        answered.stdout_text = std::move(out.stdout_text);
        answered.stderr_text = std::move(out.stderr_text);
        answered.output_truncated = out.output_truncated;
        answered.refused = std::move(out.refused);
        return answered;
    } catch (const std::exception&) {
        stop();
        out.error = engine_error(ErrorKind::WorkerLost, "WORKER_STOPPED",
                                 "the CPU backend's worker process answered nonsense; it was replaced");
        return out;
    }
}

}  // namespace

std::unique_ptr<KernelRunner> make_cpu_worker(const ExecutorOptions& options) {
    return std::make_unique<CpuWorker>(options);
}

pid_t cpu_worker_pid(const KernelRunner& runner) {
    return static_cast<const CpuWorker&>(runner).pid();
}

std::string cpu_worker_device_facts(KernelRunner& runner) { return static_cast<CpuWorker&>(runner).device_facts(); }

}  // namespace cp
