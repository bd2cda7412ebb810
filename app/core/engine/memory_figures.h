// Per-line memory figures of a recorded run (issue 23): from every global and shared load/store a kernel's
// threads made, the warp-level requests per access site, the 32-byte sectors they touch and the shared-memory
// bank conflicts, as a GPU's load/store unit would count them.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace cp {

enum class MemorySpace : uint8_t { Global = 0, Shared = 1 };
const char* memory_space_name(MemorySpace space);  // "global" | "shared"

// Addresses in a recording count from the start of the region they fall in (a buffer, the shared memory), on a
// base of (region + 1) << 40: as aligned as a GPU's allocations (256 bytes for cudaMalloc; shared arrays at least
// 128 bytes, the 32 banks' width), so sectors and banks are those a GPU sees for the same offsets, on either
// backend. The offset in the region is the low 40 bits.
constexpr uint64_t memory_region_base(uint64_t region) { return (region + 1) << 40; }
constexpr uint64_t memory_region_offset(uint64_t address) { return address & ((uint64_t(1) << 40) - 1); }

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

// One warp of a launch: the warp picture (issue 23) shows its requests lane by lane.
struct WarpId {
    uint64_t block = 0;  // linear block index, as in MemoryAccess
    uint32_t warp = 0;   // in the block: thread / 32
    bool operator==(const WarpId&) const = default;
};

// One warp-level request, lane by lane, with the counts memory_figures() adds up for it.
struct WarpRequest {
    uint32_t active = 0;                 // bit l: lane l took part (the others diverged, or had exited)
    std::array<uint64_t, 32> address{};  // per lane, as in MemoryAccess (0 where not active)
    std::array<uint32_t, 32> size{};     // bytes per lane (0 where not active)
    uint64_t sectors = 0;                // global: distinct 32-byte sectors
    uint64_t ideal_sectors = 0;          // global: ceil(bytes / 32)
    uint64_t bank_conflicts = 0;         // shared: wavefronts beyond the least
};

// One kept warp's requests at one site and kind, in the order the warp made them.
struct WarpSiteDetail {
    WarpId warp;
    uint64_t site = 0;
    int line = 0;  // the source line, once the site is mapped
    MemorySpace space = MemorySpace::Global;
    bool store = false;
    uint64_t requests_total = 0;  // all of them; `requests` keeps the first kMaxDetailRequests
    std::vector<WarpRequest> requests;
};

// A loop of many iterations at one site would make the detail as large as the recording: the first ones show it.
inline constexpr size_t kMaxDetailRequests = 256;

// The requests of the `warps` asked for, lane by lane, grouped as memory_figures() groups them (one per site,
// space and kind; a lane's k-th access at a site is in the k-th request). Sorted by warp (in `warps` order), then
// as memory_figures(). Warps that made no access are absent.
std::vector<WarpSiteDetail> warp_details(const std::vector<MemoryAccess>& accesses, const std::vector<WarpId>& warps);

// Details of one warp with the same line, space and kind joined (sites already mapped to `line`): the requests of
// the earlier site first. Sorted by warp (first-seen order), then line.
std::vector<WarpSiteDetail> merge_warp_details(const std::vector<WarpSiteDetail>& details);

// What a recording run recorded, for the report.
struct MemoryRecording {
    uint64_t accesses = 0;    // accesses counted (those of the blocks recorded)
    uint64_t access_cap = 0;  // at most this many are kept
    bool capped = false;      // the cap was reached: only the first `blocks_recorded` blocks count
    uint64_t blocks_recorded = 0;
    uint64_t blocks_total = 0;
    double ms = 0;                       // the recording launch's time
    std::vector<MemoryFigures> figures;  // per site from the worker; per line once the backend mapped them
    std::vector<WarpSiteDetail> warps;   // the warps LaunchRequest::memory_warps asked for, lane by lane
};

// Every site of `recording` (its figures and kept warps) mapped to its source line by `line_of` (asked once per
// site; 0: not known), then a line's sites joined (merge_memory_figures, merge_warp_details).
void map_recording_lines(MemoryRecording& recording, const std::function<int(uint64_t site)>& line_of);

// "all 8 blocks, 1234 accesses" / "the first 3 of 40 blocks (the cap of N accesses was reached)".
std::string memory_recording_note(const MemoryRecording& recording);

}  // namespace cp
