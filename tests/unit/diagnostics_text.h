// A header's diagnostics as text, one per line, for the failure messages of tests that parse kernel files;
// and a file's errors alone.
#pragma once

#include "core/kernel_file/kernel_file.h"
#include "core/types.h"

#include <string>
#include <vector>

namespace cp::test {

inline std::string dump(const std::vector<Diagnostic>& diags) {
    std::string out;
    for (const auto& d : diags) out += "  " + d.str() + "\n";
    return out;
}

inline std::string dump(const KernelFile& f) { return dump(f.diagnostics); }

inline std::vector<Diagnostic> errors_of(const KernelFile& f) {
    std::vector<Diagnostic> out;
    for (const auto& d : f.diagnostics)
        if (d.severity == Severity::Error) out.push_back(d);
    return out;
}

}  // namespace cp::test
