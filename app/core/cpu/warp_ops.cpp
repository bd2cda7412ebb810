// Warp operation results, following the CUDA Programming Guide's definitions (segments of `width`
// lanes for shuffles; __shfl_xor reads from earlier segments but not later ones).
#include "core/cpu/warp_ops.h"

namespace cp {
namespace {

int valid_width(int width) {
    if (width < 1 || width > 32 || (width & (width - 1))) return 32;  // undefined in CUDA: behave as 32
    return width;
}

int source_lane(const cp_abi::WarpRequest& r, int lane) {
    const int width = valid_width(r.width);
    const int segment = lane & ~(width - 1);
    switch (r.op) {
        case cp_abi::kShfl: return segment + (r.lane_arg & (width - 1));
        case cp_abi::kShflUp: {
            const int src = lane - r.lane_arg;
            return src < segment ? lane : src;
        }
        case cp_abi::kShflDown: {
            const int src = lane + r.lane_arg;
            return src >= segment + width ? lane : src;
        }
        case cp_abi::kShflXor: {
            const int src = lane ^ r.lane_arg;
            return (src >= segment + width || src < 0 || src > 31) ? lane : src;
        }
        default: return lane;
    }
}

bool in(unsigned group, int lane) { return (group >> lane) & 1u; }

}  // namespace

void compute_warp_results(unsigned group, const cp_abi::WarpRequest* const requests[32], unsigned long long results[32]) {
    int first = 0;
    while (first < 32 && !in(group, first)) ++first;
    if (first == 32) return;
    const int op = requests[first]->op;
    if (op >= cp_abi::kShfl && op <= cp_abi::kShflXor) {  // the common case needs no aggregate
        for (int lane = 0; lane < 32; ++lane) {
            if (!in(group, lane)) continue;
            const int src = source_lane(*requests[lane], lane);
            results[lane] = in(group, src) ? requests[src]->value : requests[lane]->value;
        }
        return;
    }

    unsigned ballot = 0;
    bool all_equal = true;
    unsigned long long sum = 0, and_all = ~0ull, or_all = 0, xor_all = 0;
    unsigned long long umin = ~0ull, umax = 0;
    long long smin = 0, smax = 0;
    bool first_signed = true;
    for (int lane = 0; lane < 32; ++lane) {
        if (!in(group, lane)) continue;
        const unsigned long long v = requests[lane]->value;
        if (v) ballot |= 1u << lane;
        if (v != requests[first]->value) all_equal = false;
        sum += v;
        and_all &= v;
        or_all |= v;
        xor_all ^= v;
        umin = v < umin ? v : umin;
        umax = v > umax ? v : umax;
        const long long s = static_cast<long long>(v);
        if (first_signed || s < smin) smin = s;
        if (first_signed || s > smax) smax = s;
        first_signed = false;
    }
    for (int lane = 0; lane < 32; ++lane) {
        if (!in(group, lane)) continue;
        const cp_abi::WarpRequest& r = *requests[lane];
        unsigned long long out = 0;
        switch (op) {
            case cp_abi::kShfl:
            case cp_abi::kShflUp:
            case cp_abi::kShflDown:
            case cp_abi::kShflXor: {
                const int src = source_lane(r, lane);
                out = in(group, src) ? requests[src]->value : r.value;
                break;
            }
            case cp_abi::kVoteAll: out = ballot == group ? 1 : 0; break;
            case cp_abi::kVoteAny: out = ballot ? 1 : 0; break;
            case cp_abi::kBallot: out = ballot; break;
            case cp_abi::kMatchAny: {
                unsigned same = 0;
                for (int j = 0; j < 32; ++j)
                    if (in(group, j) && requests[j]->value == r.value) same |= 1u << j;
                out = same;
                break;
            }
            case cp_abi::kMatchAll: out = all_equal ? group : 0; break;
            case cp_abi::kReduceAdd: out = sum & 0xFFFFFFFFull; break;
            case cp_abi::kReduceAddSigned: out = static_cast<unsigned long long>(static_cast<long long>(static_cast<int>(sum))); break;
            case cp_abi::kReduceMin: out = umin; break;
            case cp_abi::kReduceMax: out = umax; break;
            case cp_abi::kReduceMinSigned: out = static_cast<unsigned long long>(smin); break;
            case cp_abi::kReduceMaxSigned: out = static_cast<unsigned long long>(smax); break;
            case cp_abi::kReduceAnd: out = and_all; break;
            case cp_abi::kReduceOr: out = or_all; break;
            case cp_abi::kReduceXor: out = xor_all; break;
            default: out = 0; break;  // __syncwarp
        }
        results[lane] = out;
    }
}

const char* warp_op_name(int op) {
    static const char* names[] = {"__syncwarp",       "__shfl_sync",       "__shfl_up_sync",    "__shfl_down_sync",
                                  "__shfl_xor_sync",  "__all_sync",        "__any_sync",        "__ballot_sync",
                                  "__match_any_sync", "__match_all_sync",  "__reduce_add_sync", "__reduce_min_sync",
                                  "__reduce_max_sync", "__reduce_and_sync", "__reduce_or_sync", "__reduce_xor_sync",
                                  "__reduce_min_sync", "__reduce_max_sync", "__reduce_add_sync", "__activemask"};
    static_assert(sizeof(names) / sizeof(names[0]) == cp_abi::kWarpOpCount, "one name per warp operation");
    return op >= 0 && op < cp_abi::kWarpOpCount ? names[op] : "warp operation";
}

const char* barrier_name(int kind) {
    switch (kind) {
        case cp_abi::kSyncThreadsCount: return "__syncthreads_count";
        case cp_abi::kSyncThreadsAnd: return "__syncthreads_and";
        case cp_abi::kSyncThreadsOr: return "__syncthreads_or";
        default: return "__syncthreads";
    }
}

}  // namespace cp
