// Edits are kept: user copies instead of stock files, atomic autosave, revert, reload on outside changes,
// and edits that survive kill -9 (a helper process, cp_ui_test_helper, is killed after autosaving or in the
// middle of saving, and the file is checked afterwards).
#include "ui_test_support.h"

#include "core/kernel_file/kernel_file.h"
#include "ui/state/kernel_document.h"
#include "ui/state/settings.h"
#include "ui/state/text_file.h"
#include "ui/state/user_dirs.h"

#include <gtest/gtest.h>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <fstream>
#include <poll.h>
#include <random>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>
#include <utility>
#include "test_paths.h"

extern char** environ;

using namespace cp;
using namespace cp::uitest;
namespace fs = std::filesystem;

namespace {

fs::path stock(const std::string& rel) { return kernels_dir() / rel; }

// A helper process (cp_ui_test_helper MODE ARG) with its stdout piped.
struct Helper {
    pid_t pid = -1;
    int out = -1;

    Helper(const std::string& mode, const std::string& arg, const std::string& arg2 = {}) {
        int fds[2];
        if (pipe(fds) != 0) return;
        posix_spawn_file_actions_t actions;
        posix_spawn_file_actions_init(&actions);
        posix_spawn_file_actions_adddup2(&actions, fds[1], STDOUT_FILENO);
        posix_spawn_file_actions_addclose(&actions, fds[0]);
        std::string self = CP_UI_TEST_HELPER, m = mode, a = arg, a2 = arg2;
        char* argv[] = {self.data(), m.data(), a.data(), arg2.empty() ? nullptr : a2.data(), nullptr};
        if (posix_spawn(&pid, self.c_str(), &actions, nullptr, argv, environ) != 0) pid = -1;
        posix_spawn_file_actions_destroy(&actions);
        close(fds[1]);
        out = fds[0];
    }
    ~Helper() {
        if (pid > 0) kill_now();
        if (out >= 0) close(out);
    }
    // Reads stdout until `word` appears (true) or the helper exits / the time is up (false).
    bool wait_for(const std::string& word, double seconds, std::string* seen = nullptr) {
        std::string text;
        const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
        while (std::chrono::steady_clock::now() < end) {
            pollfd p{out, POLLIN, 0};
            if (poll(&p, 1, 100) <= 0) continue;
            char buf[512];
            const ssize_t n = read(out, buf, sizeof buf);
            if (n <= 0) break;
            text.append(buf, size_t(n));
            if (text.find(word) != std::string::npos) break;
        }
        if (seen) *seen = text;
        return text.find(word) != std::string::npos;
    }
    // Waits for the helper to end on its own; its wait status.
    int wait_exit() {
        int status = 0;
        waitpid(pid, &status, 0);
        pid = -1;
        return status;
    }
    void kill_now() {
        ::kill(pid, SIGKILL);
        int status = 0;
        waitpid(pid, &status, 0);
        pid = -1;
    }
};

}  // namespace

// ---- tests ----

TEST(Autosave, EditsSurviveKill9) {
    ScopedUserDir user;
    const std::string stock_text = test::read_file(stock("image/box_blur.cu"));
    const std::string marker = "// kept after kill -9: " + std::to_string(std::random_device{}());
    {
        Helper helper("app-autosaves", marker);
        ASSERT_GT(helper.pid, 0);
        std::string seen;
        ASSERT_TRUE(helper.wait_for("READY", 120, &seen)) << "helper output:\n" << seen;
        helper.kill_now();
    }
    EXPECT_EQ(test::read_file(stock("image/box_blur.cu")), stock_text) << "the stock kernel must never be written";

    // Restarting the app shows the edit (the user copy), and the output comes from it.
    auto host = ui::AppHost::create(headless_options(), host_kernels_factory());
    ASSERT_TRUE(host.ok()) << host.error().full();
    ui::Workspace& ws = (*host)->workspace();
    ASSERT_TRUE(ws.document());
    EXPECT_TRUE(document_of(ws).has_user_copy());
    EXPECT_NE(document_of(ws).text().find(marker), std::string::npos);
    EXPECT_EQ(document_of(ws).user_copy_path(), ui::edits_dir() / "image" / "box_blur.cu");
}

// kill -9 at each moment of a save (the helper kills itself there, through the writer's test hook): before the
// rename the file still holds the old contents, after it the new ones; never a part or a mix.
TEST(Autosave, KillDuringSaveLeavesAWholeFile) {
    ScopedUserDir user;
    const fs::path file = user.path() / "stress" / "kernel.cu";
    const std::pair<const char*, const std::string*> stages[] = {
        {"part-written", &kOldContents}, {"written", &kOldContents}, {"renamed", &kNewContents}};
    for (const auto& [stage, expected] : stages) {
        Helper helper("die-saving", stage, file.string());
        ASSERT_GT(helper.pid, 0);
        const int status = helper.wait_exit();
        ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL)
            << stage << ": the helper was to die at this stage (status " << status << ")";
        const std::string text = test::read_file(file);
        EXPECT_EQ(text.size(), expected->size()) << stage << ": a half-written file or the wrong version";
        EXPECT_TRUE(text == *expected) << stage << ": not the " << (expected == &kOldContents ? "old" : "new")
                                       << " contents";
    }
}

TEST(KernelDocument, UserCopiesMirrorTheLibraryAndOtherFilesByPath) {
    EXPECT_EQ(ui::KernelDocument::user_copy_for("/k/image/blur.cu", "/k", "/e"), fs::path("/e/image/blur.cu"));
    EXPECT_EQ(ui::KernelDocument::user_copy_for("/home/me/work/mine.cu", "/k", "/e"),
              fs::path("/e/external/home/me/work/mine.cu"));
    EXPECT_EQ(ui::KernelDocument::user_copy_for("/k/../k2/x.cu", "/k", "/e"), fs::path("/e/external/k2/x.cu"));
}

TEST(KernelDocument, AutosaveWaitsForAPauseThenWritesTheUserCopyOnly) {
    test::TempDir dir;
    const fs::path lib = dir.path() / "kernels", edits = dir.path() / "edits";
    fs::create_directories(lib / "basics");
    const fs::path original = lib / "basics" / "k.cu";
    std::ofstream(original) << "original\n";
    auto doc = ui::KernelDocument::open(original, lib, edits);
    ASSERT_TRUE(doc.ok()) << doc.error().full();
    EXPECT_FALSE(doc->has_user_copy());
    EXPECT_EQ(doc->text(), "original\n");

    doc->set_text("edit 1\n", 10.0);
    EXPECT_TRUE(doc->unsaved());
    EXPECT_FALSE(*doc->autosave_if_due(10.1));  // still typing
    doc->set_text("edit 2\n", 10.2);
    EXPECT_FALSE(*doc->autosave_if_due(10.3));
    EXPECT_TRUE(*doc->autosave_if_due(10.5));  // a pause of 0.25 s
    EXPECT_FALSE(doc->unsaved());
    EXPECT_EQ(test::read_file(edits / "basics" / "k.cu"), "edit 2\n");
    EXPECT_EQ(test::read_file(original), "original\n");

    // Typing without pauses is still saved at least once a second.
    for (double t = 20.0; t < 21.0; t += 0.1) doc->set_text("burst " + std::to_string(t), t);
    EXPECT_TRUE(*doc->autosave_if_due(21.05));

    // Reopening shows the user copy; revert brings the original back and removes the copy.
    auto again = ui::KernelDocument::open(original, lib, edits);
    ASSERT_TRUE(again.ok());
    EXPECT_EQ(again->text().rfind("burst", 0), 0u);
    const uint64_t rev = again->revision();
    ASSERT_TRUE(again->revert_to_original(30.0).ok());
    EXPECT_EQ(again->text(), "original\n");
    EXPECT_GT(again->revision(), rev);
    EXPECT_FALSE(fs::exists(edits / "basics" / "k.cu"));
}

TEST(KernelDocument, ChangesMadeByAnotherEditorReload) {
    test::TempDir dir;
    const fs::path lib = dir.path() / "kernels", edits = dir.path() / "edits";
    fs::create_directories(lib);
    std::ofstream(lib / "k.cu") << "v1\n";
    auto doc = ui::KernelDocument::open(lib / "k.cu", lib, edits);
    ASSERT_TRUE(doc.ok());
    EXPECT_FALSE(doc->reload_if_changed_on_disk(1.0));
    doc->set_text("mine\n", 1.0);
    ASSERT_TRUE(doc->save().ok());
    EXPECT_FALSE(doc->reload_if_changed_on_disk(2.0)) << "our own save is not an outside change";
    // Another editor writes the user copy (the file the app shows).
    std::ofstream(edits / "k.cu") << "from vim\n";
    EXPECT_TRUE(doc->reload_if_changed_on_disk(3.0));
    EXPECT_EQ(doc->text(), "from vim\n");
    EXPECT_FALSE(doc->reload_if_changed_on_disk(4.0));

    // The same size, and the modification time put back as it was (or not moved within its tick): still seen.
    const auto mtime = fs::last_write_time(edits / "k.cu");
    std::ofstream(edits / "k.cu") << "from ed!\n";
    fs::last_write_time(edits / "k.cu", mtime);
    ASSERT_EQ(fs::file_size(edits / "k.cu"), std::string("from vim\n").size());
    EXPECT_TRUE(doc->reload_if_changed_on_disk(5.0)) << "a same-size change with an unchanged mtime was missed";
    EXPECT_EQ(doc->text(), "from ed!\n");

    // Only the time moved (touch): nothing to reload, and the edits are not replaced.
    doc->set_text("typing\n", 6.0);
    fs::last_write_time(edits / "k.cu", mtime + std::chrono::seconds(10));
    EXPECT_FALSE(doc->reload_if_changed_on_disk(7.0));
    EXPECT_EQ(doc->text(), "typing\n");
}

TEST(Settings, RoundTripAndBrokenFilesGiveDefaults) {
    test::TempDir dir;
    ui::Settings s;
    s.font_scale = 1.4f;
    s.high_contrast = true;
    s.last_kernel = "/x/y.cu";
    s.panels["Timing"] = false;
    ASSERT_TRUE(ui::save_settings(dir.path() / "settings.json", s).ok());
    const ui::Settings back = ui::load_settings(dir.path() / "settings.json");
    EXPECT_FLOAT_EQ(back.font_scale, 1.4f);
    EXPECT_TRUE(back.high_contrast);
    EXPECT_EQ(back.last_kernel, "/x/y.cu");
    EXPECT_FALSE(back.panels.at("Timing"));
    std::ofstream(dir.path() / "broken.json") << "{ not json";
    EXPECT_FLOAT_EQ(ui::load_settings(dir.path() / "broken.json").font_scale, 1.0f);
    std::ofstream(dir.path() / "huge.json") << R"({"font_scale": 100})";
    EXPECT_FLOAT_EQ(ui::load_settings(dir.path() / "huge.json").font_scale, ui::Settings::kMaxFontScale);
}

TEST(Autosave, TheAppRestoresTheLastKernelAndItsEdits) {
    ScopedUserDir user;
    {
        auto host = ui::AppHost::create(headless_options("basics/thread_ids.cu"), host_kernels_factory());
        ASSERT_TRUE(host.ok());
        (*host)->workspace().set_source("// mine\n" + document_of((*host)->workspace()).text(), 0);
        (*host)->workspace().save_now();
    }
    // Headless runs do not change the user's "last kernel"; a window does. Simulate that setting.
    ui::Settings s = ui::load_settings(ui::config_dir() / "settings.json");
    s.last_kernel = (kernels_dir() / "basics" / "thread_ids.cu").string();
    ASSERT_TRUE(ui::save_settings(ui::config_dir() / "settings.json", s).ok());
    ui::AppOptions o = headless_options();
    o.open_file.reset();
    auto host = ui::AppHost::create(o, host_kernels_factory());
    ASSERT_TRUE(host.ok());
    ASSERT_TRUE((*host)->workspace().document());
    EXPECT_EQ(document_of((*host)->workspace()).original_path().filename(), "thread_ids.cu");
    EXPECT_EQ(document_of((*host)->workspace()).text().rfind("// mine\n", 0), 0u);
}
