// The bytes of a scalar argument as a signature declares it (`int`, `float`, `size_t`...): for kernel
// launches and for calls of a lesson's CPU reference; and a launch's arguments in the signature's order.
#pragma once

#include "core/engine/engine_api.h"
#include "core/kernel_file/kernel_spec.h"
#include "core/result.h"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace cp {

// How a scalar parameter type is held: `int` a signed 4-byte integer, `size_t` an unsigned 8-byte one, `double` an
// 8-byte float; nullopt for a type the playground does not set (a struct, a half).
struct ScalarLayout {
    enum class Kind { Signed, Unsigned, Float, Bool } kind;
    uint32_t size;  // bytes
};
std::optional<ScalarLayout> scalar_layout(const std::string& base_type);

Result<std::vector<std::byte>> scalar_bytes(const std::string& base_type, double value);
// The inverse: an argument's bytes (as many as its type has) read as the type declares; nullopt otherwise.
std::optional<double> scalar_value(const std::string& base_type, const std::vector<std::byte>& bytes);

// Where a pointer argument points: a buffer and a byte offset into it (a chunk or a device's part).
struct BufferArg {
    BufferId buffer = 0;
    uint64_t offset = 0;
};

// The kernel's arguments in `sig`'s order: each pointer as `buffer(name)` places it, each scalar its value in
// `params` packed as its declared type. The one way the whole launch, a step, a stream's chunk and a device's
// part build their arguments.
Result<std::vector<KernelArg>> kernel_args(const KernelSignature& sig, const std::map<std::string, double>& params,
                                           const std::function<BufferArg(const std::string&)>& buffer);

}  // namespace cp
