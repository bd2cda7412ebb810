// What the Library says beside a lesson the user edited: "(edited)", or "(edited; library updated)" when its
// stock file changed since the edit. Read from the files under edits/ (no ImGui here; tested directly).
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace cp::ui {

enum class EditMark {
    None,          // no copy, or a copy that is the stock text (edits nothing)
    Edited,        // a copy that differs from the stock
    StockChanged,  // ... and the stock changed since the copy was made from it
};

// " (edited)", " (edited; library updated)" or "".
const char* edit_mark_label(EditMark m);

// The marks of every library kernel, read from disk by refresh() (the window calls it after saving and now
// and then, not every frame: reading files per frame per lesson would cost frames).
class EditMarks {
public:
    void refresh(const std::vector<std::filesystem::path>& lessons, const std::filesystem::path& library_dir,
                 const std::filesystem::path& edits_dir);
    EditMark of(const std::filesystem::path& lesson) const;
    void set(const std::filesystem::path& lesson, EditMark m) { marks_[lesson] = m; }

    // One lesson's mark, from its files.
    static EditMark read(const std::filesystem::path& lesson, const std::filesystem::path& library_dir,
                         const std::filesystem::path& edits_dir);

private:
    std::map<std::filesystem::path, EditMark> marks_;
};

}  // namespace cp::ui
