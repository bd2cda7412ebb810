// A buffer's contents in host memory with its element type: inputs as filled, outputs as read back.
#pragma once

#include "core/kernel_file/kernel_spec.h"

#include <cstddef>
#include <string>
#include <vector>

namespace cp {

struct HostBuffer {
    std::string name;
    ElemType type = ElemType::Float;
    std::vector<std::byte> bytes;

    size_t count() const { return bytes.size() / elem_info(type).size; }
    template <class T> T* as() { return reinterpret_cast<T*>(bytes.data()); }
    template <class T> const T* as() const { return reinterpret_cast<const T*>(bytes.data()); }
};

}  // namespace cp
