// Views over a recorded block (debug_recording.h).
#include "core/engine/debug_recording.h"

#include "core/kernel_file/expr.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <functional>
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

namespace {

bool watch_name_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool watch_name_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.'; }

// `in[5]` as the bytes of the last access of the block that covered it up to `round`, read as `kind`/`size`.
std::optional<double> accessed_value(const DebugRecording& r, uint64_t address, uint32_t round, DebugValueKind kind,
                                     uint32_t size) {
    std::optional<double> found;
    for (const DebugAccess& a : r.accesses) {
        if (a.round > round) break;
        if (!a.has_value || address < a.address || address + size > a.address + std::min<uint64_t>(a.bytes, 8)) continue;
        std::byte bytes[8] = {};
        std::memcpy(bytes, &a.value, sizeof a.value);
        found = debug_value_number(kind, size, bytes + (address - a.address));
    }
    return found;
}

}  // namespace

Result<double> DebugTimeline::watch(uint32_t thread, uint32_t round, const std::string& expression) const {
    const DebugRecording& r = recording_;
    const DebugStep* step = step_at(thread, round);
    if (!step)
        return make_error(ErrorKind::UserInput, "thread " + std::to_string(thread) + " has not started at this stop",
                          "step on to where it runs");
    Scope scope;
    for (uint32_t k = 0; k < step->variable_count; ++k) {
        const DebugVariable& v = r.variables[step->first_variable + k];
        if (v.count != 1 || v.kind == DebugValueKind::Pointer || v.kind == DebugValueKind::Other) continue;
        if (v.offset + v.bytes > r.values.size()) continue;
        if (auto x = debug_value_number(v.kind, v.element_size, r.values.data() + v.offset)) scope[r.names[v.name]] = *x;
    }
    const Dim3 d = r.block_dim;
    const double idx[3] = {double(thread % d.x), double((thread / d.x) % d.y), double(thread / (d.x * d.y))};
    const char* axes[3] = {"x", "y", "z"};
    const double dims[3] = {double(d.x), double(d.y), double(d.z)};
    const double blocks[3] = {double(r.block_index.x), double(r.block_index.y), double(r.block_index.z)};
    for (int a = 0; a < 3; ++a) {
        scope[std::string("threadIdx.") + axes[a]] = idx[a];
        scope[std::string("blockDim.") + axes[a]] = dims[a];
        scope[std::string("blockIdx.") + axes[a]] = blocks[a];
    }
    auto element = [&](const std::string& name, const std::vector<int64_t>& index) -> Result<double> {
        const std::string shown = [&] {
            std::string t = name;
            for (int64_t i : index) t += "[" + std::to_string(i) + "]";
            return t;
        }();
        for (size_t a = 0; a < r.shared.size(); ++a) {
            const DebugSharedArray& s = r.shared[a];
            if (s.name != name) continue;
            if (index.size() != s.extents.size())
                return make_error(ErrorKind::UserInput,
                                  "`" + name + "` has " + std::to_string(s.extents.size()) + " dimension" +
                                      (s.extents.size() == 1 ? "" : "s") + ", `" + shown + "` gives " +
                                      std::to_string(index.size()),
                                  "one [index] per dimension, e.g. " + name + (s.extents.size() == 2 ? "[ty][tx]" : "[i]"));
            uint64_t flat = 0;
            for (size_t k = 0; k < index.size(); ++k) {
                if (index[k] < 0 || uint64_t(index[k]) >= s.extents[k])
                    return make_error(ErrorKind::OutOfBounds, "`" + shown + "` is outside `" + name + "`",
                                      "its dimension " + std::to_string(k + 1) + " has " + std::to_string(s.extents[k]) +
                                          " elements, numbered from 0");
                flat = flat * s.extents[k] + uint64_t(index[k]);
            }
            if (auto x = shared_number(round, a, flat)) return *x;
            return make_error(ErrorKind::UserInput, "`" + name + "` is not made yet at this stop", "step on past its declaration");
        }
        const DebugVariable* v = variable(*step, name);
        if (!v)
            return make_error(ErrorKind::UserInput, "`" + name + "` is not in scope for thread " + std::to_string(thread) +
                                                        " here",
                              "watch a variable of this line, a __shared__ array, or a pointer parameter");
        if (index.size() != 1)
            return make_error(ErrorKind::UserInput, "`" + shown + "`: `" + name + "` takes one index", "e.g. " + name + "[i]");
        if (v->count > 1) {  // a small local array
            if (index[0] < 0 || uint64_t(index[0]) >= v->count)
                return make_error(ErrorKind::OutOfBounds, "`" + shown + "` is outside `" + name + "`",
                                  "it has " + std::to_string(v->count) + " elements, numbered from 0");
            if (auto x = debug_value_number(v->kind, v->element_size,
                                            r.values.data() + v->offset + uint64_t(index[0]) * v->element_size))
                return *x;
            return make_error(ErrorKind::Unsupported, "`" + shown + "` is not a number", "");
        }
        if (v->kind != DebugValueKind::Pointer || v->bytes != sizeof(uint64_t) || v->pointee_size == 0)
            return make_error(ErrorKind::UserInput, "`" + name + "` is not an array or a pointer to numbers", "");
        uint64_t base = 0;
        std::memcpy(&base, r.values.data() + v->offset, sizeof base);
        const uint64_t address = base + uint64_t(index[0]) * v->pointee_size;
        const auto at = element_at(address);
        if (!at)
            return make_error(ErrorKind::OutOfBounds, "`" + shown + "` points outside every buffer and shared array",
                              "check the index against the buffer's size");
        const DebugRegion& region = r.regions[at->first];
        for (size_t a = 0; a < r.shared.size(); ++a)
            if (r.shared[a].base == region.base && r.shared[a].element_size == v->pointee_size) {
                if (auto x = shared_number(round, a, (address - region.base) / v->pointee_size)) return *x;
            }
        if (auto x = accessed_value(r, address, round, v->pointee_kind, v->pointee_size)) return *x;
        return make_error(ErrorKind::UserInput,
                          "`" + shown + "` (" + region.name + "[" + std::to_string(at->second) +
                              "]): this block has not read or written it up to this stop",
                          r.accesses_recorded ? "the debugger knows a buffer's elements from the block's own loads and stores"
                                              : "this build records no loads and stores (the CPU backend needs GCC)");
    };
    int made = 0;
    std::function<Result<std::string>(const std::string&)> resolve = [&](const std::string& in) -> Result<std::string> {
        std::string out;
        size_t i = 0;
        while (i < in.size()) {
            const bool after_digit = i > 0 && std::isdigit(static_cast<unsigned char>(in[i - 1]));
            if (!watch_name_start(in[i]) || after_digit) {
                out += in[i++];
                continue;
            }
            size_t j = i;
            while (j < in.size() && watch_name_char(in[j])) ++j;
            const std::string name = in.substr(i, j - i);
            size_t k = j;
            while (k < in.size() && in[k] == ' ') ++k;
            if (k >= in.size() || in[k] != '[') {
                out += name;
                i = j;
                continue;
            }
            std::vector<int64_t> index;
            while (k < in.size() && in[k] == '[') {
                int depth = 0;
                size_t m = k;
                for (; m < in.size(); ++m) {
                    if (in[m] == '[') ++depth;
                    else if (in[m] == ']' && --depth == 0) break;
                }
                if (m >= in.size())
                    return make_error(ErrorKind::UserInput, "`" + expression + "`: a `[` without its `]`", "close it");
                auto inner = resolve(in.substr(k + 1, m - k - 1));
                if (!inner) return inner.error();
                auto value = eval_expr(*inner, scope);
                if (!value) return value.error();
                if (*value != std::floor(*value))
                    return make_error(ErrorKind::UserInput, "`" + in.substr(k, m - k + 1) + "` is not a whole index", "");
                index.push_back(int64_t(*value));
                k = m + 1;
                while (k < in.size() && in[k] == ' ') ++k;
            }
            auto x = element(name, index);
            if (!x) return x.error();
            const std::string held = "cp_watch_" + std::to_string(made++);
            scope[held] = *x;
            out += held;
            i = k;
        }
        return out;
    };
    auto plain = resolve(expression);
    if (!plain) return plain.error();
    return eval_expr(*plain, scope);
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
