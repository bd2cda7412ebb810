// Recording a block's run for the debugger (debug_recorder.h).
#include "core/cpu/debug_recorder.h"

#include <algorithm>
#include <atomic>
#include <cstring>

namespace cp {

namespace {
std::atomic<DebugRecorder*> debug_target{nullptr};
}

void DebugRecorder::set_target(DebugRecorder* target) { debug_target.store(target, std::memory_order_release); }
DebugRecorder* DebugRecorder::target() { return debug_target.load(std::memory_order_acquire); }

DebugRecorder::DebugRecorder(Dim3 block_index, Dim3 block_dim, const StaticSharedArrays* statics,
                             const GuardedBuffer* dynamic, std::vector<std::pair<const std::byte*, uint64_t>> globals,
                             uint64_t cap_bytes)
    : statics_(statics), dynamic_(dynamic), globals_(std::move(globals)) {
    out_.block_index = block_index;
    out_.block_dim = block_dim;
    out_.threads = uint32_t(block_dim.count());
    out_.cap_bytes = cap_bytes;
    line_of_thread_.assign(out_.threads, 0);
    pending_stores_.resize(out_.threads);
}

void DebugRecorder::access(const cp_abi::ThreadState* s, uint64_t address, uint64_t size, bool is_write) {
    if (out_.truncated || !s || s->linear_tid >= out_.threads) return;
    out_.accesses_recorded = true;
    uint64_t room = 0;  // bytes from the address to its region's end: what may be read of the value
    auto inside = [&](const void* data, uint64_t bytes) {
        const uint64_t start = reinterpret_cast<uint64_t>(data);
        if (!data || address < start || address - start >= bytes) return false;
        room = bytes - (address - start);
        return true;
    };
    bool kept = dynamic_ && inside(dynamic_->data(), dynamic_->size());
    for (unsigned i = 0; !kept && i < s->shared_slot_count; ++i)
        kept = inside(s->shared_slots[i].data, s->shared_slots[i].bytes);
    for (size_t i = 0; !kept && i < globals_.size(); ++i) kept = inside(globals_[i].first, globals_[i].second);
    if (!kept) return;  // the thread's own stack, the library's variables
    // Only what lies inside the region is read (an access running past its end faults after this call).
    const size_t copy = size_t(std::min<uint64_t>({size, sizeof(uint64_t), room}));
    if (over_cap(sizeof(DebugAccess))) {
        truncate();
        return;
    }
    bytes_ += sizeof(DebugAccess);
    DebugAccess a;
    a.address = address;
    a.round = out_.rounds;
    a.thread = s->linear_tid;
    a.line = line_of_thread_[s->linear_tid];
    a.bytes = uint16_t(std::min<uint64_t>(size, 0xffff));
    a.write = is_write;
    if (!is_write) {  // a load: the bytes are there now (the call comes before the access)
        std::memcpy(&a.value, reinterpret_cast<const void*>(address), copy);
        a.has_value = true;
    } else {
        pending_stores_[s->linear_tid].push_back({out_.accesses.size(), copy});  // read at the thread's next probe
    }
    out_.accesses.push_back(a);
}

// The stores a thread's last statement made, as its next probe (or the block's end) finds them.
void DebugRecorder::settle_stores(unsigned thread) {
    if (thread >= pending_stores_.size()) return;
    for (const auto& [k, copy] : pending_stores_[thread]) {
        if (k >= out_.accesses.size()) continue;
        DebugAccess& a = out_.accesses[k];
        std::memcpy(&a.value, reinterpret_cast<const void*>(a.address), copy);
        a.has_value = true;
    }
    pending_stores_[thread].clear();
}

uint32_t DebugRecorder::intern(const std::string& name) {
    auto [it, made] = name_ids_.emplace(name, uint32_t(out_.names.size()));
    if (made) out_.names.push_back(name);
    return it->second;
}

bool DebugRecorder::over_cap(uint64_t more) const { return bytes_ + more > out_.cap_bytes; }

void DebugRecorder::step(unsigned thread, int line, const char* names, const cp_abi::DebugValue* values,
                         unsigned count) {
    if (out_.truncated) return;
    settle_stores(thread);
    auto split = split_.find(names);
    if (split == split_.end()) {
        std::vector<uint32_t> ids;
        const std::string all = names ? names : "";
        size_t start = 0;
        while (start < all.size()) {
            size_t comma = all.find(',', start);
            if (comma == std::string::npos) comma = all.size();
            ids.push_back(intern(all.substr(start, comma - start)));
            start = comma + 1;
        }
        split = split_.emplace(names, std::move(ids)).first;
    }
    // An array whose bytes are the same as at the thread's last probe (a register tile between its updates, a
    // filter's weights) is kept once: the variable points at the bytes already recorded.
    if (thread >= last_array_.size()) last_array_.resize(thread + 1);
    auto& last = last_array_[thread];
    reused_.assign(count, UINT64_MAX);
    uint64_t more = sizeof(DebugStep) + uint64_t(count) * sizeof(DebugVariable);
    for (unsigned k = 0; k < count; ++k) {
        const cp_abi::DebugValue& v = values[k];
        if (v.bytes >= kComparedArrayBytes && k < split->second.size()) {
            auto was = last.find(split->second[k]);
            if (was != last.end() && was->second.second == v.bytes &&
                std::memcmp(out_.values.data() + was->second.first, v.data, v.bytes) == 0) {
                reused_[k] = was->second.first;
                continue;
            }
        }
        more += v.bytes;
    }
    if (over_cap(more)) {
        truncate();
        return;
    }
    bytes_ += more;
    DebugStep s;
    s.round = out_.rounds;
    s.thread = thread;
    s.line = line;
    s.first_variable = uint32_t(out_.variables.size());
    for (unsigned k = 0; k < count && k < split->second.size(); ++k) {
        const cp_abi::DebugValue& v = values[k];
        DebugVariable d;
        d.name = split->second[k];
        d.kind = DebugValueKind(v.kind >= 0 && v.kind <= cp_abi::kValuePointer ? v.kind : 0);
        d.element_size = v.element_size;
        d.count = v.count;
        d.offset = reused_[k] != UINT64_MAX ? reused_[k] : out_.values.size();
        d.bytes = v.bytes;
        if (v.kind == cp_abi::kValuePointer) {
            d.pointee_kind = DebugValueKind(v.pointee_kind >= 0 && v.pointee_kind <= cp_abi::kValuePointer ? v.pointee_kind : 0);
            d.pointee_size = v.pointee_size;
        }
        const auto* p = static_cast<const std::byte*>(v.data);
        if (!dynamic_named_ && v.kind == cp_abi::kValuePointer && v.bytes == sizeof(void*) && dynamic_ &&
            dynamic_->size()) {
            const void* target = nullptr;
            std::memcpy(&target, v.data, sizeof target);
            if (target == dynamic_->data() && v.pointee_size > 0 && dynamic_->size() % v.pointee_size == 0)
                name_dynamic(out_.names[d.name], v.pointee_kind, v.pointee_size);
        }
        if (reused_[k] == UINT64_MAX) {
            out_.values.insert(out_.values.end(), p, p + v.bytes);
            if (v.bytes >= kComparedArrayBytes) last[d.name] = {d.offset, v.bytes};
        }
        out_.variables.push_back(d);
    }
    s.variable_count = uint32_t(out_.variables.size()) - s.first_variable;
    out_.steps.push_back(s);
    if (thread < line_of_thread_.size()) line_of_thread_[thread] = line;
    round_has_steps_ = true;
}

void DebugRecorder::name_dynamic(const std::string& name, int kind, unsigned element_size) {
    dynamic_named_ = true;
    dynamic_name_ = name;
    dynamic_kind_ = DebugValueKind(kind >= 0 && kind <= cp_abi::kValuePointer ? kind : 0);
    dynamic_element_ = element_size;
    if (!out_.shared.empty() && out_.shared.front().name == "extern") {  // made before the pointer was seen
        DebugSharedArray& d = out_.shared.front();
        d.name = dynamic_name_;
        d.kind = dynamic_kind_;
        d.element_size = dynamic_element_;
        d.extents = {d.bytes / dynamic_element_};
    }
}

void DebugRecorder::at_barrier() {
    end_round();
    if (out_.rounds == 0 || out_.truncated) return;
    if (out_.barriers.empty() || out_.barriers.back() != out_.rounds - 1) out_.barriers.push_back(out_.rounds - 1);
}

void DebugRecorder::end_round() {
    if (!round_has_steps_ || out_.truncated) return;
    round_has_steps_ = false;
    // The arrays made so far (a declaration makes its array the first time a thread runs it).
    std::vector<StaticSharedArrays::View> views = statics_ ? statics_->views() : std::vector<StaticSharedArrays::View>{};
    const bool has_dynamic = dynamic_ && dynamic_->size();
    if (out_.shared.empty() && has_dynamic) {
        DebugSharedArray d;
        d.name = dynamic_name_;
        d.kind = dynamic_kind_;
        d.element_size = dynamic_element_;
        d.extents = {dynamic_->size() / dynamic_element_};
        d.bytes = dynamic_->size();
        d.base = uint64_t(reinterpret_cast<uintptr_t>(dynamic_->data()));
        out_.shared.push_back(d);
    }
    const size_t known_static = out_.shared.size() - (has_dynamic ? 1 : 0);
    for (size_t k = known_static; k < views.size(); ++k) {
        DebugSharedArray a;
        a.name = *views[k].name;
        a.kind = DebugValueKind(views[k].element_kind);
        a.element_size = views[k].element_size;
        a.extents = *views[k].extents;
        a.bytes = views[k].bytes;
        a.base = uint64_t(reinterpret_cast<uintptr_t>(views[k].data));
        out_.shared.push_back(a);
    }
    uint64_t total = 0;
    for (const DebugSharedArray& a : out_.shared) total += a.bytes;
    std::vector<std::byte> snapshot;
    snapshot.reserve(total);
    size_t v = 0;
    for (const DebugSharedArray& a : out_.shared) {
        if (has_dynamic && &a == &out_.shared.front()) {
            snapshot.insert(snapshot.end(), dynamic_->data(), dynamic_->data() + dynamic_->size());
            continue;
        }
        const StaticSharedArrays::View& view = views[v++];
        snapshot.insert(snapshot.end(), view.data, view.data + view.bytes);
    }
    // A round that wrote no shared memory shares the previous round's state.
    if (out_.shared_snapshots.empty() || out_.shared_snapshots.back() != snapshot) {
        if (over_cap(total + sizeof(uint32_t))) {
            truncate();
            return;
        }
        bytes_ += total;
        out_.shared_snapshots.push_back(std::move(snapshot));
    }
    bytes_ += sizeof(uint32_t);
    out_.shared_after_round.push_back(uint32_t(out_.shared_snapshots.size() - 1));
    ++out_.rounds;
}

// The cap is reached: the round under way is dropped (its steps without its shared memory would not agree), and
// nothing more is recorded.
void DebugRecorder::truncate() {
    out_.truncated = true;
    round_has_steps_ = false;
    size_t keep = out_.steps.size();
    while (keep > 0 && out_.steps[keep - 1].round >= out_.rounds) --keep;
    if (keep < out_.steps.size()) {
        const DebugStep& first_dropped = out_.steps[keep];
        if (first_dropped.first_variable < out_.variables.size()) {
            out_.values.resize(out_.variables[first_dropped.first_variable].offset);
            out_.variables.resize(first_dropped.first_variable);
        }
        out_.steps.resize(keep);
    }
    while (!out_.accesses.empty() && out_.accesses.back().round >= out_.rounds) out_.accesses.pop_back();
}

DebugRecording DebugRecorder::take() {
    for (unsigned t = 0; t < pending_stores_.size(); ++t) settle_stores(t);
    end_round();
    // The shared arrays as places pointers point into (the launch adds its buffers).
    std::vector<StaticSharedArrays::View> views = statics_ ? statics_->views() : std::vector<StaticSharedArrays::View>{};
    if (dynamic_ && dynamic_->size())
        out_.regions.push_back({dynamic_name_, uint64_t(reinterpret_cast<uintptr_t>(dynamic_->data())), dynamic_->size(),
                                dynamic_element_});
    for (const StaticSharedArrays::View& v : views)
        out_.regions.push_back({*v.name, uint64_t(reinterpret_cast<uintptr_t>(v.data)), v.bytes, v.element_size});
    return std::move(out_);
}

}  // namespace cp
