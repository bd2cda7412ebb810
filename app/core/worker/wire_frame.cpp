// Framing on a stream socket: a fixed header (sent with the descriptors, if any, as SCM_RIGHTS), then the
// JSON text, then the blob. On a pipe (a remote worker's stdin/stdout, as sshd gives them) the same bytes
// travel with read/write, and a message with descriptors is refused.
#include "core/worker/wire_frame.h"

#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <ctime>

namespace cp {

namespace {

constexpr uint32_t kMagic = 0x31575043;  // "CPW1"
constexpr uint64_t kMaxJsonBytes = 1ull << 30;
constexpr size_t kMaxFds = 64;

struct FrameHeader {
    uint32_t magic;
    uint32_t fd_count;
    uint64_t json_bytes;
    uint64_t blob_bytes;
};

bool is_socket(int fd) {
    struct stat st{};
    return fstat(fd, &st) == 0 && S_ISSOCK(st.st_mode);
}

// write() on a pipe whose reader is gone raises SIGPIPE, which would end the app: it is blocked in this
// thread for the write, and one that became pending is taken back before the mask is restored.
ssize_t write_no_sigpipe(int fd, const char* p, size_t size) {
    sigset_t pipe_only, old;
    sigemptyset(&pipe_only);
    sigaddset(&pipe_only, SIGPIPE);
    sigset_t pending_before;
    sigpending(&pending_before);
    const bool was_pending = sigismember(&pending_before, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipe_only, &old);
    const ssize_t n = write(fd, p, size);
    const int saved = errno;
    if (n < 0 && saved == EPIPE && !was_pending) {
        const timespec zero{0, 0};
        while (sigtimedwait(&pipe_only, nullptr, &zero) < 0 && errno == EINTR) {
        }
    }
    pthread_sigmask(SIG_SETMASK, &old, nullptr);
    errno = saved;
    return n;
}

bool send_all(int fd, const void* data, size_t size) {
    const auto* p = static_cast<const char*>(data);
    const bool socket = is_socket(fd);
    while (size > 0) {
        const ssize_t n = socket ? send(fd, p, size, MSG_NOSIGNAL) : write_no_sigpipe(fd, p, size);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return false;
        p += n;
        size -= size_t(n);
    }
    return true;
}

// The header, with the descriptors attached to its first byte.
bool send_header(int fd, const FrameHeader& h, const std::vector<int>& fds) {
    if (fds.empty()) return send_all(fd, &h, sizeof h);
    iovec io{const_cast<FrameHeader*>(&h), sizeof h};
    alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int) * kMaxFds)] = {};
    msghdr m{};
    m.msg_iov = &io;
    m.msg_iovlen = 1;
    m.msg_control = control;
    m.msg_controllen = CMSG_SPACE(sizeof(int) * fds.size());
    cmsghdr* c = CMSG_FIRSTHDR(&m);
    if (!c) return false;
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(sizeof(int) * fds.size());
    std::memcpy(CMSG_DATA(c), fds.data(), sizeof(int) * fds.size());
    ssize_t n = 0;
    do {
        n = sendmsg(fd, &m, MSG_NOSIGNAL);
    } while (n < 0 && errno == EINTR);
    if (n <= 0) return false;
    return send_all(fd, reinterpret_cast<const char*>(&h) + n, sizeof h - size_t(n));
}

ReadStatus wait_readable(int fd, int timeout_ms) {
    for (;;) {
        pollfd pfd{fd, POLLIN, 0};
        const int ready = poll(&pfd, 1, timeout_ms);
        if (ready < 0 && errno == EINTR) continue;
        if (ready == 0) return ReadStatus::TimedOut;
        if (ready < 0) return ReadStatus::Closed;
        return ReadStatus::Ok;
    }
}

// Reads `size` bytes; descriptors that arrive with them are appended to `fds` (when not null).
ReadStatus recv_all(int fd, void* data, size_t size, int timeout_ms, std::vector<int>* fds) {
    auto* p = static_cast<char*>(data);
    const bool socket = is_socket(fd);
    while (size > 0) {
        if (const ReadStatus s = wait_readable(fd, timeout_ms); s != ReadStatus::Ok) return s;
        if (!socket) {  // a pipe: no descriptors can come
            const ssize_t n = read(fd, p, size);
            if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
            if (n <= 0) return ReadStatus::Closed;
            p += n;
            size -= size_t(n);
            continue;
        }
        iovec io{p, size};
        alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int) * kMaxFds)];
        msghdr m{};
        m.msg_iov = &io;
        m.msg_iovlen = 1;
        if (fds) {
            m.msg_control = control;
            m.msg_controllen = sizeof control;
        }
        const ssize_t n = recvmsg(fd, &m, MSG_CMSG_CLOEXEC);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return ReadStatus::Closed;
        if (fds) {
            for (cmsghdr* c = CMSG_FIRSTHDR(&m); c; c = CMSG_NXTHDR(&m, c)) {
                if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS) continue;
                const size_t count = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
                for (size_t i = 0; i < count; ++i) {
                    int received = -1;
                    std::memcpy(&received, CMSG_DATA(c) + i * sizeof(int), sizeof(int));
                    fds->push_back(received);
                }
            }
        }
        p += n;
        size -= size_t(n);
    }
    return ReadStatus::Ok;
}

}  // namespace

void close_fds(std::vector<int>& fds) {
    for (int fd : fds)
        if (fd >= 0) close(fd);
    fds.clear();
}

bool write_message(int fd, const WireMessage& message) {
    if (message.fds.size() > kMaxFds) return false;
    if (!message.fds.empty() && !is_socket(fd)) return false;  // descriptors never travel over a pipe
    const FrameHeader h{kMagic, uint32_t(message.fds.size()), message.json.size(), message.blob.size()};
    return send_header(fd, h, message.fds) && send_all(fd, message.json.data(), message.json.size()) &&
           send_all(fd, message.blob.data(), message.blob.size());
}

ReadStatus read_message(int fd, int timeout_ms, WireMessage* out) {
    FrameHeader h{};
    close_fds(out->fds);
    if (const ReadStatus s = recv_all(fd, &h, sizeof(h), timeout_ms, &out->fds); s != ReadStatus::Ok) return s;
    if (h.magic != kMagic || h.json_bytes > kMaxJsonBytes || out->fds.size() != h.fd_count) {
        close_fds(out->fds);
        return ReadStatus::Closed;
    }
    try {
        out->json.resize(h.json_bytes);
        out->blob.resize(h.blob_bytes);
    } catch (const std::exception&) {
        close_fds(out->fds);
        return ReadStatus::Closed;
    }
    ReadStatus s = recv_all(fd, out->json.data(), out->json.size(), timeout_ms, nullptr);
    if (s == ReadStatus::Ok) s = recv_all(fd, out->blob.data(), out->blob.size(), timeout_ms, nullptr);
    if (s != ReadStatus::Ok) close_fds(out->fds);
    return s;
}

}  // namespace cp
