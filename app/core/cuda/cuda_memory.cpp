// CUDA backend, recording launches (issue 23): the device log the instrumented kernel writes (ptx_memory.h),
// the stated sample of whole blocks when a launch makes more accesses than the cap, and the per-line figures.
#include "core/cuda/cuda_backend.h"
#include "core/cuda/ptx_memory.h"

#include <algorithm>

namespace cp {

namespace {

// Passes at most: each one after the first keeps the blocks its predecessor's mean says fit (a launch whose
// first blocks make more accesses than its later ones needs a second correction, rarely a third).
constexpr int kMaxMemoryPasses = 6;

uint64_t log_bytes(uint64_t cap) { return cap * kMemoryRecordWords * sizeof(uint64_t); }

}  // namespace

std::optional<EngineError> CudaBackend::begin_memory_recording(const LoadedModule& module, const LaunchRequest& request,
                                                               MemoryPass& pass) {
    if (!module.memory)
        return engine_error(ErrorKind::Internal, "NOT_INSTRUMENTED",
                            "a recording launch needs the kernel compiled to record",
                            "compile with CompileRequest::instrument_memory");
    pass.cap = kCudaMemoryRecordCap;
    pass.warps = request.memory_warps;
    pass.blocks = request.grid.count();
    // Block indices travel in 32 bits of a record; so many blocks pass the cap long before.
    pass.block_limit = std::min<uint64_t>(pass.blocks, uint64_t(1) << 32);
    const uint64_t bytes = log_bytes(pass.cap);
    if (d_.MemAlloc(&pass.log, bytes) != CUDA_SUCCESS) {
        pass.log = 0;
        return engine_error(ErrorKind::OutOfMemory, "OUT_OF_MEMORY",
                            "no device memory for the recording's log (" + std::to_string(bytes >> 20) + " MB)",
                            "run without --memory, or with smaller buffers");
    }
    CUresult r = d_.MemcpyHtoD(module.memory->log, &pass.log, sizeof pass.log);
    if (r == CUDA_SUCCESS) r = d_.MemcpyHtoD(module.memory->cap, &pass.cap, sizeof pass.cap);
    if (r == CUDA_SUCCESS) r = start_memory_pass(module, pass);
    if (r != CUDA_SUCCESS) {
        d_.MemFree(pass.log);
        pass.log = 0;
        return failure(r, "the recording's log");
    }
    pass.passes = 1;
    return std::nullopt;
}

// Before each pass: the log cleared (a thread's chunk of slots, ptx_memory.cpp, may end in slots it never writes,
// which must read as no record), the counter at 0, the blocks that record.
CUresult CudaBackend::start_memory_pass(const LoadedModule& module, const MemoryPass& pass) {
    const uint64_t zero = 0;
    CUresult r = d_.MemsetD8(pass.log, 0, log_bytes(pass.cap));
    if (r == CUDA_SUCCESS) r = d_.MemcpyHtoD(module.memory->count, &zero, sizeof zero);
    if (r == CUDA_SUCCESS) r = d_.MemcpyHtoD(module.memory->block_limit, &pass.block_limit, sizeof pass.block_limit);
    return r;
}

// After a pass: when the threads took more slots than the cap holds (a record was dropped, or nearly: a chunk's
// unused slots count too), the blocks from 0 that fit by this pass's mean per block are recorded again, whole (a
// block's shared-memory behaviour needs all its warps), and `again` says so.
CUresult CudaBackend::memory_pass_needed(const LoadedModule& module, MemoryPass& pass, bool can_run_again,
                                         bool& again) {
    again = false;
    CUresult r = d_.MemcpyDtoH(&pass.count, module.memory->count, sizeof pass.count);
    if (r != CUDA_SUCCESS || pass.count <= pass.cap) return r;
    uint64_t fit = uint64_t(double(pass.block_limit) * double(pass.cap) / double(pass.count));
    fit = std::min(fit, pass.block_limit - 1);
    if (!can_run_again || fit == 0 || pass.passes >= kMaxMemoryPasses) {
        // Nothing whole to show: no block is counted (the note says 0 of N blocks).
        pass.block_limit = 0;
        return CUDA_SUCCESS;
    }
    pass.block_limit = fit;
    r = start_memory_pass(module, pass);
    ++pass.passes;
    again = r == CUDA_SUCCESS;
    return r;
}

CUresult CudaBackend::end_memory_recording(const LoadedModule& module, MemoryPass& pass, double ms, LaunchResult& out) {
    CUresult r = CUDA_SUCCESS;
    std::vector<uint64_t> words;
    const uint64_t kept = std::min(pass.count, pass.cap);
    if (pass.block_limit > 0 && kept > 0) {
        words.resize(kept * kMemoryRecordWords);
        r = d_.MemcpyDtoH(words.data(), pass.log, words.size() * sizeof(uint64_t));
    }
    // The module's later launches (a plain launch of the recording module) record nothing.
    const CUdeviceptr none = 0;
    if (r == CUDA_SUCCESS) r = d_.MemcpyHtoD(module.memory->log, &none, sizeof none);
    d_.MemFree(pass.log);
    pass.log = 0;
    if (r != CUDA_SUCCESS) return r;

    std::vector<MemoryRegion> global;
    for (const auto& [id, b] : buffers_)
        if (b.bytes) global.push_back({uint64_t(b.ptr), b.bytes});
    const std::vector<MemoryAccess> accesses =
        memory_accesses_from_records(words, kept, std::move(global), pass.block_limit, reserved_shared_bytes());
    MemoryRecording recording;
    recording.access_cap = pass.cap;
    recording.blocks_total = pass.blocks;
    recording.blocks_recorded = pass.block_limit;
    recording.capped = pass.block_limit < pass.blocks;
    recording.accesses = accesses.size();
    recording.ms = ms;
    recording.figures = memory_figures(accesses);
    recording.warps = warp_details(accesses, pass.warps);  // the Memory panel's picture, lane by lane
    const auto& lines = module.memory_site_lines;
    map_recording_lines(recording,
                        [&](uint64_t site) { return site >= 1 && site <= lines.size() ? lines[site - 1] : 0; });
    out.memory = std::move(recording);
    return CUDA_SUCCESS;
}

uint64_t CudaBackend::reserved_shared_bytes() const {
    int v = 0;
    return d_.DeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK, device_) == CUDA_SUCCESS && v > 0
               ? uint64_t(v)
               : 0;
}

void CudaBackend::abandon_memory_recording(const LoadedModule& module, MemoryPass& pass) {
    // The module must not write into the freed log at its next launch.
    const CUdeviceptr none = 0;
    d_.MemcpyHtoD(module.memory->log, &none, sizeof none);
    d_.MemFree(pass.log);
    pass.log = 0;
}

}  // namespace cp
