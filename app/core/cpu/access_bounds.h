// Bounds checks per access on the CPU backend: the shadow bytes that instrumented kernel code tests before
// each load and store (marked where a guarded buffer's first or last page holds accessible bytes outside
// it), and the exact check, from a table of those pages, that ends the launch as a fault would when an
// access leaves its buffer.
#pragma once

#include "core/cpu/shim/cp_shim_abi.h"

#include <cstddef>
#include <cstdint>

namespace cp {

// A guarded buffer's data [data, data + bytes), mapped in pages of its own (GuardedBuffer): the bytes of
// its first and last page outside it are marked. Safe from any thread.
void bounds_add(const std::byte* data, uint64_t bytes);
// Before the buffer is unmapped.
void bounds_remove(const std::byte* data, uint64_t bytes);

// The process's map, for cp_module_bind_bounds of each instrumented kernel library; maps the shadow
// (address space only: cp_abi::kBoundsShadowBytes at cp_abi::kBoundsShadowOffset) the first time. Null when
// that range cannot be had: instrumented code cannot run then.
const cp_abi::BoundsMap* bounds_map();

// The exact check (BoundsMap::check): returns when [address, address + size) is inside its buffer, or when
// no kernel launch is running on this thread; else records a fault (the first byte outside, read or write,
// `pc`) in the thread's FaultTrap and jumps back to the launch loop as the signal handler does.
void bounds_check(unsigned long long address, unsigned long long size, int is_write, const void* pc);

}  // namespace cp
