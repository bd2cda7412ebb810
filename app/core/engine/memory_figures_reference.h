// The plain-sort way of memory_figures() (memory_figures.h): its fallback where the packed key does not fit, and
// what tests hold the fast way equal to. Apart from memory_figures.h so that few files see it.
#pragma once

#include "core/engine/memory_figures.h"

#include <vector>

namespace cp {

// The same figures as memory_figures(), by one sort of every access on (site, space, store, block, warp, thread).
std::vector<MemoryFigures> memory_figures_reference(const std::vector<MemoryAccess>& accesses);

}  // namespace cp
