// The messages between the app and its CPU worker process (cpu_worker.h): one JSON object per message,
// "op" naming the request; descriptors (shared memory, the kernel library) travel beside it. Launches and
// their results reuse the engine's own encoding (engine_wire.h).
//
//   greeting  worker -> app   {ok, message, protocol}             fds: [seccomp listener]
//             (protocol: kWireProtocolVersion, engine_wire.h; the app refuses a worker from another build)
//   map       {buffers: [{id, name, bytes}]}                      fds: one per buffer
//                                                                 -> {errors: [{id, message, hint, kind}]}
//   unmap     {buffers: [ids], modules: [ids]}                    -> {}
//   load      {id, library, kernel, subject}                      -> {facts} | {error: {message, hint, kind}}
//   launch    {request: <engine launch request>}                  -> {result: <engine launch result>, site}
//   call      {module, symbol, args: [{name, buffer, scalar}]}    -> {ok, ms, error, site}
//   program   {module, argv, buffer_align, memory_limit}          fds: [stdout, stderr, events] (pipes' write ends)
//                                                                 -> {returned, exit_status, ms, error, site}
//             each launch, as it ends, is one line of JSON on the events pipe (launch_record_json)
#pragma once

#include "core/cpu/cpu_executor.h"

#include <nlohmann/json.hpp>

#include <optional>

namespace cp {

nlohmann::json facts_json(const ModuleFacts& facts);
ModuleFacts facts_from(const nlohmann::json& j);

nlohmann::json site_json(const std::optional<CodeSite>& site);
std::optional<CodeSite> site_from(const nlohmann::json& j);

nlohmann::json error_json(const std::optional<EngineError>& error);
std::optional<EngineError> error_from(const nlohmann::json& j);
nlohmann::json error_json(const Error& error);  // {message, hint, kind}: load and map errors
// The "kind" member of an error object `j` (error_kind_name's words); `fallback` when it has none.
ErrorKind error_kind_in(const nlohmann::json& j, ErrorKind fallback);

nlohmann::json host_call_json(const HostCallRequest& request);
HostCallRequest host_call_from(const nlohmann::json& j);

nlohmann::json program_request_json(const ProgramRunRequest& request);
ProgramRunRequest program_request_from(const nlohmann::json& j);
nlohmann::json program_result_json(const ProgramRunResult& result);
ProgramRunResult program_result_from(const nlohmann::json& j);
nlohmann::json launch_record_json(const ProgramLaunchRecord& record);
ProgramLaunchRecord launch_record_from(const nlohmann::json& j);

}  // namespace cp
