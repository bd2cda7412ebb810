// Turning a kernel crash on the CPU backend into words: which thread of which block, read or write, how
// far outside which buffer, and the source line (the faulting instruction looked up with addr2line).
#pragma once

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
    std::string source_path;  // the user's file, as given to compile
    std::vector<BufferForReport> buffers;
};

EngineError describe_crash(const GridFailure& failure, const FaultReportContext& context);

struct SourceLine {
    std::string file;
    int line = 0;
};
// The source line of `instruction` inside `module` (addr2line on its debug line table): the innermost
// line in `prefer_file` when the instruction is inlined from elsewhere, else the innermost line.
std::optional<SourceLine> source_line_of(const KernelModule& module, uintptr_t instruction, const std::string& prefer_file);

}  // namespace cp
