// The window's files and edits: the library, the kernel file open in the editor and its parse, the user's
// edited copies (saved now, by themselves, or taken back to the stock text) with the Library's marks of them,
// and the open file followed when another program changes it or the library is updated. Plain state on the
// UI thread (no ImGui; tested directly); what happened, and what failed, goes to the console in words.
#pragma once

#include "core/kernel_file/kernel_file.h"
#include "ui/state/console_log.h"
#include "ui/state/edit_marks.h"
#include "ui/state/kernel_document.h"

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace cp::ui {

class OpenFiles {
public:
    // `library_dir`: the lessons (scanned now); `edits_dir`: where edited copies of them are kept.
    OpenFiles(ConsoleLog& console, std::filesystem::path library_dir, std::filesystem::path edits_dir);

    const std::vector<KernelFile>& library() const { return library_; }
    const std::filesystem::path& library_dir() const { return library_dir_; }
    // The document in the editor (the Editor panel edits it in place); empty before a kernel is opened.
    std::optional<KernelDocument>& document() { return doc_; }
    const std::optional<KernelDocument>& document() const { return doc_; }
    // The document's text, parsed as its original path (reparse_if_changed keeps it current).
    const KernelFile& parsed() const { return parsed_; }
    const std::string& parsed_path() const { return parsed_path_; }
    // The Library's mark beside a lesson: " (edited)", " (edited; library updated)" or "".
    const char* mark_label(const std::filesystem::path& lesson) const { return edit_mark_label(marks_.of(lesson)); }

    // Opens `path` in the editor, saving the document it replaces; false (and the console says why) when it
    // cannot be read: the open document stays.
    bool open(const std::filesystem::path& path);
    void save_now();                               // Ctrl+S, F5, leaving the app
    void take_stock(double now);                   // an edited lesson back to the library's text (Revert)
    void keep_my_edits();                          // a lesson whose stock changed: keep the edits, the notice goes
    void set_source(std::string text, double now);  // as if typed
    // Parses the text again when it (or the open file) changed since the last parse; true when it did.
    bool reparse_if_changed();
    // Once a frame: autosaves when due, reloads the file when it changed on disk (every 0.5 s), and follows a
    // library update (every 2 s). True when the text was reloaded.
    bool tick(double now);
    // Between frames: reloads the file when it changed on disk (at most every 0.5 s); true when it did.
    bool reload_if_changed_on_disk(double now);

private:
    void remark();  // the open lesson's mark, from disk

    ConsoleLog& console_;
    std::filesystem::path library_dir_, edits_dir_;
    std::vector<KernelFile> library_;
    std::optional<KernelDocument> doc_;
    KernelFile parsed_;
    uint64_t parsed_revision_ = ~0ull;
    std::string parsed_path_;
    EditMarks marks_;
    double last_watch_check_ = 0, last_marks_check_ = 0;
};

}  // namespace cp::ui
