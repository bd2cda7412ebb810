// `run --sanitize TOOL --remote PREFIX`: the server's side. The remote worker (`worker --stdio --sanitize TOOL`)
// serves a CUDA backend started under the server's compute-sanitizer (core/backends/registry.h's
// make_served_sanitized_backend) and, when the app ends the connection, sends the sanitizer's log back in one last
// frame, which the app writes where its local log would be.
#pragma once


namespace cp {

// The JSON of the last frame a sanitizing worker sends ("goodbye"; the log is its blob), and the key it has.
inline constexpr const char* kSanitizerGoodbye = "sanitizer_log";

}  // namespace cp
