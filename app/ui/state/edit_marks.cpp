// The Library's "(edited)" marks from the user copies and the stock texts kept beside them (edit_marks.h).
#include "ui/state/edit_marks.h"

#include "ui/state/kernel_document.h"
#include "ui/state/text_file.h"

namespace cp::ui {

namespace fs = std::filesystem;

const char* edit_mark_label(EditMark m) {
    switch (m) {
        case EditMark::Edited:
            return "  (edited)";
        case EditMark::StockChanged:
            return "  (edited; library updated)";
        case EditMark::None:
            break;
    }
    return "";
}

EditMark EditMarks::read(const fs::path& lesson, const fs::path& library_dir, const fs::path& edits_dir) {
    const fs::path copy = KernelDocument::user_copy_for(lesson, library_dir, edits_dir);
    std::error_code ec;
    if (!fs::exists(copy, ec)) return EditMark::None;
    auto mine = read_text_file(copy);
    auto stock = read_text_file(lesson);
    if (!mine || !stock) return EditMark::Edited;  // can't tell: a copy is there
    if (*mine == *stock) return EditMark::None;
    auto base = read_text_file(KernelDocument::base_path_for(copy));
    return base && *base != *stock ? EditMark::StockChanged : EditMark::Edited;
}

void EditMarks::refresh(const std::vector<fs::path>& lessons, const fs::path& library_dir, const fs::path& edits_dir) {
    marks_.clear();
    for (const fs::path& p : lessons)
        if (const EditMark m = read(p, library_dir, edits_dir); m != EditMark::None) marks_[p] = m;
}

EditMark EditMarks::of(const fs::path& lesson) const {
    const auto it = marks_.find(lesson);
    return it == marks_.end() ? EditMark::None : it->second;
}

}  // namespace cp::ui
