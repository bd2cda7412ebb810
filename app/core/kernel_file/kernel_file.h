// Reading kernel files: the metadata header, the __global__ signature, and the checks between them.
#pragma once

#include "core/kernel_file/kernel_spec.h"
#include "core/result.h"

#include <filesystem>
#include <string>
#include <vector>

namespace cp {

// Parses source text (never fails: every problem becomes a Diagnostic with its line).
// A file without a metadata header gets spec.has_metadata = false and no error.
// `kernel`, when given, runs that __global__ function instead of the one the header's `kernel:` names (e.g. a
// variant in the same file, `run --compare`).
KernelFile parse_kernel_source(std::string source, std::filesystem::path path, const std::string& kernel = {});

// Where a source's `/*@playground ... */` block is: `open` at its `/*@playground`, `close` at its `*/` (npos when
// it is never closed); both npos when the source has none. The one rule every reader of the header uses.
struct MetadataHeaderSpan {
    static constexpr const char* kOpen = "/*@playground";
    static constexpr size_t kOpenSize = 13;
    size_t open = std::string::npos, close = std::string::npos;
    bool found() const { return open != std::string::npos; }
    size_t body() const { return open + kOpenSize; }  // the first character after `/*@playground`
};
MetadataHeaderSpan find_metadata_header(const std::string& source);

// Whether a `compare:` / `--compare` variant names a file (`matrix/matmul_tiled`, `tiled.cu`: a `/` or a `.cu`
// ending) rather than a kernel of the same file.
bool variant_names_a_file(const std::string& variant);

// Reads and parses a file. Fails only when the file cannot be read (missing, a directory, unreadable,
// not text); the Error says which and how to fix it.
Result<KernelFile> load_kernel_file(const std::filesystem::path& path);

// Finds the kernel to run in `source`: the one `wanted` names (`kernel:` in the header: a name, or a template
// instantiation `reduce<float, 256>` whose arguments give the parameters their types), else the file's only
// __global__ function. Diagnostics (at `wanted_line` when about `wanted`) when there is none or several.
std::optional<KernelSignature> parse_signature(const std::string& source, const std::string& file,
                                               std::vector<Diagnostic>& diagnostics, const std::string& wanted = {},
                                               int wanted_line = 0);

// Where the kernel library and assets live: $CUDA_PLAYGROUND_KERNELS / $CUDA_PLAYGROUND_ASSETS, else the
// source tree's folders baked in at build time, else next to the executable.
std::filesystem::path kernels_dir();
std::filesystem::path assets_dir();
// Where the Python side lives (the `pycuda` and `cupy` the playground provides to scripts, and its client):
// $CUDA_PLAYGROUND_PYTHON_DIR, else the source tree's python/, else next to the executable.
std::filesystem::path python_dir();

// The views a file shows: its `view` lines, or every out/inout buffer as a plot when it has none.
std::vector<ViewSpec> shown_views(const KernelSpec& spec);

// The library kernel whose name ("image/box_blur", or "box_blur") is closest to a mistyped one, as
// "image/box_blur"; "" when none is close. Every "file not found" names it ("did you mean ...").
std::string closest_library_kernel(const std::string& given);

// Every kernels/**/*.cu, parsed, sorted by category then title.
std::vector<KernelFile> scan_library(const std::filesystem::path& dir);

}  // namespace cp
