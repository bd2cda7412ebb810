// The kernel being edited. Stock kernels (the library) are never written: edits go to a user copy under
// edits_dir(), saved atomically a moment after each change, and that copy is what reopening shows. Beside the
// copy lies the stock text it was made from, so a library update is noticed and offered. A file of the user's
// own is saved in place (atomically too). The shown file is watched, so changes from an external editor
// reload. No ImGui here (tested directly).
#pragma once

#include "core/result.h"

#include <cstdint>
#include <filesystem>
#include <string>

namespace cp::ui {

class KernelDocument {
public:
    // Opens `original` (a library kernel or any .cu file); the text is the user copy's when one exists.
    static Result<KernelDocument> open(const std::filesystem::path& original, const std::filesystem::path& library_dir,
                                       const std::filesystem::path& edits_dir);
    // Where the user copy of `original` lives (library kernels keep their relative path; other files
    // their absolute path under edits/external/, where versions before 0.9 kept their edits).
    static std::filesystem::path user_copy_for(const std::filesystem::path& original,
                                               const std::filesystem::path& library_dir,
                                               const std::filesystem::path& edits_dir);

    const std::string& text() const { return text_; }
    // Replaces the text (typing); it is autosaved by autosave_if_due. `now` in seconds (steady clock).
    void set_text(std::string text, double now);
    // Increments on every change of the text (typing, revert, reload): the compile trigger compares it.
    uint64_t revision() const { return revision_; }
    double last_edit_time() const { return last_edit_; }

    const std::filesystem::path& original_path() const { return original_; }
    // Where saving writes: the user copy of a library kernel, the file itself for a file of the user's own.
    const std::filesystem::path& user_copy_path() const { return user_copy_; }
    // A library kernel with an edited copy on disk (a file of the user's own has none: it is saved in place).
    bool has_user_copy() const { return from_library_ && std::filesystem::exists(user_copy_); }
    // A kernel of the bundled library ("stock"), not a file of the user's own from elsewhere.
    bool from_library() const { return from_library_; }
    // The file the text comes from: the user copy when it exists, else the original.
    std::filesystem::path shown_path() const { return has_user_copy() ? user_copy_ : original_; }
    // The file the current text is (or is about to be, by autosave) saved as, which compile messages name:
    // the user copy once a library kernel's text differs from the stock, else the original.
    std::filesystem::path compiled_path() const;
    bool unsaved() const { return unsaved_; }
    // A library kernel whose text differs from the stock (saved or not).
    bool edited() const { return from_library_ && text_ != stock_text_; }

    // The library's file changed since the user copy was made from it: both texts are here to compare, and
    // keep_mine() / take_stock() answer. False when unknown (a copy from before the stock was kept beside it).
    bool stock_changed() const { return stock_changed_; }
    const std::string& stock_text() const { return stock_text_; }
    const std::string& base_text() const { return base_text_; }  // the stock the edits started from
    // Keeps the edits and records the current stock as their base (the notice goes).
    Result<bool> keep_mine();
    // Re-reads the stock file (the library may be updated while the app runs); true when stock_changed() changed.
    bool refresh_stock();
    // Where the stock text an edited copy started from is kept.
    static std::filesystem::path base_path_for(const std::filesystem::path& user_copy);
    // A private copy an earlier version made of a file of the user's own (edits/external/...) that differs from
    // the file: the file is what is shown, the copy is left where it is. Empty when there is none.
    const std::filesystem::path& earlier_private_copy() const { return earlier_copy_; }

    // Writes the text now (Ctrl+S, F5, leaving the app) if it changed: to the user copy, or in place for a file of
    // the user's own. A library kernel whose text is the stock again has its copy removed (nothing is edited).
    // True when a file was written.
    Result<bool> save();
    // Saves when there are unsaved changes and typing paused for `pause_s`, or changes are older than 1 s.
    Result<bool> autosave_if_due(double now, double pause_s = 0.25);
    // Deletes the user copy and shows the original again.
    Result<bool> revert_to_original(double now);
    // Polls the shown file; reloads and returns true when another program changed it.
    bool reload_if_changed_on_disk(double now);

private:
    // What changes when anyone writes the file: the modification time can be set back (or not move within
    // its tick) and the size can stay, but the status-change time and, for editors that save by renaming,
    // the inode move on every write.
    struct Stamp {
        int64_t mtime_ns = 0, ctime_ns = 0;
        uint64_t size = 0, inode = 0, device = 0;
        bool exists = false;
        bool operator==(const Stamp&) const = default;
    };
    static Stamp stamp_of(const std::filesystem::path& p);

    std::filesystem::path original_, user_copy_;
    std::string text_;
    std::string disk_text_;               // the contents of the shown file as last read or written by us
    std::string stock_text_, base_text_;  // library kernels: the stock file now, and the one the copy started from
    bool stock_changed_ = false;
    std::filesystem::path earlier_copy_;
    uint64_t revision_ = 0;
    bool unsaved_ = false;
    bool from_library_ = false;
    double last_edit_ = 0, first_unsaved_edit_ = 0;
    std::filesystem::path watched_;
    Stamp watched_stamp_;
};

}  // namespace cp::ui
