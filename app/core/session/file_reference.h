// Running a lesson's in-file CPU reference (kernel_file/reference_section.h): its section alone compiled by the
// confined host compiler (cached), called in a sandboxed CPU worker (cpu/host_code.h) on copies of the
// buffers' initial contents; what it leaves in the out/inout buffers is the expected result. The same on
// every backend, with or without a GPU.
#pragma once

#include "core/data/host_buffer.h"
#include "core/result.h"
#include "core/types.h"

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace cp {

class HostCodeRunner;
struct KernelFile;

struct ReferenceOutcome {
    std::map<std::string, HostBuffer> expected;  // each out/inout buffer the reference takes
    std::optional<Error> error;                  // did not compile, crashed, hung, refused a call...
    std::vector<Diagnostic> diagnostics;         // compile messages on the file's lines
    double compile_ms = 0, run_ms = 0;
    bool cache_hit = false;
};

// Name of the generated extern "C" function that calls the reference with its arguments.
inline constexpr const char* kReferenceEntry = "cp_reference_entry";

// The text compiled for `file`'s reference: its reference section plus the generated entry point.
std::string reference_program(const KernelFile& file);

class FileReference {
public:
    FileReference();
    ~FileReference();
    FileReference(const FileReference&) = delete;
    FileReference& operator=(const FileReference&) = delete;

    // `initial` holds every buffer's initial contents by name; `params` every param's value. Compiles only
    // when the reference section changed since the last call.
    ReferenceOutcome compute(const KernelFile& file, const std::map<std::string, double>& params,
                             const std::map<std::string, const HostBuffer*>& initial);

private:
    std::unique_ptr<HostCodeRunner> runner_;
    std::string program_;  // the text the loaded module was compiled from
    uint64_t module_ = 0;
};

}  // namespace cp
