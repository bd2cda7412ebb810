// Device buffers for the CPU backend: each in its own mapping between inaccessible guard regions, its last
// byte touching the guard after it, so any access past the end (of any element type) faults and can be
// reported. The start is then only as aligned as the size allows (a multiple of 16 bytes: 16-byte aligned).
// A buffer's memory is either private (the dynamic shared memory) or a shared-memory file (memfd) that the
// app also maps (SharedMemoryFile), so uploads and read-backs are plain copies in the app's process.
#pragma once

#include "core/result.h"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

namespace cp {

class GuardedBuffer {
public:
    GuardedBuffer() = default;
    // Zero-filled. `start_align` > 1 (a power of two) starts the data that aligned instead, its end up to
    // start_align - 1 bytes before the guard (the dynamic shared memory: kernels carve float4s out of it).
    static Result<GuardedBuffer> allocate(uint64_t bytes, size_t start_align = 1);
    // The data pages are the shared-memory file `fd` (a SharedMemoryFile of the same `bytes` and
    // `start_align`).
    static Result<GuardedBuffer> map_shared(int fd, uint64_t bytes, size_t start_align = 1);
    ~GuardedBuffer();
    GuardedBuffer(GuardedBuffer&& other) noexcept;
    GuardedBuffer& operator=(GuardedBuffer&& other) noexcept;
    GuardedBuffer(const GuardedBuffer&) = delete;
    GuardedBuffer& operator=(const GuardedBuffer&) = delete;

    std::byte* data() const { return data_; }
    uint64_t size() const { return bytes_; }

    enum class Where { Outside, Inside, PastEnd, BeforeStart };
    struct Location {
        Where where = Where::Outside;
        uint64_t distance = 0;  // PastEnd: bytes after the end; BeforeStart: bytes before the start
    };
    Location locate(uintptr_t address) const;

    // Pages are 4 KiB but buffers are not, so up to a page before the start is accessible, and with a
    // start_align > 1 up to start_align - 1 bytes after the end. Both hold a known pattern: a kernel that
    // wrote there is found after the launch. Where it wrote (past the end before the start: the farthest byte
    // from the data on that side), with the pattern put back; nullopt when both are intact.
    std::optional<Location> written_outside();

    // Makes the buffer's pages inaccessible (false) or readable and writable again (true): a whole program's device
    // memory is closed to its host code between launches, as a GPU's is to the host (program_host.cpp).
    bool set_accessible(bool accessible);

private:
    static Result<GuardedBuffer> reserve(uint64_t bytes, size_t start_align);
    void release();
    void restore_slack();

    std::byte* map_ = nullptr;  // the whole reservation, guards included
    size_t map_bytes_ = 0;
    std::byte* slack_ = nullptr;  // first accessible byte (page aligned); data_ - slack_ bytes of pattern
    std::byte* data_ = nullptr;
    std::byte* end_ = nullptr;       // data_ + bytes_: the guard's first byte when start_align is 1
    std::byte* tail_end_ = nullptr;  // the guard's first byte
    uint64_t bytes_ = 0;
};

// A buffer's bytes in a sealed shared-memory file (memfd) of whole pages, the data at its very end as
// GuardedBuffer places it; mapped here for uploads and read-backs and handed to a worker by descriptor.
// The seals stop the worker from shrinking it under the app (which would crash the app on access).
class SharedMemoryFile {
public:
    SharedMemoryFile() = default;
    // Zero-filled; the data placed as GuardedBuffer places it for the same `start_align`.
    static Result<SharedMemoryFile> create(const std::string& name, uint64_t bytes, size_t start_align = 1);
    ~SharedMemoryFile();
    SharedMemoryFile(SharedMemoryFile&& other) noexcept;
    SharedMemoryFile& operator=(SharedMemoryFile&& other) noexcept;
    SharedMemoryFile(const SharedMemoryFile&) = delete;
    SharedMemoryFile& operator=(const SharedMemoryFile&) = delete;

    int fd() const { return fd_; }
    std::byte* data() const { return data_; }
    uint64_t size() const { return bytes_; }
    size_t start_align() const { return start_align_; }

private:
    void release();

    size_t start_align_ = 1;
    int fd_ = -1;
    std::byte* map_ = nullptr;
    size_t map_bytes_ = 0;
    std::byte* data_ = nullptr;
    uint64_t bytes_ = 0;
};

}  // namespace cp
