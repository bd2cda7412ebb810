// The on-disk cache of NVRTC results: one JSON file per (source, options, arch, NVRTC version), holding
// the cubin, the compiler log, the lowered kernel name and the resource usage. Unreadable or corrupt
// entries count as misses (and get rewritten); nothing here throws.
#pragma once

#include "core/types.h"

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cp {

struct CachedCompile {
    std::string log;
    std::string lowered_name;
    std::map<std::string, std::string> also_lowered;  // CompileRequest::also_kernels: name -> symbol
    ResourceUsage usage;
    std::vector<std::byte> image;  // cubin (or PTX when compiled for a virtual architecture)
};

// $CUDA_PLAYGROUND_CACHE_DIR/cubin, else $XDG_CACHE_HOME/cuda-playground/cubin, else
// ~/.cache/cuda-playground/cubin. Empty when CUDA_PLAYGROUND_NO_CACHE is set or no home is known.
std::filesystem::path cubin_cache_dir();
// The folder above it, whatever CUDA_PLAYGROUND_NO_CACHE says (what else is remembered per user: the GPU's
// architecture for `compile`); empty when no home is known.
std::filesystem::path user_cache_dir();

// A cache key: two independent 64-bit FNV-1a hashes of `inputs` (32 hex digits).
std::string cache_key(std::string_view inputs);

// Writes `text` to `path` whole or not at all: a temporary file beside it renamed over it (processes may race;
// one of them wins whole), its folder made if missing. False when it could not be written.
bool write_file_whole(const std::filesystem::path& path, const std::string& text);

std::optional<CachedCompile> load_cached_compile(const std::filesystem::path& dir, const std::string& key);
// Writes atomically (temporary file + rename); false when the directory is not writable.
bool store_cached_compile(const std::filesystem::path& dir, const std::string& key, const CachedCompile& entry);

uint64_t fnv1a64(std::string_view data, uint64_t basis = 0xcbf29ce484222325ull);

}  // namespace cp
