// AddressSanitizer support for memory used as stacks that ASan does not know about (fibers, the signal
// stack): frames abandoned on them leave stack poison behind, which must be cleared before reuse.
#pragma once

#include <cstddef>

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
#endif

namespace cp {

inline void forget_stack_poison(void* memory, size_t bytes) {
#if defined(__SANITIZE_ADDRESS__)
    ASAN_UNPOISON_MEMORY_REGION(memory, bytes);
#else
    (void)memory;
    (void)bytes;
#endif
}

}  // namespace cp
