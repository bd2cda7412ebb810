// The CUDA backend's memory recording (issue 23): the variables added to the user's source, the PTX rewrite that
// writes recording code before every global, shared and generic load/store, and the records it leaves.
// Pure text and arithmetic (no driver), so it is tested on machines without a GPU.
#pragma once

#include "core/engine/memory_figures.h"
#include "core/result.h"

#include <cstdint>
#include <string>
#include <vector>

namespace cp {

// The __device__ variables the worker sets before a recording launch.
inline constexpr const char* kMemoryKeepKernel = "cp_memory_keep";               // keeps them in whole-program PTX
inline constexpr const char* kMemoryLogSymbol = "cp_memory_log";                 // uint64* : 3 words per access
inline constexpr const char* kMemoryCountSymbol = "cp_memory_count";             // log slots taken (may pass the cap)
inline constexpr const char* kMemoryCapSymbol = "cp_memory_cap";                 // records kept at most
inline constexpr const char* kMemoryBlockLimitSymbol = "cp_memory_block_limit";  // blocks >= this record nothing
inline constexpr int kMemoryRecordWords = 3;  // address; block << 32 | thread; info | space << 32

// The info word the rewrite passes per access site: the site (1-based, up to 2^23 - 1), store, bytes.
constexpr uint32_t memory_site_info(uint32_t site, uint32_t bytes, bool store) {
    return (site << 9) | (store ? 0x100u : 0u) | (bytes & 0xFFu);
}
inline constexpr uint32_t kMaxMemorySites = (1u << 23) - 1;

// At most this many accesses are kept per recording launch: the CPU backend's cap (access_recorder.h
// kMemoryRecordCap; a unit test holds them equal), 24 bytes each on the device.
inline constexpr uint64_t kCudaMemoryRecordCap = uint64_t(1) << 22;

// The virtual architecture NVRTC writes the recording PTX for, given the backend's: "sm_90" -> "compute_90".
std::string memory_ptx_arch(const std::string& arch);

// CUDA source appended to the user's (after it, so the user's lines keep their numbers).
const std::string& memory_recorder_source();

struct PtxMemorySite {
    int line = 0;        // the user's line (0: not in the user's file)
    uint32_t bytes = 0;  // per thread: element size x vector width
    bool store = false;
    std::string space;   // "global" | "shared" | "generic", as the instruction names it
    std::string opcode;  // "ld.global.nc.v4.f32", for tests and messages
};

struct PtxMemoryRewrite {
    std::string ptx;                   // the rewritten module
    std::vector<PtxMemorySite> sites;  // site s (1-based) is sites[s - 1]
};

// Inserts before every ld/st (global, shared, generic; vectors, predicated, .nc/.volatile/.relaxed...) of every
// function but cp_memory_keep the code that records it (in place, not a call: a call's clobbered registers made
// register-heavy kernels spill around every access), given the access's generic address (shared-window and
// global addresses converted with cvta) and run only where the instruction's own predicate holds. ld/st of .param,
// .local and .const, and atom/red (Nsight Compute counts them apart from loads and stores), are left alone. Lines come
// from the preceding .loc; `main_file` is the user's file as given to NVRTC (a .file entry of the same file name is
// it); empty takes any file.
// An Error when the PTX lacks the recording variables or has more sites than the info word holds.
Result<PtxMemoryRewrite> instrument_ptx_memory(const std::string& ptx, const std::string& main_file);

// A global buffer of the launch: [start, start + bytes) on the device.
struct MemoryRegion {
    uint64_t start = 0;
    uint64_t bytes = 0;
};

// The log's first `count` slots as accesses (a slot whose info word is 0 holds no record), addresses turned into
// offsets from their buffer (shared: from the shared window) on the CPU backend's bases (access_recorder.cpp):
// each global buffer, in order of start, on (index + 1) << 40, shared memory on the next; sectors and banks are
// then those of the same offsets on either backend. Records of blocks >= `block_limit`, and global addresses outside every buffer (a __device__
// variable), are left out. `shared_reserved`: the bytes at the start of every block's shared window that the
// system keeps (1 KB on sm_80 and later, CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK): the kernel's
// own shared memory starts after them, and its offsets count from there, as on the CPU backend.
std::vector<MemoryAccess> memory_accesses_from_records(const std::vector<uint64_t>& words, uint64_t count,
                                                       std::vector<MemoryRegion> global, uint64_t block_limit,
                                                       uint64_t shared_reserved = 0);

}  // namespace cp
