// A whole program run from the window (issue 36): the registry's program runner on a thread of its own, so that
// frames keep coming while the program compiles and runs; the finished run is taken once by the frame. ImGui-free.
#pragma once

#include "core/engine/program_api.h"
#include "core/result.h"

#include <cstdint>
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
    // Runs `source` (from `path`: its folder's headers) unless a run is in flight; `wake` is called when it ends.
    // `revision` is the document's, kept with the result.
    void start(std::string source, std::string path, uint64_t revision, std::function<void()> wake);
    // Returns when no run is in flight (the headless window's frames show settled results).
    void wait_until_done() {
        if (thread_.joinable()) thread_.join();
    }
    // The run that ended since the last call, once.
    std::optional<ProgramRun> take_finished();

    // The last finished run and what it was of (the Program panel reads these on the frame's thread).
    const std::optional<ProgramRun>& last() const { return last_; }
    const std::string& last_path() const { return last_path_; }
    uint64_t last_revision() const { return last_revision_; }
    // The path and revision of the run in flight or last started (what maybe_submit compares with).
    const std::string& started_path() const { return started_path_; }
    uint64_t started_revision() const { return started_revision_; }
    double started_at = 0;  // the frame clock when it started (the panel's "running for")

private:
    mutable std::mutex mutex_;
    std::thread thread_;
    bool running_ = false;
    std::optional<ProgramRun> finished_;
    std::unique_ptr<ProgramRunner> runner_;  // kept between runs: its worker process stays warm
    std::optional<Error> unavailable_;       // no backend here runs programs
    std::string started_path_, last_path_, running_path_;
    uint64_t started_revision_ = 0, last_revision_ = 0, running_revision_ = 0;
    std::optional<ProgramRun> last_;
};

}  // namespace cp::ui
