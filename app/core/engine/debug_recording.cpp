// Views over a recorded block (debug_recording.h).
#include "core/engine/debug_recording.h"

#include <algorithm>
#include <charconv>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace cp {

uint64_t DebugRecording::recorded_bytes() const {
    uint64_t shared_bytes = 0;
    for (const auto& r : shared_snapshots) shared_bytes += r.size();
    shared_bytes += shared_after_round.size() * sizeof(uint32_t);
    return steps.size() * sizeof(DebugStep) + variables.size() * sizeof(DebugVariable) + values.size() + shared_bytes +
           accesses.size() * sizeof(DebugAccess);
}

DebugTimeline::DebugTimeline(const DebugRecording& recording) : recording_(recording) {
    round_start_.assign(size_t(recording.rounds) + 1, uint32_t(recording.steps.size()));
    by_thread_.resize(recording.threads);
    for (uint32_t i = uint32_t(recording.steps.size()); i-- > 0;) {
        const DebugStep& s = recording.steps[i];
        if (s.round < recording.rounds) round_start_[s.round] = i;
    }
    // A round without steps (none recorded) starts where the next one does.
    for (size_t r = round_start_.size() - 1; r-- > 0;) round_start_[r] = std::min(round_start_[r], round_start_[r + 1]);
    for (uint32_t i = 0; i < recording.steps.size(); ++i) {
        const DebugStep& s = recording.steps[i];
        if (s.thread < by_thread_.size()) by_thread_[s.thread].push_back(i);
    }
}

std::vector<DebugThreadAt> DebugTimeline::threads_at(uint32_t round) const {
    std::vector<DebugThreadAt> out(recording_.threads);
    for (uint32_t t = 0; t < recording_.threads; ++t) {
        DebugThreadAt& at = out[t];
        at.thread = t;
        const std::vector<uint32_t>& mine = by_thread_[t];
        // The last of its steps in a round <= `round`.
        auto it = std::upper_bound(mine.begin(), mine.end(), round,
                                   [&](uint32_t r, uint32_t index) { return r < recording_.steps[index].round; });
        if (it == mine.begin()) continue;
        at.step = &recording_.steps[*(it - 1)];
        at.moved = at.step->round == round;
        // Past its last probe it ran one statement more (a return, the body's end): it has returned.
        at.finished = it == mine.end() && !recording_.truncated && at.step->round < round;
    }
    return out;
}

std::optional<uint32_t> DebugTimeline::first_round_at(int line, uint32_t from) const {
    for (uint32_t i = from < round_start_.size() ? round_start_[from] : uint32_t(recording_.steps.size());
         i < recording_.steps.size(); ++i)
        if (recording_.steps[i].line == line) return recording_.steps[i].round;
    return std::nullopt;
}

const DebugVariable* DebugTimeline::variable(const DebugStep& step, const std::string& name) const {
    for (uint32_t k = 0; k < step.variable_count; ++k) {
        const DebugVariable& v = recording_.variables[step.first_variable + k];
        if (v.name < recording_.names.size() && recording_.names[v.name] == name) return &v;
    }
    return nullptr;
}

std::string DebugTimeline::value_text(const DebugVariable& v) const {
    if (v.offset + v.bytes > recording_.values.size()) return "?";
    if (v.kind == DebugValueKind::Pointer && v.count == 1 && v.bytes == sizeof(uint64_t)) {
        uint64_t address = 0;
        std::memcpy(&address, recording_.values.data() + v.offset, sizeof address);
        return pointer_text(address);
    }
    return debug_value_text(v.kind, v.element_size, recording_.values.data() + v.offset, v.count);
}

std::string DebugTimeline::pointer_text(uint64_t address) const {
    for (const DebugRegion& r : recording_.regions) {
        if (address < r.base || address > r.base + r.bytes) continue;
        const uint64_t offset = address - r.base;
        std::string text;
        if (r.element_size && offset % r.element_size == 0)
            text = "&" + r.name + "[" + std::to_string(offset / r.element_size) + "]";
        else
            text = r.name + " + " + std::to_string(offset) + " bytes";
        if (offset == r.bytes) text += " (one past its end)";
        return text;
    }
    char hex[32];
    std::snprintf(hex, sizeof hex, "0x%" PRIx64, address);
    return hex;
}

// Array `array`'s element `index` in the shared memory after `round`; null where the recording has none (an array
// not made yet in that round, an index past its end).
const std::byte* DebugTimeline::shared_element(uint32_t round, size_t array, uint64_t index) const {
    if (round >= recording_.shared_after_round.size() || array >= recording_.shared.size()) return nullptr;
    const uint32_t state = recording_.shared_after_round[round];
    if (state >= recording_.shared_snapshots.size()) return nullptr;
    uint64_t at = 0;  // where the array's bytes start in a state: after the arrays before it
    for (size_t k = 0; k < array; ++k) at += recording_.shared[k].bytes;
    const DebugSharedArray& a = recording_.shared[array];
    at += index * a.element_size;
    const std::vector<std::byte>& bytes = recording_.shared_snapshots[state];
    if (index * a.element_size >= a.bytes || at + a.element_size > bytes.size()) return nullptr;
    return bytes.data() + at;
}

std::string DebugTimeline::shared_text(uint32_t round, size_t array, uint64_t index) const {
    const std::byte* p = shared_element(round, array, index);
    if (!p) return "?";
    const DebugSharedArray& a = recording_.shared[array];
    return debug_value_text(a.kind, a.element_size, p, 1);
}

std::optional<double> DebugTimeline::shared_number(uint32_t round, size_t array, uint64_t index) const {
    const std::byte* p = shared_element(round, array, index);
    if (!p) return std::nullopt;
    const DebugSharedArray& a = recording_.shared[array];
    return debug_value_number(a.kind, a.element_size, p);
}

const DebugStep* DebugTimeline::step_at(uint32_t thread, uint32_t round) const {
    if (thread >= by_thread_.size()) return nullptr;
    const std::vector<uint32_t>& mine = by_thread_[thread];
    auto it = std::upper_bound(mine.begin(), mine.end(), round,
                               [&](uint32_t r, uint32_t index) { return r < recording_.steps[index].round; });
    return it == mine.begin() ? nullptr : &recording_.steps[*(it - 1)];
}

std::optional<uint32_t> DebugTimeline::round_that_set(uint32_t thread, uint32_t round, const std::string& name) const {
    const DebugStep* now = step_at(thread, round);
    if (!now) return std::nullopt;
    const DebugVariable* v = variable(*now, name);
    if (!v || v->offset + v->bytes > recording_.values.size()) return std::nullopt;
    const std::byte* value = recording_.values.data() + v->offset;
    const std::vector<uint32_t>& mine = by_thread_[thread];
    // Back through the thread's probes while the variable holds the same bytes.
    size_t k = size_t(now - recording_.steps.data());
    auto pos = std::find(mine.begin(), mine.end(), uint32_t(k));
    uint32_t set = now->round;
    while (pos != mine.begin()) {
        const DebugStep& before = recording_.steps[*(pos - 1)];
        const DebugVariable* b = variable(before, name);
        if (!b || b->bytes != v->bytes || b->offset + b->bytes > recording_.values.size() ||
            std::memcmp(recording_.values.data() + b->offset, value, v->bytes) != 0)
            break;
        set = before.round;
        --pos;
    }
    return set;
}

std::optional<std::pair<size_t, uint64_t>> DebugTimeline::element_at(uint64_t address) const {
    for (size_t k = 0; k < recording_.regions.size(); ++k) {
        const DebugRegion& r = recording_.regions[k];
        if (address < r.base || address - r.base >= r.bytes) continue;
        return std::pair<size_t, uint64_t>{k, (address - r.base) / std::max<uint32_t>(r.element_size, 1)};
    }
    return std::nullopt;
}

std::vector<int64_t> DebugTimeline::shared_writers(uint32_t round, size_t array) const {
    if (array >= recording_.shared.size()) return {};
    const DebugSharedArray& a = recording_.shared[array];
    const uint32_t size = std::max<uint32_t>(a.element_size, 1);
    std::vector<int64_t> out(size_t(a.bytes / size), -1);
    for (size_t k = 0; k < recording_.accesses.size(); ++k) {
        const DebugAccess& x = recording_.accesses[k];
        if (x.round > round) break;  // in order
        if (!x.write || x.address < a.base || x.address - a.base >= a.bytes) continue;
        const uint64_t first = (x.address - a.base) / size;
        const uint64_t last = std::min<uint64_t>((x.address - a.base + std::max<uint16_t>(x.bytes, 1) - 1) / size,
                                                 out.size() - 1);
        for (uint64_t e = first; e <= last; ++e) out[size_t(e)] = int64_t(k);
    }
    return out;
}

std::vector<DebugTouched> DebugTimeline::touched(uint32_t round) const {
    // Regions that are shared arrays are left out: they are shown as shared memory.
    auto is_shared = [&](const DebugRegion& r) {
        return std::any_of(recording_.shared.begin(), recording_.shared.end(),
                           [&](const DebugSharedArray& a) { return a.base == r.base && a.bytes == r.bytes; });
    };
    std::vector<std::vector<uint64_t>> reads(recording_.regions.size()), writes(recording_.regions.size());
    for (const DebugAccess& x : recording_.accesses) {
        if (x.round > round) break;
        const auto at = element_at(x.address);
        if (!at) continue;
        const DebugRegion& r = recording_.regions[at->first];
        const uint64_t last = (x.address + std::max<uint16_t>(x.bytes, 1) - 1 - r.base) / std::max<uint32_t>(r.element_size, 1);
        for (uint64_t e = at->second; e <= last; ++e) (x.write ? writes : reads)[at->first].push_back(e);
    }
    auto ranges = [](std::vector<uint64_t>& v) {
        std::sort(v.begin(), v.end());
        std::vector<std::pair<uint64_t, uint64_t>> out;
        for (uint64_t e : v) {
            if (!out.empty() && e <= out.back().second + 1) out.back().second = std::max(out.back().second, e);
            else out.push_back({e, e});
        }
        return out;
    };
    std::vector<DebugTouched> out;
    for (size_t k = 0; k < recording_.regions.size(); ++k) {
        if ((reads[k].empty() && writes[k].empty()) || is_shared(recording_.regions[k])) continue;
        out.push_back({k, ranges(reads[k]), ranges(writes[k])});
    }
    return out;
}

std::optional<double> debug_value_number(DebugValueKind kind, uint32_t size, const std::byte* data) {
    auto read = [&](auto v) {
        std::memcpy(&v, data, sizeof v);
        return double(v);
    };
    switch (kind) {
        case DebugValueKind::Bool: return read(uint8_t{}) != 0 ? 1.0 : 0.0;
        case DebugValueKind::Float:
            if (size == 4) return read(float{});
            if (size == 8) return read(double{});
            return std::nullopt;
        case DebugValueKind::Signed:
            if (size == 1) return read(int8_t{});
            if (size == 2) return read(int16_t{});
            if (size == 4) return read(int32_t{});
            if (size == 8) return read(int64_t{});
            return std::nullopt;
        case DebugValueKind::Unsigned:
        case DebugValueKind::Pointer:
            if (size == 1) return read(uint8_t{});
            if (size == 2) return read(uint16_t{});
            if (size == 4) return read(uint32_t{});
            if (size == 8) return read(uint64_t{});
            return std::nullopt;
        default: return std::nullopt;
    }
}

std::string debug_value_text(DebugValueKind kind, uint32_t size, const std::byte* data, uint32_t count) {
    auto one = [&](const std::byte* p) -> std::string {
        char text[64];
        if (kind == DebugValueKind::Pointer && size == 8) {
            uint64_t v;
            std::memcpy(&v, p, 8);
            std::snprintf(text, sizeof text, "0x%" PRIx64, v);
            return text;
        }
        if (kind == DebugValueKind::Bool) return std::to_integer<int>(*p) ? "true" : "false";
        const std::optional<double> v = debug_value_number(kind, size, p);
        if (!v) {
            std::string hex = "0x";
            for (uint32_t k = size; k-- > 0;) {
                std::snprintf(text, sizeof text, "%02x", std::to_integer<unsigned>(p[k]));
                hex += text;
            }
            return hex;
        }
        if (kind == DebugValueKind::Float) {
            // The shortest text that reads back as the same float or double: the exact value.
            const auto done = size == 4 ? std::to_chars(text, text + sizeof text - 1, float(*v))
                                        : std::to_chars(text, text + sizeof text - 1, *v);
            *done.ptr = '\0';
            return text;
        }
        if (kind == DebugValueKind::Signed) {
            std::snprintf(text, sizeof text, "%" PRId64, int64_t(*v));
            return text;
        }
        uint64_t u = 0;
        std::memcpy(&u, p, std::min<uint32_t>(size, 8));
        std::snprintf(text, sizeof text, "%" PRIu64, u);
        return text;
    };
    if (count <= 1) return one(data);
    std::string out = "{";
    for (uint32_t k = 0; k < count; ++k) {
        if (k) out += ", ";
        if (k == 64) {
            out += "... " + std::to_string(count - 64) + " more";
            break;
        }
        out += one(data + size_t(k) * size);
    }
    return out + "}";
}

}  // namespace cp
