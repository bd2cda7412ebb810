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
    return steps.size() * sizeof(DebugStep) + variables.size() * sizeof(DebugVariable) + values.size() + shared_bytes;
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
