// Per-access bounds checks, the backend's side: the shadow that instrumented kernel code tests (one byte per 8
// bytes of address space, reserved without committing memory; only the shadow of buffers' edges is ever
// written), and the exact bounds of the pages at buffers' edges: one 1 MiB array of region pointers and, per
// GiB of address space that holds a guarded buffer, 4 MiB of page entries, also reserved.
#include "core/cpu/access_bounds.h"

#include "core/cpu/fault_trap.h"

#include <sys/mman.h>
#include <algorithm>
#include <cstring>
#include <mutex>

namespace cp {
namespace {

// The part of a page that is its buffer's: [begin, end); end 0 when the page has no entry.
struct BoundsPage {
    uint64_t begin, end;
};
constexpr uint64_t kRegions = uint64_t(1) << 17;  // 1 GiB each: 47 bits of addresses
constexpr unsigned kRegionShift = 30, kPageShift = 12;
constexpr uint64_t kPage = uint64_t(1) << kPageShift;
constexpr uint64_t kPagesPerRegion = uint64_t(1) << (kRegionShift - kPageShift);
constexpr unsigned char kMarked = 0xFA;  // negative as a signed byte: every access to the 8 bytes is checked

std::mutex g_mutex;  // writers only; the kernel code reads without it
const BoundsPage** g_regions = nullptr;
cp_abi::BoundsMap g_map{};
bool g_shadow = false;  // mapped at cp_abi::kBoundsShadowOffset

void* reserve_zeroed(size_t bytes) {
    void* p = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    return p == MAP_FAILED ? nullptr : p;
}

// Under g_mutex. Null when the address is outside the table or no memory is left for it.
BoundsPage* entry_for(uint64_t page, bool create) {
    const uint64_t region = page / kPagesPerRegion;
    if (!g_regions || region >= kRegions) return nullptr;
    const BoundsPage* pages = __atomic_load_n(&g_regions[region], __ATOMIC_ACQUIRE);
    if (!pages) {
        if (!create) return nullptr;
        pages = static_cast<const BoundsPage*>(reserve_zeroed(kPagesPerRegion * sizeof(BoundsPage)));
        if (!pages) return nullptr;
        __atomic_store_n(&g_regions[region], pages, __ATOMIC_RELEASE);
    }
    return const_cast<BoundsPage*>(pages) + page % kPagesPerRegion;
}

// Looked up by the exact check, without the lock (entries change only for buffers being mapped or unmapped).
BoundsPage read_entry(uint64_t page) {
    const uint64_t region = page / kPagesPerRegion;
    if (!g_regions || region >= kRegions) return {};
    const BoundsPage* pages = __atomic_load_n(&g_regions[region], __ATOMIC_ACQUIRE);
    if (!pages) return {};
    const BoundsPage* e = pages + page % kPagesPerRegion;
    return {__atomic_load_n(&e->begin, __ATOMIC_RELAXED), __atomic_load_n(&e->end, __ATOMIC_ACQUIRE)};
}

void set_entry(uint64_t page, uint64_t begin, uint64_t end) {
    if (begin == page * kPage && end == (page + 1) * kPage) return;  // the whole page is the buffer's
    if (BoundsPage* e = entry_for(page, true)) {
        __atomic_store_n(&e->begin, begin, __ATOMIC_RELAXED);
        __atomic_store_n(&e->end, end, __ATOMIC_RELEASE);
    }
}

void clear_entry(uint64_t page) {
    if (BoundsPage* e = entry_for(page, false)) {
        __atomic_store_n(&e->end, uint64_t(0), __ATOMIC_RELEASE);
        __atomic_store_n(&e->begin, uint64_t(0), __ATOMIC_RELAXED);
    }
}

void init_locked() {
    if (g_regions) return;
    g_regions = static_cast<const BoundsPage**>(reserve_zeroed(kRegions * sizeof(void*)));
    g_map.check = bounds_check;
    // At a fixed address: the kernel code's inline test adds it as a constant. Reading an untouched page maps
    // the zero page; nothing is committed until a buffer's edge is marked.
    void* want = reinterpret_cast<void*>(cp_abi::kBoundsShadowOffset);
    void* got = ::mmap(want, cp_abi::kBoundsShadowBytes, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED_NOREPLACE, -1, 0);
    if (got != MAP_FAILED && got != want) ::munmap(got, cp_abi::kBoundsShadowBytes);  // kernels without NOREPLACE
    g_shadow = got == want;
}

// Marks (or clears) the shadow of every 8 bytes that hold any of [from, to).
void mark_shadow(uint64_t from, uint64_t to, unsigned char value) {
    if (!g_shadow || from >= to || (to - 1) >> 47) return;
    unsigned char* shadow = reinterpret_cast<unsigned char*>(cp_abi::kBoundsShadowOffset);
    std::memset(shadow + (from >> 3), value, size_t(((to - 1) >> 3) - (from >> 3) + 1));
}

}  // namespace

void bounds_add(const std::byte* data, uint64_t bytes) {
    if (!data || !bytes) return;
    const uint64_t begin = reinterpret_cast<uintptr_t>(data), end = begin + bytes;
    const uint64_t first = begin / kPage, last = (end - 1) / kPage;
    std::lock_guard<std::mutex> lock(g_mutex);
    init_locked();
    set_entry(first, begin, std::min(end, (first + 1) * kPage));
    if (last != first) set_entry(last, last * kPage, end);
    // The accessible bytes before the start and after the end, in those two pages.
    mark_shadow(first * kPage, begin, kMarked);
    mark_shadow(end, (last + 1) * kPage, kMarked);
}

void bounds_remove(const std::byte* data, uint64_t bytes) {
    if (!data || !bytes) return;
    const uint64_t begin = reinterpret_cast<uintptr_t>(data), end = begin + bytes;
    const uint64_t first = begin / kPage, last = (end - 1) / kPage;
    std::lock_guard<std::mutex> lock(g_mutex);
    clear_entry(first);
    clear_entry(last);
    mark_shadow(first * kPage, begin, 0);
    mark_shadow(end, (last + 1) * kPage, 0);
}

const cp_abi::BoundsMap* bounds_map() {
    std::lock_guard<std::mutex> lock(g_mutex);
    init_locked();
    return g_regions && g_shadow ? &g_map : nullptr;
}

void bounds_check(unsigned long long address, unsigned long long size, int is_write, const void* pc) {
    if (!size) return;
    const uint64_t last = address + size - 1;
    if (last < address) return;  // wraps around: no buffer there
    for (uint64_t page = address / kPage; page <= last / kPage; ++page) {
        const BoundsPage e = read_entry(page);
        if (!e.end) continue;
        const uint64_t lo = std::max<uint64_t>(address, page * kPage),
                       hi = std::min<uint64_t>(last + 1, (page + 1) * kPage);
        // Before the start: where the access starts; past the end: its first byte there (as a guard's fault).
        const uint64_t outside = lo < e.begin ? address : hi > e.end ? std::max<uint64_t>(lo, e.end) : 0;
        if (outside) raise_bounds_fault(uintptr_t(outside), is_write ? 2 : 1, reinterpret_cast<uintptr_t>(pc));
    }
}

}  // namespace cp
