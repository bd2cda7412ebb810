// A kernel fault on the GPU is remembered per user for the machine's GPUs and this boot (so that windows opened
// later skip CUDA-GL interop, which the driver stalls until the GPU is reset): the file holds the machine state
// it was written for, and a different state (another boot, other GPUs) forgets it.
#include "core/cuda/cuda_backend_factory.h"
#include "support/process.h"
#include "support/scoped_env.h"

#include <gtest/gtest.h>

#include <fstream>

namespace cp {
namespace {

TEST(GpuFaultMemory, RememberedForTheSameMachineStateOnly) {
    test::TempDir dir;
    const auto file = dir.path() / "cache" / "gpu-fault";  // the folder is made on the first write
    EXPECT_FALSE(remembered_gpu_fault_in(file, "boot-1"));
    remember_gpu_fault_in(file, "boot-1", 1764140100);
    EXPECT_EQ(remembered_gpu_fault_in(file, "boot-1"), std::optional<int64_t>(1764140100));
    EXPECT_FALSE(remembered_gpu_fault_in(file, "boot-2")) << "a reboot (or other GPUs) forgets the fault";
    remember_gpu_fault_in(file, "boot-2", 1764150000);  // a later fault replaces it
    EXPECT_EQ(remembered_gpu_fault_in(file, "boot-2"), std::optional<int64_t>(1764150000));
    EXPECT_FALSE(remembered_gpu_fault_in(file, "boot-1"));
    // Without a machine state (no NVIDIA driver) nothing is written or remembered.
    remember_gpu_fault_in(dir.path() / "none", "", 5);
    EXPECT_FALSE(std::filesystem::exists(dir.path() / "none"));
    EXPECT_FALSE(remembered_gpu_fault_in(file, ""));
    // A damaged file is no fault.
    std::ofstream(file) << "boot-2";
    EXPECT_FALSE(remembered_gpu_fault_in(file, "boot-2"));
}

TEST(GpuFaultMemory, CountedInThisProcess) {
    forget_gpu_faults_in_this_process_for_tests();
    test::TempDir dir;
    test::ScopedEnv env;
    env.set("CUDA_PLAYGROUND_CACHE_DIR", dir.path().string());
    EXPECT_EQ(gpu_faults_in_this_process(), 0);
    remember_gpu_fault();
    remember_gpu_fault();
    EXPECT_EQ(gpu_faults_in_this_process(), 2);
    forget_gpu_faults_in_this_process_for_tests();
}

}  // namespace
}  // namespace cp
