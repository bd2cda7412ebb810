// Turning a kernel crash on the CPU backend into words: which thread of which block, read or write, how
// far outside which buffer (in the sandbox, where the crash happened), and the source line (the faulting
// instruction looked up with addr2line, in the app: a sandboxed worker cannot start programs).
#pragma once

#include "core/cpu/cpu_executor.h"
#include "core/cpu/guarded_memory.h"
#include "core/cpu/kernel_module.h"
#include "core/cpu/worker_pool.h"
#include "core/engine/engine_api.h"

#include <optional>
#include <string>
#include <vector>

namespace cp {

struct BufferForReport {
    std::string name;
    const GuardedBuffer* memory = nullptr;
    uint32_t element_size = 0;  // from the kernel parameter it was passed as; 0 when unknown (void*)
};

struct FaultReportContext {
    const KernelModule* module = nullptr;
    ModuleId module_id = 0;
    std::vector<BufferForReport> buffers;
};

// A write found after the launch just outside `region` (GuardedBuffer::written_outside): "a thread wrote past
// the end of buffer `out`: element 13 of 13", without the element when its size is unknown (`elem` 0).
std::string written_outside_text(const std::string& region, uint64_t bytes, GuardedBuffer::Location loc, uint32_t elem);
inline constexpr const char* kFoundAfterLaunch = " (found after the launch, so the thread and line are not known)";

// The crash in words, which end where the source line's words go (place_code_site); `site` receives where it
// happened. A CUDA thread's crash names the thread and its block as data too (EngineError::thread, ::block).
EngineError describe_crash(const GridFailure& failure, const FaultReportContext& context, std::optional<CodeSite>* site);

// Where a fault record points in `module`: the instruction when it is the kernel's, else the kernel's call
// into the library function that crashed (found on the stack), and that function's name.
CodeSite code_site_of(const KernelModule& module, ModuleId id, uintptr_t instruction, uintptr_t stack_pointer);

struct SourceLine {
    std::string file;
    int line = 0;
};
// The source line at `offset` in the library file `library` (addr2line on its debug line table): the
// innermost line in `prefer_file` when the instruction is inlined from elsewhere, else the innermost line.
std::optional<SourceLine> source_line_of(const std::string& library, uint64_t offset, const std::string& prefer_file);

// The line in the user's file `source_path` of the instruction at `offset` (inlined code: its innermost line in
// that file), or 0.
int user_line_of(const std::string& library, uint64_t offset, const std::string& source_path);

// " (line 5)", " in memcpy (line 5)", " (header.h:3)", or "" when nothing is known: the first offset of
// `site` (innermost first) at a line of `source_path`, else the first that maps to a line at all.
std::string code_site_text(const CodeSite& site, const std::string& library, const std::string& source_path,
                           int* user_line = nullptr);

}  // namespace cp
