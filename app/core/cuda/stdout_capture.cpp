// Redirecting fd 1 (and optionally fd 2) into a temporary file and reading it back.
#include "core/cuda/stdout_capture.h"

#include <sys/stat.h>
#include <unistd.h>

namespace cp {

StdoutCapture::StdoutCapture(bool also_stderr) : also_stderr_(also_stderr) {
    file_ = std::tmpfile();
    if (!file_) return;  // no capture: output goes where it always goes
    std::fflush(stdout);
    std::fflush(stderr);
    const int fd = fileno(file_);
    saved_stdout_ = dup(STDOUT_FILENO);
    if (dup2(fd, STDOUT_FILENO) < 0) {
        if (saved_stdout_ >= 0) close(saved_stdout_);
        std::fclose(file_);
        file_ = nullptr;
        return;
    }
    if (also_stderr_) {
        saved_stderr_ = dup(STDERR_FILENO);
        if (dup2(fd, STDERR_FILENO) < 0) {
            if (saved_stderr_ >= 0) close(saved_stderr_);
            also_stderr_ = false;
        }
    }
}

StdoutCapture::~StdoutCapture() {
    restore();
    if (file_) std::fclose(file_);
}

size_t StdoutCapture::size() {
    if (!file_) return 0;
    std::fflush(stdout);
    struct stat st {};
    return fstat(fileno(file_), &st) == 0 ? size_t(st.st_size) : 0;
}

void StdoutCapture::restore() {
    if (!file_ || restored_) return;
    restored_ = true;
    std::fflush(stdout);
    std::fflush(stderr);
    // A process started without an fd 1 gets its fd 1 closed again.
    if (saved_stdout_ >= 0) {
        dup2(saved_stdout_, STDOUT_FILENO);
        close(saved_stdout_);
    } else {
        close(STDOUT_FILENO);
    }
    if (also_stderr_) {
        if (saved_stderr_ >= 0) {
            dup2(saved_stderr_, STDERR_FILENO);
            close(saved_stderr_);
        } else {
            close(STDERR_FILENO);
        }
    }
}

std::string StdoutCapture::finish(size_t max_bytes) {
    if (!file_) return {};
    const size_t total = size();
    restore();
    std::string text(total < max_bytes ? total : max_bytes, '\0');
    size_t done = 0;
    while (done < text.size()) {
        const ssize_t n = pread(fileno(file_), text.data() + done, text.size() - done, off_t(done));
        if (n <= 0) break;
        done += size_t(n);
    }
    text.resize(done);
    return text;
}

}  // namespace cp
