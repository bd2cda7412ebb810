// DeviceInfo as JSON, one field list for every place it is written: the worker wire (engine_wire.cpp) and
// `info --json` (docs/schema/info.schema.json) read and write the same object.
#pragma once

#include "core/types.h"

#include <nlohmann/json.hpp>

namespace cp {

// Every field, by name; "compute_capability" is "MAJOR.MINOR" and "capabilities" holds BackendCapabilities.
nlohmann::json device_info_to_json(const DeviceInfo& device);
// The inverse. A missing or mistyped field throws (nlohmann::json::exception, or std::runtime_error for a
// compute capability that is not MAJOR.MINOR): the wire turns that into an Internal error naming the message.
DeviceInfo device_info_from_json(const nlohmann::json& j);

nlohmann::json capabilities_to_json(const BackendCapabilities& caps);

// A Dim3 as [x, y, z], as every JSON output writes one.
nlohmann::json dim3_json(const Dim3& d);
BackendCapabilities capabilities_from_json(const nlohmann::json& j);

}  // namespace cp
