// Engine requests and responses on the wire between the app and its CUDA worker process: JSON for the
// plain values plus one binary blob per message for bulk bytes (upload and read-back data).
#pragma once

#include "core/engine/engine_api.h"

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace cp {

struct WireMessage {
    std::string json;
    std::vector<std::byte> blob;
};

// Encoding never fails; decoding returns nullopt on malformed input.
WireMessage encode_request(const Request& request);
std::optional<Request> decode_request(WireMessage message);
WireMessage encode_response(const Response& response);
std::optional<Response> decode_response(WireMessage message);

// Framed messages on a stream socket. write_message never raises SIGPIPE (false when the peer is gone).
bool write_message(int fd, const WireMessage& message);
enum class ReadStatus { Ok, Closed, TimedOut };
// timeout_ms < 0 waits forever.
ReadStatus read_message(int fd, int timeout_ms, WireMessage* out);

}  // namespace cp
