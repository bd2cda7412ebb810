// How much memory a run needs against how much is free: the host (the machine's available memory, within
// the process's cgroup limit) and the device, compared before anything is allocated so that a size beyond
// memory ends in a refusal that says both figures instead of an allocation failure.
#pragma once

#include "core/result.h"

#include <cstdint>
#include <optional>
#include <string>

namespace cp {

// Bytes this process can still allocate without swapping: MemAvailable from /proc/meminfo, lowered to what
// the cgroup (memory.max - memory.current) allows. 0 when it cannot tell (then nothing is refused).
uint64_t free_host_memory();

// Parses /proc/meminfo's text for MemAvailable (bytes); 0 when absent. Apart for tests.
uint64_t mem_available_from_meminfo(const std::string& meminfo);
// `available` lowered to what a cgroup limit leaves (limit - used; limit 0: none). Apart for tests.
uint64_t within_cgroup_limit(uint64_t available, uint64_t limit, uint64_t used);

// "1.5 GiB" / "12 MiB" / "512 bytes"
std::string human_bytes(uint64_t bytes);

// Saturating addition and multiplication for size computations that must not wrap around.
uint64_t add_sat(uint64_t a, uint64_t b);
uint64_t mul_sat(uint64_t a, uint64_t b);

// The refusal when `needed` bytes of `where` memory ("host", "GPU") exceed `free_bytes`; nullopt when it fits
// or when free_bytes is 0 (unknown). `what` names the consumer ("the buffers").
std::optional<Error> check_fits(const std::string& what, const std::string& where, uint64_t needed,
                                uint64_t free_bytes);

}  // namespace cp
