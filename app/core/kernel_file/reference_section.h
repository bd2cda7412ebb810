// A lesson's CPU reference: plain host C++ in the kernel file under `#ifdef PLAYGROUND_REFERENCE`, named by
// the header's `reference:` line, its parameters matched by name to the header's buffers and params.
#pragma once

#include "core/kernel_file/kernel_spec.h"

#include <string>

namespace cp {

// The macro a reference section is guarded by; only the reference's own compile defines it.
inline constexpr const char* kReferenceMacro = "PLAYGROUND_REFERENCE";

// `source` with everything outside `#ifdef PLAYGROUND_REFERENCE ... #endif` blocks blanked (newlines kept, so
// lines stay where they were): what the reference is compiled from. It cannot see the kernel, so it cannot
// call it; NVRTC and the CPU backend's kernel compile never define the macro, so they never see it.
std::string reference_section(const std::string& source);

// The complement: `source` with the reference blocks (their directives included) replaced by spaces, offsets
// and lines unchanged; what scans of the kernel's own code (host code, signatures) look at.
std::string without_reference_sections(const std::string& source);

// Finds the function `file.spec.reference` names in the reference section, fills file.reference_fn and adds a
// diagnostic (on the `reference:` line or the function's) for each mismatch with the header, with the fix.
void check_reference(KernelFile& file, int reference_line);

// `static void NAME(const float* a, float* c, int n)`: a reference signature that fits the header.
std::string suggested_reference_signature(const KernelSpec& spec, const std::string& name);

}  // namespace cp
