// Reading and writing one component of a buffer element as a double, for every element type, so that
// initialisers and comparisons need no per-type code.
#pragma once

#include "core/kernel_file/kernel_spec.h"

#include <cstddef>

namespace cp {

bool is_signed_component(ElemType t);  // false for unsigned integers; floats are signed

// `element` points at the element's first byte; `component` is 0..components-1.
double read_component(const std::byte* element, ElemType t, uint32_t component);

// Integers are rounded to nearest and clamped to the component's range (no wrap-around).
void write_component(std::byte* element, ElemType t, uint32_t component, double value);

}  // namespace cp
