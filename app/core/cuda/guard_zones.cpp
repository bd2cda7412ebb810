// Guard zones' layout, pattern and check (see guard_zones.h).
#include "core/cuda/guard_zones.h"

#include <algorithm>

namespace cp {

GuardLayout guard_layout(uint64_t data_bytes) {
    GuardLayout l;
    l.data = data_bytes;
    const uint64_t padded = (data_bytes + 255) / 256 * 256;
    l.back = padded - data_bytes + kGuardBytes;
    return l;
}

std::vector<std::byte> guard_pattern(GuardSide side, uint64_t bytes) {
    std::vector<std::byte> out(bytes);
    // A byte sequence with period 256 that is never 0x00 or 0xFF and differs from side to side.
    const unsigned salt = side == GuardSide::Front ? 0x5Bu : 0xC7u;
    for (uint64_t i = 0; i < bytes; ++i) {
        unsigned v = (unsigned(i) * 167u + salt) & 0xFFu;
        if (v == 0x00 || v == 0xFF) v = 0xA5;
        out[i] = std::byte(v);
    }
    return out;
}

namespace {

int64_t floor_div(int64_t a, int64_t b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }

}  // namespace

std::optional<GuardViolation> check_guard(GuardSide side, const std::byte* zone, uint64_t zone_bytes,
                                          uint64_t data_bytes, uint32_t element_bytes) {
    const std::vector<std::byte> want = guard_pattern(side, zone_bytes);
    int64_t first = -1, last = -1;
    uint64_t changed = 0;
    for (uint64_t i = 0; i < zone_bytes; ++i) {
        if (zone[i] == want[i]) continue;
        if (first < 0) first = int64_t(i);
        last = int64_t(i);
        ++changed;
    }
    if (first < 0) return std::nullopt;
    // Byte offsets relative to the buffer's first byte.
    const int64_t origin = side == GuardSide::Front ? -int64_t(zone_bytes) : int64_t(data_bytes);
    const int64_t e = std::max<int64_t>(element_bytes, 1);
    GuardViolation v;
    v.side = side;
    v.first_element = floor_div(origin + first, e);
    v.last_element = floor_div(origin + last, e);
    v.bytes_changed = changed;
    return v;
}

std::string describe_violation(const GuardViolation& v, const std::string& buffer, uint64_t data_bytes,
                               uint32_t element_bytes) {
    const uint64_t count = data_bytes / std::max<uint32_t>(element_bytes, 1);
    const std::string elements = v.first_element == v.last_element
                                     ? "element " + std::to_string(v.first_element)
                                     : "elements " + std::to_string(v.first_element) + ".." +
                                           std::to_string(v.last_element);
    if (v.side == GuardSide::Back)
        return "a thread wrote past the end of `" + buffer + "` (" + elements + " of " + std::to_string(count) + ")";
    return "a thread wrote before the start of `" + buffer + "` (" + elements + "; the first is element 0)";
}

}  // namespace cp
