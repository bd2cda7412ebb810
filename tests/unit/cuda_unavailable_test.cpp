// Machines without an NVIDIA driver or device: the CUDA backend says why in plain words, nothing crashes.
#include "core/engine/backend.h"
#include "core/cuda/cuda_backend_factory.h"
#include "core/cuda/cuda_worker.h"
#include "support/scoped_env.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>

namespace cp {
namespace {

TEST(CudaUnavailable, MissingDriverLibraryIsExplained) {
    auto backend = make_cuda_backend_from_library("/nonexistent/libcuda.so.1");
    ASSERT_FALSE(backend.ok());
    EXPECT_EQ(backend.error().kind, ErrorKind::Unsupported);
    EXPECT_EQ(backend.error().reason, "no NVIDIA driver found (/nonexistent/libcuda.so.1 could not be loaded)");
    EXPECT_EQ(backend.error().message,
              "no NVIDIA driver found (/nonexistent/libcuda.so.1 could not be loaded): the CUDA backend is "
              "unavailable; use --backend cpu");
}

TEST(CudaUnavailable, DefaultDriverMissingOrUsable) {
    auto backend = make_cuda_backend();
    if (backend.ok()) GTEST_SKIP() << "a CUDA device is present here";
    // Without a driver the message is the exact sentence the command line shows.
    const std::string& m = backend.error().message;
    EXPECT_NE(m.find("use --backend cpu"), std::string::npos) << m;
    if (m.rfind("no NVIDIA driver found", 0) == 0) {
        EXPECT_EQ(m, "no NVIDIA driver found (libcuda.so.1 could not be loaded): the CUDA backend is unavailable; "
                     "use --backend cpu");
    }
}

TEST(CudaUnavailable, ToolkitStubLibraryIsNotADriver) {
    const std::filesystem::path stub = "/usr/local/cuda/lib64/stubs/libcuda.so";
    if (!std::filesystem::exists(stub)) GTEST_SKIP() << "no CUDA toolkit stub library at " << stub;
    // Load the real driver (or learn it is absent) first: the stub shares its soname, and once loaded it
    // would otherwise answer later look-ups of libcuda.so.1 in this process.
    (void)make_cuda_backend();
    auto backend = make_cuda_backend_from_library(stub.string());
    ASSERT_FALSE(backend.ok());
    EXPECT_NE(backend.error().message.find("stub library"), std::string::npos) << backend.error().message;
    EXPECT_NE(backend.error().message.find("use --backend cpu"), std::string::npos);
}

// The worker process (this test binary, re-executed) reports why CUDA is unusable over its socket.
TEST(CudaUnavailable, WorkerProcessExplainsMissingDriver) {
    const cp::test::ScopedEnv libcuda("CUDA_PLAYGROUND_LIBCUDA", "/nonexistent/libcuda.so.1");
    auto backend = CudaWorkerBackend::create();
    ASSERT_FALSE(backend.ok());
    // Kind and reason cross the worker's greeting.
    EXPECT_EQ(backend.error().kind, ErrorKind::Unsupported);
    EXPECT_EQ(backend.error().reason, "no NVIDIA driver found (/nonexistent/libcuda.so.1 could not be loaded)");
    EXPECT_EQ(backend.error().message,
              "no NVIDIA driver found (/nonexistent/libcuda.so.1 could not be loaded): the CUDA backend is "
              "unavailable; use --backend cpu");
}

TEST(CudaUnavailable, WorkerProcessExplainsStubLibrary) {
    const std::filesystem::path stub = "/usr/local/cuda/lib64/stubs/libcuda.so";
    if (!std::filesystem::exists(stub)) GTEST_SKIP() << "no CUDA toolkit stub library at " << stub;
    const cp::test::ScopedEnv libcuda("CUDA_PLAYGROUND_LIBCUDA", stub.string());
    auto backend = CudaWorkerBackend::create();
    ASSERT_FALSE(backend.ok());
    EXPECT_EQ(backend.error().kind, ErrorKind::Unsupported);
    EXPECT_NE(backend.error().reason.find("stub library"), std::string::npos) << backend.error().reason;
    EXPECT_EQ(backend.error().message, backend.error().reason + ": the CUDA backend is unavailable; use --backend cpu");
}

}  // namespace
}  // namespace cp
