// The memory recording's copy compiled ahead (recording_copy.h, recording_prepare.h), without a GPU: `compile
// --memory` builds its cubin with nvJitLink and keeps it, the next build finds it; the background preparer starts
// that compile and the worker's own build of the copy (the same function, given the session's request) then finds
// the cubin kept; and which kernels the window prepares at all.
#include "cli_support.h"
#include "core/cuda/recording_copy.h"
#include "core/cuda/recording_prepare.h"
#include "core/session/session.h"
#include "core/kernel_file/kernel_file.h"
#include "support/scoped_env.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fstream>

namespace cp {
namespace {

using test::ProcessResult;

std::string lesson(const std::string& name) { return std::string(CP_SOURCE_DIR) + "/kernels/" + name + ".cu"; }

ProcessResult compile_memory(const std::string& file, const std::string& arch, const std::filesystem::path& cache) {
    return test::run_process({CP_BINARY, "compile", file, "--memory", "--arch", arch, "--json"},
                             {"CUDA_PLAYGROUND_CACHE_DIR=" + cache.string()});
}

// The session's request for the copy (KernelSession::plain_request, as record_memory sends it).
CompileRequest session_request(const KernelFile& file) {
    CompileRequest r = kernel_compile_request(file);
    r.instrument_memory = true;
    return r;
}

TEST(RecordingCopyCli, CompileMemoryKeepsTheCubinAndTheNextCompileFindsIt) {
    test::TempDir cache;
    const ProcessResult first = compile_memory(lesson("matrix/tiled_matmul"), "sm_90", cache.path());
    ASSERT_EQ(first.exit_code, 0) << first.out << first.err;
    const auto j1 = nlohmann::json::parse(first.out);
    ASSERT_TRUE(j1.contains("memory")) << first.out;
    EXPECT_TRUE(j1["memory"]["ok"].get<bool>());
    EXPECT_TRUE(j1["memory"]["cubin"].get<bool>()) << j1["memory"]["text"];
    EXPECT_FALSE(j1["memory"]["cubin_kept"].get<bool>());
    // The tiled multiply's tile loads and stores, and its output's store: several sites.
    EXPECT_GE(j1["memory"]["sites"].get<int>(), 4);
    const ProcessResult second = compile_memory(lesson("matrix/tiled_matmul"), "sm_90", cache.path());
    ASSERT_EQ(second.exit_code, 0) << second.err;
    const auto j2 = nlohmann::json::parse(second.out);
    EXPECT_TRUE(j2["memory"]["cubin_kept"].get<bool>()) << j2["memory"]["text"];
    EXPECT_EQ(j2["memory"]["sites"], j1["memory"]["sites"]);
    // Another architecture is another cubin; a virtual one gets none (the driver compiles the PTX at load).
    const auto other = nlohmann::json::parse(compile_memory(lesson("matrix/tiled_matmul"), "sm_80", cache.path()).out);
    EXPECT_FALSE(other["memory"]["cubin_kept"].get<bool>());
    const auto virt = nlohmann::json::parse(compile_memory(lesson("matrix/tiled_matmul"), "compute_90", cache.path()).out);
    EXPECT_FALSE(virt["memory"]["cubin"].get<bool>());
    EXPECT_NE(virt["memory"]["text"].get<std::string>().find("not a real architecture"), std::string::npos);
    // In words, without --json.
    const ProcessResult text = test::run_process({CP_BINARY, "compile", lesson("matrix/tiled_matmul"), "--memory",
                                                  "--arch", "sm_90"},
                                                 {"CUDA_PLAYGROUND_CACHE_DIR=" + cache.path().string()});
    EXPECT_NE(text.out.find("recording copy: "), std::string::npos) << text.out;
    EXPECT_NE(text.out.find("its cubin for sm_90 was kept already"), std::string::npos) << text.out;
}

TEST(RecordingCopy, TheCubinIsTheCopysAndIsFoundUnderTheSameRequest) {
    test::TempDir cache;
    test::ScopedEnv env("CUDA_PLAYGROUND_CACHE_DIR", cache.path().string());
    auto file = load_kernel_file(lesson("performance/coalesced_vs_strided"));
    ASSERT_TRUE(file.ok() && file->signature);
    const RecordingCopy made = compile_recording_copy(session_request(*file), "sm_90");
    ASSERT_TRUE(made.result.ok) << made.result.log;
    ASSERT_TRUE(made.cubin) << made.cubin_note;
    EXPECT_FALSE(made.cubin_kept);
    ASSERT_GE(made.image.size(), 4u);
    EXPECT_EQ(std::string(reinterpret_cast<const char*>(made.image.data()), 4), "\x7f" "ELF");
    EXPECT_EQ(made.sites.size(), 2u);  // the strided load and the store
    const RecordingCopy again = compile_recording_copy(session_request(*file), "sm_90");
    EXPECT_TRUE(again.cubin_kept);
    EXPECT_TRUE(again.image == made.image);
    // The copy is of the text compiled: another text is another copy, compiled again.
    KernelFile edited = *file;
    edited.compile_source += "\n// an edit\n";
    edited.source += "\n// an edit\n";
    const RecordingCopy other = compile_recording_copy(session_request(edited), "sm_90");
    ASSERT_TRUE(other.cubin);
    EXPECT_FALSE(other.cubin_kept);
    // Without a cache nothing is kept, and the copy is still made.
    test::ScopedEnv off("CUDA_PLAYGROUND_NO_CACHE", "1");
    const RecordingCopy uncached = compile_recording_copy(session_request(*file), "sm_90");
    EXPECT_TRUE(uncached.cubin);
    EXPECT_FALSE(uncached.cubin_kept);
}

TEST(RecordingPreparer, APreparationInTheBackgroundIsWhatTheWorkerThenFinds) {
    test::TempDir cache;
    test::ScopedEnv env("CUDA_PLAYGROUND_CACHE_DIR", cache.path().string());
    auto file = load_kernel_file(lesson("matrix/transpose_shared"));
    ASSERT_TRUE(file.ok() && file->signature);
    RecordingPreparer preparer(CP_BINARY);
    ASSERT_TRUE(preparer.prepare(*file, "sm_90"));
    EXPECT_FALSE(preparer.prepare(*file, "sm_90")) << "the same file is prepared once";
    EXPECT_EQ(preparer.wait_for_running(), 0);
    EXPECT_FALSE(preparer.running());
    const RecordingCopy copy = compile_recording_copy(session_request(*file), "sm_90");
    ASSERT_TRUE(copy.result.ok);
    EXPECT_TRUE(copy.cubin_kept) << "the worker's build of the copy did not find the prepared cubin";
    // A process that is not cuda-playground prepares nothing (a test runner must not start itself).
    RecordingPreparer none("");
    EXPECT_FALSE(none.prepare(*file, "sm_90"));
    EXPECT_EQ(this_cuda_playground(), "");  // this test program is not cuda-playground
}

TEST(RecordingPreparer, OnlyAKernelOnThisMachinesGpuAsItIsOnDisk) {
    auto file = load_kernel_file(lesson("matrix/transpose_shared"));
    ASSERT_TRUE(file.ok() && file->signature);
    DeviceInfo gpu;
    gpu.backend = "cuda";
    gpu.arch = "sm_90";
    EXPECT_TRUE(worth_preparing_recording(gpu, *file));
    DeviceInfo cpu = gpu;
    cpu.backend = "cpu";
    EXPECT_FALSE(worth_preparing_recording(cpu, *file));
    DeviceInfo remote = gpu;
    remote.where = "remote: `ssh gpu01` -> host gpu01 (cuda backend, NVIDIA H100)";
    EXPECT_FALSE(worth_preparing_recording(remote, *file)) << "a remote worker keeps its own cache";
    KernelFile edited = *file;
    edited.source += "\n// an edit not saved\n";
    EXPECT_FALSE(worth_preparing_recording(gpu, edited));
    KernelFile no_kernel = *file;
    no_kernel.signature.reset();
    EXPECT_FALSE(worth_preparing_recording(gpu, no_kernel));
}

}  // namespace
}  // namespace cp
