// User copies, atomic autosave, revert, and the external-change watch for the kernel being edited.
#include "ui/state/kernel_document.h"

#include <sys/stat.h>

#include "ui/state/text_file.h"

namespace cp::ui {

namespace fs = std::filesystem;

fs::path KernelDocument::user_copy_for(const fs::path& original, const fs::path& library_dir, const fs::path& edits) {
    std::error_code ec;
    const fs::path file = fs::weakly_canonical(original, ec);
    const fs::path lib = fs::weakly_canonical(library_dir, ec);
    const fs::path rel = file.lexically_relative(lib);
    if (!lib.empty() && !rel.empty() && *rel.begin() != "..") return edits / rel;
    return edits / "external" / file.relative_path();
}

Result<KernelDocument> KernelDocument::open(const fs::path& original, const fs::path& library_dir,
                                            const fs::path& edits) {
    KernelDocument doc;
    doc.original_ = original;
    doc.user_copy_ = user_copy_for(original, library_dir, edits);
    auto text = read_text_file(doc.shown_path());
    if (!text) return text.error();
    doc.text_ = std::move(*text);
    doc.disk_text_ = doc.text_;
    doc.watched_ = doc.shown_path();
    doc.watched_stamp_ = stamp_of(doc.watched_);
    return doc;
}

KernelDocument::Stamp KernelDocument::stamp_of(const fs::path& p) {
    Stamp s;
    struct stat st {};
    if (::stat(p.c_str(), &st) != 0) return s;
    s.mtime_ns = int64_t(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
    s.ctime_ns = int64_t(st.st_ctim.tv_sec) * 1000000000 + st.st_ctim.tv_nsec;
    s.size = uint64_t(st.st_size);
    s.inode = uint64_t(st.st_ino);
    s.device = uint64_t(st.st_dev);
    s.exists = true;
    return s;
}

void KernelDocument::set_text(std::string text, double now) {
    if (text == text_) return;
    text_ = std::move(text);
    ++revision_;
    if (!unsaved_) first_unsaved_edit_ = now;
    unsaved_ = true;
    last_edit_ = now;
}

Result<bool> KernelDocument::save() {
    if (auto r = write_file_atomically(user_copy_, text_); !r) return r;
    disk_text_ = text_;
    unsaved_ = false;
    watched_ = user_copy_;
    watched_stamp_ = stamp_of(user_copy_);  // our own write is not an external change
    return true;
}

Result<bool> KernelDocument::autosave_if_due(double now, double pause_s) {
    if (!unsaved_) return false;
    if (now - last_edit_ < pause_s && now - first_unsaved_edit_ < 1.0) return false;
    return save();
}

Result<bool> KernelDocument::revert_to_original(double now) {
    auto text = read_text_file(original_);
    if (!text) return text.error();
    std::error_code ec;
    fs::remove(user_copy_, ec);
    if (ec) return make_error("cannot delete the edited copy " + user_copy_.string() + ": " + ec.message());
    if (*text != text_) ++revision_;
    text_ = std::move(*text);
    disk_text_ = text_;
    unsaved_ = false;
    last_edit_ = now;
    watched_ = original_;
    watched_stamp_ = stamp_of(original_);
    return true;
}

bool KernelDocument::reload_if_changed_on_disk(double now) {
    // The user copy may have appeared or vanished behind our back too: follow whichever is shown now.
    const fs::path shown = shown_path();
    const Stamp now_stamp = stamp_of(shown);
    if (shown == watched_ && now_stamp == watched_stamp_) return false;
    watched_ = shown;
    watched_stamp_ = now_stamp;
    auto text = read_text_file(shown);
    // Only new contents count: a touch, or a rewrite with what we last read or wrote, keeps the user's text
    // (and any edits not yet saved).
    if (!text || *text == disk_text_) return false;
    disk_text_ = *text;
    if (*text == text_) return false;
    text_ = std::move(*text);
    ++revision_;
    unsaved_ = false;  // the file on disk is the newer truth
    last_edit_ = now;
    return true;
}

}  // namespace cp::ui
