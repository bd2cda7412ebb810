// `run --sanitize TOOL --remote PREFIX`: the server's side. The remote worker (`worker --stdio --sanitize TOOL`)
// serves a CUDA backend started under the server's compute-sanitizer and, when the app ends the connection,
// sends the sanitizer's log back in one last frame, which the app writes where its local log would be.
#pragma once

#include "core/cuda/sanitizer_report.h"

#include "core/engine/backend.h"
#include "core/result.h"

#include <memory>
#include <string>

namespace cp {

// The backend `worker --stdio --backend NAME --sanitize TOOL` serves: the CUDA worker under compute-sanitizer,
// writing to a fresh log on this server (`*log_path`). An Error that names what this server lacks (the
// sanitizer, the CUDA backend) and this host, for the app's message; the CPU backend is refused (it reports
// out-of-bounds accesses on its own). CUDA_PLAYGROUND_PRETEND_SANITIZER_LOG=FILE (tests on machines without
// a GPU): serves NAME unsanitized and takes FILE's text as the log, so the log's way back is still the real one.
Result<std::unique_ptr<Backend>> make_served_sanitized_backend(const std::string& backend_name, const std::string& tool,
                                                               const std::string& host, std::string* log_path);

// The JSON of the last frame a sanitizing worker sends ("goodbye"; the log is its blob), and the key it has.
inline constexpr const char* kSanitizerGoodbye = "sanitizer_log";

}  // namespace cp
