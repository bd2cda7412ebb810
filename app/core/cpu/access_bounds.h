// Bounds checks per access on the CPU backend: the table of pages where a guarded buffer's first or last
// bytes lie (cp_abi::BoundsMap), which instrumented kernel code consults before each load and store, and
// the exact check that ends the launch as a fault would when an access leaves its buffer.
#pragma once

#include "core/cpu/shim/cp_shim_abi.h"

#include <cstddef>
#include <cstdint>

namespace cp {

// A guarded buffer's data [data, data + bytes) (mapped, its pages about to be used): its first and last page
// get entries unless the buffer covers them whole. Called by GuardedBuffer; safe from any thread.
void bounds_add(const std::byte* data, uint64_t bytes);
// Before the buffer is unmapped.
void bounds_remove(const std::byte* data, uint64_t bytes);

// The process's table, for cp_module_bind_bounds of each kernel library.
const cp_abi::BoundsMap* bounds_map();

// The exact check (BoundsMap::check): returns when [address, address + size) is inside its buffer, or when
// no kernel launch is running on this thread; else records a fault (the first byte outside, read or write,
// `pc`) in the thread's FaultTrap and jumps back to the launch loop as the signal handler does.
void bounds_check(unsigned long long address, unsigned long long size, int is_write, const void* pc);

}  // namespace cp
