// Capturing what the CUDA driver writes to the process's stdout (device printf, assert messages): it
// writes at synchronisation points straight to file descriptor 1, so we point fd 1 at a temporary file
// around the launch and read the file back.
#pragma once

#include <cstddef>
#include <cstdio>
#include <string>

namespace cp {

// While alive, fd 1 (and fd 2 too when `also_stderr`) go to a temporary file. Anything else the process
// prints to them meanwhile (another thread's logging) lands in the capture as well, which is why the
// backend captures only around launches of kernels that can print.
class StdoutCapture {
public:
    explicit StdoutCapture(bool also_stderr);
    ~StdoutCapture();  // restores the descriptors if finish() was not called
    StdoutCapture(const StdoutCapture&) = delete;
    StdoutCapture& operator=(const StdoutCapture&) = delete;

    bool active() const { return file_ != nullptr; }
    // Bytes captured so far (flushes stdio first).
    size_t size();
    // Restores the descriptors and returns at most `max_bytes` of what was captured, from the start.
    std::string finish(size_t max_bytes);

private:
    void restore();

    std::FILE* file_ = nullptr;
    int saved_stdout_ = -1, saved_stderr_ = -1;
    bool also_stderr_ = false;
    bool restored_ = false;
};

}  // namespace cp
