// Static `__shared__` arrays in guarded memory, per worker (static_shared.h).
#include "core/cpu/static_shared.h"

#include <algorithm>

namespace cp {

void* StaticSharedArrays::storage(unsigned id, uint64_t bytes, size_t align, uint32_t element_size, const char* name,
                                  std::vector<uint64_t> extents, int element_kind) {
    Array* found = nullptr;
    for (const auto& a : arrays_)
        if (a->id == id && a->memory.size() == bytes) found = a.get();
    if (!found) {
        auto memory = GuardedBuffer::allocate(bytes, align);
        if (!memory) return nullptr;
        auto a = std::make_unique<Array>();
        a->id = id;
        a->name = name ? name : "";
        a->element_size = element_size;
        a->element_kind = element_kind;
        a->extents = std::move(extents);
        a->memory = std::move(*memory);
        found = a.get();
        arrays_.push_back(std::move(a));
    }
    if (id >= table_.size()) table_.resize(size_t(id) + 1, cp_abi::SharedSlot{nullptr, 0});
    table_[id] = {found->memory.data(), found->memory.size()};
    if (state_) attach(state_);  // the table may have moved
    return found->memory.data();
}

void StaticSharedArrays::forget() {
    arrays_.clear();
    table_.clear();
    // Not attach(state_): after an edit the previous library is often unloaded before the next launch (the
    // session releases the old module, then compiles and launches the new one), and writing its freed TLS block
    // corrupted the worker's heap (issue 23: a recording after an edit that resized a __shared__ array aborted).
    state_ = nullptr;
}

void StaticSharedArrays::attach(cp_abi::ThreadState* state) {
    state_ = state;
    state->shared_slots = table_.empty() ? nullptr : table_.data();
    state->shared_slot_count = unsigned(table_.size());
    state->shared_owner = this;
}

std::optional<StaticSharedArrays::Hit> StaticSharedArrays::locate(uintptr_t address) const {
    for (const auto& a : arrays_) {
        const GuardedBuffer::Location loc = a->memory.locate(address);
        if (loc.where != GuardedBuffer::Where::Outside) return Hit{a->name, a->memory.size(), a->element_size, a->extents, loc};
    }
    return std::nullopt;
}

std::optional<StaticSharedArrays::Hit> StaticSharedArrays::written_outside() {
    std::optional<Hit> first;
    for (const auto& a : arrays_)  // every array, so that none is left to be reported by the next launch
        if (const auto loc = a->memory.written_outside(); loc && !first)
            first = Hit{a->name, a->memory.size(), a->element_size, a->extents, *loc};
    return first;
}

void* StaticSharedArrays::host_call(void* owner, unsigned id, unsigned long long bytes, unsigned align,
                                    unsigned element_size, int element_kind, const char* name,
                                    const unsigned long long* extents, unsigned rank) {
    if (!owner) return nullptr;
    std::vector<uint64_t> dims;
    for (unsigned d = 0; d < std::min(rank, 4u) && extents; ++d) dims.push_back(extents[d]);
    return static_cast<StaticSharedArrays*>(owner)->storage(id, bytes, std::max(1u, align), element_size, name,
                                                            std::move(dims), element_kind);
}

std::vector<StaticSharedArrays::View> StaticSharedArrays::views() const {
    std::vector<View> out;
    for (const auto& a : arrays_)
        out.push_back({&a->name, a->element_size, a->element_kind, &a->extents, a->memory.data(), a->memory.size()});
    return out;
}

}  // namespace cp
