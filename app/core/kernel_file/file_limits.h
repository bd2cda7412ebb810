// The largest kernel file the playground reads, and the message that refuses a larger one.
#pragma once

#include <cstddef>
#include <string>

namespace cp {

// A pasted sample is tens of KiB, the library's largest lesson about 20 KiB. A larger text is refused
// (load_kernel_file fails, parse_kernel_source gives one error) with its size and this limit, so that no scan,
// compiler or editor is handed megabytes. Local headers have their own 8 MiB budget (local_includes.cpp).
inline constexpr size_t kKernelFileMaxBytes = size_t(8) << 20;

// "`big.cu` is 50.0 MiB (52428800 bytes); kernel files are limited to 8 MiB".
std::string kernel_file_too_large_message(const std::string& file, size_t bytes);

}  // namespace cp
