// Shared by the GPU tests: a vector-add kernel, argument/byte helpers, and a fixture that drives the CUDA
// backend (in its worker process) through an Engine and skips with the reason when there is no device.
#pragma once

#include "core/cuda/cuda_backend_factory.h"
#include "core/cuda/cuda_worker.h"
#include "core/engine/engine.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include <signal.h>

namespace cp::gpu_test {

inline constexpr const char* kVectorAdd = R"(extern "C" __global__ void vector_add(const float* a, const float* b, float* c, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        c[i] = a[i] + b[i];
    }
}
)";

template <class T>
inline KernelArg scalar(const std::string& name, T value) {
    KernelArg a;
    a.name = name;
    a.scalar.resize(sizeof(T));
    std::memcpy(a.scalar.data(), &value, sizeof(T));
    return a;
}

inline KernelArg buffer(const std::string& name, BufferId id) {
    KernelArg a;
    a.name = name;
    a.buffer = id;
    return a;
}

template <class T>
inline std::vector<std::byte> bytes_of(const std::vector<T>& v) {
    std::vector<std::byte> out(v.size() * sizeof(T));
    std::memcpy(out.data(), v.data(), out.size());
    return out;
}

template <class T>
inline std::vector<T> values_of(const std::vector<std::byte>& bytes) {
    std::vector<T> out(bytes.size() / sizeof(T));
    std::memcpy(out.data(), bytes.data(), out.size() * sizeof(T));
    return out;
}

// Why CUDA cannot be used here, asked of a worker process so that this process never initialises CUDA.
inline std::optional<std::string> cuda_unavailable() {
    auto backend = make_cuda_backend();
    if (backend.ok()) return std::nullopt;
    return backend.error().message;
}

class CudaBackendTest : public ::testing::Test {
protected:
    void SetUp() override {
        auto backend = make_cuda_backend();
        if (!backend.ok()) GTEST_SKIP() << "no CUDA device: " << backend.error().message;
        engine_ = std::make_unique<Engine>(std::move(*backend));
    }

    ModuleId compile(const std::string& source, const std::string& kernel) {
        CompileRequest r;
        r.source = source;
        r.path = "gpu_test.cu";
        r.kernel_name = kernel;
        const CompileResult c = engine_->compile(r);
        EXPECT_TRUE(c.ok) << c.log << (c.error ? c.error->message : "");
        EXPECT_NE(c.module, 0u);
        return c.module;
    }

    BufferId allocate_elements(const std::string& name, uint64_t count, uint32_t element_bytes) {
        const AllocateResult a = engine_->allocate({name, count * element_bytes, element_bytes});
        EXPECT_FALSE(a.error) << a.error->message;
        return a.buffer;
    }
    BufferId allocate(const std::string& name, uint64_t bytes) {
        const AllocateResult a = engine_->allocate({name, bytes});
        EXPECT_FALSE(a.error) << a.error->message;
        return a.buffer;
    }

    std::unique_ptr<Engine> engine_;
};

}  // namespace cp::gpu_test
