// Engine requests and responses on the wire between the app and its worker processes: JSON for the plain
// values plus one binary blob per message for bulk bytes (upload and read-back data). Framing: wire_frame.h.
#pragma once

#include "core/engine/engine_api.h"
#include "core/worker/wire_frame.h"

#include <optional>

namespace cp {

// Encoding never fails; decoding returns nullopt on malformed input.
WireMessage encode_request(const Request& request);
std::optional<Request> decode_request(WireMessage message);
WireMessage encode_response(const Response& response);
std::optional<Response> decode_response(WireMessage message);

}  // namespace cp
