// A kernel file's own headers (#include "x.h"), found by the app itself so that both compilers see the same
// files and neither reads anything else: only files in the kernel file's folder (and below) are taken;
// absolute paths, `..` that leave the folder and links that point outside it are refused with the line.
// NVRTC gets the headers in memory; the host compiler gets a private copy of the folder's layout.
#pragma once

#include "core/types.h"

#include <string>
#include <vector>

namespace cp {

struct LocalHeader {
    std::string name;       // relative to the kernel file's folder, normalised: "common.h", "sub/util.h"
    std::string contents;   // as on disk
    std::string rewritten;  // its local includes spelled as `name`s (NVRTC matches headers by that text)
};

struct LocalIncludes {
    std::string rewritten_source;         // the kernel's source with local includes spelled as `name`s
    std::vector<LocalHeader> headers;     // every local header reached, each once
    std::vector<Diagnostic> diagnostics;  // refused includes, unreadable headers
};

// `path` is the kernel file's path (its folder is where headers may come from; with no folder, no header is
// local). Quoted includes that name no file in the folder are left to the compiler's include path (the
// toolkit's headers, e.g. "cuda_runtime.h").
// `device_only`: each header as device compiles take it, its host functions, host globals and host-only includes
// left out (host_code.h), so a helper header shared with a sample's host code compiles for the device.
// `search_dirs` (a program's -I DIR): where an include not found in the folder is looked for next, the headers
// found there copied into the build folder under the name as written.
LocalIncludes resolve_local_includes(const std::string& source, const std::string& path, bool device_only = false,
                                     const std::vector<std::string>& search_dirs = {});

// One string that changes when any header's name or contents change (for compile caches).
std::string local_includes_fingerprint(const LocalIncludes& includes);

}  // namespace cp
