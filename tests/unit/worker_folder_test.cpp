// A worker's own folder (the CUDA worker's precompiled headers, ~100 MB each) is removed by the app once the worker
// has ended, whether it ended by itself or was killed; and a process's PCH folder is named by its pid.
#include "core/toolkit/nvrtc_pch.h"
#include "core/worker/wire_frame.h"
#include "core/worker/worker_process.h"
#include "support/process.h"

#include <gtest/gtest.h>

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

TEST(WorkerFolder, APchFolderIsNamedByItsProcess) {
    EXPECT_EQ(pch_dir_of(::getpid()), pch_dir());
    EXPECT_EQ(pch_dir_of(12345).filename().string(), "cuda-playground-pch-12345");
    EXPECT_EQ(pch_dir_of(12345).parent_path(), pch_dir().parent_path());
}

}  // namespace
}  // namespace cp
