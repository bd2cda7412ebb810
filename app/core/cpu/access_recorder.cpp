// The CPU backend's recorder of memory accesses: which accesses count (global, shared), the cap, and the
// figures at the end (access_recorder.h).
#include "core/cpu/access_recorder.h"

#include "core/cpu/debug_recorder.h"

#include <sys/mman.h>

#include <algorithm>
#include <atomic>
#include <memory>
#include <new>

namespace cp {
namespace {

struct RawAccess {
    uint64_t address;  // normalised: memory_region_base + offset in its region
    uint64_t site;
    uint32_t block;  // linear; a recording of more than 2^32 blocks stops at the cap long before
    uint32_t thread;
    uint32_t size;
    uint8_t space;
    uint8_t store;
};

// One recording at a time; `active` is read on every access by every worker thread, the rest is written
// before it is set (release) and read after it is seen (acquire).
std::atomic<bool> active{false};
RecordingLaunch launch;
std::unique_ptr<RawAccess[]> kept;
// Each worker thread takes the buffer kChunk slots at a time (one atomic add per chunk, not per access: on every
// access it made the threads fight over one cache line, most of a recording launch's time) and fills its chunk
// in the order its CUDA threads make their accesses; `chunk_used[c]` says how much of chunk c it filled (written
// only by that thread, on a cache line of its own, read once the launch has ended). At the cap, up to a chunk per
// worker thread is left unfilled: the cap counts slots handed out.
constexpr uint64_t kChunk = 4096;
struct alignas(64) ChunkUsed {
    uint32_t n;
};
std::unique_ptr<ChunkUsed[]> chunk_used;
std::atomic<uint64_t> next{0};  // the next chunk's first slot
uint64_t generation = 0;        // of the recording: a thread's chunk from an earlier one is not used
struct ThreadChunk {
    uint64_t generation = 0, at = 0, end = 0;  // the slots [at, end) are this thread's to fill
};
thread_local ThreadChunk thread_chunk;
// The lowest block that lost an access to the cap: blocks from it on do not count.
std::atomic<uint64_t> first_dropped{UINT64_MAX};

// Addresses are kept as offsets into their region (a buffer, the dynamic shared memory, a static __shared__
// array) on memory_region_base (memory_figures.h): the CPU backend's starts are not as aligned as a GPU's (a
// guarded buffer ends at its guard page, so it starts only as aligned as its size allows).

// A recording's buffers are large (4 M accesses: 128 MB kept, 160 MB of MemoryAccess) and fresh: page by page,
// faulting them in cost about a quarter of a recording's time. Transparent huge pages (where the system gives
// them on request) take a fault per 2 MB instead. Only a hint: untouched memory, nothing changes if refused.
void prefer_huge_pages(const void* data, size_t bytes) {
    constexpr uintptr_t kHuge = uintptr_t(2) << 20;
    const uintptr_t begin = (reinterpret_cast<uintptr_t>(data) + kHuge - 1) & ~(kHuge - 1);
    const uintptr_t end = (reinterpret_cast<uintptr_t>(data) + bytes) & ~(kHuge - 1);
    if (data && end > begin) (void)::madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);
}

bool shared_address(const cp_abi::ThreadState* s, uint64_t address, uint64_t size, uint64_t* normalized) {
    const auto inside = [&](const void* data, uint64_t bytes) {
        const uint64_t start = reinterpret_cast<uint64_t>(data);
        return data && address >= start && address - start < bytes && size <= bytes - (address - start);
    };
    const uint64_t first_region = launch.global.size();
    if (inside(s->dynamic_shared, launch.dynamic_shared_bytes)) {
        *normalized = memory_region_base(first_region) + (address - reinterpret_cast<uint64_t>(s->dynamic_shared));
        return true;
    }
    for (unsigned i = 0; i < s->shared_slot_count; ++i)
        if (inside(s->shared_slots[i].data, s->shared_slots[i].bytes)) {
            *normalized = memory_region_base(first_region + 1 + i) +
                          (address - reinterpret_cast<uint64_t>(s->shared_slots[i].data));
            return true;
        }
    return false;
}

bool global_address(uint64_t address, uint64_t* normalized) {
    // Sorted by start; the last buffer starting at or before the address.
    auto it = std::upper_bound(launch.global.begin(), launch.global.end(), address,
                               [](uint64_t a, const auto& b) { return a < reinterpret_cast<uint64_t>(b.first); });
    if (it == launch.global.begin()) return false;
    --it;
    const uint64_t offset = address - reinterpret_cast<uint64_t>(it->first);
    if (offset >= it->second) return false;
    *normalized = memory_region_base(uint64_t(it - launch.global.begin())) + offset;
    return true;
}

void record(const cp_abi::ThreadState* s, unsigned long long address, unsigned long long size, int is_write,
            const void* pc) {
    if (DebugRecorder* debug = DebugRecorder::target()) {  // the debugger's block (issue 39): its accesses, in order
        debug->access(s, address, size, is_write != 0);
        return;
    }
    if (!active.load(std::memory_order_acquire) || !s) return;
    uint8_t space;
    uint64_t normalized = 0;
    if (shared_address(s, address, size, &normalized))
        space = uint8_t(MemorySpace::Shared);
    else if (global_address(address, &normalized))
        space = uint8_t(MemorySpace::Global);
    else
        return;  // the thread's stack, the library's own variables: not memory a GPU request touches
    const uint64_t block =
        s->block_idx.x + uint64_t(launch.grid.x) * (s->block_idx.y + uint64_t(launch.grid.y) * s->block_idx.z);
    if (block >= first_dropped.load(std::memory_order_relaxed)) return;
    ThreadChunk& c = thread_chunk;
    if (c.generation != generation || c.at == c.end) {
        const uint64_t start = next.fetch_add(kChunk, std::memory_order_relaxed);
        if (start >= launch.cap) {
            c = ThreadChunk{generation, 0, 0};
            uint64_t seen = first_dropped.load(std::memory_order_relaxed);
            while (block < seen && !first_dropped.compare_exchange_weak(seen, block, std::memory_order_relaxed)) {
            }
            return;
        }
        c = ThreadChunk{generation, start, std::min(start + kChunk, launch.cap)};
    }
    const uint64_t at = c.at++;
    chunk_used[at / kChunk].n = uint32_t(at % kChunk + 1);
    kept[at] = RawAccess{normalized,
                         reinterpret_cast<uint64_t>(pc) - launch.load_base,
                         uint32_t(block),
                         s->linear_tid,
                         uint32_t(size),
                         space,
                         uint8_t(is_write ? 1 : 0)};
}

const cp_abi::AccessRecorder recorder_api{&record};

}  // namespace

const cp_abi::AccessRecorder* access_recorder() {
    return &recorder_api;
}

const std::atomic<uint64_t>* access_recording_blocks_end() {
    return &first_dropped;
}

bool begin_access_recording(const RecordingLaunch& l) {
    launch = l;
    std::sort(launch.global.begin(), launch.global.end());
    // Left uninitialised: pages are touched only as accesses are kept.
    kept.reset(new (std::nothrow) RawAccess[launch.cap]);
    chunk_used.reset(new (std::nothrow) ChunkUsed[(launch.cap + kChunk - 1) / kChunk]());
    if (!kept || !chunk_used) {
        kept.reset();
        chunk_used.reset();
        return false;
    }
    prefer_huge_pages(kept.get(), launch.cap * sizeof(RawAccess));
    ++generation;
    next.store(0, std::memory_order_relaxed);
    first_dropped.store(UINT64_MAX, std::memory_order_relaxed);
    active.store(true, std::memory_order_release);
    return true;
}

MemoryRecording end_access_recording() {
    active.store(false, std::memory_order_seq_cst);
    MemoryRecording out;
    out.access_cap = launch.cap;
    out.blocks_total = launch.grid.count();
    const uint64_t dropped_from = first_dropped.load();
    out.capped = dropped_from != UINT64_MAX;
    out.blocks_recorded = out.capped ? dropped_from : out.blocks_total;
    const uint64_t handed_out = std::min(next.load(), launch.cap);
    std::vector<MemoryAccess> accesses;
    accesses.reserve(handed_out);
    prefer_huge_pages(accesses.data(), handed_out * sizeof(MemoryAccess));
    // Chunk by chunk: a thread's chunks are in the order it took them, so each CUDA thread's accesses (one OS
    // thread runs its whole block) stay in the order it made them.
    for (uint64_t first = 0; first < handed_out; first += kChunk)
        for (uint64_t i = first; i < first + chunk_used[first / kChunk].n; ++i) {
            const RawAccess& r = kept[i];
            if (r.block >= out.blocks_recorded) continue;
            accesses.push_back(
                MemoryAccess{r.block, r.thread, r.site, r.address, r.size, MemorySpace(r.space), r.store != 0});
        }
    kept.reset();
    chunk_used.reset();
    out.accesses = accesses.size();
    out.figures = memory_figures(accesses);
    out.warps = warp_details(accesses, launch.warps);
    return out;
}

}  // namespace cp
