// Explaining a block that cannot continue: which threads wait at which barrier or warp operation (with
// lines), so a divergent __syncthreads is reported instead of hanging.
#include "core/cpu/block_scheduler.h"

#include "core/cpu/abi_text.h"
#include "core/cpu/warp_ops.h"

#include <algorithm>
#include <cstdio>

namespace cp {
namespace {

std::string format_ranges(const std::vector<unsigned>& ids) {
    std::string out;
    int ranges = 0;
    for (size_t i = 0; i < ids.size();) {
        size_t j = i;
        while (j + 1 < ids.size() && ids[j + 1] == ids[j] + 1) ++j;
        if (++ranges > 6) {
            out += ", ...";
            break;
        }
        if (!out.empty()) out += ", ";
        out += std::to_string(ids[i]);
        if (j > i) out += "-" + std::to_string(ids[j]);
        i = j + 1;
    }
    return out;
}

// "thread 5", "16 threads (0-15)".
std::string threads_text(const std::vector<unsigned>& ids) {
    if (ids.size() == 1) return "thread " + format_ranges(ids);
    return std::to_string(ids.size()) + " threads (" + format_ranges(ids) + ")";
}

}  // namespace

std::string BlockScheduler::thread_name(unsigned linear) const {
    return "thread " + uint3_text(linear < thread_index_.size() ? thread_index_[linear] : cp_abi::Uint3{0, 0, 0});
}

std::string BlockScheduler::block_name() const { return "block " + uint3_text(state_->block_idx); }

void BlockScheduler::describe_stall() {
    struct WaitPoint {
        std::string what;  // "__syncthreads at line 12", "__shfl_sync (mask 0x0000ffff) at line 30"
        bool warp = false;
        std::vector<unsigned> threads;
    };
    std::vector<WaitPoint> points;
    std::vector<unsigned> exited;
    for (unsigned i = 0; i < threads_; ++i) {
        const Slot& s = slots_[i];
        if (s.status == Status::Exited) {
            exited.push_back(i);
            continue;
        }
        WaitPoint p;
        if (s.status == Status::AtBarrier) {
            p.what = std::string(barrier_name(s.kind)) + " at line " + std::to_string(s.line);
        } else if (s.status == Status::AtWarp) {
            char mask[32];
            std::snprintf(mask, sizeof mask, "0x%08x", s.warp.mask);
            p.what = std::string(warp_op_name(s.warp.op)) + " (mask " + mask + ") at line " + std::to_string(s.line);
            p.warp = true;
        } else {
            p.what = std::string(warp_op_name(cp_abi::kActiveMask)) + " at line " + std::to_string(s.line);
            p.warp = true;
        }
        auto it = std::find_if(points.begin(), points.end(), [&](const WaitPoint& q) { return q.what == p.what; });
        if (it == points.end()) it = points.insert(points.end(), std::move(p));
        it->threads.push_back(i);
    }
    bool any_warp = false;
    for (const WaitPoint& p : points) any_warp = any_warp || p.warp;

    std::string message = block_name() + ": ";
    // Every live thread waits at one barrier, but some returned before it: they never arrive.
    const bool returned_early = points.size() == 1 && !any_warp && !exited.empty();
    if (returned_early) {
        const WaitPoint& p = points[0];
        message += threads_text(p.threads) + (p.threads.size() == 1 ? " waits" : " wait") + " at " + p.what +
                   ", but " + threads_text(exited) + (exited.size() == 1 ? " has" : " have") +
                   " already returned and will never reach it";
    }
    for (size_t i = 0; i < points.size() && !returned_early; ++i) {
        const WaitPoint& p = points[i];
        if (i == 0) {
            message += p.what + " reached by " + threads_text(p.threads);
        } else {
            message += std::string(i == 1 ? ", but " : ", and ") + threads_text(p.threads) +
                       (p.threads.size() == 1 ? " is" : " are") + " waiting at " + p.what;
        }
    }
    if (points.size() == 1 && !returned_early) message += ", which cannot complete";
    if (!exited.empty() && !returned_early)
        message += " (" + threads_text(exited) + (exited.size() == 1 ? " has" : " have") + " already returned)";
    if (thread_index_.size() > 1 && (launch_.block_dim.y > 1 || launch_.block_dim.z > 1))
        message += "; threads are numbered x + y*blockDim.x + z*blockDim.x*blockDim.y";

    if (any_warp) {
        failure_ = {"DEADLOCK", message,
                    "the lanes named in a warp operation's mask must all reach that operation, and every thread must "
                    "reach the block's barriers; compute the mask with __ballot_sync or __activemask, or move the "
                    "call out of the branch",
                    ErrorKind::Hang};  // on a GPU these threads would wait forever
    } else if (returned_early) {
        failure_ = {"BARRIER_DIVERGENCE", message,
                    "every thread of a block must reach each __syncthreads(); one that returns early never does "
                    "(CUDA leaves this undefined: a GPU usually lets the others pass, and what the returned threads "
                    "should have written to shared memory is missing). Do not return before a barrier: guard the "
                    "work instead (`if (i < n) { ... }`) so that every thread reaches it, or return only after the "
                    "last barrier",
                    ErrorKind::Hang};  // as a barrier that some threads never reach (kernels/FORMAT.md, `hang`)
    } else {
        failure_ = {"BARRIER_DIVERGENCE", message,
                    "every thread of a block that has not returned must reach the same __syncthreads(); a barrier "
                    "inside a branch that only some threads take hangs or misbehaves on a GPU. Move it out of the "
                    "branch",
                    ErrorKind::Hang};
    }
}

}  // namespace cp
