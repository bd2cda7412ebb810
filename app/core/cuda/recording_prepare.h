// Preparing the memory recording's copy of a kernel ahead of the Memory switch (recording_copy.h): a
// low-priority `cuda-playground compile FILE --memory --arch ARCH` process that compiles its cubin and keeps it on
// disk, so that the first recording of a kernel with hundreds of loads and stores (the register-blocked
// multiply: about 3.5 s of JIT on the H100's host) does not wait for it. The window starts one for a kernel it
// has run on this machine's GPU, as the file is on disk; the picture never waits for it.
#pragma once

#include "core/kernel_file/kernel_spec.h"
#include "core/types.h"

#include <filesystem>
#include <mutex>
#include <set>
#include <string>
#include <sys/types.h>

namespace cp {

// Whether `file`'s copy is worth preparing for `device`: the CUDA backend on this machine (a remote worker keeps
// its own files), a kernel to record, and the file's text as it is on disk (the copy is kept under what the
// compiler sees, so an edited kernel's would not be found; it is compiled at the switch instead).
bool worth_preparing_recording(const DeviceInfo& device, const KernelFile& file);

// The program that prepares: $CUDA_PLAYGROUND_PREPARE_WITH when set (tests name the cuda-playground they built),
// else this process when it is cuda-playground (/proc/self/exe), else "": a test runner must not start itself.
std::string this_cuda_playground();

class RecordingPreparer {
public:
    // `program`: the cuda-playground binary that compiles; empty prepares nothing.
    explicit RecordingPreparer(std::string program = this_cuda_playground()) : program_(std::move(program)) {}
    ~RecordingPreparer();  // stops a preparation still running (the cache is written whole or not at all)
    RecordingPreparer(const RecordingPreparer&) = delete;
    RecordingPreparer& operator=(const RecordingPreparer&) = delete;

    // Starts preparing `file`'s kernel (from its path; `file.source` is its text there, as
    // worth_preparing_recording found) for `arch` at low priority, unless this preparer started the same file
    // (path and text) before; one at a time: a newer file stops the one running (the newest is the one the user
    // opened). False when nothing was started.
    bool prepare(const KernelFile& file, const std::string& arch);
    bool running();             // a preparation has not finished yet (any thread may ask)
    int wait_for_running();     // tests: waits for it, and says its exit status (-1: none, or killed)

private:
    void stop();
    std::mutex mutex_;  // prepare runs on the window's run thread; running() is asked from its frames
    std::string program_;
    pid_t pid_ = -1;
    std::set<std::string> started_;  // path + arch + contents hash
};

}  // namespace cp
