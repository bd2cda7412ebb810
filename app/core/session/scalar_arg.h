// The bytes of a scalar argument as a signature declares it (`int`, `float`, `size_t`...): for kernel
// launches and for calls of a lesson's CPU reference.
#pragma once

#include "core/result.h"

#include <cstddef>
#include <string>
#include <vector>

namespace cp {

Result<std::vector<std::byte>> scalar_bytes(const std::string& base_type, double value);

}  // namespace cp
