// User copies (with the stock text they started from), in-place saving of the user's own files, atomic
// autosave, revert, and the external-change watch for the kernel being edited.
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

fs::path KernelDocument::base_path_for(const fs::path& user_copy) {
    return user_copy.string() + ".stock";
}

namespace {

// Removes `p` if it is there; an error only when it is there and stays.
Result<bool> remove_if_there(const fs::path& p, const char* what) {
    std::error_code ec;
    fs::remove(p, ec);
    if (ec)
        return make_error(ErrorKind::Io, std::string("cannot delete ") + what + " " + p.string() + ": " + ec.message());
    return true;
}

}  // namespace

Result<KernelDocument> KernelDocument::open(const fs::path& original, const fs::path& library_dir,
                                            const fs::path& edits) {
    KernelDocument doc;
    doc.original_ = original;
    const fs::path copy = user_copy_for(original, library_dir, edits);
    const fs::path rel = copy.lexically_relative(edits);  // user_copy_for: "external/..." for other files
    doc.from_library_ = !rel.empty() && *rel.begin() != "external";
    doc.user_copy_ = doc.from_library_ ? copy : original;
    if (doc.from_library_) {
        auto stock = read_text_file(original);
        if (!stock) return stock.error();
        doc.stock_text_ = std::move(*stock);
        std::error_code ec;
        if (fs::exists(copy, ec)) {
            auto base = read_text_file(base_path_for(copy));
            auto mine = read_text_file(copy);
            if (mine && *mine == doc.stock_text_) {
                // A copy that is the stock text edits nothing (F5 used to save one): without it, library
                // updates reach this lesson and the Library stops calling it edited.
                (void)remove_if_there(copy, "the unedited copy");
                (void)remove_if_there(base_path_for(copy), "the stock text kept");
            } else if (base) {
                doc.base_text_ = std::move(*base);
                doc.stock_changed_ = doc.base_text_ != doc.stock_text_;
            }
        }
    } else if (std::error_code ec; fs::exists(copy, ec)) {
        // Earlier versions kept the edits of a user's own file apart; the file itself is the truth now.
        auto mine = read_text_file(copy), theirs = read_text_file(original);
        if (mine && theirs && *mine != *theirs) doc.earlier_copy_ = copy;
    }
    auto text = read_text_file(doc.shown_path());
    if (!text) return text.error();
    doc.text_ = std::move(*text);
    doc.disk_text_ = doc.text_;
    doc.watched_ = doc.shown_path();
    doc.watched_stamp_ = stamp_of(doc.watched_);
    return doc;
}

fs::path KernelDocument::compiled_path() const {
    return edited() ? user_copy_ : original_;
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
    if (!unsaved_) return false;  // F5 on a lesson never edited writes nothing
    if (from_library_ && text_ == stock_text_) {
        // Edited back to the stock: nothing is edited, so no copy stays to hide later library updates.
        if (auto r = remove_if_there(user_copy_, "the edited copy"); !r) return r;
        (void)remove_if_there(base_path_for(user_copy_), "the stock text kept");
        base_text_.clear();
        stock_changed_ = false;
        disk_text_ = text_;
        unsaved_ = false;
        watched_ = original_;
        watched_stamp_ = stamp_of(original_);
        return false;
    }
    if (from_library_ && !std::filesystem::exists(user_copy_)) {
        // The stock this copy starts from, so a later library update is noticed (stock_changed).
        if (auto r = write_file_atomically(base_path_for(user_copy_), stock_text_); !r) return r;
        base_text_ = stock_text_;
        stock_changed_ = false;
    }
    if (auto r = write_file_atomically(user_copy_, text_); !r) return r;
    disk_text_ = text_;
    unsaved_ = false;
    watched_ = user_copy_;
    watched_stamp_ = stamp_of(user_copy_);  // our own write is not an external change
    return true;
}

Result<bool> KernelDocument::keep_mine() {
    if (!has_user_copy()) return false;
    if (auto r = write_file_atomically(base_path_for(user_copy_), stock_text_); !r) return r;
    base_text_ = stock_text_;
    stock_changed_ = false;
    return true;
}

bool KernelDocument::refresh_stock() {
    if (!from_library_) return false;
    auto stock = read_text_file(original_);
    if (!stock || *stock == stock_text_) return false;
    stock_text_ = std::move(*stock);
    const bool was = stock_changed_;
    stock_changed_ = has_user_copy() && !base_text_.empty() && base_text_ != stock_text_;
    return was != stock_changed_;
}

Result<bool> KernelDocument::autosave_if_due(double now, double pause_s) {
    if (!unsaved_) return false;
    if (now - last_edit_ < pause_s && now - first_unsaved_edit_ < 1.0) return false;
    return save();
}

Result<bool> KernelDocument::revert_to_original(double now) {
    auto text = read_text_file(original_);
    if (!text) return text.error();
    if (!from_library_)
        return make_error(ErrorKind::UserInput, "a file of your own has no stock version to go back to");
    if (auto r = remove_if_there(user_copy_, "the edited copy"); !r) return r;
    (void)remove_if_there(base_path_for(user_copy_), "the stock text kept");
    stock_text_ = *text;
    base_text_.clear();
    stock_changed_ = false;
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
    if (from_library_ && shown == original_) stock_text_ = *text;  // the stock itself changed (no copy)
    if (*text == text_) return false;
    text_ = std::move(*text);
    ++revision_;
    unsaved_ = false;  // the file on disk is the newer truth
    last_edit_ = now;
    return true;
}

}  // namespace cp::ui
