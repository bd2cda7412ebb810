// Names of a program's ends (program_api.h); changes applied to a launch being made (program_device.h).
#include "core/engine/program_api.h"
#include "core/engine/program_device.h"

#include <cstring>

namespace cp {

const char* program_end_name(ProgramRun::End end) {
    switch (end) {
        case ProgramRun::End::NotRun:
            return "not_run";
        case ProgramRun::End::Returned:
            return "returned";
        case ProgramRun::End::Exited:
            return "exited";
        case ProgramRun::End::Aborted:
            return "aborted";
        case ProgramRun::End::Crashed:
            return "crashed";
        case ProgramRun::End::Stopped:
            return "stopped";
    }
    return "not_run";
}

std::string cuda_error_name(int code) {
    switch (code) {
        case 0: return "cudaSuccess";
        case 1: return "cudaErrorInvalidValue";
        case 2: return "cudaErrorMemoryAllocation";
        case 9: return "cudaErrorInvalidConfiguration";
        case 700: return "cudaErrorIllegalAddress";
        case 710: return "cudaErrorAssert";
        case 714: return "cudaErrorHardwareStackError";
        case 715: return "cudaErrorIllegalInstruction";
        case 716: return "cudaErrorMisalignedAddress";
        case 719: return "cudaErrorLaunchFailure";
        default: return "cudaError " + std::to_string(code);
    }
}

bool apply_launch_change(const ProgramLaunchChange& change, Dim3& grid, Dim3& block, void* const* values,
                         const unsigned* sizes, const int* is_pointer, size_t count) {
    bool changed = false;
    if (change.grid) {
        grid = *change.grid;
        changed = true;
    }
    if (change.block) {
        block = *change.block;
        changed = true;
    }
    for (const auto& [index, bytes] : change.scalars) {
        if (index >= count || is_pointer[index] || !values[index] || bytes.size() != sizes[index]) continue;
        std::memcpy(values[index], bytes.data(), bytes.size());
        changed = true;
    }
    return changed;
}

}  // namespace cp
