// Static `__shared__` arrays on the CPU backend: each declaration's storage in guarded memory of its own
// (GuardedBuffer, its last byte touching the guard), one set per worker thread, so that an index past an
// array's end faults at once and is reported with the array's name and element, as for buffers.
#pragma once

#include "core/cpu/guarded_memory.h"
#include "core/cpu/shim/cp_shim_abi.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace cp {

class StaticSharedArrays {
public:
    // The storage of declaration `id` for `bytes` bytes (a template instantiates one declaration with several
    // sizes: each size has its own), zero-filled when made; null when there is no memory for it. Updates
    // the attached thread state's table.
    void* storage(unsigned id, uint64_t bytes, size_t align, uint32_t element_size, const char* name,
                  std::vector<uint64_t> extents, int element_kind = 0);
    // The arrays belong to one kernel library; another one's declarations are numbered anew. The attached state
    // is dropped without being written: it is the previous library's thread-local block, freed if that library
    // was unloaded since (attach() the next library's state before its launch).
    void forget();
    // Points `state`'s table at these arrays (and `state->shared_owner` at this), before a launch.
    void attach(cp_abi::ThreadState* state);

    struct Hit {
        std::string name;
        uint64_t bytes = 0;
        uint32_t element_size = 0;
        std::vector<uint64_t> extents;  // per dimension, outermost first (tile[32][33]: 32, 33)
        GuardedBuffer::Location location;
    };
    // The array `address` is in or just outside (in its guards or slack), if any.
    std::optional<Hit> locate(uintptr_t address) const;
    // After a launch: the first array written just outside its data, where no guard is (before its start,
    // or past the end of one that starts 16-byte aligned), with the distance; every array's slack is restored.
    std::optional<Hit> written_outside();

    // The host call behind cp_abi::HostApi::shared_slot.
    static void* host_call(void* owner, unsigned id, unsigned long long bytes, unsigned align, unsigned element_size,
                           int element_kind, const char* name, const unsigned long long* extents, unsigned rank);

    // Every array made so far, in the order made (the debugger's snapshots of shared memory).
    struct View {
        const std::string* name;
        uint32_t element_size;
        int element_kind;  // cp_abi::ValueKind
        const std::vector<uint64_t>* extents;
        const std::byte* data;
        uint64_t bytes;
    };
    std::vector<View> views() const;

private:
    struct Array {
        unsigned id = 0;
        std::string name;
        uint32_t element_size = 0;
        int element_kind = 0;
        std::vector<uint64_t> extents;
        GuardedBuffer memory;
    };
    std::vector<std::unique_ptr<Array>> arrays_;
    std::vector<cp_abi::SharedSlot> table_;  // per id: the storage last handed out
    cp_abi::ThreadState* state_ = nullptr;
};

}  // namespace cp
