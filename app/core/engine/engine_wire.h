// Engine requests and responses on the wire between the app and its worker processes: JSON for the plain
// values plus one binary blob per message for bulk bytes (upload and read-back data). Framing: wire_frame.h.
// Messages are encoded and decoded by type: each Request and Response alternative has a wire name and its own
// encoder and decoder (engine_wire.cpp), and a new alternative without them does not compile.
#pragma once

#include "core/engine/engine_api.h"
#include "core/result.h"
#include "core/worker/wire_frame.h"

#include <optional>
#include <string>
#include <type_traits>
#include <variant>

namespace cp {

// The version of everything that crosses a worker's socket: this file's messages, the CPU worker's own
// (cpu_worker_protocol.h), and the error kinds' names. MUST bump when the wire format changes (a message
// type, a field or an ErrorKind added, removed, renamed or re-typed). Each worker says it in its greeting;
// the app refuses a worker whose number differs (check_worker_protocol). A field that is optional both ways (an
// older peer ignores it, a newer one reads its absence as the old behaviour: ReadBackRequest::preview, the
// remote greeting's "compress") needs no bump: it keeps older peers talking.
inline constexpr int kWireProtocolVersion = 9;  // 9: the debugger's recording; 3: CompileRequest::also_kernels, CompileResult::also_usage; 4: LaunchResult::backend_ms; 5: memory recording, read-back previews; 6: memory warps lane by lane; 7: LaunchResult::phases; 8: DeviceInfo in info --json's form (device_info_json.h)

// Encoding never fails; decoding says what was wrong with a message it cannot read (not JSON, a type this
// build does not know, a missing or mistyped field), as an Error of kind Internal.
WireMessage encode_request(const Request& request);
Result<Request> decode_request(WireMessage message);
WireMessage encode_response(const Response& response);
Result<Response> decode_response(WireMessage message);

// The position of T among a variant's alternatives (the variant's size when it is not one of them).
template <class T, class... Ts>
constexpr size_t index_in(const std::variant<Ts...>*) {
    constexpr bool same[] = {std::is_same_v<T, Ts>...};
    for (size_t i = 0; i < sizeof...(Ts); ++i)
        if (same[i]) return i;
    return sizeof...(Ts);
}

// The response type each request gets (LaunchRequest -> LaunchResult): the variants pair up in order.
static_assert(std::variant_size_v<Request> == std::variant_size_v<Response>, "every request has its response type");
template <class Req>
using ResponseFor = std::variant_alternative_t<index_in<Req>(static_cast<const Request*>(nullptr)), Response>;

// The greeting's "protocol" field against this build's: an Error (kind WorkerLost) naming `worker` and what
// to do when a worker binary from another build answered.
std::optional<Error> check_worker_protocol(int worker_version, const std::string& worker);

}  // namespace cp
