// A worker's own folder (the CUDA worker's precompiled headers, ~100 MB each) is removed by the app once the worker
// has ended, whether it ended by itself or was killed; and a process's PCH folder is named by its pid.
#include "core/toolkit/nvrtc_pch.h"
#include "core/worker/wire_frame.h"
#include "core/worker/worker_process.h"
#include "support/process.h"

#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

namespace cp {
namespace {

namespace fs = std::filesystem;

constexpr const char* kFolderWorkerEnv = "CP_TEST_FOLDER_WORKER";

// The test worker (this test binary started again): its spec is "<folder> <end>". It makes the folder with a
// file in it, says so, then ends by itself (`end` = exit) or waits for the app to kill it (`end` = wait).
[[maybe_unused]] const bool g_is_folder_worker = [] {
    const std::optional<WorkerEntry> entry = take_worker_entry(kFolderWorkerEnv);
    if (!entry) return false;
    const size_t space = entry->spec.rfind(' ');
    const fs::path folder = entry->spec.substr(0, space);
    std::error_code ec;
    fs::create_directories(folder, ec);
    std::ofstream(folder / "big.pch") << "a precompiled header";
    WireMessage ready;
    ready.json = "{\"ready\":true}";
    if (!write_message(entry->fd, ready)) std::_Exit(3);
    if (entry->spec.substr(space + 1) == "exit") std::_Exit(0);
    WireMessage ignored;
    (void)read_message(entry->fd, -1, &ignored);  // until the app closes the connection or kills it
    std::_Exit(0);
}();

WorkerSpawn folder_worker(const fs::path& folder, const char* end) {
    WorkerSpawn spawn;
    spawn.env_name = kFolderWorkerEnv;
    spawn.spec = folder.string() + " " + end;
    spawn.process_name = "cp-folder-worker";
    spawn.quiet_stdio = true;
    return spawn;
}

TEST(WorkerFolder, RemovedAfterTheWorkerIsKilled) {
    cp::test::TempDir temp;
    const fs::path folder = temp.path() / "worker-pch";
    WorkerProcess worker;
    ASSERT_FALSE(worker.start(folder_worker(folder, "wait")).has_value());
    worker.remove_after_exit(folder);
    ASSERT_EQ(worker.receive(30).outcome, WorkerProcess::Outcome::Answered);
    ASSERT_TRUE(fs::exists(folder / "big.pch"));
    worker.stop(true);  // SIGKILL: the worker removes nothing itself
    EXPECT_FALSE(fs::exists(folder));
    EXPECT_TRUE(fs::exists(temp.path())) << "only the worker's folder goes";
}

TEST(WorkerFolder, RemovedAfterTheWorkerEndsByItself) {
    cp::test::TempDir temp;
    const fs::path folder = temp.path() / "worker-pch";
    WorkerProcess worker;
    ASSERT_FALSE(worker.start(folder_worker(folder, "exit")).has_value());
    worker.remove_after_exit(folder);
    ASSERT_EQ(worker.receive(30).outcome, WorkerProcess::Outcome::Answered);
    ASSERT_TRUE(fs::exists(folder / "big.pch"));
    EXPECT_EQ(worker.receive(30).outcome, WorkerProcess::Outcome::Ended);
    EXPECT_FALSE(fs::exists(folder));
}

// A process that was killed leaves its folder; the next process that makes one removes it, and only it.
TEST(WorkerFolder, AKilledProcessesFolderIsRemovedByTheNextAndNoOtherIs) {
    cp::test::TempDir temp;
    const pid_t child = ::fork();
    ASSERT_GE(child, 0);
    if (child == 0) ::_exit(0);
    int status = 0;
    ASSERT_EQ(::waitpid(child, &status, 0), child);  // reaped: its pid names no process now
    const pid_t live = ::getppid();
    auto folder = [&](const std::string& name) {
        const fs::path f = temp.path() / name;
        fs::create_directories(f);
        std::ofstream(f / "x.pch") << "pch";
        return f;
    };
    const fs::path dead = folder("cuda-playground-pch-" + std::to_string(child));
    const fs::path running = folder("cuda-playground-pch-" + std::to_string(live));
    const fs::path mine = folder("cuda-playground-pch-" + std::to_string(::getpid()));
    const fs::path other = folder("cuda-playground-pch-notapid");
    const fs::path other_tool = folder("cuda-playground-build-" + std::to_string(child));
    EXPECT_EQ(remove_stale_pch_dirs(temp.path()), 1u);
    EXPECT_FALSE(fs::exists(dead));
    for (const fs::path& kept : {running, mine, other, other_tool}) EXPECT_TRUE(fs::exists(kept / "x.pch")) << kept;
    EXPECT_EQ(remove_stale_pch_dirs(temp.path() / "missing"), 0u);
}

TEST(WorkerFolder, APchFolderIsNamedByItsProcess) {
    EXPECT_EQ(pch_dir_of(::getpid()), pch_dir());
    EXPECT_EQ(pch_dir_of(12345).filename().string(), "cuda-playground-pch-12345");
    EXPECT_EQ(pch_dir_of(12345).parent_path(), pch_dir().parent_path());
}

}  // namespace
}  // namespace cp
