// Guard zones: bytes of a known pattern just before and just after each device buffer, checked after a
// launch, so that a write past either end is reported on the GPU without a sanitizer ("a thread wrote past
// the end of `out` (element 1000 of 1000)"). Driver-free: the CUDA backend copies the zones and asks here.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace cp {

// A multiple of 256 bytes, so that the buffer after the front zone keeps cuMemAlloc's 256-byte alignment.
// 4 KiB also catches writes a fair way past the end (1024 floats) before they reach the next allocation.
constexpr uint64_t kGuardBytes = 4096;

enum class GuardSide { Front, Back };

// One allocation: [front zone][data][back zone]. The back zone starts right at the data's end (a write one
// byte past it is caught) and also covers the padding up to the next 256-byte boundary.
struct GuardLayout {
    uint64_t front = kGuardBytes;
    uint64_t data = 0;
    uint64_t back = 0;
    uint64_t total() const { return front + data + back; }
    uint64_t back_offset() const { return front + data; }
};
GuardLayout guard_layout(uint64_t data_bytes);

// The zone's expected contents (a pattern that differs from byte to byte, so neither zeros, a constant nor a
// copied value matches it by chance).
std::vector<std::byte> guard_pattern(GuardSide side, uint64_t bytes);

struct GuardViolation {
    GuardSide side = GuardSide::Back;
    int64_t first_element = 0;  // element indices relative to the buffer's start (negative before it)
    int64_t last_element = 0;
    uint64_t bytes_changed = 0;
};

// Compares a zone's contents read back from the device with its pattern; element_bytes >= 1.
std::optional<GuardViolation> check_guard(GuardSide side, const std::byte* zone, uint64_t zone_bytes,
                                          uint64_t data_bytes, uint32_t element_bytes);

// "a thread wrote past the end of `out` (element 1000 of 1000)"
std::string describe_violation(const GuardViolation& v, const std::string& buffer, uint64_t data_bytes,
                               uint32_t element_bytes);

}  // namespace cp
