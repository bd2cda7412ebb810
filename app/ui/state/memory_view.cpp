// The memory view's words and pictures (memory_view.h): gutter text per access line, a request's cells.
#include "ui/state/memory_view.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <map>

namespace cp::ui {
namespace {

// "4", "2.5": a mean that is often whole.
std::string number(double v) {
    char s[32];
    if (std::fabs(v - std::round(v)) < 0.05)
        std::snprintf(s, sizeof s, "%.0f", v);
    else
        std::snprintf(s, sizeof s, "%.1f", v);
    return s;
}

double global_ratio(const MemoryFigures& f) {
    return f.ideal_sectors ? double(f.sectors) / double(f.ideal_sectors) : 1.0;
}
double shared_ways(const MemoryFigures& f) {
    return f.requests ? 1.0 + double(f.bank_conflicts) / double(f.requests) : 1.0;
}

// The gutter column's word for one figure: how many times the ideal, or how many ways.
std::string badge_text(const MemoryFigures& f) {
    if (f.space == MemorySpace::Global) {
        const double r = global_ratio(f);
        return r >= 1.05 ? "x" + number(r) : "ideal";
    }
    return f.bank_conflicts == 0 ? "ideal" : number(shared_ways(f)) + "-way";
}

}  // namespace

std::string memory_figure_text(const MemoryFigures& f, bool with_kind) {
    std::string s = with_kind ? (f.store ? "store " : "load ") : "";
    if (f.space == MemorySpace::Global) {
        char spr[32];
        std::snprintf(spr, sizeof spr, "%.1f", f.sectors_per_request());
        s += std::string(spr) + " sectors/req (ideal " + number(f.ideal_per_request()) + ")";
        if (const double r = global_ratio(f); r >= 1.05) s += " x" + number(r);
    } else {
        const double ways = shared_ways(f);
        s += f.bank_conflicts == 0 ? std::string("no bank conflict") : number(ways) + "-way bank conflict";
    }
    if (f.requests && f.active_lanes_mean() < 31.0) s += ", " + number(f.active_lanes_mean()) + "/32 lanes";
    return s;
}

MemoryGrade memory_figure_grade(const MemoryFigures& f) {
    const double r = f.space == MemorySpace::Global ? global_ratio(f) : shared_ways(f);
    return r <= 1.01 ? MemoryGrade::Ideal : r <= 2.0 ? MemoryGrade::Near : MemoryGrade::Far;
}

std::vector<MemoryLineMark> memory_line_marks(const std::vector<MemoryFigures>& figures) {
    std::map<int, std::vector<const MemoryFigures*>> by_line;
    for (const MemoryFigures& f : figures)
        if (f.line > 0 && f.requests) by_line[f.line].push_back(&f);
    for (auto& [line, fs] : by_line)  // loads before stores, global before shared, whatever order they came in
        std::stable_sort(fs.begin(), fs.end(), [](const MemoryFigures* a, const MemoryFigures* b) {
            return std::pair(a->space, a->store) < std::pair(b->space, b->store);
        });
    std::vector<MemoryLineMark> out;
    for (const auto& [line, fs] : by_line) {
        MemoryLineMark m;
        m.line = line;
        for (const MemoryFigures* f : fs) {
            const std::string one = memory_figure_text(*f, fs.size() > 1);
            if (!m.text.empty()) m.text += "; ";
            m.text += one;
            if (m.worst.empty() || memory_figure_grade(*f) > m.grade) m.worst = one, m.badge = badge_text(*f);
            m.grade = std::max(m.grade, memory_figure_grade(*f));
        }
        out.push_back(std::move(m));
    }
    return out;
}

std::optional<GutterSpan> place_gutter_text(const MemoryLineMark& mark, const std::function<float(int row)>& code_end,
                                            const std::function<float(const std::string&)>& width, float right,
                                            float gap, bool next_free) {
    // Right-aligned against the reserved column, and only where the line's code ends at least `gap` before it.
    const auto on = [&](int row, const std::string& label) -> std::optional<GutterSpan> {
        const float w = width(label);
        if (code_end(row) + gap + w > right) return std::nullopt;
        return GutterSpan{row, label, right - w, right};
    };
    const std::string& worst = mark.worst.empty() ? mark.text : mark.worst;
    if (auto s = on(mark.line, mark.text)) return s;
    if (auto s = on(mark.line, worst)) return s;
    if (next_free) return on(mark.line + 1, "^ " + worst);
    return std::nullopt;
}

WarpPick warp_pick(const std::optional<PixelOwner>& owner, const std::string& element, uint64_t byte_offset,
                   const MemoryRecording* recording) {
    WarpPick p;
    p.element = element;
    p.byte_offset = byte_offset;
    if (!owner) {
        p.text = element + ": no thread of this launch maps here, no warp to show";
        return p;
    }
    p.warp = WarpId{owner->linear_block, owner->warp};
    p.lane = int(owner->lane);
    const std::string who = "block " + std::to_string(owner->linear_block) + ", warp " + std::to_string(owner->warp);
    // Before the first recording nothing is known: it will record the warp asked for.
    p.recorded = !recording || owner->linear_block < recording->blocks_recorded;
    if (p.recorded)
        p.text = "click: Memory panel shows " + who + " (lane " + std::to_string(p.lane) + " writes " + element + ")";
    else
        p.text = who + " (lane " + std::to_string(p.lane) + " writes " + element +
                 ") is not in the recording: it kept the first " + std::to_string(recording->blocks_recorded) + " of " +
                 std::to_string(recording->blocks_total) + " blocks";
    return p;
}

WarpFootprint warp_footprint(const WarpId& w, Dim3 grid, Dim3 block, int width) {
    WarpFootprint f;
    const uint64_t threads = uint64_t(block.x) * block.y * block.z;
    if (threads == 0 || w.block >= grid.count() || uint64_t(w.warp) * 32 >= threads) return f;
    const bool one_d = grid.y == 1 && grid.z == 1 && block.y == 1 && block.z == 1;
    f.valid = true;
    f.x0 = f.y0 = INT32_MAX;
    f.x1 = f.y1 = -1;
    const auto cover = [&](int64_t x, int64_t y) {
        f.x0 = int(std::min<int64_t>(f.x0, x)), f.y0 = int(std::min<int64_t>(f.y0, y));
        f.x1 = int(std::max<int64_t>(f.x1, x)), f.y1 = int(std::max<int64_t>(f.y1, y));
    };
    const uint64_t t0 = uint64_t(w.warp) * 32, t1 = std::min<uint64_t>(t0 + 32, threads) - 1;
    if (one_d) {
        f.first = w.block * block.x + t0;
        f.last = w.block * block.x + t1;
        for (uint64_t i = f.first; i <= f.last && width > 0; ++i)
            cover(int64_t(i % uint64_t(width)), int64_t(i / uint64_t(width)));
    } else {
        const uint64_t bx = w.block % grid.x, by = w.block / grid.x % grid.y;
        for (uint64_t t = t0; t <= t1; ++t)
            cover(int64_t(bx * block.x + t % block.x), int64_t(by * block.y + t / block.x % block.y));
    }
    if (!one_d && width > 0) {  // threads past the picture's right edge own no pixel
        if (f.x0 >= width) f.valid = false;
        f.x1 = std::min(f.x1, width - 1);
    }
    if (f.x1 < 0) f.x0 = f.y0 = 0;
    return f;
}

std::string confirm_pick(const WarpPick& pick, const std::vector<const WarpSiteDetail*>& accesses) {
    if (!pick.warp) return "";
    bool cut = false;
    int other_lane = -1;
    for (const WarpSiteDetail* d : accesses) {
        if (d->space != MemorySpace::Global || !d->store) continue;
        cut |= d->requests_total > d->requests.size();
        for (const WarpRequest& r : d->requests)
            for (int lane = 0; lane < 32; ++lane)
                if ((r.active >> lane & 1u) && memory_region_offset(r.address[size_t(lane)]) == pick.byte_offset) {
                    if (lane == pick.lane)
                        return "the recording shows lane " + std::to_string(lane) + " storing " + pick.element +
                               " on line " + std::to_string(d->line);
                    if (other_lane < 0) other_lane = lane;
                }
    }
    if (other_lane >= 0)
        return "the recording shows lane " + std::to_string(other_lane) + " of this warp storing " + pick.element;
    return std::string("the recording shows no store of this warp to ") + pick.element +
           (cut ? " in its first kept requests" : "") +
           ": the kernel does not write it at blockIdx * blockDim + threadIdx, another warp may have";
}

std::string lane_ranges(uint32_t mask) {
    std::string out;
    for (int lane = 0; lane < 32;) {
        if (!(mask >> lane & 1u)) {
            ++lane;
            continue;
        }
        int end = lane;
        while (end + 1 < 32 && (mask >> (end + 1) & 1u)) ++end;
        if (!out.empty()) out += ", ";
        out += std::to_string(lane) + (end > lane ? "-" + std::to_string(end) : "");
        lane = end + 1;
    }
    return out.empty() ? "none" : out;
}

WarpPicture warp_picture(const WarpRequest& request, MemorySpace space) {
    WarpPicture p;
    p.space = space;
    p.active = request.active;
    p.sectors = request.sectors;
    p.ideal_sectors = request.ideal_sectors;
    // Each active lane's 4-byte words (a wider access covers several).
    std::map<uint64_t, std::vector<int>> words;  // word (address / 4) -> lanes
    for (int lane = 0; lane < 32; ++lane) {
        if (!(request.active >> lane & 1u)) continue;
        ++p.active_lanes;
        const uint64_t first = request.address[lane] / 4;
        const uint64_t last = (request.address[lane] + std::max<uint32_t>(request.size[lane], 1) - 1) / 4;
        for (uint64_t w = first; w <= last; ++w) words[w].push_back(lane);
    }
    const std::string who = "lanes " + lane_ranges(request.active);
    const std::string idle =
        p.active_lanes < 32 ? "; lanes " + lane_ranges(~request.active) + " inactive (not on this path)" : "";
    if (space == MemorySpace::Global) {
        std::vector<uint64_t> lines;  // 128-byte lines, sorted
        for (const auto& [w, lanes] : words)
            if (lines.empty() || lines.back() != w / 32) lines.push_back(w / 32);
        for (uint64_t l : lines) p.row_offsets.push_back((l - lines.front()) * 128);
        p.row_sectors.assign(lines.size(), 0);
        for (const auto& [w, lanes] : words) {
            const int row = int(std::lower_bound(lines.begin(), lines.end(), w / 32) - lines.begin());
            p.cells.push_back(WarpCell{row, int(w % 32), lanes});
            p.row_sectors[size_t(row)] |= 1u << ((w % 32) / 8);
        }
        uint64_t bytes = 0;
        for (int lane = 0; lane < 32; ++lane)
            if (request.active >> lane & 1u) bytes += request.size[lane];
        p.legend = who + " touch " + std::to_string(request.sectors) + (request.sectors == 1 ? " sector" : " sectors") +
                   " in " + std::to_string(lines.size()) + (lines.size() == 1 ? " line" : " lines") +
                   " of 128 bytes; a coalesced request of the same " + std::to_string(bytes) + " bytes would touch " +
                   std::to_string(request.ideal_sectors) + idle;
    } else {
        std::vector<bool> conflicted(32, false);
        std::vector<int> depth(32, 0);
        int worst_bank = 0;
        for (const auto& [w, lanes] : words) {
            const int bank = int(w % 32);
            p.cells.push_back(WarpCell{depth[size_t(bank)]++, bank, lanes});
            if (depth[size_t(bank)] > depth[size_t(worst_bank)]) worst_bank = bank;
        }
        for (int b = 0; b < 32; ++b) conflicted[size_t(b)] = depth[size_t(b)] > 1;
        p.wavefronts = std::max(1, *std::max_element(depth.begin(), depth.end()));
        for (int r = 0; r < p.wavefronts; ++r) p.row_offsets.push_back(uint64_t(r));
        p.bank_conflicted = std::move(conflicted);
        std::sort(p.cells.begin(), p.cells.end(), [](const WarpCell& a, const WarpCell& b) {
            return a.row != b.row ? a.row < b.row : a.column < b.column;
        });
        if (request.bank_conflicts == 0)
            p.legend = who + " touch " + std::to_string(words.size()) +
                       " words, no two in one bank (lanes on the same word share it): 1 wavefront, no conflict" + idle;
        else
            p.legend = who + " touch " + std::to_string(words.size()) + " words; bank " + std::to_string(worst_bank) +
                       " holds " + std::to_string(p.wavefronts) + " different words: " +
                       // "an 8-way", "an 11-way", "an 18-way": the article goes by how the number is said
                       (p.wavefronts == 8 || p.wavefronts == 11 || p.wavefronts == 18 ? "an " : "a ") +
                       std::to_string(p.wavefronts) + "-way conflict, " + std::to_string(request.bank_conflicts) +
                       " extra wavefronts" + idle;
    }
    return p;
}

void MemoryViewState::take(MemoryRecording recorded) {
    marks = memory_line_marks(recorded.figures);
    result = std::move(recorded);
    result_warp = recording_warp;
    error.clear();
    const auto kept = accesses_of(warp);
    if (access >= int(kept.size())) access = 0;
    apply_follow();
    if (const WarpSiteDetail* d = chosen_access(); !d || request >= int(d->requests.size())) request = 0;
    refresh_pick_note();
}

void MemoryViewState::apply_follow() {
    const auto kept = accesses_of(warp);
    if (!follow_ || kept.empty()) return;
    for (size_t i = 0; i < kept.size(); ++i)
        if (kept[i]->line == follow_->line && kept[i]->space == follow_->space && kept[i]->store == follow_->store) {
            access = int(i);
            request = 0;
            break;
        }
    follow_.reset();  // the new warp has its accesses: from here on the choice is the user's
}

void MemoryViewState::choose_warp(const WarpId& w) {
    if (const WarpSiteDetail* d = chosen_access()) follow_ = Follow{d->line, d->space, d->store};
    warp = w;
    request = 0;
    if (picked && !(picked->warp && *picked->warp == w)) {
        picked.reset();
        pick_note.clear();
    }
    apply_follow();
}

void MemoryViewState::forget_choice() {
    warp = WarpId{0, 0};
    access = request = 0;
    follow_.reset();
    picked.reset();
    pick_note.clear();
}

bool MemoryViewState::pick(const WarpPick& p) {
    if (!p.warp || !p.recorded) {
        pick_note = p.text;  // nothing chosen: the picture stays on its warp, and says why
        return false;
    }
    const bool changed = !(*p.warp == warp);
    picked = p;
    choose_warp(*p.warp);
    refresh_pick_note();
    return changed;
}

void MemoryViewState::refresh_pick_note() {
    if (!picked || !picked->warp || !(*picked->warp == warp)) return;
    pick_note = "picked " + picked->element + ": block " + std::to_string(warp.block) + ", warp " +
                std::to_string(warp.warp) + ", lane " + std::to_string(picked->lane);
    if (result && result_warp == warp && !accesses_of(warp).empty())
        pick_note += "; " + confirm_pick(*picked, accesses_of(warp));
}

std::string MemoryViewState::missing_warp_reason() const {
    if (!result || !accesses_of(warp).empty()) return "";
    const std::string who = "block " + std::to_string(warp.block) + ", warp " + std::to_string(warp.warp);
    if (result->blocks_total && warp.block >= result->blocks_total)
        return who + " is past the launch's " + std::to_string(result->blocks_total) + " blocks.";
    if (warp.block >= result->blocks_recorded)
        return who + " is not in the recording: it kept the first " + std::to_string(result->blocks_recorded) + " of " +
               std::to_string(result->blocks_total) +
               " blocks (the cap of accesses); a smaller launch records every block.";
    if (recording || !(result_warp == warp)) return "recording " + who + "...";
    return who + " made no recorded access (its threads are past the launch's data, or the block has fewer warps).";
}

int MemoryViewState::worst_access() const {
    const auto kept = accesses_of(warp);
    int best = 0;
    uint64_t most = 0;
    for (size_t i = 0; i < kept.size(); ++i) {
        uint64_t waste = 0;
        for (const WarpRequest& r : kept[i]->requests)
            waste += (r.sectors > r.ideal_sectors ? r.sectors - r.ideal_sectors : 0) + r.bank_conflicts;
        if (waste > most) most = waste, best = int(i);
    }
    return best;
}

std::vector<const WarpSiteDetail*> MemoryViewState::accesses_of(const WarpId& w) const {
    std::vector<const WarpSiteDetail*> out;
    if (result)
        for (const WarpSiteDetail& d : result->warps)
            if (d.warp == w) out.push_back(&d);
    return out;
}

const WarpSiteDetail* MemoryViewState::chosen_access() const {
    const auto kept = accesses_of(warp);
    return access >= 0 && access < int(kept.size()) ? kept[size_t(access)] : nullptr;
}

}  // namespace cp::ui
