// A header's diagnostics as text, one per line, for the failure messages of tests that parse kernel files.
#pragma once

#include "core/types.h"

#include <string>
#include <vector>

namespace cp::test {

inline std::string dump(const std::vector<Diagnostic>& diags) {
    std::string out;
    for (const auto& d : diags) out += "  " + d.str() + "\n";
    return out;
}

}  // namespace cp::test
