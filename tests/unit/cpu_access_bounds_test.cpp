// The table behind the CPU backend's per-access bounds check (access_bounds.h): which 8-byte groups a guarded
// buffer's edges mark in the shadow, that they are cleared when it goes, and that the exact check passes
// every access inside a buffer and (outside a launch) returns for those outside.
#include "core/cpu/access_bounds.h"
#include "core/cpu/guarded_memory.h"

#include <gtest/gtest.h>

#include <unistd.h>

namespace cp::test {
namespace {

#if defined(__x86_64__)
unsigned char shadow_of(uintptr_t address) {
    return reinterpret_cast<const unsigned char*>(cp_abi::kBoundsShadowOffset)[address >> 3];
}

TEST(CpuAccessBounds, EdgesOfAGuardedBufferAreMarkedAndClearedWhenItGoes) {
    ASSERT_NE(bounds_map(), nullptr) << "the shadow's address range is taken in this process";
    const uintptr_t page = uintptr_t(::sysconf(_SC_PAGESIZE));
    for (const uint64_t bytes : {uint64_t(4004), uint64_t(2997), uint64_t(3 * 4096 + 12), uint64_t(8192)}) {
        for (const size_t align : {size_t(1), size_t(16)}) {
            SCOPED_TRACE(std::to_string(bytes) + " bytes, start aligned " + std::to_string(align));
            uintptr_t data = 0, end = 0;
            {
                auto b = GuardedBuffer::allocate(bytes, align);
                ASSERT_TRUE(b.ok());
                data = reinterpret_cast<uintptr_t>(b->data());
                end = data + bytes;
                const uintptr_t first_page = data / page * page, tail_end = (end + page - 1) / page * page;
                // Every 8-byte group holding a byte before the start (in its page) or after the end is marked;
                // groups wholly inside the buffer are not.
                for (uintptr_t a = first_page; a < tail_end; a += 8) {
                    const bool outside_bytes = a < data || a + 8 > end;
                    EXPECT_EQ(shadow_of(a) != 0, outside_bytes) << "group at byte " << int64_t(a - data);
                }
                // The exact check passes accesses inside, at both edges.
                bounds_check(data, 1, 0, nullptr);
                bounds_check(end - 1, 1, 1, nullptr);
                bounds_check(data, bytes < 16 ? bytes : 16, 0, nullptr);
                // Outside a launch (no trap armed) an access outside returns instead of ending anything.
                if (data > first_page) bounds_check(data - 1, 1, 0, nullptr);
            }
            for (uintptr_t a = data / page * page; a < (end + page - 1) / page * page; a += 8)
                ASSERT_EQ(shadow_of(a), 0) << "cleared when the buffer is unmapped, at byte " << int64_t(a - data);
        }
    }
}
#endif

}  // namespace
}  // namespace cp::test
