// Names of a program's ends (program_api.h); changes applied to a launch being made (program_device.h).
#include "core/engine/program_api.h"
#include "core/engine/program_device.h"

#include <algorithm>
#include <cstring>

namespace cp {

std::string launch_site_text(const ProgramLaunch& launch) {
    return launch.file.empty() ? "line " + std::to_string(launch.line) : launch.file + ":" + std::to_string(launch.line);
}

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

std::string hex_of_bytes(const void* data, size_t size, size_t max_bytes) {
    static const char digits[] = "0123456789abcdef";
    std::string out;
    const auto* bytes = static_cast<const unsigned char*>(data);
    for (size_t b = 0; bytes && b < std::min(size, max_bytes); ++b) {
        out += digits[bytes[b] >> 4];
        out += digits[bytes[b] & 15];
    }
    return out;
}

std::vector<std::byte> bytes_of_hex(const std::string& hex) {
    std::vector<std::byte> out(hex.size() / 2);
    auto digit = [](char c) { return c <= '9' ? c - '0' : c - 'a' + 10; };
    for (size_t i = 0; i < out.size(); ++i) out[i] = std::byte((digit(hex[2 * i]) << 4) | digit(hex[2 * i + 1]));
    return out;
}

bool apply_launch_change_to_grid(const ProgramLaunchChange& change, Dim3& grid, Dim3& block) {
    if (change.grid) grid = *change.grid;
    if (change.block) block = *change.block;
    return change.grid || change.block;
}

}  // namespace cp
