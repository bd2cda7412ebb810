// Component access by element type (see elem_access.h).
#include "core/data/elem_access.h"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

namespace cp {

namespace {

template <class T>
double load(const std::byte* p) {
    T v;
    std::memcpy(&v, p, sizeof v);
    return static_cast<double>(v);
}

template <class T>
void store(std::byte* p, double value) {
    T v;
    if constexpr (std::is_floating_point_v<T>) {
        v = static_cast<T>(value);
    } else {
        // Clamp in double first: converting an out-of-range double to an integer is undefined.
        const double lo = static_cast<double>(std::numeric_limits<T>::lowest());
        const double hi = static_cast<double>(std::numeric_limits<T>::max());
        double r = std::nearbyint(value);
        if (std::isnan(r)) r = 0;
        if (r <= lo) v = std::numeric_limits<T>::lowest();
        else if (r >= hi) v = std::numeric_limits<T>::max();
        else v = static_cast<T>(r);
    }
    std::memcpy(p, &v, sizeof v);
}

}  // namespace

bool is_signed_component(ElemType t) {
    switch (t) {
        case ElemType::UChar: case ElemType::UShort: case ElemType::UInt: case ElemType::ULongLong:
        case ElemType::UChar2: case ElemType::UChar3: case ElemType::UChar4:
        case ElemType::UInt2: case ElemType::UInt3: case ElemType::UInt4:
            return false;
        default:
            return true;
    }
}

double read_component(const std::byte* element, ElemType t, uint32_t component) {
    const ElemTypeInfo& info = elem_info(t);
    const std::byte* p = element + size_t(component) * info.component_size;
    const bool is_signed = is_signed_component(t);
    if (info.is_float) return info.component_size == 8 ? load<double>(p) : load<float>(p);
    switch (info.component_size) {
        case 1: return is_signed ? load<int8_t>(p) : load<uint8_t>(p);
        case 2: return is_signed ? load<int16_t>(p) : load<uint16_t>(p);
        case 4: return is_signed ? load<int32_t>(p) : load<uint32_t>(p);
        default: return is_signed ? load<int64_t>(p) : load<uint64_t>(p);
    }
}

void write_component(std::byte* element, ElemType t, uint32_t component, double value) {
    const ElemTypeInfo& info = elem_info(t);
    std::byte* p = element + size_t(component) * info.component_size;
    const bool is_signed = is_signed_component(t);
    if (info.is_float) {
        if (info.component_size == 8) store<double>(p, value);
        else store<float>(p, value);
        return;
    }
    switch (info.component_size) {
        case 1: is_signed ? store<int8_t>(p, value) : store<uint8_t>(p, value); break;
        case 2: is_signed ? store<int16_t>(p, value) : store<uint16_t>(p, value); break;
        case 4: is_signed ? store<int32_t>(p, value) : store<uint32_t>(p, value); break;
        default: is_signed ? store<int64_t>(p, value) : store<uint64_t>(p, value); break;
    }
}

}  // namespace cp
