// Device buffers for the CPU backend: each in its own mapping between inaccessible guard regions, its
// last byte touching the guard after it, so the first access past the end faults and can be reported.
#pragma once

#include "core/result.h"

#include <cstddef>
#include <cstdint>

namespace cp {

class GuardedBuffer {
public:
    GuardedBuffer() = default;
    static Result<GuardedBuffer> allocate(uint64_t bytes);  // zero-filled
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

    // Pages are 4 KiB but buffers are not, so up to a page before the start is accessible. It holds a
    // known pattern: a kernel that wrote there is found after the launch.
    bool slack_intact() const;
    void restore_slack();

private:
    void release();

    std::byte* map_ = nullptr;  // the whole reservation, guards included
    size_t map_bytes_ = 0;
    std::byte* slack_ = nullptr;  // first accessible byte (page aligned); data_ - slack_ bytes of pattern
    std::byte* data_ = nullptr;
    uint64_t bytes_ = 0;
};

}  // namespace cp
