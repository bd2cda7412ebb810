// Per-line memory figures of a recorded run (issue 23): from every global and shared load/store a kernel's
// threads made, the warp-level requests per access site, the 32-byte sectors they touch and the shared-memory
// bank conflicts, as a GPU's load/store unit would count them.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace cp {

enum class MemorySpace : uint8_t { Global = 0, Shared = 1 };
const char* memory_space_name(MemorySpace space);  // "global" | "shared"

// One load or store by one thread, in the order that thread made them.
struct MemoryAccess {
    uint64_t block = 0;   // linear block index: x + grid.x * (y + grid.y * z)
    uint32_t thread = 0;  // linear thread index in the block (warp = thread / 32, lane = thread % 32)
    uint64_t site = 0;    // where in the code: an instruction's offset, or a source line (one per access site)
    uint64_t address = 0;
    uint32_t size = 0;  // bytes
    MemorySpace space = MemorySpace::Global;
    bool store = false;
};

// Totals for one access site and kind (space, load or store). Every field adds up, so figures of several
// sites on one source line merge by summing (merge_memory_figures).
struct MemoryFigures {
    uint64_t site = 0;  // as in MemoryAccess
    int line = 0;       // the source line, once the site is mapped (0: not known)
    MemorySpace space = MemorySpace::Global;
    bool store = false;
    uint64_t requests = 0;        // warp-level requests
    uint64_t sectors = 0;         // global: distinct 32-byte sectors per request, summed
    uint64_t ideal_sectors = 0;   // global: ceil(bytes of the request / 32), summed (fully coalesced, aligned)
    uint64_t bank_conflicts = 0;  // shared: wavefronts beyond the least the request needs, summed
    uint64_t active_lanes = 0;    // lanes taking part, summed over requests
    double active_lanes_mean() const { return requests ? double(active_lanes) / double(requests) : 0.0; }
    double sectors_per_request() const { return requests ? double(sectors) / double(requests) : 0.0; }
    double ideal_per_request() const { return requests ? double(ideal_sectors) / double(requests) : 0.0; }
};

// Groups `accesses` into warp-level requests: the accesses of one block's warp at one site that are each
// lane's k-th at that site (a loop's iterations are separate requests), and counts them per (site, space,
// load/store). Sorted by site, then space, then loads before stores.
std::vector<MemoryFigures> memory_figures(const std::vector<MemoryAccess>& accesses);

// Figures with the same line, space and kind summed into one (sites already mapped to `line`), sorted by line.
std::vector<MemoryFigures> merge_memory_figures(const std::vector<MemoryFigures>& figures);

// What a recording run recorded, for the report.
struct MemoryRecording {
    uint64_t accesses = 0;    // accesses counted (those of the blocks recorded)
    uint64_t access_cap = 0;  // at most this many are kept
    bool capped = false;      // the cap was reached: only the first `blocks_recorded` blocks count
    uint64_t blocks_recorded = 0;
    uint64_t blocks_total = 0;
    double ms = 0;                       // the recording launch's time
    std::vector<MemoryFigures> figures;  // per site from the worker; per line once the backend mapped them
};

// "all 8 blocks, 1234 accesses" / "the first 3 of 40 blocks (the cap of N accesses was reached)".
std::string memory_recording_note(const MemoryRecording& recording);

}  // namespace cp
