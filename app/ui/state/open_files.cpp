#include "ui/state/open_files.h"

#include <utility>

namespace cp::ui {

namespace fs = std::filesystem;

namespace {
constexpr double kWatchInterval = 0.5;  // how often the open file is checked for outside changes
constexpr double kLibraryInterval = 2.0;  // how often the library is checked for updates (a git pull)
}  // namespace

OpenFiles::OpenFiles(ConsoleLog& console, fs::path library_dir, fs::path edits_dir)
    : console_(console), library_dir_(std::move(library_dir)), edits_dir_(std::move(edits_dir)) {
    library_ = scan_library(library_dir_);
    std::vector<fs::path> lessons;
    for (const KernelFile& k : library_) lessons.push_back(k.path);
    marks_.refresh(lessons, library_dir_, edits_dir_);
}

void OpenFiles::remark() {
    if (doc_ && doc_->from_library())
        marks_.set(doc_->original_path(), EditMarks::read(doc_->original_path(), library_dir_, edits_dir_));
}

bool OpenFiles::open(const fs::path& path) {
    auto doc = KernelDocument::open(path, library_dir_, edits_dir_);
    if (!doc) {
        console_.add(LogKind::Error, doc.error().full());
        return false;
    }
    if (doc_ && doc_->unsaved()) save_now();
    doc_ = std::move(*doc);
    reparse_if_changed();
    console_.add(LogKind::Info, "Opened " + doc_->shown_path().string() + (doc_->has_user_copy() ? " (your edited copy)" : ""));
    if (doc_->stock_changed())
        console_.add(LogKind::Warning, "The library's " + doc_->original_path().filename().string() +
                                           " changed since you edited it: the Editor compares them and lets you keep "
                                           "yours or take the new one.");
    if (!doc_->earlier_private_copy().empty())
        console_.add(LogKind::Info, "An earlier version kept your edits of this file apart, in " +
                                        doc_->earlier_private_copy().string() +
                                        "; the file itself is shown (and saved) now, that copy is left as it was.");
    remark();
    return true;
}

void OpenFiles::save_now() {
    if (!doc_) return;
    const bool had_copy = doc_->has_user_copy();
    auto r = doc_->save();
    if (!r) console_.add(LogKind::Error, "Saving failed: " + r.error().full());
    else if (*r) console_.add(LogKind::Info, "Saved " + doc_->user_copy_path().string());
    else if (had_copy && !doc_->has_user_copy())
        console_.add(LogKind::Info, "Your text is the stock text again: the edited copy is removed.");
    remark();
}

void OpenFiles::take_stock(double now) {
    if (!doc_) return;
    if (auto r = doc_->revert_to_original(now); !r) console_.add(LogKind::Error, r.error().full());
    else console_.add(LogKind::Info, "Took the stock " + doc_->original_path().filename().string() + " (your edits are removed)");
    remark();
}

void OpenFiles::keep_my_edits() {
    if (!doc_) return;
    if (auto r = doc_->keep_mine(); !r) console_.add(LogKind::Error, r.error().full());
    else console_.add(LogKind::Info, "Kept your edits of " + doc_->original_path().filename().string() +
                                         " (the library's change is not taken)");
    remark();
}

void OpenFiles::set_source(std::string text, double now) {
    if (doc_) doc_->set_text(std::move(text), now);
}

bool OpenFiles::reparse_if_changed() {
    if (!doc_) return false;
    const std::string path = doc_->original_path().string();
    if (doc_->revision() == parsed_revision_ && path == parsed_path_) return false;
    parsed_ = parse_kernel_source(doc_->text(), doc_->original_path());
    parsed_revision_ = doc_->revision();
    parsed_path_ = path;
    return true;
}

bool OpenFiles::reload_if_changed_on_disk(double now) {
    if (!doc_ || now - last_watch_check_ < kWatchInterval) return false;
    last_watch_check_ = now;
    if (!doc_->reload_if_changed_on_disk(now)) return false;
    console_.add(LogKind::Info, "Reloaded " + doc_->shown_path().string() + " (changed outside the app)");
    return true;
}

bool OpenFiles::tick(double now) {
    if (!doc_) return false;
    const bool had_copy = doc_->has_user_copy();
    if (auto r = doc_->autosave_if_due(now); !r) console_.add(LogKind::Error, "Autosave failed: " + r.error().full());
    else if (*r || had_copy != doc_->has_user_copy()) remark();
    const bool reloaded = reload_if_changed_on_disk(now);
    // The library may be updated while the app runs (a git pull): the open lesson and the marks follow.
    if (now - last_marks_check_ >= kLibraryInterval) {
        last_marks_check_ = now;
        if (doc_->refresh_stock() && doc_->stock_changed())
            console_.add(LogKind::Warning, "The library's " + doc_->original_path().filename().string() +
                                               " changed since you edited it: see the Editor.");
        std::vector<fs::path> lessons;
        for (const KernelFile& k : library_) lessons.push_back(k.path);
        marks_.refresh(lessons, library_dir_, edits_dir_);
    }
    return reloaded;
}

}  // namespace cp::ui
