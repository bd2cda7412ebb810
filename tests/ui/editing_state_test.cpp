// Editing that hides and loses nothing, at the state level (no window): F5 on a lesson never edited writes
// nothing, an edited lesson whose stock changed says so and can keep or take it, a file of the user's own is
// saved in place (atomically, keeping its permissions), and messages name the file that was compiled.
#include "ui/state/edit_marks.h"
#include "ui/state/kernel_document.h"
#include "ui/state/line_diff.h"
#include "ui/state/text_file.h"

#include "support/process.h"

#include <gtest/gtest.h>

#include <sys/stat.h>
#include <fstream>

using namespace cp;
namespace fs = std::filesystem;

namespace {

struct Library {
    test::TempDir dir;
    fs::path lib = dir.path() / "kernels", edits = dir.path() / "edits";
    fs::path lesson = lib / "basics" / "k.cu";
    Library() {
        fs::create_directories(lesson.parent_path());
        std::ofstream(lesson) << "stock v1\n";
    }
    ui::KernelDocument open() {
        auto doc = ui::KernelDocument::open(lesson, lib, edits);
        EXPECT_TRUE(doc.ok()) << doc.error().full();
        return std::move(*doc);
    }
    fs::path copy() const { return edits / "basics" / "k.cu"; }
};

TEST(EditingState, SavingALessonNeverEditedWritesNothing) {
    Library l;
    ui::KernelDocument doc = l.open();
    // F5 and Ctrl+S save first: with nothing typed there is nothing to write.
    auto saved = doc.save();
    ASSERT_TRUE(saved.ok());
    EXPECT_FALSE(*saved);
    EXPECT_FALSE(fs::exists(l.copy()));
    EXPECT_FALSE(fs::exists(l.edits));
    EXPECT_FALSE(doc.edited());
    EXPECT_EQ(ui::EditMarks::read(l.lesson, l.lib, l.edits), ui::EditMark::None);

    // Typed and typed back: still the stock text, so no copy either.
    doc.set_text("stock v1 changed\n", 1.0);
    doc.set_text("stock v1\n", 1.1);
    ASSERT_TRUE(doc.save().ok());
    EXPECT_FALSE(fs::exists(l.copy()));

    // A real edit is saved, with the stock it started from beside it; going back to the stock removes both.
    doc.set_text("mine\n", 2.0);
    ASSERT_TRUE(*doc.save());
    EXPECT_EQ(test::read_file(l.copy()), "mine\n");
    EXPECT_EQ(test::read_file(ui::KernelDocument::base_path_for(l.copy())), "stock v1\n");
    EXPECT_EQ(ui::EditMarks::read(l.lesson, l.lib, l.edits), ui::EditMark::Edited);
    doc.set_text("stock v1\n", 3.0);
    ASSERT_TRUE(doc.save().ok());
    EXPECT_FALSE(fs::exists(l.copy()));
    EXPECT_FALSE(fs::exists(ui::KernelDocument::base_path_for(l.copy())));
    EXPECT_EQ(ui::EditMarks::read(l.lesson, l.lib, l.edits), ui::EditMark::None);
}

TEST(EditingState, ACopyIdenticalToTheStockIsNotAnEdit) {
    // What F5 used to leave behind: an identical copy, which hid later library updates.
    Library l;
    fs::create_directories(l.copy().parent_path());
    std::ofstream(l.copy()) << "stock v1\n";
    EXPECT_EQ(ui::EditMarks::read(l.lesson, l.lib, l.edits), ui::EditMark::None);
    ui::KernelDocument doc = l.open();
    EXPECT_FALSE(doc.has_user_copy());
    EXPECT_FALSE(fs::exists(l.copy()));
    std::ofstream(l.lesson) << "stock v2\n";
    EXPECT_TRUE(l.open().text() == "stock v2\n") << "the library update reaches the lesson";
}

TEST(EditingState, AnEditedLessonWhoseStockChangedSaysSoAndKeepsOrTakes) {
    Library l;
    {
        ui::KernelDocument doc = l.open();
        doc.set_text("mine\n", 1.0);
        ASSERT_TRUE(*doc.save());
        EXPECT_FALSE(doc.stock_changed());
    }
    std::ofstream(l.lesson) << "stock v2\n";  // the library is updated
    EXPECT_EQ(ui::EditMarks::read(l.lesson, l.lib, l.edits), ui::EditMark::StockChanged);
    EXPECT_STREQ(ui::edit_mark_label(ui::EditMark::StockChanged), "  (edited; library updated)");
    ui::KernelDocument doc = l.open();
    EXPECT_EQ(doc.text(), "mine\n") << "the edits are what is shown";
    EXPECT_TRUE(doc.stock_changed());
    EXPECT_EQ(doc.stock_text(), "stock v2\n");
    EXPECT_EQ(doc.base_text(), "stock v1\n");

    // Keep mine: the edits stay, the notice goes (also after reopening).
    ASSERT_TRUE(*doc.keep_mine());
    EXPECT_FALSE(doc.stock_changed());
    EXPECT_EQ(test::read_file(l.copy()), "mine\n");
    EXPECT_FALSE(l.open().stock_changed());
    EXPECT_EQ(ui::EditMarks::read(l.lesson, l.lib, l.edits), ui::EditMark::Edited);

    // Updated again while the lesson is open: refresh_stock notices; taking the new one removes the edits.
    std::ofstream(l.lesson) << "stock v3\n";
    EXPECT_TRUE(doc.refresh_stock());
    EXPECT_TRUE(doc.stock_changed());
    EXPECT_FALSE(doc.refresh_stock()) << "no news the second time";
    ASSERT_TRUE(doc.revert_to_original(5.0).ok());
    EXPECT_EQ(doc.text(), "stock v3\n");
    EXPECT_FALSE(doc.stock_changed());
    EXPECT_FALSE(fs::exists(l.copy()));
    EXPECT_FALSE(fs::exists(ui::KernelDocument::base_path_for(l.copy())));
}

TEST(EditingState, AFileOfYourOwnIsSavedInPlaceKeepingItsPermissions) {
    test::TempDir dir;
    const fs::path lib = dir.path() / "kernels", edits = dir.path() / "edits";
    fs::create_directories(lib);
    const fs::path mine = dir.path() / "work" / "mine.cu";
    fs::create_directories(mine.parent_path());
    std::ofstream(mine) << "v1\n";
    ASSERT_EQ(::chmod(mine.c_str(), 0750), 0);
    // A link to it, as some people keep their work: the file it names is written, the link stays a link.
    const fs::path link = dir.path() / "link.cu";
    fs::create_symlink(mine, link);

    auto doc = ui::KernelDocument::open(link, lib, edits);
    ASSERT_TRUE(doc.ok()) << doc.error().full();
    EXPECT_FALSE(doc->from_library());
    EXPECT_FALSE(doc->edited());
    EXPECT_EQ(doc->compiled_path(), link);
    EXPECT_FALSE(*doc->save()) << "nothing typed, nothing written";
    doc->set_text("v2\n", 1.0);
    ASSERT_TRUE(*doc->save());
    EXPECT_EQ(test::read_file(mine), "v2\n") << "the CLI sees the edit";
    EXPECT_TRUE(fs::is_symlink(link));
    struct stat st {};
    ASSERT_EQ(::stat(mine.c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 0777, 0750u);
    EXPECT_FALSE(fs::exists(edits)) << "no private copy";
    EXPECT_FALSE(doc->has_user_copy());
    EXPECT_FALSE(doc->revert_to_original(2.0).ok()) << "there is no stock to go back to";
    EXPECT_FALSE(doc->reload_if_changed_on_disk(3.0)) << "our own save is not an outside change";
    std::ofstream(mine) << "from vim\n";
    EXPECT_TRUE(doc->reload_if_changed_on_disk(4.0));
    EXPECT_EQ(doc->text(), "from vim\n");
}

TEST(EditingState, AnEarlierPrivateCopyOfYourFileIsNamedNotLost) {
    test::TempDir dir;
    const fs::path lib = dir.path() / "kernels", edits = dir.path() / "edits";
    fs::create_directories(lib);
    const fs::path mine = dir.path() / "mine.cu";
    std::ofstream(mine) << "file\n";
    const fs::path old = ui::KernelDocument::user_copy_for(mine, lib, edits);
    fs::create_directories(old.parent_path());
    std::ofstream(old) << "old private edits\n";
    auto doc = ui::KernelDocument::open(mine, lib, edits);
    ASSERT_TRUE(doc.ok());
    EXPECT_EQ(doc->text(), "file\n");
    EXPECT_EQ(doc->earlier_private_copy(), old);
    EXPECT_EQ(test::read_file(old), "old private edits\n");
}

TEST(EditingState, TheCompiledPathIsTheEditedCopyOnceTheTextDiffers) {
    Library l;
    ui::KernelDocument doc = l.open();
    EXPECT_EQ(doc.compiled_path(), l.lesson);
    doc.set_text("mine\n", 1.0);  // not saved yet: autosave writes it there in a moment
    EXPECT_EQ(doc.compiled_path(), l.copy());
    ASSERT_TRUE(*doc.save());
    EXPECT_EQ(doc.compiled_path(), l.copy());
}

TEST(EditingState, FileAndRevertFailuresSayTheirKind) {
    test::TempDir dir;
    const auto missing = ui::read_text_file(dir.path() / "nope.cu");
    ASSERT_FALSE(missing.ok());
    EXPECT_EQ(missing.error().kind, ErrorKind::Io) << missing.error().message;
    // A folder where the file's folder should be: it cannot be created.
    std::ofstream(dir.path() / "plain") << "a file";
    const auto unwritable = ui::write_file_atomically(dir.path() / "plain" / "k.cu", "text");
    ASSERT_FALSE(unwritable.ok());
    EXPECT_EQ(unwritable.error().kind, ErrorKind::Io) << unwritable.error().message;
    // Asking a file of one's own for its stock version is the user's mistake.
    const fs::path own = dir.write("own.cu", "mine\n");
    auto doc = ui::KernelDocument::open(own, dir.path() / "kernels", dir.path() / "edits");
    ASSERT_TRUE(doc.ok()) << doc.error().full();
    const auto reverted = doc->revert_to_original(1.0);
    ASSERT_FALSE(reverted.ok());
    EXPECT_EQ(reverted.error().kind, ErrorKind::UserInput) << reverted.error().message;
}

TEST(EditingState, LineDiffMarksLinesOfEachSide) {
    const auto d = ui::line_diff("a\nb\nc\nd\n", "a\nx\nc\nd\ne\n");
    std::string shown;
    for (const ui::DiffLine& l : d)
        shown += (l.kind == ui::DiffLine::Kind::Same          ? " "
                  : l.kind == ui::DiffLine::Kind::OnlyInFirst ? "-"
                                                              : "+") +
                 l.text + "\n";
    EXPECT_EQ(shown, " a\n-b\n+x\n c\n d\n+e\n");
    EXPECT_TRUE(ui::line_diff("", "").empty());
}

}  // namespace
