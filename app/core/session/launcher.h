// The one door every kernel launch of the program goes through (issue 35): a run's, a step's, the measurements'
// (coverage, write counting, trace, memory recording), a `devices:` part's, a `streams:` run's, a sweep's and a
// compare variant's. It turns the backend's answer into a typed outcome whose failure always names a kind, and
// shows each launch to its observers (what was launched, why, and how it ended): the hook a capture hangs on.
#pragma once

#include "core/engine/engine.h"

#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace cp {

// Why a launch was made: the part of a run (or of a sweep, a comparison) it belongs to.
enum class LaunchPurpose : uint8_t {
    Run,           // a run's own timed launch of its kernel
    Step,          // one launch of a `step:` line (LaunchSite::index: the step's number, ::repeat: which launch of it)
    Coverage,      // a coverage measurement's launch over sentinel-filled outputs (index: the pass, 0 or 1)
    CountWriters,  // the write-counting variant's launch (which threads wrote each element)
    Trace,         // the instrumented launch that records where and when each block ran
    Memory,        // the recording copy's launch (every load and store)
    Debug,         // the stepping copy's launch of one block (every statement's variables, the debugger)
    DeviceWhole,   // a `devices:` run's whole work on the first device alone: the one-device time
    DevicePart,    // a `devices:` run's part on one device (index: the part, 0 first)
    Stream,        // one chunk's kernel of a `streams:` run (index: the chunk; LaunchRecord::stream its stream)
    SweepPoint,    // a block-size sweep's launch of one shape (index: the shape's place in the sweep)
    Variant,       // a compare variant's own launch: what Run is for the main kernel
};
// "run", "step", "coverage", "count_writers", "trace", "memory", "device_whole", "device_part", "stream",
// "sweep_point", "variant".
const char* launch_purpose_name(LaunchPurpose p);

// What the caller says about a launch it makes.
struct LaunchSite {
    LaunchPurpose purpose = LaunchPurpose::Run;
    int index = 0;   // as LaunchPurpose says for each purpose; 0 where it says nothing
    int repeat = 0;  // Step: which launch of a repeated step, 0 first
};

// Why a launch (or a streamed run) failed. Its kind is the one the backend raised (Unknown only where the backend
// itself has no kind for the error, such as a driver error it does not classify); a backend that answers "failed"
// and gives no error at all is ErrorKind::Internal, with a message that says so.
struct LaunchFailure {
    std::string name;     // the backend's error name (CUDA_ERROR_ILLEGAL_ADDRESS), or empty
    std::string message;  // what went wrong, in plain words
    std::string hint;
    ErrorKind kind = ErrorKind::Internal;
    int line = 0;                    // the kernel source's line it happened on (1-based); 0 when unknown
    std::optional<Dim3> thread, block;  // the CUDA thread it happened on, when the backend knows
    bool context_was_reset = false;  // the backend dropped every buffer and module: forget them
    // The message with the error's name after it when the message does not say it already.
    std::string named_message() const;
};

// The failure of a backend's answer that is not ok or carries an error (moved out of `error`); nullopt for a
// success. `what` ("the launch") names the request for the message of a backend that gave no reason.
std::optional<LaunchFailure> launch_failure_of(bool ok, std::optional<EngineError>& error, const char* what);

// A launch's typed answer: what it measured and made, or why it failed.
struct LaunchOutcome {
    std::optional<LaunchFailure> failure;  // set: it failed
    TimingStats timing;
    LaunchPhases phases;
    double backend_ms = 0;
    std::string printf_output;      // also when it failed (what ran before the fault printed)
    std::vector<BlockTrace> trace;  // LaunchRequest::trace
    std::string trace_unit;
    std::optional<MemoryRecording> memory;  // LaunchRequest::record_memory
    std::optional<DebugRecording> debug;    // LaunchRequest::debug_block
    bool ok() const { return !failure; }
    bool context_was_reset() const { return failure && failure->context_was_reset; }
};

// The debugger's recording of one block (KernelSession::record_block) and, when the block faulted, why: the
// recording then ends where the fault stopped it.
struct BlockDebugRun {
    DebugRecording recording;
    std::optional<LaunchFailure> failure;
};

// A streamed run's typed answer (StreamsResult's products).
struct StreamsOutcome {
    std::optional<LaunchFailure> failure;
    std::vector<StreamOp> ops;
    double total_ms = 0, one_stream_ms = 0;
    bool host_clock = false;
    std::vector<std::vector<std::byte>> d2h_data;
    std::string printf_output;
    bool ok() const { return !failure; }
    bool context_was_reset() const { return failure && failure->context_was_reset; }
};

// One launch as an observer sees it, after it ended. The views and pointers are valid during the call only.
// A streamed run is one record per chunk (its kernel); the comparison on one stream repeats them and is not
// recorded again, as the warmups and repeats of a timed launch are one record.
struct LaunchRecord {
    LaunchSite site;
    std::string_view variant;  // the compare variant whose session launched it (Launcher::report_to); empty: main
    int device = 0;            // the ordinal of the device it ran on (DeviceInfo::ordinal)
    std::string_view kernel;
    ModuleId module = 0;
    Dim3 grid, block;
    uint32_t dynamic_shared_bytes = 0;
    std::span<const KernelArg> args;         // as sent: buffers by id (with offsets), scalars' bytes
    const LaunchRequest* request = nullptr;  // the whole request (timing, trace...); nullptr for a stream chunk
    int stream = -1;                         // Stream: the chunk's stream
    // How it ended.
    const LaunchFailure* failure = nullptr;  // nullptr: it ran
    double kernel_ms = 0;                    // its median time; a stream chunk: its kernel's span in the streamed run
};
using LaunchObserver = std::function<void(const LaunchRecord&)>;

// Makes launches on the engine it is given (a `devices:` split launches on several) and tells its observers.
// Without an observer a launch costs what the engine's call costs: the request is moved, not copied, and nothing
// is allocated for the record. With one, the request (never a buffer's contents) is copied for the record.
class Launcher {
public:
    using ObserverId = uint64_t;

    // Observers are called on the thread that launched, one at a time (a split's parts launch from threads of
    // their own), after each launch; an observer must not launch. Add and remove them between runs.
    ObserverId observe(LaunchObserver observer);
    void stop_observing(ObserverId id);
    // This launcher's launches also reach `parent`'s observers, with LaunchRecord::variant `variant` (a compare
    // variant's session reports to the main kernel's, so that one observer sees a comparison whole). nullptr:
    // no longer. `parent` must outlive the launches made meanwhile.
    void report_to(const Launcher* parent, std::string variant);
    const std::string& variant() const { return variant_; }
    bool observed() const;

    LaunchOutcome launch(Engine& engine, LaunchRequest request, LaunchSite site) const;
    StreamsOutcome streams(Engine& engine, StreamsRequest request, LaunchSite site) const;

private:
    void notify(LaunchRecord& record) const;

    std::vector<std::pair<ObserverId, LaunchObserver>> observers_;
    ObserverId next_id_ = 1;
    const Launcher* parent_ = nullptr;
    std::string variant_;
    mutable std::mutex notifying_;  // one observer call at a time
};

}  // namespace cp
