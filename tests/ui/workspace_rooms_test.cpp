// The window's rooms other than its live runs, each on its own (no window, no ImGui): the files and edits
// (OpenFiles) and the remote link (ServerConnection). The window's own tests drive them through Workspace.
#include "ui/state/open_files.h"
#include "ui/state/server_connection.h"

#include "ui/ui_test_support.h"

#include <gtest/gtest.h>

#include <condition_variable>
#include <fstream>
#include <mutex>

using namespace cp;
namespace fs = std::filesystem;

namespace {

std::string contents_of(const fs::path& p) {
    std::ifstream in(p);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

size_t count(const ui::ConsoleLog& log, ui::LogKind kind) {
    size_t n = 0;
    for (const ui::LogEntry& e : log.entries()) n += e.kind == kind;
    return n;
}

constexpr const char* kLesson = R"(/*@playground
title: Scale
kernel: scale
param n: int = 1000 range 1..100000
buffer x: float[n] in random(seed=1)
buffer y: float[n] out zeros
block: 128
grid: ceil(n / block.x)
*/
extern "C" __global__ void scale(const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = 2.0f * x[i];
}
)";

struct Library {
    test::TempDir dir;
    fs::path lib = dir.path() / "kernels", edits = dir.path() / "edits";
    fs::path lesson = lib / "basics" / "scale.cu";
    ui::ConsoleLog console;
    Library() {
        fs::create_directories(lesson.parent_path());
        std::ofstream(lesson) << kLesson;
    }
};

TEST(OpenFiles, OpensALessonAndKeepsItsParseCurrent) {
    Library l;
    ui::OpenFiles files(l.console, l.lib, l.edits);
    ASSERT_EQ(files.library().size(), 1u);
    EXPECT_FALSE(files.document());
    EXPECT_FALSE(files.reparse_if_changed());  // nothing open

    ASSERT_TRUE(files.open(l.lesson));
    ASSERT_TRUE(files.document());
    EXPECT_EQ(files.parsed_path(), l.lesson.string());
    EXPECT_EQ(files.parsed().spec.kernel, "scale");
    EXPECT_EQ(files.parsed().spec.params.size(), 1u);
    EXPECT_FALSE(files.reparse_if_changed());  // parsed as it opened

    std::string text = kLesson;
    text.replace(text.find("block: 128"), 10, "param k: float = 3 range 0..10\nblock: 128");
    files.set_source(text, 1.0);
    EXPECT_TRUE(files.reparse_if_changed());
    EXPECT_EQ(files.parsed().spec.params.size(), 2u);
    EXPECT_FALSE(files.reparse_if_changed());
}

TEST(OpenFiles, AFileThatCannotBeReadLeavesTheOpenOne) {
    Library l;
    ui::OpenFiles files(l.console, l.lib, l.edits);
    ASSERT_TRUE(files.open(l.lesson));
    const size_t errors = count(l.console, ui::LogKind::Error);
    EXPECT_FALSE(files.open(l.dir.path() / "no_such_file.cu"));
    ASSERT_TRUE(files.document());
    EXPECT_EQ(files.document()->original_path(), l.lesson);
    EXPECT_EQ(files.parsed().spec.kernel, "scale");
    EXPECT_EQ(count(l.console, ui::LogKind::Error), errors + 1);
}

TEST(OpenFiles, SavedEditsMarkTheLessonAndTakingTheStockUnmarksIt) {
    Library l;
    ui::OpenFiles files(l.console, l.lib, l.edits);
    ASSERT_TRUE(files.open(l.lesson));
    EXPECT_STREQ(files.mark_label(l.lesson), ui::edit_mark_label(ui::EditMark::None));

    const std::string edited = std::string(kLesson) + "// mine\n";
    files.set_source(edited, 1.0);
    files.save_now();
    const fs::path copy = l.edits / "basics" / "scale.cu";
    EXPECT_EQ(contents_of(copy), edited);
    EXPECT_EQ(contents_of(l.lesson), kLesson);  // the stock file is never written
    EXPECT_STREQ(files.mark_label(l.lesson), ui::edit_mark_label(ui::EditMark::Edited));

    files.take_stock(2.0);
    EXPECT_FALSE(fs::exists(copy));
    EXPECT_EQ(files.document()->text(), kLesson);
    EXPECT_STREQ(files.mark_label(l.lesson), ui::edit_mark_label(ui::EditMark::None));

    // Opening another file saves the edits of the one it replaces.
    files.set_source(edited, 3.0);
    const fs::path other = l.dir.path() / "mine.cu";
    std::ofstream(other) << kLesson;
    ASSERT_TRUE(files.open(other));
    EXPECT_EQ(contents_of(copy), edited);
    EXPECT_STREQ(files.mark_label(l.lesson), ui::edit_mark_label(ui::EditMark::Edited));
}

TEST(OpenFiles, TickAutosavesAndFollowsTheFileOnDisk) {
    Library l;
    ui::OpenFiles files(l.console, l.lib, l.edits);
    const fs::path mine = l.dir.path() / "mine.cu";
    std::ofstream(mine) << kLesson;
    ASSERT_TRUE(files.open(mine));

    // Typed at 1 s: saved in place by the tick once the changes are over a second old.
    const std::string typed = std::string(kLesson) + "// typed\n";
    files.set_source(typed, 1.0);
    EXPECT_FALSE(files.tick(1.1));
    EXPECT_TRUE(files.document()->unsaved());
    EXPECT_FALSE(files.tick(2.5));
    EXPECT_FALSE(files.document()->unsaved());
    EXPECT_EQ(contents_of(mine), typed);

    // Another program writes the file: the next check reloads it, at most every half second.
    const std::string outside = std::string(kLesson) + "// from another editor, a longer line\n";
    std::ofstream(mine, std::ios::trunc) << outside;
    EXPECT_FALSE(files.reload_if_changed_on_disk(2.7));  // checked at 2.5 by the tick
    EXPECT_TRUE(files.reload_if_changed_on_disk(3.1));
    EXPECT_EQ(files.document()->text(), outside);
    EXPECT_TRUE(files.reparse_if_changed());
    EXPECT_FALSE(files.reload_if_changed_on_disk(3.7));  // no change since
}

RunReport lost_at(RunStage stage) {
    RunReport r;
    r.error = make_error(ErrorKind::WorkerLost, "ssh gpu01: connection closed");
    r.failed_stage = stage;
    return r;
}

TEST(ServerConnection, ALocalBackendHasNoLink) {
    ui::ConsoleLog console;
    ui::ServerConnection c(console);
    c.begin("", std::nullopt);
    EXPECT_FALSE(c.remote());
    c.note(lost_at(RunStage::Launch), 1.0);
    EXPECT_FALSE(c.link().lost());
    EXPECT_FALSE(c.never_connected());
    EXPECT_FALSE(c.sanitized_factory());  // the session's own sanitizer
    EXPECT_FALSE(c.poll(5.0, {}));
    EXPECT_TRUE(console.entries().empty());
}

TEST(ServerConnection, ALostServerIsSaidOnceAndItsAnswerBringsItBack) {
    ui::ConsoleLog console;
    ui::ServerConnection c(console);
    c.begin("ssh gpu01", std::nullopt);
    ASSERT_TRUE(c.remote());
    c.note(lost_at(RunStage::Launch), 1.0);
    EXPECT_TRUE(c.link().lost());
    EXPECT_EQ(c.link().why(), "ssh gpu01: connection closed");
    EXPECT_DOUBLE_EQ(c.link().retry_in(1.0), ui::RemoteLink::kFirstWaitS);
    c.note(lost_at(RunStage::Compile), 1.5);
    EXPECT_EQ(count(console, ui::LogKind::Error), 1u);

    RunReport back;
    back.compiled = true;
    c.note(back, 3.0);
    EXPECT_FALSE(c.link().lost());
    EXPECT_EQ(count(console, ui::LogKind::Info), 1u);
}

TEST(ServerConnection, TheCheckFailingHereSaysNothingOfTheLink) {
    ui::ConsoleLog console;
    ui::ServerConnection c(console);
    c.begin("ssh gpu01", std::nullopt);
    c.note(lost_at(RunStage::Verify), 1.0);  // the CPU reference runs in the window's process
    EXPECT_FALSE(c.link().lost());
}

// Wakes the test when an attempt's thread is over, as the window's loop is woken.
struct Wake {
    std::mutex m;
    std::condition_variable cv;
    int done = 0;
    std::function<void()> fn() {
        return [this] {
            std::lock_guard lock(m);
            ++done;
            cv.notify_all();
        };
    }
    void wait_for(int n) {
        std::unique_lock lock(m);
        cv.wait(lock, [&] { return done >= n; });
    }
};

TEST(ServerConnection, AServerUnreachedAtStartIsTriedAgainUntilItAnswers) {
    ui::ConsoleLog console;
    ui::ServerConnection c(console);
    int made = 0;
    auto keep = c.keep_factory([&]() -> Result<std::unique_ptr<Backend>> {
        if (++made == 1) return make_error(ErrorKind::WorkerLost, "ssh gpu01: no route to host");
        return uitest::make_host_kernels_backend();
    });
    ASSERT_TRUE(keep);
    // The window's first try, through the kept factory: the server cannot be reached.
    auto first = keep();
    ASSERT_FALSE(first);
    c.begin("ssh gpu01", first.error());
    EXPECT_TRUE(c.never_connected());
    EXPECT_TRUE(c.link().lost());
    EXPECT_EQ(count(console, ui::LogKind::Error), 1u);

    Wake wake;
    EXPECT_FALSE(c.poll(0.5, wake.fn()));  // the first wait (1 s) is not over
    EXPECT_FALSE(c.link().attempting());
    EXPECT_FALSE(c.poll(1.5, wake.fn()));  // an attempt starts, on a thread of its own
    EXPECT_TRUE(c.link().attempting());
    wake.wait_for(1);
    EXPECT_TRUE(c.attempt_done());
    auto engine = c.poll(1.6, wake.fn());
    ASSERT_TRUE(engine);
    EXPECT_TRUE(engine->engine->capabilities().launches);
    EXPECT_FALSE(engine->remote);  // a local backend: no options for Sanitize's link
    EXPECT_EQ(made, 2);
    EXPECT_FALSE(c.never_connected());
    EXPECT_FALSE(c.link().lost());
    EXPECT_FALSE(c.attempt_done());
    EXPECT_FALSE(c.sanitized_factory());
    EXPECT_FALSE(c.poll(100, wake.fn()));  // connected: no more attempts
    EXPECT_EQ(made, 2);
}

TEST(ServerConnection, AFailedAttemptWaitsTwiceAsLong) {
    ui::ConsoleLog console;
    ui::ServerConnection c(console);
    int made = 0;
    c.keep_factory([&]() -> Result<std::unique_ptr<Backend>> {
        ++made;
        return make_error(ErrorKind::WorkerLost, "ssh gpu01: no route to host");
    });
    c.begin("ssh gpu01", make_error(ErrorKind::WorkerLost, "ssh gpu01: no route to host"));
    Wake wake;
    EXPECT_FALSE(c.poll(1.0, wake.fn()));
    wake.wait_for(1);
    EXPECT_FALSE(c.poll(1.1, wake.fn()));  // its answer: still unreachable
    EXPECT_TRUE(c.never_connected());
    EXPECT_EQ(c.link().failed_attempts(), 1);
    EXPECT_DOUBLE_EQ(c.link().retry_in(1.1), 2 * ui::RemoteLink::kFirstWaitS);
    EXPECT_EQ(c.link().why(), "ssh gpu01: no route to host");
    EXPECT_EQ(made, 1);
}

TEST(ServerConnection, ATestsSanitizerWins) {
    ui::ConsoleLog console;
    ui::ServerConnection c(console);
    c.begin("ssh gpu01", std::nullopt);
    std::string asked;
    c.set_test_sanitizer([&](const std::string& tool, const std::string&) -> Result<std::unique_ptr<Backend>> {
        asked = tool;
        return uitest::make_host_kernels_backend();
    });
    auto f = c.sanitized_factory();
    ASSERT_TRUE(f);
    EXPECT_TRUE(f("racecheck", "/tmp/log"));
    EXPECT_EQ(asked, "racecheck");
}

}  // namespace
