// Line-by-line differences between two texts, for showing an edited lesson beside the library's new version
// (no ImGui here; tested directly).
#pragma once

#include <string>
#include <vector>

namespace cp::ui {

struct DiffLine {
    enum class Kind { Same, OnlyInFirst, OnlyInSecond };
    Kind kind = Kind::Same;
    std::string text;
};

// The lines of `first` and `second` in order, each marked as in both or in one only (a longest common
// subsequence of lines). Texts too long for that (over 4 million line pairs) come back as all of `first`
// then all of `second`, which is still true, only less helpful.
std::vector<DiffLine> line_diff(const std::string& first, const std::string& second);

}  // namespace cp::ui
