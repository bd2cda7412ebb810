// A longest common subsequence of lines (line_diff.h): quadratic, which lesson-sized files afford.
#include "ui/state/line_diff.h"

#include <algorithm>
#include <cstdint>

namespace cp::ui {
namespace {

std::vector<std::string> lines_of(const std::string& text) {
    std::vector<std::string> lines;
    size_t start = 0;
    while (start < text.size()) {
        size_t end = text.find('\n', start);
        if (end == std::string::npos) end = text.size();
        lines.push_back(text.substr(start, end - start));
        start = end + 1;
    }
    return lines;
}

}  // namespace

std::vector<DiffLine> line_diff(const std::string& first, const std::string& second) {
    const std::vector<std::string> a = lines_of(first), b = lines_of(second);
    std::vector<DiffLine> out;
    const size_t n = a.size(), m = b.size();
    if (uint64_t(n + 1) * uint64_t(m + 1) > 4000000) {
        for (const std::string& l : a) out.push_back({DiffLine::Kind::OnlyInFirst, l});
        for (const std::string& l : b) out.push_back({DiffLine::Kind::OnlyInSecond, l});
        return out;
    }
    // common[i][j]: the longest common subsequence of a[i..] and b[j..].
    std::vector<uint32_t> common((n + 1) * (m + 1), 0);
    auto at = [&](size_t i, size_t j) -> uint32_t& { return common[i * (m + 1) + j]; };
    for (size_t i = n; i-- > 0;)
        for (size_t j = m; j-- > 0;)
            at(i, j) = a[i] == b[j] ? at(i + 1, j + 1) + 1 : std::max(at(i + 1, j), at(i, j + 1));
    size_t i = 0, j = 0;
    while (i < n || j < m) {
        if (i < n && j < m && a[i] == b[j]) {
            out.push_back({DiffLine::Kind::Same, a[i]});
            ++i, ++j;
        } else if (i < n && (j == m || at(i + 1, j) >= at(i, j + 1))) {
            out.push_back({DiffLine::Kind::OnlyInFirst, a[i++]});
        } else {
            out.push_back({DiffLine::Kind::OnlyInSecond, b[j++]});
        }
    }
    return out;
}

}  // namespace cp::ui
