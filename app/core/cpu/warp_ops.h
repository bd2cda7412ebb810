// What each lane of a warp gets back from a warp operation (shuffle, vote, match, reduce), given the
// requests of the lanes taking part. Pure arithmetic, separate from the fibers that make lanes meet.
#pragma once

#include "core/cpu/shim/cp_shim_abi.h"

namespace cp {

// `group`: the lanes taking part (bit i = lane i); `requests[i]` is lane i's request (read only for lanes
// in `group`). Fills `results[i]` for every lane in `group`. A shuffle from a lane outside the group
// (exited, or not named in the mask: undefined in CUDA) returns the caller's own value.
void compute_warp_results(unsigned group, const cp_abi::WarpRequest* const requests[32], unsigned long long results[32]);

// "__shfl_down_sync", "__syncthreads_count"... for messages.
const char* warp_op_name(int op);
const char* barrier_name(int kind);

}  // namespace cp
