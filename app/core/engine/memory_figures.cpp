// Per-line memory figures of a recorded run: warp-level requests, 32-byte sectors, shared-memory bank
// conflicts and active lanes, from a list of single-thread accesses (memory_figures.h).
#include "core/engine/memory_figures.h"

#include <algorithm>
#include <map>
#include <tuple>

namespace cp {

const char* memory_space_name(MemorySpace space) {
    return space == MemorySpace::Shared ? "shared" : "global";
}

namespace {

constexpr uint64_t kSectorBytes = 32;
constexpr uint32_t kWarpSize = 32;
constexpr uint32_t kBanks = 32;

// Distinct 32-byte sectors under the lanes' [address, address + size) ranges.
uint64_t distinct_sectors(const std::vector<const MemoryAccess*>& lanes, std::vector<uint64_t>& scratch) {
    scratch.clear();
    for (const MemoryAccess* a : lanes) {
        if (!a->size) continue;
        for (uint64_t s = a->address / kSectorBytes; s <= (a->address + a->size - 1) / kSectorBytes; ++s)
            scratch.push_back(s);
    }
    std::sort(scratch.begin(), scratch.end());
    return uint64_t(std::unique(scratch.begin(), scratch.end()) - scratch.begin());
}

// Wavefronts beyond the least a shared-memory request needs. The 32 banks are 4 bytes wide (bank = (address / 4)
// % 32); lanes that touch the same 32-bit word are served together (broadcast), so a phase takes as many
// wavefronts as the largest number of distinct words any one bank holds. Accesses wider than 4 bytes are served
// in phases, as the CUDA Programming Guide documents for 64-bit accesses (one half-warp after the other) and as
// the hardware does for 128-bit ones (a quarter-warp at a time): lanes 0-15 and 16-31 for 8 bytes, 0-7, 8-15,
// ... for 16 bytes. The conflicts are the sum over phases with active lanes of (wavefronts - 1): a conflict-free
// 8-byte request takes its 2 phases and counts 0.
uint64_t bank_conflicts(const std::vector<const MemoryAccess*>& lanes, std::vector<uint64_t>& words) {
    uint32_t widest = 0;
    for (const MemoryAccess* a : lanes) widest = std::max(widest, a->size);
    const uint32_t words_per_lane = std::max<uint32_t>(1, (widest + 3) / 4);
    uint32_t phase_lanes = kWarpSize;
    while (phase_lanes > 1 && phase_lanes * words_per_lane > kBanks) phase_lanes /= 2;
    uint64_t conflicts = 0;
    for (uint32_t phase = 0; phase < kWarpSize / phase_lanes; ++phase) {
        words.clear();
        for (const MemoryAccess* a : lanes) {
            if ((a->thread % kWarpSize) / phase_lanes != phase) continue;
            const uint64_t last = a->size ? a->address + a->size - 1 : a->address;
            for (uint64_t w = a->address / 4; w <= last / 4; ++w) words.push_back(w);
        }
        if (words.empty()) continue;  // no active lane in this phase: no wavefront
        std::sort(words.begin(), words.end());
        words.erase(std::unique(words.begin(), words.end()), words.end());
        uint32_t per_bank[kBanks] = {};
        uint32_t wavefronts = 0;
        for (uint64_t w : words) wavefronts = std::max(wavefronts, ++per_bank[w % kBanks]);
        conflicts += wavefronts - 1;
    }
    return conflicts;
}

}  // namespace

namespace {

// The indices of `accesses` grouped by block, in block order, each block's in their order in `accesses` (each
// thread's accesses stay in the order it made them). A counting sort when the blocks' numbers are not much
// sparser than the accesses (a recording's blocks are 0 .. blocks_recorded), else a stable sort.
std::vector<uint32_t> grouped_by_block(const std::vector<MemoryAccess>& accesses) {
    const size_t n = accesses.size();
    std::vector<uint32_t> order(n);
    uint64_t lowest = UINT64_MAX, highest = 0;
    for (const MemoryAccess& a : accesses) lowest = std::min(lowest, a.block), highest = std::max(highest, a.block);
    if (n && highest - lowest < uint64_t(n) * 4 + 1024) {
        std::vector<uint32_t> start(size_t(highest - lowest) + 2, 0);
        for (const MemoryAccess& a : accesses) ++start[size_t(a.block - lowest) + 1];
        for (size_t b = 1; b < start.size(); ++b) start[b] += start[b - 1];
        for (size_t i = 0; i < n; ++i) order[start[size_t(accesses[i].block - lowest)]++] = uint32_t(i);
    } else {
        for (size_t i = 0; i < n; ++i) order[i] = uint32_t(i);
        std::stable_sort(order.begin(), order.end(),
                         [&](uint32_t x, uint32_t y) { return accesses[x].block < accesses[y].block; });
    }
    return order;
}

}  // namespace

std::vector<MemoryFigures> memory_figures(const std::vector<MemoryAccess>& accesses) {
    // A request is the k-th access of each lane of one block's warp at one site and kind (space, load/store).
    // A request never spans blocks: the accesses are grouped by block first, then each block's are bucketed
    // without comparisons (a recording's block holds up to a few hundred thousand accesses, which a sort
    // took most of the figures' time over): each access gets its site's index in the block, its k (the
    // thread's earlier accesses there, counted in order: each thread's accesses are in the order it made
    // them) and its group (site, warp); a counting sort by group, then by k within a group, puts every
    // request's lanes together. Every figure is a sum over requests, so the blocks' figures add up per
    // (site, space, store), and the order of lanes within a request changes no count.
    using SiteKey = std::tuple<uint64_t, uint8_t, bool>;
    const std::vector<uint32_t> order = grouped_by_block(accesses);
    const size_t n = order.size();
    std::map<SiteKey, MemoryFigures> totals;  // sorted as the result is: site, space, loads before stores
    std::map<SiteKey, uint32_t> site_index;   // this block's sites, numbered as found
    std::vector<MemoryFigures*> site_totals;  // per site index
    std::vector<uint32_t> site_of, k_of, group_of, counter, start, by_group, by_k;
    std::vector<const MemoryAccess*> lanes;
    std::vector<uint64_t> scratch;
    for (size_t block_start = 0; block_start < n;) {
        const uint64_t block = accesses[order[block_start]].block;
        size_t block_end = block_start;
        while (block_end < n && accesses[order[block_end]].block == block) ++block_end;
        const uint32_t* mine = order.data() + block_start;
        const size_t m = block_end - block_start;
        block_start = block_end;

        // The sites, and the threads' and warps' counts.
        site_index.clear();
        site_totals.clear();
        site_of.resize(m);
        uint32_t last_thread = 0;
        uint32_t last_site = 0;
        for (size_t i = 0; i < m; ++i) {
            const MemoryAccess& a = accesses[mine[i]];
            last_thread = std::max(last_thread, a.thread);
            const SiteKey key{a.site, uint8_t(a.space), a.store};
            if (site_totals.empty() || i == 0 || accesses[mine[i - 1]].site != a.site ||
                accesses[mine[i - 1]].space != a.space || accesses[mine[i - 1]].store != a.store) {
                const auto [it, added] = site_index.try_emplace(key, uint32_t(site_totals.size()));
                if (added) {
                    MemoryFigures& f = totals[key];
                    f.site = a.site;
                    f.space = a.space;
                    f.store = a.store;
                    site_totals.push_back(&f);
                }
                last_site = it->second;
            }
            site_of[i] = last_site;
        }
        const size_t sites = site_totals.size(), threads = size_t(last_thread) + 1;
        const size_t warps = threads / kWarpSize + 1, groups = sites * warps;

        // k and the group of each access.
        counter.assign(sites * threads, 0);
        k_of.resize(m);
        group_of.resize(m);
        for (size_t i = 0; i < m; ++i) {
            const MemoryAccess& a = accesses[mine[i]];
            k_of[i] = counter[site_of[i] * threads + a.thread]++;
            group_of[i] = uint32_t(site_of[i] * warps + a.thread / kWarpSize);
        }
        // By group (stable).
        start.assign(groups + 1, 0);
        for (size_t i = 0; i < m; ++i) ++start[group_of[i] + 1];
        for (size_t g = 0; g < groups; ++g) start[g + 1] += start[g];
        by_group.resize(m);
        for (size_t i = 0; i < m; ++i) by_group[start[group_of[i]]++] = uint32_t(i);
        // (start[g] is now the end of group g.)
        for (size_t g = 0, from = 0; g < groups; from = start[g], ++g) {
            const size_t to = start[g];
            if (from == to) continue;
            // By k within the group: its requests in order.
            uint32_t k_last = 0;
            for (size_t j = from; j < to; ++j) k_last = std::max(k_last, k_of[by_group[j]]);
            counter.assign(size_t(k_last) + 2, 0);
            for (size_t j = from; j < to; ++j) ++counter[k_of[by_group[j]] + 1];
            for (size_t k = 0; k <= k_last; ++k) counter[k + 1] += counter[k];
            by_k.resize(to - from);
            for (size_t j = from; j < to; ++j) by_k[counter[k_of[by_group[j]]]++] = by_group[j];
            MemoryFigures& f = *site_totals[g / warps];
            for (size_t at = 0; at < by_k.size();) {
                const uint32_t k = k_of[by_k[at]];
                lanes.clear();
                for (; at < by_k.size() && k_of[by_k[at]] == k; ++at) lanes.push_back(&accesses[mine[by_k[at]]]);
                f.requests += 1;
                f.active_lanes += lanes.size();
                if (f.space == MemorySpace::Global) {
                    uint64_t bytes = 0;
                    for (const MemoryAccess* a : lanes) bytes += a->size;
                    f.sectors += distinct_sectors(lanes, scratch);
                    f.ideal_sectors += (bytes + kSectorBytes - 1) / kSectorBytes;
                } else {
                    f.bank_conflicts += bank_conflicts(lanes, scratch);
                }
            }
        }
    }
    std::vector<MemoryFigures> out;
    out.reserve(totals.size());
    for (auto& [key, f] : totals) out.push_back(f);
    return out;
}

std::vector<MemoryFigures> merge_memory_figures(const std::vector<MemoryFigures>& figures) {
    std::map<std::tuple<int, uint8_t, bool>, MemoryFigures> merged;
    for (const MemoryFigures& f : figures) {
        MemoryFigures& m = merged[{f.line, uint8_t(f.space), f.store}];
        if (!m.requests && !m.active_lanes) {
            m.line = f.line;
            m.space = f.space;
            m.store = f.store;
            m.site = f.site;
        }
        m.requests += f.requests;
        m.sectors += f.sectors;
        m.ideal_sectors += f.ideal_sectors;
        m.bank_conflicts += f.bank_conflicts;
        m.active_lanes += f.active_lanes;
    }
    std::vector<MemoryFigures> out;
    for (auto& [key, f] : merged) out.push_back(f);
    return out;
}

std::vector<WarpSiteDetail> warp_details(const std::vector<MemoryAccess>& accesses, const std::vector<WarpId>& warps) {
    std::vector<WarpSiteDetail> out;
    std::vector<const MemoryAccess*> mine;
    std::vector<uint64_t> scratch;
    for (size_t w = 0; w < warps.size(); ++w) {
        const WarpId id = warps[w];
        if (std::find(warps.begin(), warps.begin() + w, id) != warps.begin() + w) continue;  // asked twice
        mine.clear();
        for (const MemoryAccess& a : accesses)
            if (a.block == id.block && a.thread / kWarpSize == id.warp) mine.push_back(&a);
        // Stable: each thread's accesses at a site stay in the order it made them, so the k-th is found by counting.
        std::stable_sort(mine.begin(), mine.end(), [](const MemoryAccess* x, const MemoryAccess* y) {
            return std::tuple(x->site, uint8_t(x->space), x->store) < std::tuple(y->site, uint8_t(y->space), y->store);
        });
        for (size_t group = 0; group < mine.size();) {
            const MemoryAccess& first = *mine[group];
            size_t end = group;
            while (end < mine.size() && mine[end]->site == first.site && mine[end]->space == first.space &&
                   mine[end]->store == first.store)
                ++end;
            WarpSiteDetail d;
            d.warp = id;
            d.site = first.site;
            d.space = first.space;
            d.store = first.store;
            std::vector<std::vector<const MemoryAccess*>> lanes;  // per request
            uint32_t seen[kWarpSize] = {};
            for (size_t i = group; i < end; ++i) {
                const uint32_t lane = mine[i]->thread % kWarpSize;
                const uint32_t k = seen[lane]++;
                d.requests_total = std::max<uint64_t>(d.requests_total, k + 1);
                if (k >= kMaxDetailRequests) continue;
                if (k >= lanes.size()) lanes.resize(k + 1);
                lanes[k].push_back(mine[i]);
            }
            for (const auto& request : lanes) {
                WarpRequest r;
                uint64_t bytes = 0;
                for (const MemoryAccess* a : request) {
                    const uint32_t lane = a->thread % kWarpSize;
                    r.active |= 1u << lane;
                    r.address[lane] = a->address;
                    r.size[lane] = a->size;
                    bytes += a->size;
                }
                if (d.space == MemorySpace::Global) {
                    r.sectors = distinct_sectors(request, scratch);
                    r.ideal_sectors = (bytes + kSectorBytes - 1) / kSectorBytes;
                } else {
                    r.bank_conflicts = bank_conflicts(request, scratch);
                }
                d.requests.push_back(r);
            }
            out.push_back(std::move(d));
            group = end;
        }
    }
    return out;
}

std::vector<WarpSiteDetail> merge_warp_details(const std::vector<WarpSiteDetail>& details) {
    std::vector<WarpId> order;  // warps in first-seen order
    for (const WarpSiteDetail& d : details)
        if (std::find(order.begin(), order.end(), d.warp) == order.end()) order.push_back(d.warp);
    std::vector<WarpSiteDetail> out;
    for (const WarpId& w : order) {
        std::map<std::tuple<int, uint8_t, bool>, WarpSiteDetail> merged;
        for (const WarpSiteDetail& d : details) {
            if (!(d.warp == w)) continue;
            auto [it, fresh] = merged.try_emplace({d.line, uint8_t(d.space), d.store}, d);
            if (fresh) continue;
            WarpSiteDetail& m = it->second;
            m.requests_total += d.requests_total;
            for (const WarpRequest& r : d.requests)
                if (m.requests.size() < kMaxDetailRequests) m.requests.push_back(r);
        }
        for (auto& [key, d] : merged) out.push_back(std::move(d));
    }
    return out;
}

void map_recording_lines(MemoryRecording& recording, const std::function<int(uint64_t site)>& line_of) {
    std::map<uint64_t, int> lines;  // a site's line, asked once (the CPU backend's is an addr2line)
    const auto line = [&](uint64_t site) {
        const auto [it, added] = lines.emplace(site, 0);
        if (added) it->second = line_of(site);
        return it->second;
    };
    for (MemoryFigures& f : recording.figures) f.line = line(f.site);
    recording.figures = merge_memory_figures(recording.figures);
    for (WarpSiteDetail& d : recording.warps) d.line = line(d.site);
    recording.warps = merge_warp_details(recording.warps);
}

std::string memory_recording_note(const MemoryRecording& r) {
    std::string note = "every global and shared load and store of ";
    if (r.capped)
        note += "the first " + std::to_string(r.blocks_recorded) + " of " + std::to_string(r.blocks_total) +
                " blocks (the cap of " + std::to_string(r.access_cap) + " recorded accesses was reached)";
    else
        note += "all " + std::to_string(r.blocks_total) + (r.blocks_total == 1 ? " block" : " blocks");
    note += ": " + std::to_string(r.accesses) + " accesses";
    return note;
}

}  // namespace cp
