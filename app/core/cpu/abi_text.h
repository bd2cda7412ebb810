// The shim's index triples in messages: a thread or block as "(x,y,z)", the way every CPU-backend report names it.
#pragma once

#include "core/cpu/shim/cp_shim_abi.h"

#include <string>

namespace cp {

inline std::string uint3_text(cp_abi::Uint3 v) {
    return "(" + std::to_string(v.x) + "," + std::to_string(v.y) + "," + std::to_string(v.z) + ")";
}

}  // namespace cp
