// A whole program run from the window (issue 36), or a Python script (issue 37): the registry's program runner, or
// the script host, on a thread of its own, so that frames keep coming while it compiles and runs; the finished run is
// taken once by the frame. ImGui-free.
#pragma once

#include "core/engine/backend.h"
#include "core/engine/program_api.h"
#include "core/result.h"
#include "core/session/program_replay.h"

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <filesystem>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

namespace cp::ui {

class ProgramRunState {
public:
    ProgramRunState() = default;
    ~ProgramRunState();
    ProgramRunState(const ProgramRunState&) = delete;
    ProgramRunState& operator=(const ProgramRunState&) = delete;

    bool running() const;
    // Where programs' kernels run ("auto": the GPU when there is one; "cpu"; "cuda"), as the window's --backend says.
    // Before the first start().
    void set_backend(std::string name) { backend_ = std::move(name); }
    // Runs `source` (from `path`: its folder's headers) unless a run is in flight; `wake` is called when it ends.
    // `revision` is the document's, kept with the result.
    // `changes`: launches to make otherwise than the program writes them (the Program panel's "run the program with
    // this change").
    void start(std::string source, std::string path, uint64_t revision, std::function<void()> wake,
               std::map<size_t, ProgramLaunchChange> changes = {});
    // Returns when no run (nor replay) is in flight or waiting (the headless window's frames show settled results).
    void wait_until_done() { wait_idle(); }
    // The run that ended since the last call, once.
    std::optional<ProgramRun> take_finished();

    // The last finished run and what it was of (the Program panel reads these on the frame's thread).
    // Without its capture_data, which capture() has.
    const std::optional<ProgramRun>& last() const { return last_; }
    const std::string& capture() const {
        static const std::string none;
        return last_shared_ ? last_shared_->capture_data : none;
    }
    uint64_t runs_taken() const { return runs_taken_; }  // how many runs take_finished() has taken (tells runs apart)
    uint64_t replays_taken() const { return replays_taken_; }  // ... and replays take_replay()
    const std::string& last_path() const { return last_path_; }
    uint64_t last_revision() const { return last_revision_; }
    // The path and revision of the run in flight or last started (what maybe_submit compares with).
    const std::string& started_path() const { return started_path_; }
    uint64_t started_revision() const { return started_revision_; }
    double started_at = 0;  // the frame clock when it started (the panel's "running for")

    // ---- one launch again, on its captured inputs (core/session/program_replay.h) ----
    // The window's runs keep each launch's buffers (up to kWindowCaptureLimit), so any launch of the last run can be
    // re-run alone with another grid, block or scalar, on a backend of this state's own (not the lessons' engine).
    static constexpr uint64_t kWindowCaptureLimit = uint64_t(256) << 20;
    size_t selected = 0;  // the launch the Program panel shows
    // Re-runs launch `index` of the last run with `changes` on a thread of its own; while one is in flight the newest
    // request waits and replaces any older waiting one (live editing sends one per change).
    void start_replay(size_t index, ReplayChanges changes, std::function<void()> wake);
    bool replaying() const;
    // The last replay that finished, with the launch and changes it was of; reset by a new program run.
    struct Replayed {
        size_t index = 0;
        ReplayChanges changes;
        LaunchReplay result;
    };
    const std::optional<Replayed>& last_replay() const { return last_replay_; }
    // Takes a finished replay into last_replay() (the frame's thread); true when there was one.
    bool take_replay();
    // Returns when no replay (nor run) is in flight or waiting.
    void wait_replay() { wait_idle(); }
    const ProgramRequest& last_request() const { return last_request_; }
    // Launch `index` of the last run written as a lesson into `dir` (core/session/program_lesson.h): the kernel
    // file's path, or why it cannot be.
    Result<std::filesystem::path> save_launch_as_lesson(size_t index, const std::filesystem::path& dir) const;

    // ---- the debugger (issue 39): one block of a launch of the last run, stepped through on its captured inputs ----
    // Records block `block` (linear) of launch `index` (record_launch_block) on a CPU backend of this state's own, on
    // its thread; `wake` when done. `warp` as LaunchRequest::debug_warp.
    void start_debug(size_t index, uint64_t block, int32_t warp, std::function<void()> wake);
    // The recording that finished since the last call, once.
    std::optional<Result<BlockDebugRun>> take_debug();

private:
    // Runs and replays go to one thread that lives as long as this state: the worker processes they start end with
    // the thread that started them (PR_SET_PDEATHSIG), so a thread per run would lose the warm worker each time.
    void post(std::function<void()> job);
    ProgramRun run_program(const ProgramRequest& request);      // on the registry's program runner, kept warm
    ProgramRun run_script_file(const ProgramRequest& request);  // a .py: core/session/script_host.h
    void serve();
    void wait_idle();
    void replay_next();
    std::condition_variable cv_;
    std::deque<std::function<void()>> jobs_;
    bool busy_ = false, stopping_ = false;
    // The replays' own backend.
    std::unique_ptr<Backend> replay_backend_;
    std::optional<Error> replay_unavailable_;
    bool replay_running_ = false;
    std::optional<Replayed> replay_waiting_, replay_done_, last_replay_;
    std::unique_ptr<Backend> debug_backend_;  // the debugger's: the CPU backend
    std::optional<Error> debug_unavailable_;
    std::optional<Result<BlockDebugRun>> debug_done_;
    std::function<void()> replay_wake_;
    ProgramRequest last_request_;  // the last run's program, as run (the replay compiles its device code)
    ProgramRequest running_request_;

    std::string backend_ = "auto";
    mutable std::mutex mutex_;
    std::thread thread_;
    bool running_ = false;
    std::optional<ProgramRun> finished_;
    std::unique_ptr<ProgramRunner> runner_;  // kept between runs: its worker process stays warm
    std::optional<Error> unavailable_;       // no backend here runs programs
    std::string started_path_, last_path_, running_path_;
    uint64_t started_revision_ = 0, last_revision_ = 0, running_revision_ = 0;
    std::optional<ProgramRun> last_;
    std::shared_ptr<const ProgramRun> last_shared_;  // the same, for replays without copying its capture
    uint64_t runs_taken_ = 0, replays_taken_ = 0;
};

}  // namespace cp::ui
