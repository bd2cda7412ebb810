// The class server's per-worker limits: a `key = value` file that the department writes
// (/etc/cuda-playground/worker.conf, or CUDA_PLAYGROUND_WORKER_LIMITS=FILE) and `worker --stdio` enforces:
// device memory per worker, a cap on the launch timeout, and concurrent workers per user.
#pragma once

#include "core/engine/backend.h"
#include "core/result.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>

namespace cp {

constexpr const char* kWorkerLimitsFile = "/etc/cuda-playground/worker.conf";

struct WorkerLimits {
    std::string file;                          // where they were read from; empty when there is no file
    std::optional<uint64_t> device_memory_mb;  // the sum of one worker's live allocations
    std::optional<int> launch_timeout_s;       // the most a launch may run, whatever the student asks
    std::optional<int> max_workers_per_user;   // concurrent `worker --stdio` processes of one account
    std::string runtime_dir;                   // the per-user slot folders' parent (runtime_dir_or_default)

    // runtime_dir, else $XDG_RUNTIME_DIR, else /tmp.
    std::string runtime_dir_or_default() const;
};

// Parses the text of a limits file; an Error (UserInput) naming `file` and the line of the first mistake.
Result<WorkerLimits> parse_worker_limits(const std::string& text, const std::string& file);

// CUDA_PLAYGROUND_WORKER_LIMITS when set (the file must then exist), else kWorkerLimitsFile when it exists,
// else no limits.
Result<WorkerLimits> load_worker_limits();

// What one `worker --stdio` holds while it serves: its slot among the user's workers (a file locked with
// flock, so that a worker that crashes frees its slot with its descriptors) and the device memory it has.
class WorkerLimiter {
public:
    WorkerLimiter() = default;
    ~WorkerLimiter();
    WorkerLimiter(WorkerLimiter&& other) noexcept;
    WorkerLimiter& operator=(WorkerLimiter&&) = delete;
    WorkerLimiter(const WorkerLimiter&) = delete;

    // Takes a slot when the limits count workers and caps this process's launch timeout (for its own worker
    // processes too): an Error for the greeting when the user already runs max_workers_per_user.
    static Result<WorkerLimiter> start(WorkerLimits limits);

    // dispatch_request with the limits applied: an allocation past device_memory_mb is refused (OutOfMemory)
    // before the backend sees it.
    Response dispatch(Backend& backend, const Request& request);

    const WorkerLimits& limits() const { return limits_; }
    uint64_t bytes_held() const { return held_; }

private:
    WorkerLimits limits_;
    int slot_fd_ = -1;
    std::map<BufferId, uint64_t> buffers_;
    uint64_t held_ = 0;
};

}  // namespace cp
