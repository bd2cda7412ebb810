// `describe`: a proposed metadata header written from a kernel's signature and body, so a pasted kernel without
// a header runs after one step, on inputs that show something (describe.cpp says how it guesses).
#pragma once

#include "core/kernel_file/kernel_spec.h"
#include "core/result.h"

#include <string>

namespace cp {

// The `/*@playground ... */` block (ending in a newline) for `file`'s kernel. `kernel` optionally names the
// kernel or instantiation (`reduce<float, 256>`) when the file has several or a template. Fails when no
// kernel can be found, saying why.
Result<std::string> propose_header(const KernelFile& file, const std::string& kernel = {});

// `file`'s text with `header` inserted at the top (after a leading line comment block, if any).
std::string with_header(const std::string& source, const std::string& header);

}  // namespace cp
