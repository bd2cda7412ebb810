// Per-line memory figures of a recorded run: warp-level requests, 32-byte sectors, shared-memory bank
// conflicts and active lanes, from a list of single-thread accesses (memory_figures.h).
#include "core/engine/memory_figures.h"
#include "core/engine/memory_figures_reference.h"

#include <algorithm>
#include <bit>
#include <map>
#include <tuple>
#include <unordered_map>

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

// Adds one warp-level request (its lanes) to the figures of its site and kind, `out`'s last entry or a new one.
void add_request(std::vector<MemoryFigures>& out, const std::vector<const MemoryAccess*>& lanes,
                 std::vector<uint64_t>& scratch) {
    const MemoryAccess& first = *lanes.front();
    if (out.empty() || out.back().site != first.site || out.back().space != first.space ||
        out.back().store != first.store) {
        MemoryFigures f;
        f.site = first.site;
        f.space = first.space;
        f.store = first.store;
        out.push_back(f);
    }
    MemoryFigures& f = out.back();
    f.requests += 1;
    f.active_lanes += lanes.size();
    if (first.space == MemorySpace::Global) {
        uint64_t bytes = 0;
        for (const MemoryAccess* a : lanes) bytes += a->size;
        f.sectors += distinct_sectors(lanes, scratch);
        f.ideal_sectors += (bytes + kSectorBytes - 1) / kSectorBytes;
    } else {
        f.bank_conflicts += bank_conflicts(lanes, scratch);
    }
}

}  // namespace

std::vector<MemoryFigures> memory_figures(const std::vector<MemoryAccess>& accesses) {
    // The same grouping as memory_figures_reference, faster for a recording's millions of accesses (a 4 M-access
    // CUDA log took about 0.75 s there): the group (site, space, store, block, warp) packed into one 64-bit key,
    // sites by their rank among the distinct sites, and a stable radix sort over the key's bytes that vary. Each
    // group's accesses are then in the order they came, so a lane's k-th at the site is found by counting.
    const size_t n = accesses.size();
    if (n == 0 || n >= (size_t(1) << 32)) return memory_figures_reference(accesses);
    std::unordered_map<uint64_t, uint32_t> rank;
    uint64_t last_site = accesses[0].site, max_block = 0;
    uint32_t max_warp = 0;
    rank.emplace(last_site, 0);
    for (const MemoryAccess& a : accesses) {
        if (a.site != last_site) {
            rank.emplace(a.site, 0);
            last_site = a.site;
        }
        max_block = std::max(max_block, a.block);
        max_warp = std::max(max_warp, a.thread / kWarpSize);
    }
    std::vector<uint64_t> sites;
    sites.reserve(rank.size());
    for (const auto& [site, r] : rank) sites.push_back(site);
    std::sort(sites.begin(), sites.end());
    for (size_t i = 0; i < sites.size(); ++i) rank[sites[i]] = uint32_t(i);
    const int block_bits = std::bit_width(max_block), warp_bits = std::bit_width(max_warp);
    const int rank_bits = std::bit_width(uint64_t(sites.size() - 1));
    if (rank_bits + 2 + block_bits + warp_bits > 64) return memory_figures_reference(accesses);

    struct Keyed {
        uint64_t key;
        uint32_t index;
        uint32_t lane;  // in what would be padding: the grouping below need not reach back into `accesses`
    };
    std::vector<Keyed> keyed(n), other(n);
    uint64_t varying = 0;
    {
        uint64_t site = accesses[0].site, site_rank = rank[site];
        for (size_t i = 0; i < n; ++i) {
            const MemoryAccess& x = accesses[i];
            if (x.site != site) {
                site = x.site;
                site_rank = rank[site];
            }
            uint64_t key = (site_rank << 2) | (uint64_t(x.space) << 1) | uint64_t(x.store);
            key = (key << block_bits) | x.block;
            key = (key << warp_bits) | (x.thread / kWarpSize);
            keyed[i] = Keyed{key, uint32_t(i), x.thread % kWarpSize};
            varying |= key ^ keyed[0].key;
        }
    }
    // Least significant byte first; each pass stable, so equal keys keep the accesses' order.
    for (int shift = 0; shift < 64; shift += 8) {
        if (((varying >> shift) & 0xFF) == 0) continue;
        size_t count[257] = {};
        for (const Keyed& k : keyed) ++count[((k.key >> shift) & 0xFF) + 1];
        for (int b = 0; b < 256; ++b) count[b + 1] += count[b];
        for (const Keyed& k : keyed) other[count[(k.key >> shift) & 0xFF]++] = k;
        keyed.swap(other);
    }

    std::vector<MemoryFigures> out;
    std::vector<const MemoryAccess*> lanes;
    std::vector<uint64_t> scratch;
    std::vector<uint32_t> k_of;  // per entry of the group: the lane's earlier accesses at this site
    std::vector<uint32_t> starts;
    std::vector<const MemoryAccess*> by_k;
    for (size_t group = 0; group < n;) {
        size_t group_end = group + 1;
        while (group_end < n && keyed[group_end].key == keyed[group].key) ++group_end;
        uint32_t seen[kWarpSize] = {};
        uint32_t max_k = 0;
        k_of.resize(group_end - group);
        for (size_t i = group; i < group_end; ++i) {
            const uint32_t k = seen[keyed[i].lane]++;
            k_of[i - group] = k;
            max_k = std::max(max_k, k);
        }
        if (max_k == 0) {  // each lane once: one request (the common case, a site outside any loop)
            lanes.clear();
            for (size_t i = group; i < group_end; ++i) lanes.push_back(&accesses[keyed[i].index]);
            add_request(out, lanes, scratch);
        } else {  // a loop's iterations: the entries bucketed by k, in order
            starts.assign(max_k + 2, 0);
            for (uint32_t k : k_of) ++starts[k + 1];
            for (uint32_t k = 0; k <= max_k; ++k) starts[k + 1] += starts[k];
            by_k.resize(k_of.size());
            std::vector<uint32_t> at(starts.begin(), starts.end() - 1);
            for (size_t i = group; i < group_end; ++i) by_k[at[k_of[i - group]]++] = &accesses[keyed[i].index];
            for (uint32_t k = 0; k <= max_k; ++k) {
                lanes.assign(by_k.begin() + starts[k], by_k.begin() + starts[k + 1]);
                add_request(out, lanes, scratch);
            }
        }
        group = group_end;
    }
    return out;
}

std::vector<MemoryFigures> memory_figures_reference(const std::vector<MemoryAccess>& accesses) {
    // One sort of plain keys beside the index (no hashing, no indirection in the comparisons): by site, space,
    // store, block, warp, then thread and the thread's order. A warp's accesses at a site are then adjacent, each
    // thread's in the order it made them, so the k-th of each lane is found by counting.
    struct Keyed {
        uint64_t a, b;
        uint32_t t;  // thread, then k
        uint32_t c;  // the index: equal keys keep the threads' order
        bool operator<(const Keyed& o) const {
            return a != o.a ? a < o.a : b != o.b ? b < o.b : t != o.t ? t < o.t : c < o.c;
        }
    };
    const size_t n = accesses.size();
    std::vector<Keyed> keyed(n);
    for (size_t i = 0; i < n; ++i) {
        const MemoryAccess& x = accesses[i];
        keyed[i] = Keyed{x.site,
                         (uint64_t(x.space) << 63) | (uint64_t(x.store) << 62) | ((x.block & 0xFFFFFFFFull) << 26) |
                             (uint64_t(x.thread / kWarpSize) & 0x3FFFFFF),
                         x.thread, uint32_t(i)};
    }
    std::sort(keyed.begin(), keyed.end());

    std::vector<MemoryFigures> out;
    std::vector<const MemoryAccess*> lanes;
    std::vector<uint64_t> scratch;
    for (size_t group = 0; group < n;) {
        // One warp at one site: [group, group_end). k per entry, then its requests in order of k.
        size_t group_end = group;
        while (group_end < n && keyed[group_end].a == keyed[group].a && keyed[group_end].b == keyed[group].b)
            ++group_end;
        for (size_t i = group, run = group; i < group_end; ++i) {
            // (keyed[].t is overwritten by k as it goes: the thread comes from the access itself)
            if (accesses[keyed[i].c].thread != accesses[keyed[run].c].thread) run = i;
            keyed[i].t = uint32_t(i - run);  // k: this lane's earlier accesses at this site
        }
        std::stable_sort(keyed.begin() + group, keyed.begin() + group_end,
                         [](const Keyed& x, const Keyed& y) { return x.t < y.t; });
        for (size_t at = group; at < group_end;) {
            size_t end = at;
            lanes.clear();
            for (; end < group_end && keyed[end].t == keyed[at].t; ++end) lanes.push_back(&accesses[keyed[end].c]);
            at = end;
            add_request(out, lanes, scratch);
        }
        group = group_end;
    }
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
