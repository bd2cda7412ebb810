// Fuzz target: reading a kernel file (parse_kernel_source: the /*@playground*/ metadata header, the __global__
// signature and the checks between them). Kernel files are untrusted; parsing must never crash, hang or
// throw, and every problem must come back as a diagnostic on a line of the file.
#include "core/kernel_file/kernel_file.h"
#include "fuzz_check.h"

#include <algorithm>
#include <cstdint>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    std::string source(reinterpret_cast<const char*>(data), size);
    const int lines = static_cast<int>(std::count(source.begin(), source.end(), '\n')) + 1;
    const bool has_header = source.find("/*@playground") != std::string::npos;
    const cp::KernelFile file = cp::parse_kernel_source(std::move(source), "fuzz.cu");

    FUZZ_CHECK(file.spec.has_metadata == has_header, "has_metadata does not match the text");
    if (file.spec.has_metadata) {
        FUZZ_CHECK(file.spec.header_first_line >= 1 && file.spec.header_first_line <= file.spec.header_last_line &&
                       file.spec.header_last_line <= lines,
                   "the header's lines " + std::to_string(file.spec.header_first_line) + ".." +
                       std::to_string(file.spec.header_last_line) + " are not within the file's " +
                       std::to_string(lines));
    }
    for (const cp::Diagnostic& d : file.diagnostics) {
        FUZZ_CHECK(!d.message.empty(), "a diagnostic without a message");
        FUZZ_CHECK(d.line >= 0 && d.line <= lines, "diagnostic on line " + std::to_string(d.line) + " of a " +
                                                       std::to_string(lines) + "-line file: " + d.message);
        FUZZ_CHECK(d.column >= 0, "diagnostic with column " + std::to_string(d.column) + ": " + d.message);
    }
    for (const cp::ParamSpec& p : file.spec.params) {
        FUZZ_CHECK(!p.name.empty(), "a parameter without a name");
        if (p.min && p.max)
            FUZZ_CHECK(*p.min <= *p.max || cp::has_errors(file.diagnostics), "a range from high to low");
    }
    if (file.signature) {
        for (const cp::SignatureParam& p : file.signature->params)
            FUZZ_CHECK(!p.name.empty(), "a signature parameter without a name");
    }
    return 0;
}
