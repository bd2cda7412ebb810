// One block's whole run, recorded for stepping through it (issue 39): every thread's variables at every probe
// (a probe precedes each statement of the kernel, core/cpu/debug_instrument.h) and the block's shared memory at
// the end of every round.
//
// A round is one step of the whole block: every thread that can run executes one statement (up to its next
// probe), in the block's thread order, while threads at a barrier or warp operation wait for the others, as
// on a GPU. So round r's probes are where each thread stands after r statements, and the shared memory after
// round r is what those statements left. Backward and forward are both look-ups: nothing runs again.
#pragma once

#include "core/result.h"
#include "core/types.h"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace cp {

// What a value's bytes hold (cp_abi::ValueKind, the same numbers).
enum class DebugValueKind : uint8_t { Other = 0, Bool, Signed, Unsigned, Float, Pointer };

struct DebugVariable {
    uint32_t name = 0;  // in DebugRecording::names
    DebugValueKind kind = DebugValueKind::Other;
    uint32_t element_size = 0;
    uint32_t count = 1;   // elements: 1 for a scalar, N for `float v[N]`, 4 for a float4
    uint64_t offset = 0;  // of its bytes in DebugRecording::values
    uint32_t bytes = 0;
    // A pointer's: what it points at (`const float* in`: Float, 4), for `in[i]` in a watch; Other, 0 when unknown.
    DebugValueKind pointee_kind = DebugValueKind::Other;
    uint32_t pointee_size = 0;
};

// A thread arriving at the probe of `line` in `round`: its variables as they are before that line runs.
struct DebugStep {
    uint32_t round = 0;
    uint32_t thread = 0;  // linear index in the block (x fastest)
    int32_t line = 0;
    uint32_t first_variable = 0, variable_count = 0;  // in DebugRecording::variables
};

struct DebugSharedArray {
    std::string name;  // the static __shared__ array's, or "extern" for the dynamic shared memory
    DebugValueKind kind = DebugValueKind::Other;
    uint32_t element_size = 0;
    std::vector<uint64_t> extents;  // outermost first; one for a flat array
    uint64_t bytes = 0;
    uint64_t base = 0;  // its address in the recording launch: the accesses' addresses are in the same space
};

// One load or store of the block to its shared memory or a launch buffer, by the statement a thread ran in
// `round` (the one at its probe of `line`). Kept when the stepping copy could be compiled with access calls
// (the CPU backend with GCC: DebugRecording::accesses_recorded).
struct DebugAccess {
    uint64_t address = 0;
    uint32_t round = 0;
    uint32_t thread = 0;
    int32_t line = 0;
    uint16_t bytes = 0;
    bool write = false;
    // The bytes loaded or stored (the first 8), when known: a load's as it read them, a store's as the thread's
    // next probe found them.
    bool has_value = false;
    uint64_t value = 0;
};

// Memory a pointer may point into, named: the launch's buffers and the block's shared arrays. A pointer variable is
// shown as `&in[339]` (its element) rather than as an address, which changes from run to run.
struct DebugRegion {
    std::string name;
    uint64_t base = 0, bytes = 0;
    uint32_t element_size = 0;  // 0: unknown (bytes are counted)
};

struct DebugRecording {
    Dim3 block_index, block_dim;
    uint32_t threads = 0;
    std::vector<std::string> names;
    std::vector<DebugStep> steps;  // in the order they happened
    std::vector<DebugVariable> variables;
    std::vector<std::byte> values;
    std::vector<DebugSharedArray> shared;
    std::vector<DebugRegion> regions;
    // The shared arrays' bytes, array after array (each `shared[k].bytes`; an array made in a later round is zero
    // before it): each distinct state once, and per round the state after it (an index in shared_snapshots).
    std::vector<std::vector<std::byte>> shared_snapshots;
    std::vector<uint32_t> shared_after_round;
    uint32_t rounds = 0;
    // The rounds after which every thread still running waited at a __syncthreads(): each barrier's stop, where
    // shared memory holds everything written before it (in order, each once).
    std::vector<uint32_t> barriers;
    // Every access of the block to shared memory and to the launch's buffers, in order (accesses_recorded false:
    // this build could not instrument them, so writers and touched elements are unknown).
    std::vector<DebugAccess> accesses;
    bool accesses_recorded = false;
    // The warp that stepped alone (LaunchRequest::debug_warp): in each round before it reached a barrier or its
    // end, only its threads moved, the others held at their line. -1: every thread stepped in every round.
    int32_t focus_warp = -1;
    bool truncated = false;  // the cap was reached: rounds from `rounds` on were not recorded
    uint64_t cap_bytes = 0;
    double ms = 0;  // the recording launch's wall time

    uint64_t recorded_bytes() const;
};

// One thread's place at a round: the last probe it reached up to that round (its line, the variables then),
// and whether it stepped in that round (false: waiting at a barrier or a warp operation, or returned).
struct DebugThreadAt {
    uint32_t thread = 0;
    const DebugStep* step = nullptr;  // null: it has not reached a probe yet
    bool moved = false;
    bool finished = false;  // its last probe was its last and came in an earlier round: it has returned
};

// A buffer's elements the block read or wrote up to a round, as ranges of element indices [first, last].
struct DebugTouched {
    size_t region = 0;  // in DebugRecording::regions
    std::vector<std::pair<uint64_t, uint64_t>> read, written;
};

// Views over a recording.
class DebugTimeline {
public:
    explicit DebugTimeline(const DebugRecording& recording);

    uint32_t rounds() const { return recording_.rounds; }
    // Each thread at the end of `round` (0-based), in linear order.
    std::vector<DebugThreadAt> threads_at(uint32_t round) const;
    // The first round in which some thread arrives at `line`'s probe; none if no thread does.
    std::optional<uint32_t> first_round_at(int line, uint32_t from = 0) const;
    // A variable's value as text ("7", "0.5", "{1, 2, 3, 4}", "&in[339]", "true"; a pointer outside every region
    // as its address, "0x7f...").
    std::string value_text(const DebugVariable& v) const;
    // An address as a region's element ("&in[339]", "&in[1000] (one past its end)"), or hex.
    std::string pointer_text(uint64_t address) const;
    // Variable `name` of a step, if the probe passed it.
    const DebugVariable* variable(const DebugStep& step, const std::string& name) const;
    // Shared array `array`'s element `index` after `round`, as text; its bytes as a double for tests and pictures.
    std::string shared_text(uint32_t round, size_t array, uint64_t index) const;
    std::optional<double> shared_number(uint32_t round, size_t array, uint64_t index) const;
    // Per element of shared array `array`, the last access that wrote it up to `round` (an index in
    // DebugRecording::accesses), or -1 where nothing wrote it (or the recording has no accesses).
    std::vector<int64_t> shared_writers(uint32_t round, size_t array) const;
    // The launch buffers' elements the block touched up to `round`, by buffer (shared arrays left out).
    std::vector<DebugTouched> touched(uint32_t round) const;
    // The region holding `address` (an index in DebugRecording::regions) and the element's index in it.
    std::optional<std::pair<size_t, uint64_t>> element_at(uint64_t address) const;
    // The round in which the statement that gave thread `thread` the value its variable `name` has at `round`
    // ran: the round after the last earlier probe where the value differed (its first probe, when it never did).
    // nullopt: the thread has no such variable at `round`.
    std::optional<uint32_t> round_that_set(uint32_t thread, uint32_t round, const std::string& name) const;
    // A watch expression (`in[i] * 2`, `partial[tid] + partial[tid + stride]`, `tile[ty][tx]`) for thread `thread`
    // at the end of `round`: the arithmetic of core/kernel_file/expr.h over the thread's scalar variables,
    // threadIdx.x (.y, .z), blockIdx.*, blockDim.*, and elements: of a shared array by its name, of a small local
    // array, and through a pointer variable (`in[i]`) the value the block last loaded or stored there up to then.
    // An Error says what is missing (a name not in scope, an element this block has not touched yet, an index
    // past an array's end).
    Result<double> watch(uint32_t thread, uint32_t round, const std::string& expression) const;
    // Thread `thread`'s step at the end of `round` (its last probe up to then), or null.
    const DebugStep* step_at(uint32_t thread, uint32_t round) const;
    const DebugRecording& recording() const { return recording_; }

private:
    const std::byte* shared_element(uint32_t round, size_t array, uint64_t index) const;

    const DebugRecording& recording_;
    std::vector<uint32_t> round_start_;            // per round: its first step's index in steps
    std::vector<std::vector<uint32_t>> by_thread_;  // per thread: its steps' indices, in order
};

// A value's bytes as text, by kind and element size.
std::string debug_value_text(DebugValueKind kind, uint32_t element_size, const std::byte* data, uint32_t count);
std::optional<double> debug_value_number(DebugValueKind kind, uint32_t element_size, const std::byte* data);

}  // namespace cp
