// The worker's side of stepping through a block (issue 39): what each probe of a library compiled for the
// debugger hands over (the thread, its line, its variables) and the block's shared memory at the end of each
// round, kept as a DebugRecording (core/engine/debug_recording.h) for the app.
#pragma once

#include "core/cpu/guarded_memory.h"
#include "core/cpu/shim/cp_shim_abi.h"
#include "core/cpu/static_shared.h"
#include "core/engine/debug_recording.h"

#include <string>
#include <utility>
#include <vector>
#include <unordered_map>

namespace cp {

class DebugRecorder {
public:
    // At most this many bytes are recorded (variables, steps and shared-memory snapshots); past it the block runs
    // on unrecorded and the recording says it was cut.
    static constexpr uint64_t kCapBytes = 256ull << 20;

    // `globals`: the launch's buffers [start, start + bytes), for accesses (sorted or not).
    DebugRecorder(Dim3 block_index, Dim3 block_dim, const StaticSharedArrays* statics, const GuardedBuffer* dynamic,
                  std::vector<std::pair<const std::byte*, uint64_t>> globals = {}, uint64_t cap_bytes = kCapBytes);

    // A probe: thread `thread` is about to run `line`.
    void step(unsigned thread, int line, const char* names, const cp_abi::DebugValue* values, unsigned count);
    // A load or store of a thread's statement (a stepping copy compiled with access calls: the access recorder
    // forwards them while this recorder is the debug target); kept when it is to shared memory or a buffer.
    void access(const cp_abi::ThreadState* s, uint64_t address, uint64_t size, bool is_write);
    // The round ends (every thread that could run has reached its next probe, a barrier, a warp operation or its
    // end): shared memory as it is now is the round's.
    void end_round();
    // Every thread still running is at a __syncthreads(), about to be released: the last round is a barrier's.
    void at_barrier();

    DebugRecording take();
    void set_focus_warp(int32_t warp) { out_.focus_warp = warp; }

    // While set, the process's access recorder hands every access of kernel code to `target` (null: none). One
    // recording at a time: the worker runs one launch at a time.
    static void set_target(DebugRecorder* target);
    static DebugRecorder* target();

private:
    uint32_t intern(const std::string& name);
    void name_dynamic(const std::string& name, int kind, unsigned element_size);
    bool over_cap(uint64_t more) const;
    void truncate();

    DebugRecording out_;
    const StaticSharedArrays* statics_;
    const GuardedBuffer* dynamic_;
    uint64_t bytes_ = 0;
    bool round_has_steps_ = false;
    // The dynamic shared memory's name and type, from the first pointer variable a probe passes that points at
    // its start (`extern __shared__ int partial[]` is `int* const partial` on the CPU backend).
    std::string dynamic_name_ = "extern";
    DebugValueKind dynamic_kind_ = DebugValueKind::Other;
    uint32_t dynamic_element_ = 4;
    bool dynamic_named_ = false;
    std::unordered_map<const char*, std::vector<uint32_t>> split_;  // a probe's names, split once per site
    std::unordered_map<std::string, uint32_t> name_ids_;
    std::vector<std::pair<const std::byte*, uint64_t>> globals_;
    // Per thread: each array variable's last recorded bytes (name -> offset in values, size), and per probe which
    // variables reuse them (UINT64_MAX: recorded anew). Only arrays of at least kComparedArrayBytes are compared.
    static constexpr uint32_t kComparedArrayBytes = 16;
    std::vector<std::unordered_map<uint32_t, std::pair<uint64_t, uint32_t>>> last_array_;
    std::vector<uint64_t> reused_;
    std::vector<int32_t> line_of_thread_;  // each thread's last probe: the statement it is running
    std::vector<std::vector<std::pair<size_t, size_t>>> pending_stores_;  // (access, bytes)  // per thread: its stores whose bytes are read at its next probe
    void settle_stores(unsigned thread);
};

}  // namespace cp
