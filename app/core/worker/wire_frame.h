// Framed messages between the app and its worker processes (CUDA, CPU): a JSON text for plain values, one
// binary blob for bulk bytes, and optionally file descriptors (SCM_RIGHTS) for shared memory.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace cp {

struct WireMessage {
    std::string json;
    std::vector<std::byte> blob;
    // Sent: borrowed (the sender keeps and closes them). Received: owned by the receiver, which must close
    // them (close_fds).
    std::vector<int> fds;
};

// Framed messages on a stream socket or a pipe (read/write; a message with descriptors cannot be written to
// a pipe). write_message never raises SIGPIPE (false when the peer is gone).
bool write_message(int fd, const WireMessage& message);
enum class ReadStatus { Ok, Closed, TimedOut };
// timeout_ms < 0 waits forever. Received descriptors are close-on-exec.
ReadStatus read_message(int fd, int timeout_ms, WireMessage* out);

// Closes every descriptor in `fds` and clears it.
void close_fds(std::vector<int>& fds);

}  // namespace cp
