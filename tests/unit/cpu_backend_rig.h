// Test helpers for the CPU backend: a backend with a private compile cache, and typed buffer/argument
// helpers over the plain-value Backend API (no kernel metadata needed).
#pragma once

#include "core/cpu/cpu_backend.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <unistd.h>
#include <vector>
#include "support/process.h"
#include "support/test_cache.h"
#include "test_paths.h"

namespace cp::test {

// The CPU backend's compile cache: the run's lessons cache (support/test_cache.h), so that the shim's PCH and
// bounds hooks are made once per ctest run, not once per test process (each test is one: 0.5 s each for 187
// tests), and a kernel that several tests compile is compiled once. A test that needs a cold first compile
// makes its source unique (SecondCompileIsACacheHit). Run by hand, the binary gets a temporary cache of its own.
inline std::string test_cache_dir() { return (lessons_cache_dir().path() / "cpu").string(); }

inline CpuBackendOptions test_options(int workers = 2, ThreadOrder order = ThreadOrder::Natural, uint64_t seed = 1) {
    CpuBackendOptions o;
    o.workers = workers;
    o.order = order;
    o.seed = seed;
    o.cache_dir = test_cache_dir();
    return o;
}

inline std::filesystem::path source_dir() { return CP_SOURCE_DIR; }

template <class T>
KernelArg value_arg(const std::string& name, T v) {
    KernelArg a;
    a.name = name;
    a.scalar.resize(sizeof(T));
    std::memcpy(a.scalar.data(), &v, sizeof(T));
    return a;
}

inline KernelArg buffer_arg(const std::string& name, BufferId id) {
    KernelArg a;
    a.name = name;
    a.buffer = id;
    return a;
}

struct CpuRig {
    std::unique_ptr<Backend> backend;

    explicit CpuRig(const CpuBackendOptions& options = test_options()) {
        auto made = make_cpu_backend_with(options);
        if (!made) ADD_FAILURE() << "CPU backend unavailable: " << made.error().full();
        else backend = std::move(*made);
    }

    CompileResult compile_result(const std::string& source, const std::string& kernel, const std::string& path = "test.cu") {
        CompileRequest r;
        r.source = source;
        r.kernel_name = kernel;
        r.path = path;
        return backend->compile(r);
    }

    ModuleId compile(const std::string& source, const std::string& kernel, const std::string& path = "test.cu") {
        const CompileResult r = compile_result(source, kernel, path);
        std::string messages;
        for (const Diagnostic& d : r.diagnostics) messages += d.str() + "\n";
        EXPECT_TRUE(r.ok) << messages << r.log << (r.error ? r.error->message : "");
        return r.module;
    }

    template <class T>
    BufferId buffer(const std::string& name, const std::vector<T>& data) {
        AllocateRequest a;
        a.name = name;
        a.bytes = data.size() * sizeof(T);
        const AllocateResult r = backend->allocate(a);
        EXPECT_FALSE(r.error.has_value());
        UploadRequest u;
        u.buffer = r.buffer;
        u.data.resize(a.bytes);
        if (a.bytes) std::memcpy(u.data.data(), data.data(), a.bytes);
        EXPECT_FALSE(backend->upload(u).error.has_value());
        return r.buffer;
    }

    template <class T>
    std::vector<T> read(BufferId id) {
        const ReadBackResult r = backend->read_back(ReadBackRequest{id});
        EXPECT_FALSE(r.error.has_value());
        std::vector<T> out(r.data.size() / sizeof(T));
        if (!out.empty()) std::memcpy(out.data(), r.data.data(), out.size() * sizeof(T));
        return out;
    }

    LaunchResult launch(ModuleId module, const std::string& kernel, Dim3 grid, Dim3 block, std::vector<KernelArg> args,
                        uint32_t dynamic_shared = 0) {
        LaunchRequest r;
        r.module = module;
        r.kernel_name = kernel;
        r.grid = grid;
        r.block = block;
        r.args = std::move(args);
        r.dynamic_shared_bytes = dynamic_shared;
        r.timing.warmup = 0;
        r.timing.repeats = 1;
        return backend->launch(r);
    }
};

inline std::string error_text(const LaunchResult& r) {
    return r.error ? r.error->name + ": " + r.error->message + "\n  hint: " + r.error->hint : std::string("(no error)");
}

inline uint32_t div_up(uint32_t a, uint32_t b) { return (a + b - 1) / b; }

}  // namespace cp::test
