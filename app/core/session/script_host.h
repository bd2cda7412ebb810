// Python scripts (PyCUDA, CuPy) run as written: the script runs in the system's Python, confined
// (core/worker/script_process.h), with the playground's own `pycuda` and `cupy` (python/) on its path; they send
// each compile, allocation, copy and launch to the app over a socket, and the app answers them on one of its
// backends through the engine, so the script's kernels run where a lesson's do (the CPU backend's checks, or a
// GPU) and every launch is recorded as a whole program's are (ProgramRun, program_api.h).
//
// The wire (python/cuda_playground/_wire.py is the other end): each message is a little-endian u32 header length,
// a u64 payload length, the header (JSON, one object with "op" or, answering, "ok") and the payload (raw bytes:
// what is copied). docs/script_protocol.md lists the operations.
#pragma once

#include "core/engine/engine.h"
#include "core/engine/program_api.h"
#include "core/result.h"

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace cp {

// A .py file: run as a script.
bool is_script_file(const std::filesystem::path& path);

struct ScriptRequest {
    std::filesystem::path path;
    std::vector<std::string> args;   // the script's own (sys.argv[1:])
    std::string backend = "auto";
    double time_limit_s = 0;         // the whole script; 0: CUDA_PLAYGROUND_LAUNCH_TIMEOUT_S, else 600 s
    // The script as the window's editor holds it, when it is not the file's (unsaved edits): it runs from a copy in
    // the scratch folder, with `path`'s folder first on its import path and still the folder it may read.
    std::optional<std::string> source;
    // Keep each launch's buffers before and after it (ProgramRun::capture_data), up to this many bytes; 0: none.
    uint64_t capture_limit = 0;
    // By launch index: what to make otherwise than the script writes it (the window's "run with this change").
    std::map<size_t, ProgramLaunchChange> changes;
};

struct ScriptRunResult {
    ProgramRun run;        // its output, exit status and launches (each launch's line is the script's)
    std::string backend;   // the backend its kernels ran on
    bool cpu_time = false; // its timings (drv.Event, time_kernel) are the CPU emulator's, not a GPU's
};

// Runs the script; an Error when it cannot start (no such file, no python3, no backend, no Landlock).
Result<ScriptRunResult> run_script(const ScriptRequest& request);

// Answers one script's requests on `in_fd` / `out_fd` with `engine` until the script says goodbye or the
// connection ends (run_script, and `cuda-playground script-serve` for a script started by Python itself).
class ScriptServer {
public:
    ScriptServer(Engine& engine, std::string script_path, uint64_t capture_limit = 0,
                 std::map<size_t, ProgramLaunchChange> changes = {});
    ~ScriptServer();
    ScriptServer(const ScriptServer&) = delete;
    ScriptServer& operator=(const ScriptServer&) = delete;

    // True when the script said goodbye; false when the connection broke or was closed first.
    bool serve(int in_fd, int out_fd);
    std::vector<ProgramLaunch> take_launches();
    std::string take_capture();                // the bytes ProgramBuffer::before_at / after_at count in
    std::vector<Diagnostic> take_diagnostics();  // of the modules that did not compile
    // Set when the script's process said it could not enter its sandbox (then nothing of the script ran).
    std::optional<EngineError> start_error() const;

private:
    struct State;
    std::unique_ptr<State> state_;
};

}  // namespace cp
