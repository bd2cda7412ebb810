// cg::reduce and its operators live in <cooperative_groups.h> in the CPU backend's shim.
#pragma once
#include <cooperative_groups.h>
