// A backend whose kernels run in `cuda-playground worker --stdio` started through a command prefix (`ssh gpu01`,
// `ssh login srun --gres=gpu:1`, `kubectl exec -i pod --`): the engine protocol (engine_wire.h) over that
// command's stdin/stdout, with a greeting that carries the protocol version. Both sides live here: the app's
// RemoteBackend and the worker's serve_stdio loop.
#pragma once

#include "core/engine/backend.h"
#include "core/result.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace cp {

struct RemoteOptions {
    std::string prefix;                       // split into words like a shell would, run without one
    std::string program = "cuda-playground";  // the remote program (CUDA_PLAYGROUND_REMOTE_PROGRAM)
    std::string backend = "auto";             // the remote worker's --backend
    // `run --sanitize TOOL --remote`: the worker runs its kernels under the server's compute-sanitizer with
    // TOOL and, as the link closes, sends its log back; it is written to `sanitizer_log` here.
    std::string sanitize_tool, sanitizer_log;
};

// CUDA_PLAYGROUND_REMOTE (the prefix, empty when unset) and CUDA_PLAYGROUND_REMOTE_PROGRAM, with `backend`.
RemoteOptions remote_options_from_environment(const std::string& backend);

// Splits `text` into words as a POSIX shell would (blanks separate; '...' literal; "..." with \ before " \ $ `
// and newline; \ outside quotes), with no expansion. An Error naming an unclosed quote.
Result<std::vector<std::string>> split_command_words(const std::string& text);

// `words` with --unbuffered after the first `srun` that lacks it (-u): srun otherwise forwards the task's
// output a line at a time, and the worker's frames, which are not lines, would wait for a newline.
std::vector<std::string> with_srun_unbuffered(std::vector<std::string> words);

// Starts the remote worker and reads its greeting: an Error (kind WorkerLost) naming the command, with the
// remote's last stderr lines, when it cannot be reached, answered with another protocol, or refuses
// (no backend, the server's limits).
Result<std::unique_ptr<Backend>> make_remote_backend(const RemoteOptions& options);

// The window is closing: every remote backend of this process ends its link now (its command, `ssh` or the
// worker, is killed) and answers every request after this with WorkerLost at once, so that a thread blocked on
// a server that stopped answering returns instead of waiting for the request's time limit (minutes). Backends
// made afterwards are not affected.
void close_remote_links();

// The options `backend` was made with when it is a remote backend (the window's Sanitize starts another link
// to the same server with them); nullopt for any other backend.
std::optional<RemoteOptions> remote_options_of(const Backend& backend);

// Bytes every remote backend of this process sent and received (frames, headers included): what a run costs
// the link, for the benchmark.
struct RemoteTraffic {
    uint64_t sent = 0, received = 0;
    uint64_t requests = 0;  // round trips
};
RemoteTraffic remote_traffic();

// The worker's side: `cuda-playground worker --stdio --backend NAME [--sanitize TOOL]`. Serves requests on
// stdin/stdout until stdin ends; nothing but frames is written to stdout (everything else goes to stderr).
// With a sanitize tool, the backend runs under compute-sanitizer (remote_sanitize.h) and its log is the last
// frame. Returns the exit status: 0 when the app closed the connection, 1 when the handshake or the backend failed.
// `served` says which backends this build has and makes the one asked for: the registry's (core/backends/
// registry.h), handed in by `worker --stdio`, since a backend never makes another backend itself.
struct ServedBackends {
    std::vector<std::string> names;  // for the greeting
    std::function<Result<std::unique_ptr<Backend>>(const std::string& name)> make;
    // Backend `name` under compute-sanitizer's `tool` on this server (`host` for messages), its log at `*log_path`.
    std::function<Result<std::unique_ptr<Backend>>(const std::string& name, const std::string& tool,
                                                   const std::string& host, std::string* log_path)>
        make_sanitized;
};
int serve_stdio(const ServedBackends& served, const std::string& backend, const std::string& sanitize_tool = "");

// The protocol number this worker says in its greeting: kWireProtocolVersion, or
// CUDA_PLAYGROUND_PRETEND_PROTOCOL (for the tests of a mismatch).
int worker_protocol_version();

}  // namespace cp
