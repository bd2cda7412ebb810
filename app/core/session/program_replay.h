// One launch of a whole program's run again, on its captured inputs (issue 36): the kernel alone, compiled from the
// program's device code on a backend of the caller's, its buffers as they were just before the program's launch,
// its scalar arguments as the program passed them unless changed, and the grid and block given. What it wrote comes
// back beside what the program's own launch wrote, so a changed block size shows what it changes.
//
//   ProgramRun run = runner->run(request_with_capture);
//   LaunchReplay r = replay_launch(*backend, request, run, 0, {.block = Dim3{64, 1, 1}});
//   r.buffers[i].replayed vs r.buffers[i].program_after
#pragma once

#include "core/engine/backend.h"
#include "core/engine/program_api.h"
#include "core/session/launcher.h"

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace cp {

using ReplayChanges = ProgramLaunchChange;

struct ReplayBuffer {
    std::string name;
    std::vector<std::byte> before;         // as captured before the program's launch
    std::vector<std::byte> program_after;  // as captured after it (empty when the capture has none)
    std::vector<std::byte> replayed;       // after the replay
    uint64_t differing_bytes = 0;          // between replayed and program_after
};

struct LaunchReplay {
    bool ran = false;
    std::optional<EngineError> error;  // cannot be replayed (said why), did not compile, refused, faulted
    std::vector<Diagnostic> diagnostics;
    Dim3 grid, block;
    double ms = 0;
    std::vector<ReplayBuffer> buffers;  // each buffer the launch reaches, in argument order
    // Ran with the program's own configuration and wrote exactly what the program's launch wrote.
    bool same_as_program = false;
};

// `bytes` bytes at `at` of a run's capture (ProgramRun::capture_data); empty when the capture does not hold them.
std::vector<std::byte> captured_bytes(const std::string& capture, uint64_t at, uint64_t bytes);

// Why launch `index` of `run` cannot be replayed (no capture of its buffers, a struct argument holding pointers, a
// pointer into no allocation...), or nullopt when it can.
std::optional<std::string> replay_refusal(const ProgramRun& run, size_t index);

// Compiles the program's device code for the launch's kernel (ProgramLaunch::instance) on `backend`, loads the
// captured buffers, launches and reads them back. `request` is the program as it was run.
LaunchReplay replay_launch(Backend& backend, const ProgramRequest& request, const ProgramRun& run, size_t index,
                           const ReplayChanges& changes = {});

// The debugger's recording (issue 39) of block `block` (its linear index in the launch's grid) of launch `index`,
// run alone on `backend` (one whose capabilities say debug_steps: the CPU backend) by the stepping copy of the
// program's kernel (or the script's module), on the buffers as the capture holds them before the program's launch
// and the scalars the program passed: the values the program's own launch computed in that block. `warp` as
// LaunchRequest::debug_warp. Refused (Unsupported) as replay_launch is for a launch that cannot run alone.
Result<BlockDebugRun> record_launch_block(Backend& backend, const ProgramRequest& request, const ProgramRun& run,
                                          size_t index, uint64_t block, int32_t warp = -1);

}  // namespace cp
