// NVRTC compilation without a GPU: good kernels, errors located by line and column, warnings, the disk
// cache (hits skip NVRTC, corrupt entries are recompiled) and kernel-name lowering for C++ kernels.
#include "core/toolkit/cubin_cache.h"
#include "core/toolkit/nvrtc_compiler.h"
#include "core/toolkit/nvrtc_pch.h"
#include "support/process.h"
#include "support/scoped_env.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>

namespace cp {
namespace {

namespace fs = std::filesystem;

const char* kVectorAdd = R"(extern "C" __global__ void vector_add(const float* a, const float* b, float* c, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        c[i] = a[i] + b[i];
    }
}
)";

// 1-based line and column of the first occurrence of `needle` in `text`, found independently of NVRTC.
std::pair<int, int> locate(const std::string& text, const std::string& needle) {
    const size_t pos = text.find(needle);
    EXPECT_NE(pos, std::string::npos) << needle;
    const size_t line_start = text.rfind('\n', pos);
    const int line = 1 + int(std::count(text.begin(), text.begin() + long(pos), '\n'));
    const int column = int(pos - (line_start == std::string::npos ? 0 : line_start + 1)) + 1;
    return {line, column};
}

const Diagnostic* first_of(const CompileResult& r, Severity s) {
    for (const auto& d : r.diagnostics)
        if (d.severity == s) return &d;
    return nullptr;
}

class NvrtcTest : public ::testing::Test {
protected:
    void SetUp() override {
        std::random_device rd;
        cache_root_ = fs::temp_directory_path() / ("cp-nvrtc-test-" + std::to_string(rd()) + std::to_string(rd()));
        fs::create_directories(cache_root_);
        cache_env_.set("CUDA_PLAYGROUND_CACHE_DIR", cache_root_.string());
    }
    void TearDown() override {
        std::error_code ec;
        fs::remove_all(cache_root_, ec);
    }

    static CompileRequest request(std::string source, std::string kernel) {
        CompileRequest r;
        r.source = std::move(source);
        r.path = "test_kernel.cu";
        r.kernel_name = std::move(kernel);
        r.load = false;
        return r;
    }

    std::vector<fs::path> cache_files() const {
        std::vector<fs::path> files;
        for (const auto& e : fs::recursive_directory_iterator(cache_root_))
            if (e.is_regular_file()) files.push_back(e.path());
        return files;
    }

    fs::path cache_root_;
    cp::test::ScopedEnv cache_env_;
};

TEST_F(NvrtcTest, GoodKernelGivesCubinAndResourceUsage) {
    std::vector<std::byte> cubin;
    std::string lowered;
    const auto r = compile_with_nvrtc(request(kVectorAdd, "vector_add"), kArchWithoutDevice, &cubin, &lowered);
    ASSERT_TRUE(r.ok) << r.log;
    EXPECT_FALSE(r.error.has_value());
    EXPECT_FALSE(has_errors(r.diagnostics));
    EXPECT_FALSE(r.cache_hit);
    ASSERT_GE(cubin.size(), 4u);
    EXPECT_EQ(cubin[0], std::byte{0x7f});  // an ELF file
    EXPECT_EQ(cubin[1], std::byte{'E'});
    EXPECT_EQ(lowered, "vector_add");      // extern "C": not mangled
    EXPECT_GT(r.usage.registers, 0);
    EXPECT_LE(r.usage.registers, 255);
    EXPECT_EQ(r.usage.static_shared_bytes, 0);
    EXPECT_EQ(r.usage.spill_store_bytes, 0);
    EXPECT_GE(r.usage.barriers, 0);
    EXPECT_NE(std::find(r.options.begin(), r.options.end(), "-arch=sm_90"), r.options.end());
    EXPECT_NE(std::find(r.options.begin(), r.options.end(), "-lineinfo"), r.options.end());
    EXPECT_GT(r.compile_ms, 0);
}

TEST_F(NvrtcTest, SharedMemoryAndBarriersAreReported) {
    const std::string src = R"(extern "C" __global__ void reverse(float* x)
{
    __shared__ float tile[128];
    tile[threadIdx.x] = x[threadIdx.x];
    __syncthreads();
    x[threadIdx.x] = tile[127 - threadIdx.x];
}
)";
    const auto r = compile_with_nvrtc(request(src, "reverse"), kArchWithoutDevice, nullptr);
    ASSERT_TRUE(r.ok) << r.log;
    EXPECT_EQ(r.usage.static_shared_bytes, 128 * 4);
    EXPECT_GE(r.usage.barriers, 1);
}

TEST_F(NvrtcTest, SyntaxErrorHasLineAndColumn) {
    const std::string src = "extern \"C\" __global__ void k(float* out, int n)\n"
                            "{\n"
                            "    int i = threadIdx.x;\n"
                            "    if (i < n) out[i] = undefined_name * 2.0f;\n"
                            "}\n";
    std::vector<std::byte> cubin;
    const auto r = compile_with_nvrtc(request(src, "k"), kArchWithoutDevice, &cubin);
    EXPECT_FALSE(r.ok);
    EXPECT_FALSE(r.error.has_value()) << "a source error is not an engine error";
    EXPECT_TRUE(cubin.empty());
    const Diagnostic* e = first_of(r, Severity::Error);
    ASSERT_NE(e, nullptr) << r.log;
    const auto [line, column] = locate(src, "undefined_name");
    EXPECT_EQ(e->file, "test_kernel.cu");
    EXPECT_EQ(e->line, line);
    EXPECT_EQ(e->column, column);
    EXPECT_NE(e->message.find("undefined_name"), std::string::npos) << e->message;
}

TEST_F(NvrtcTest, ColumnCountsTabsAsOneCharacter) {
    const std::string src = "__global__ void k(float* out)\n{\n\t\tout[0] = missing + 1.0f;\n}\n";
    const auto r = compile_with_nvrtc(request(src, "k"), kArchWithoutDevice, nullptr);
    const Diagnostic* e = first_of(r, Severity::Error);
    ASSERT_NE(e, nullptr) << r.log;
    const auto [line, column] = locate(src, "missing");
    EXPECT_EQ(e->line, line);
    EXPECT_EQ(e->column, column);
}

TEST_F(NvrtcTest, WarningDoesNotFailTheCompile) {
    const std::string src = "extern \"C\" __global__ void k(float* out)\n"
                            "{\n"
                            "    int unused_counter = 3;\n"
                            "    out[threadIdx.x] = 1.0f;\n"
                            "}\n";
    std::vector<std::byte> cubin;
    const auto r = compile_with_nvrtc(request(src, "k"), kArchWithoutDevice, &cubin);
    ASSERT_TRUE(r.ok) << r.log;
    EXPECT_FALSE(cubin.empty());
    const Diagnostic* w = first_of(r, Severity::Warning);
    ASSERT_NE(w, nullptr) << r.log;
    const auto [line, column] = locate(src, "unused_counter");
    EXPECT_EQ(w->line, line);
    EXPECT_EQ(w->column, column);
    EXPECT_NE(w->message.find("unused_counter"), std::string::npos);
}

TEST_F(NvrtcTest, SecondCompileIsACacheHitWithoutNvrtc) {
    std::vector<std::byte> first, second;
    const auto a = compile_with_nvrtc(request(kVectorAdd, "vector_add"), kArchWithoutDevice, &first);
    ASSERT_TRUE(a.ok) << a.log;
    EXPECT_FALSE(a.cache_hit);
    EXPECT_EQ(cache_files().size(), 1u);

    const uint64_t calls_before = nvrtc_invocation_count();
    const auto b = compile_with_nvrtc(request(kVectorAdd, "vector_add"), kArchWithoutDevice, &second);
    EXPECT_EQ(nvrtc_invocation_count(), calls_before);
    ASSERT_TRUE(b.ok);
    EXPECT_TRUE(b.cache_hit);
    EXPECT_EQ(first, second);
    EXPECT_EQ(a.usage.registers, b.usage.registers);
    EXPECT_EQ(a.log, b.log);
    std::printf("NVRTC cold compile %.2f ms, cached %.2f ms\n", a.compile_ms, b.compile_ms);

    // Any change to the source or the options is a different entry.
    auto changed = request(std::string(kVectorAdd) + "\n// edited\n", "vector_add");
    EXPECT_FALSE(compile_with_nvrtc(changed, kArchWithoutDevice, nullptr).cache_hit);
    auto other_options = request(kVectorAdd, "vector_add");
    other_options.extra_options = {"-DEXTRA=1"};
    EXPECT_FALSE(compile_with_nvrtc(other_options, kArchWithoutDevice, nullptr).cache_hit);
    EXPECT_EQ(nvrtc_invocation_count(), calls_before + 2);
}

TEST_F(NvrtcTest, CorruptCacheEntriesAreRecompiledAndRewritten) {
    std::vector<std::byte> reference;
    ASSERT_TRUE(compile_with_nvrtc(request(kVectorAdd, "vector_add"), kArchWithoutDevice, &reference).ok);
    const auto files = cache_files();
    ASSERT_EQ(files.size(), 1u);
    std::string good(fs::file_size(files[0]), '\0');
    {
        std::ifstream in(files[0], std::ios::binary);
        in.read(good.data(), std::streamsize(good.size()));
    }
    // Garbage, a truncated file, an empty file, and valid JSON whose cubin fails its checksum.
    std::string flipped = good;
    const size_t image_at = flipped.find("\"image\":\"");
    ASSERT_NE(image_at, std::string::npos);
    char& c = flipped[image_at + 20];
    c = c == 'A' ? 'B' : 'A';
    for (const std::string& bad : {std::string("{not json at all"), good.substr(0, good.size() / 2), std::string(),
                                   flipped}) {
        {
            std::ofstream out(files[0], std::ios::binary | std::ios::trunc);
            out << bad;
        }
        const uint64_t calls_before = nvrtc_invocation_count();
        std::vector<std::byte> cubin;
        const auto r = compile_with_nvrtc(request(kVectorAdd, "vector_add"), kArchWithoutDevice, &cubin);
        ASSERT_TRUE(r.ok) << r.log;
        EXPECT_FALSE(r.cache_hit);
        EXPECT_EQ(nvrtc_invocation_count(), calls_before + 1);
        EXPECT_EQ(cubin, reference);
        // Rewritten: the next compile hits again.
        EXPECT_TRUE(compile_with_nvrtc(request(kVectorAdd, "vector_add"), kArchWithoutDevice, nullptr).cache_hit);
    }
}

TEST_F(NvrtcTest, CppKernelNamesAreLowered) {
    const std::string src = R"(
__global__ void scale(float* x, float s, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] *= s;
}
template <class T> __global__ void fill(T* x, T value, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = value;
}
template __global__ void fill<int>(int*, int, int);
)";
    std::vector<std::byte> cubin;
    std::string lowered;
    auto r = compile_with_nvrtc(request(src, "scale"), kArchWithoutDevice, &cubin, &lowered);
    ASSERT_TRUE(r.ok) << r.log;
    EXPECT_EQ(lowered.rfind("_Z", 0), 0u) << lowered;  // Itanium-mangled
    EXPECT_NE(lowered.find("scale"), std::string::npos);
    const std::string cubin_text(reinterpret_cast<const char*>(cubin.data()), cubin.size());
    EXPECT_NE(cubin_text.find(lowered), std::string::npos) << "the lowered name is the cubin's symbol";
    EXPECT_GT(r.usage.registers, 0) << "usage is found for the mangled entry";

    r = compile_with_nvrtc(request(src, "fill<int>"), kArchWithoutDevice, &cubin, &lowered);
    ASSERT_TRUE(r.ok) << r.log;
    EXPECT_EQ(lowered.rfind("_Z", 0), 0u) << lowered;
    EXPECT_NE(lowered.find("fill"), std::string::npos);
}

TEST_F(NvrtcTest, UnknownKernelNameIsExplained) {
    const auto r = compile_with_nvrtc(request(kVectorAdd, "vectoradd"), kArchWithoutDevice, nullptr);
    EXPECT_FALSE(r.ok);
    ASSERT_EQ(r.diagnostics.size(), 1u) << r.log;
    EXPECT_NE(r.diagnostics[0].message.find("`vectoradd`"), std::string::npos) << r.diagnostics[0].message;
    EXPECT_EQ(r.diagnostics[0].file, "test_kernel.cu");
}

TEST_F(NvrtcTest, DeviceFunctionIsNotAKernel) {
    const std::string src = "__device__ float twice(float x) { return 2 * x; }\n"
                            "extern \"C\" __global__ void k(float* x) { x[0] = twice(x[0]); }\n";
    const auto r = compile_with_nvrtc(request(src, "twice"), kArchWithoutDevice, nullptr);
    EXPECT_FALSE(r.ok);
    ASSERT_TRUE(has_errors(r.diagnostics));
    EXPECT_NE(r.diagnostics.back().message.find("not a __global__"), std::string::npos);
}

TEST_F(NvrtcTest, HelperWithoutDeviceQualifierCompiles) {
    // -default-device: plain helper functions work as they do on the CPU backend.
    const std::string src = "float twice(float x) { return 2 * x; }\n"
                            "extern \"C\" __global__ void k(float* x) { x[0] = twice(x[0]); }\n";
    std::vector<std::byte> cubin;
    std::string lowered;
    const auto r = compile_with_nvrtc(request(src, "k"), kArchWithoutDevice, &cubin, &lowered);
    ASSERT_TRUE(r.ok) << r.log;
    EXPECT_FALSE(has_errors(r.diagnostics)) << r.log;
    EXPECT_NE(std::find(r.options.begin(), r.options.end(), "-default-device"), r.options.end());
    EXPECT_EQ(lowered, "k");
    ASSERT_GE(cubin.size(), 4u) << "no code came out";
    EXPECT_EQ(cubin[0], std::byte{0x7f});  // an ELF file
    // The same helper made host-only is what an unqualified one is without -default-device: NVRTC refuses the
    // call, so the success above is the option's doing, not a compiler that lets anything through.
    std::string host_only = src;
    host_only.insert(0, "__host__ ");
    const auto refused = compile_with_nvrtc(request(host_only, "k"), kArchWithoutDevice, nullptr);
    EXPECT_FALSE(refused.ok) << refused.log;
    EXPECT_TRUE(has_errors(refused.diagnostics)) << refused.log;
}

TEST_F(NvrtcTest, CacheCanBeSwitchedOff) {
    const cp::test::ScopedEnv no_cache("CUDA_PLAYGROUND_NO_CACHE", "1");
    const uint64_t calls_before = nvrtc_invocation_count();
    compile_with_nvrtc(request(kVectorAdd, "vector_add"), kArchWithoutDevice, nullptr);
    const auto r = compile_with_nvrtc(request(kVectorAdd, "vector_add"), kArchWithoutDevice, nullptr);
    EXPECT_FALSE(r.cache_hit);
    EXPECT_EQ(nvrtc_invocation_count(), calls_before + 2);
    EXPECT_TRUE(cache_files().empty());
}

TEST_F(NvrtcTest, StandardHeadersWrittenForNvccCompile) {
    // NVRTC has none of these headers; the in-memory stand-ins make nvcc-style kernels compile unchanged.
    const std::string src = R"(#include <cstdio>
#include <cassert>
#include <cstdint>
#include <climits>
#include <cfloat>
#include <cmath>
#include <algorithm>
#include <cuda/std/limits>
extern "C" __global__ void k(float* x, uint8_t* bytes, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    assert(n < INT_MAX);
    if (i >= n) return;
    float v = std::sqrt(std::abs(x[i])) + float(M_PI) + std::min(x[i], FLT_MAX);
    if (std::isnan(v)) printf("nan at %d\n", i);
    bytes[i] = uint8_t(std::max(0.0f, std::fmin(v, float(cuda::std::numeric_limits<uint8_t>::max()))));
}
)";
    const auto r = compile_with_nvrtc(request(src, "k"), kArchWithoutDevice, nullptr);
    EXPECT_TRUE(r.ok) << r.log;
    EXPECT_TRUE(r.diagnostics.empty()) << "no redefinition warnings against libcu++:\n" << r.log;
}

TEST(NvrtcArch, DeviceArchitectures) {
    const auto archs = nvrtc_supported_archs();
    ASSERT_FALSE(archs.empty());
    EXPECT_EQ(nvrtc_arch_for_device(9, 0), "sm_90");
    // A device newer than every architecture NVRTC knows gets PTX for the newest one.
    EXPECT_EQ(nvrtc_arch_for_device(99, 9), "compute_" + std::to_string(archs.back()));
    EXPECT_EQ(nvrtc_arch_for_device(1, 0), "");
}

TEST_F(NvrtcTest, VirtualArchGivesPtx) {
    std::vector<std::byte> ptx;
    const auto r = compile_with_nvrtc(request(kVectorAdd, "vector_add"), "compute_90", &ptx);
    ASSERT_TRUE(r.ok) << r.log;
    const std::string text(reinterpret_cast<const char*>(ptx.data()), ptx.size());
    EXPECT_NE(text.find(".entry vector_add"), std::string::npos);
    EXPECT_EQ(ptx.back(), std::byte{0}) << "PTX handed to the driver ends with NUL";
}

// A warm-up (compile_bench's; the worker makes the PCH with the first kernel that includes the header) must leave a
// precompiled header that holds <cooperative_groups.h> parsed (about 100 MB; an empty program gives 7 MB), not one
// made from an empty program, or the next cooperative-groups kernel still pays the whole parse.
TEST(NvrtcPch, WarmUpPrecompilesCooperativeGroups) {
    const fs::path dir = pch_dir();
    auto pch_bytes = [&] {
        std::uintmax_t most = 0;
        std::error_code ec;
        for (const auto& e : fs::directory_iterator(dir, ec))
            if (e.path().extension() == ".pch") most = std::max(most, e.file_size(ec));
        return most;
    };
    // As the CUDA worker sets up at its start: NVRTC writes the PCH through temporary files in $TMPDIR.
    {
        const cp::test::ScopedEnv tmpdir("TMPDIR");  // use_pch_dir_for_temporary_files() sets it; put back after
        use_pch_dir_for_temporary_files();
        warm_up_nvrtc_pch(kArchWithoutDevice);
    }
    EXPECT_GT(pch_bytes(), std::uintmax_t(32) << 20) << "the PCH in " << dir << " holds no parsed header";
}

// `cuda-playground compile` turns precompiled headers off (one compile per process): a kernel that starts with a
// heavy include then compiles in one NVRTC call, with its resources, as it does with them on. On, in a process whose
// $TMPDIR is not the PCH folder, the first such compile tries to make a PCH, fails, and compiles a second time.
TEST_F(NvrtcTest, WithoutPrecompiledHeadersHeavyIncludesCompileInOneCall) {
    const cp::test::ScopedEnv no_cache("CUDA_PLAYGROUND_NO_CACHE", "1");
    const cp::test::ScopedEnv no_pch_env("CUDA_PLAYGROUND_NO_PCH", std::nullopt);
    struct AllowAgain {
        ~AllowAgain() { set_pch_allowed(true); }
    } allow_again;
    set_pch_allowed(false);
    const std::string cg = "#include <cooperative_groups.h>\nnamespace cg = cooperative_groups;\n"
                           "extern \"C\" __global__ void tile_sum(const float* in, float* out, int n) {\n"
                           "    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(cg::this_thread_block());\n"
                           "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                           "    float v = i < n ? in[i] : 0.0f;\n"
                           "    for (int o = 16; o > 0; o /= 2) v += warp.shfl_down(v, o);\n"
                           "    if (warp.thread_rank() == 0) atomicAdd(out, v);\n}\n";
    const std::string std_span = "#include <cuda/std/span>\n#include <cuda/std/limits>\n"
                                 "extern \"C\" __global__ void halve_big(float* data, int n) {\n"
                                 "    cuda::std::span<float> s(data, n);\n"
                                 "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                                 "    if (i < int(s.size()) && s[i] > cuda::std::numeric_limits<float>::max() / 2) "
                                 "s[i] /= 2;\n}\n";
    for (const auto& [source, name] : {std::pair{cg, "tile_sum"}, std::pair{std_span, "halve_big"}}) {
        const uint64_t calls_before = nvrtc_invocation_count();
        const CompileResult r = compile_with_nvrtc(request(source, name), kArchWithoutDevice, nullptr);
        ASSERT_TRUE(r.ok) << name << "\n" << r.log;
        EXPECT_EQ(nvrtc_invocation_count(), calls_before + 1) << name;
        EXPECT_GT(r.usage.registers, 0) << name;
        EXPECT_EQ(r.usage.spill_store_bytes, 0) << name;
        EXPECT_TRUE(pch_options(source, r.options).empty()) << name;
    }
}

}  // namespace
}  // namespace cp

// -minimal (a faster NVRTC compile) is tried when the device code cannot need what it leaves out: a lesson's
// header comment saying "CUDA" or "texture" and its CPU reference's `#include <cmath>` do not count; the same
// words in the code, an include of the device code, or a launch from a kernel do.
TEST(NvrtcMinimal, JudgesTheDeviceCodeOnly) {
    const std::string version = cp::nvrtc_version_text();  // "13.0"
    const int major = std::atoi(version.c_str());
    const int minor = version.find('.') == std::string::npos ? 0 : std::atoi(version.c_str() + version.find('.') + 1);
    if (major < 12 || (major == 12 && minor < 4)) GTEST_SKIP() << "NVRTC " << version << " has no -minimal";
    const std::string header = "/*@playground\ntitle: CUDA texture-free blur\nabout: no tex, no surf here\n*/\n";
    const std::string kernel = "extern \"C\" __global__ void k(float* a) { a[threadIdx.x] *= 2.0f; }\n";
    const std::string reference =
        "#ifdef PLAYGROUND_REFERENCE\n#include <cmath>\nstatic void ref(float* a, int n) { (void)std::sqrt(2.0); }\n#endif\n";
    EXPECT_TRUE(cp::nvrtc_minimal_applies(header + kernel + reference));
    EXPECT_TRUE(cp::nvrtc_minimal_applies(kernel + "// cudaMalloc in a comment\nconst char* s = \"tex2D\";\n"));
    EXPECT_FALSE(cp::nvrtc_minimal_applies("#include <cuda_fp16.h>\n" + kernel));
    EXPECT_FALSE(cp::nvrtc_minimal_applies(kernel + "__device__ float f(cudaTextureObject_t t) { return 0; }\n"));
    EXPECT_FALSE(cp::nvrtc_minimal_applies(kernel + "__device__ float g(float x) { return tex1Dfetch<float>(0, 0); }\n"));
    EXPECT_FALSE(cp::nvrtc_minimal_applies(kernel + "__global__ void p(float* a) { k<<<1, 1>>>(a); }\n"));
}

// NVRTC goes through the CUDA driver's JIT where the driver is loaded, and its confined thread may use the
// driver's cache folder: CUDA_CACHE_PATH, else ~/.nv/ComputeCache, made when missing; none without a driver
// or with the cache turned off.
TEST(NvrtcDriverCache, TheDriverJitCacheFolderOnlyWhereTheDriverIsLoaded) {
    cp::test::TempDir temp;
    const auto chosen = temp.path() / "jit" / "cache";
    {
        const cp::test::ScopedEnv env("CUDA_CACHE_PATH", chosen.string());
        const cp::test::ScopedEnv on("CUDA_CACHE_DISABLE", std::nullopt);
        EXPECT_FALSE(cp::driver_jit_cache_dir(false).has_value());
        EXPECT_FALSE(std::filesystem::exists(chosen)) << "nothing is made for a process without the driver";
        const auto dir = cp::driver_jit_cache_dir(true);
        ASSERT_TRUE(dir.has_value());
        EXPECT_EQ(*dir, std::filesystem::weakly_canonical(chosen));
        EXPECT_TRUE(std::filesystem::is_directory(chosen));
        const cp::test::ScopedEnv off("CUDA_CACHE_DISABLE", "1");
        EXPECT_FALSE(cp::driver_jit_cache_dir(true).has_value());
    }
    const cp::test::ScopedEnv env("CUDA_CACHE_PATH", std::nullopt);
    const cp::test::ScopedEnv home("HOME", temp.path().string());
    const auto dir = cp::driver_jit_cache_dir(true);
    ASSERT_TRUE(dir.has_value());
    EXPECT_EQ(*dir, std::filesystem::weakly_canonical(temp.path() / ".nv" / "ComputeCache"));
}
