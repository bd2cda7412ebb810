// The kernel being edited. Stock kernels (the library) are never written: edits go to a user copy under
// edits_dir(), saved atomically a moment after each change, and that copy is what reopening shows.
// The shown file is watched, so changes from an external editor reload. No ImGui here (tested directly).
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
    // their absolute path under edits/external/).
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
    const std::filesystem::path& user_copy_path() const { return user_copy_; }
    bool has_user_copy() const { return std::filesystem::exists(user_copy_); }
    // The file the text comes from: the user copy when it exists, else the original.
    std::filesystem::path shown_path() const { return has_user_copy() ? user_copy_ : original_; }
    bool unsaved() const { return unsaved_; }

    // Writes the user copy now (Ctrl+S, leaving the app).
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
    std::string disk_text_;  // the contents of the shown file as last read or written by us
    uint64_t revision_ = 0;
    bool unsaved_ = false;
    double last_edit_ = 0, first_unsaved_edit_ = 0;
    std::filesystem::path watched_;
    Stamp watched_stamp_;
};

}  // namespace cp::ui
