// The values a kernel's scalar argument holds unchanged, shared by the header's check of a default and `--set`.
#pragma once

#include "core/kernel_file/kernel_spec.h"

namespace cp {

// int and uint are 32-bit, float below 3.4e38 in magnitude. Outside them a value would wrap or become infinity
// on its way into the kernel (3e9 as an int is -1294967296): `--set` and header defaults refuse it.
struct ScalarRange {
    double lo, hi;
};
ScalarRange scalar_range(ScalarType t);

}  // namespace cp
