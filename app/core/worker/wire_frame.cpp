// Framing on a stream socket: a fixed header (sent with the descriptors, if any, as SCM_RIGHTS), then the
// JSON text, then the blob.
#include "core/worker/wire_frame.h"

#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>

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

bool send_all(int fd, const void* data, size_t size) {
    const auto* p = static_cast<const char*>(data);
    while (size > 0) {
        const ssize_t n = send(fd, p, size, MSG_NOSIGNAL);
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
    while (size > 0) {
        if (const ReadStatus s = wait_readable(fd, timeout_ms); s != ReadStatus::Ok) return s;
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
