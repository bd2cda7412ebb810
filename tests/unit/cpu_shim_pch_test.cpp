// What the CPU backend makes once from its shim. Its PCH: one per set of flags, made by the first compile in the
// build root, read by the next ones, passed over (and the compile still right) when a user's macro changes the
// shim, and off with CUDA_PLAYGROUND_NO_PCH; the libraries built either way compute the same values. Its bounds
// hooks (shim/cuda_shim_bounds.h): one object per set of flags that every bounds-checked library links, each with
// its own copy; the recording variant compiles them with its kernel; when the object cannot be made, the library
// defines them itself and accesses are still checked.
#include "cpu_backend_rig.h"
#include "core/cpu/host_compiler.h"
#include "support/process.h"
#include "support/scoped_env.h"

#include <dlfcn.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

namespace cp {
namespace {

namespace fs = std::filesystem;

// A plain host function, so that the test calls the built library directly. It uses the shim (its int3 and
// its math) and a macro from the options.
const char* kHostSource = R"(
extern "C" int scaled_sum(int n)
{
    int3 v = make_int3(n, 2 * n, SCALE);
    return (v.x + v.y) * v.z + int(floorf(2.5f));
}
)";

// Thread i writes out[i + shift] for i < n: with shift 1, thread n-1 writes one element past the end.
const char* kShiftedCopy = R"(extern "C" __global__ void shifted_copy(const int* in, int* out, int n, int shift)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i + shift] = in[i];
}
)";

// The folders in ROOT/build whose names start with PREFIX.
std::vector<fs::path> folders_named(const fs::path& root, const std::string& prefix) {
    std::vector<fs::path> out;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(root / "build", ec))
        if (e.path().filename().string().rfind(prefix, 0) == 0) out.push_back(e.path());
    return out;
}

struct Rig {
    test::TempDir cache;
    HostCompiler compiler;
    ShimLocation shim;
    bool usable = false;  // GCC: the shim is precompiled
    bool checks = false;  // GCC on x86-64: accesses are checked
    Rig() {
        auto c = find_host_compiler("");
        auto s = find_shim();
        if (!c || !s) return;
        compiler = *c;
        shim = *s;
        usable = compiler.version.find("clang") == std::string::npos;
        checks = !access_check_flags(compiler).empty();
    }
    CpuCompileOutput build(const std::vector<std::string>& defines, const std::string& tag) {
        return compile_host_library({std::string(kHostSource) + "// " + tag + "\n", "sum.cu", defines}, compiler,
                                    shim, cache.path());
    }
    CpuCompileOutput kernel(const std::string& source, bool recording = false) {
        CompileRequest r;
        r.source = source;
        r.path = "hooks.cu";
        r.kernel_name = "shifted_copy";
        r.instrument_memory = recording;
        return compile_for_cpu(r, compiler, shim, cache.path());
    }
    std::vector<fs::path> made(const std::string& prefix) const { return folders_named(cache.path(), prefix); }
    std::vector<fs::path> pch_folders() const { return made("shim-pch-"); }
};

// The library's function called in this process (it touches nothing of the shim's runtime).
int call(const CpuCompileOutput& built, int n) {
    void* lib = ::dlopen(built.library.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!lib) return -1000;
    auto fn = reinterpret_cast<int (*)(int)>(::dlsym(lib, "scaled_sum"));
    const int v = fn ? fn(n) : -1001;
    ::dlclose(lib);
    return v;
}

size_t warnings(const CpuCompileOutput& out) {
    size_t n = 0;
    for (const Diagnostic& d : out.diagnostics) n += d.severity != Severity::Note;
    return n;
}

TEST(CpuShimPch, TheFirstCompileMakesItTheNextReadItAndTheValuesAreTheSame) {
    Rig rig;
    if (!rig.usable) GTEST_SKIP() << "no GCC here: the shim is read as text";
    test::ScopedEnv env("CUDA_PLAYGROUND_NO_PCH", std::nullopt);
    const CpuCompileOutput first = rig.build({"SCALE=3"}, "first");
    ASSERT_TRUE(first.ok) << first.log;
    EXPECT_TRUE(first.shim_precompiled);
    ASSERT_EQ(rig.pch_folders().size(), 1u);
    EXPECT_TRUE(fs::exists(rig.pch_folders()[0] / "cuda_shim.h.gch"));
    EXPECT_EQ(warnings(first), 0u) << first.log;

    // Another macro of the user's own: the same PCH, read again.
    const CpuCompileOutput second = rig.build({"SCALE=7"}, "second");
    ASSERT_TRUE(second.ok) << second.log;
    EXPECT_TRUE(second.shim_precompiled);
    EXPECT_EQ(rig.pch_folders().size(), 1u);
    EXPECT_FALSE(second.cache_hit);

    // A macro the shim reads (assert's NDEBUG): GCC passes the PCH over, says so only to us, and the text
    // is compiled as before.
    const CpuCompileOutput ndebug = rig.build({"SCALE=5", "NDEBUG"}, "ndebug");
    ASSERT_TRUE(ndebug.ok) << ndebug.log;
    EXPECT_FALSE(ndebug.shim_precompiled);
    EXPECT_EQ(warnings(ndebug), 0u) << ndebug.log;
    EXPECT_EQ(ndebug.log.find(".gch"), std::string::npos) << ndebug.log;

    // Without PCH at all.
    test::ScopedEnv off("CUDA_PLAYGROUND_NO_PCH", "1");
    const CpuCompileOutput text = rig.build({"SCALE=3"}, "text");
    ASSERT_TRUE(text.ok) << text.log;
    EXPECT_FALSE(text.shim_precompiled);

    for (const int n : {0, 1, 17, -40}) {
        EXPECT_EQ(call(first, n), 3 * n * 3 + 2) << n;
        EXPECT_EQ(call(second, n), 3 * n * 7 + 2) << n;
        EXPECT_EQ(call(ndebug, n), 3 * n * 5 + 2) << n;
        EXPECT_EQ(call(text, n), call(first, n)) << n;
    }
}

TEST(CpuShimPch, ACompileErrorInTheUsersCodeIsOnTheUsersLineWithThePch) {
    Rig rig;
    if (!rig.usable) GTEST_SKIP() << "no GCC here: the shim is read as text";
    test::ScopedEnv env("CUDA_PLAYGROUND_NO_PCH", std::nullopt);
    ASSERT_TRUE(rig.build({"SCALE=1"}, "warm").shim_precompiled);
    const CpuCompileOutput broken = compile_host_library(
        {"extern \"C\" int f(int n)\n{\n    return make_int3(n, n, n).w;\n}\n", "broken.cu", {}}, rig.compiler,
        rig.shim, rig.cache.path());
    EXPECT_FALSE(broken.ok);
    EXPECT_TRUE(broken.shim_precompiled);
    const auto it = std::find_if(broken.diagnostics.begin(), broken.diagnostics.end(),
                                 [](const Diagnostic& d) { return d.severity == Severity::Error; });
    ASSERT_NE(it, broken.diagnostics.end()) << broken.log;
    EXPECT_EQ(it->file, "broken.cu") << it->str();
    EXPECT_EQ(it->line, 3) << it->str();
}


TEST(CpuShimBounds, TheHooksAreMadeOnceAndEveryBoundsCheckedLibraryLinksItsOwnCopy) {
    Rig rig;
    if (!rig.checks) GTEST_SKIP() << "the host compiler here does not check accesses (GCC on x86-64 does)";
    const CpuCompileOutput a = rig.kernel(kShiftedCopy);
    const CpuCompileOutput b = rig.kernel(std::string(kShiftedCopy) + "// another library\n");
    ASSERT_TRUE(a.ok) << a.log;
    ASSERT_TRUE(b.ok) << b.log;
    EXPECT_FALSE(b.cache_hit);
    const std::vector<fs::path> made = rig.made("shim-bounds-");
    ASSERT_EQ(made.size(), 1u);
    EXPECT_TRUE(fs::exists(made[0] / "cuda_shim_bounds.o"));

    // Each library has the hooks' entry point, its own (each binds its own bounds map).
    void* la = ::dlopen(a.library.c_str(), RTLD_NOW | RTLD_LOCAL);
    void* lb = ::dlopen(b.library.c_str(), RTLD_NOW | RTLD_LOCAL);
    ASSERT_NE(la, nullptr) << ::dlerror();
    ASSERT_NE(lb, nullptr) << ::dlerror();
    void* bind_a = ::dlsym(la, "cp_module_bind_bounds");
    void* bind_b = ::dlsym(lb, "cp_module_bind_bounds");
    EXPECT_NE(bind_a, nullptr);
    EXPECT_NE(bind_b, nullptr);
    EXPECT_NE(bind_a, bind_b);
    ::dlclose(la);
    ::dlclose(lb);

    // The recording variant compiles its hooks with the kernel: no second object.
    const CpuCompileOutput r = rig.kernel(kShiftedCopy, true);
    ASSERT_TRUE(r.ok) << r.log;
    EXPECT_EQ(rig.made("shim-bounds-").size(), 1u);
    void* lr = ::dlopen(r.library.c_str(), RTLD_NOW | RTLD_LOCAL);
    ASSERT_NE(lr, nullptr) << ::dlerror();
    EXPECT_NE(::dlsym(lr, "cp_module_bind_recorder"), nullptr);
    EXPECT_NE(::dlsym(lr, "cp_module_bind_bounds"), nullptr);
    ::dlclose(lr);
}

// The write past the end, on a fresh backend whose cache is `cache`: the launch's error.
std::optional<EngineError> shifted_copy_error(const fs::path& cache, int n) {
    CpuBackendOptions options = test::test_options(1);
    options.cache_dir = cache.string();
    test::CpuRig rig(options);
    if (!rig.backend) return std::nullopt;
    const ModuleId m = rig.compile(kShiftedCopy, "shifted_copy", "hooks.cu");
    std::vector<int> in(static_cast<size_t>(n));
    for (int i = 0; i < n; ++i) in[size_t(i)] = 3 * i + 1;
    const BufferId bi = rig.buffer("in", in), bo = rig.buffer("out", std::vector<int>(static_cast<size_t>(n)));
    const auto run = [&](int shift) {
        return rig.launch(m, "shifted_copy", {test::div_up(uint32_t(n), 256u)}, {256},
                          {test::buffer_arg("in", bi), test::buffer_arg("out", bo), test::value_arg("n", n),
                           test::value_arg("shift", shift)});
    };
    const LaunchResult fine = run(0);
    EXPECT_TRUE(fine.ok) << (fine.error ? fine.error->message : "");
    EXPECT_EQ(rig.read<int>(bo), in);
    const LaunchResult past = run(1);
    EXPECT_FALSE(past.ok);
    return past.error;
}

TEST(CpuShimBounds, WhenTheHooksCannotBeMadeTheLibraryDefinesThemAndAccessesAreStillChecked) {
    const Rig rig;
    if (!rig.checks) GTEST_SKIP() << "the host compiler here does not check accesses (GCC on x86-64 does)";
    // A copy of the shim whose hooks do not compile alone (they still do inside cuda_shim.h).
    const test::TempDir copy;
    fs::copy(rig.shim.dir, copy.path() / "shim", fs::copy_options::recursive);
    const fs::path hooks = copy.path() / "shim" / "cuda_shim_bounds.h";
    const std::string text = test::read_file(hooks);
    ASSERT_FALSE(text.empty());
    copy.write("shim/cuda_shim_bounds.h",
               "#ifndef __CUDA_PLAYGROUND_CPU__\n#error planted: only inside cuda_shim.h\n#endif\n" + text);

    const int n = 1001;  // not a multiple of the block
    const test::TempDir usual_cache;
    const std::optional<EngineError> usual = shifted_copy_error(usual_cache.path(), n);
    ASSERT_TRUE(usual.has_value());
    EXPECT_EQ(usual->name, "OUT_OF_BOUNDS");
    EXPECT_EQ(folders_named(usual_cache.path(), "shim-bounds-").size(), 1u);

    const test::ScopedEnv shim_dir("CUDA_PLAYGROUND_SHIM_DIR", (copy.path() / "shim").string());
    const test::TempDir cache;
    const std::optional<EngineError> without_object = shifted_copy_error(cache.path(), n);
    ASSERT_TRUE(without_object.has_value());
    EXPECT_EQ(without_object->name, "OUT_OF_BOUNDS");
    EXPECT_TRUE(folders_named(cache.path(), "shim-bounds-").empty());
    // The same report, with its data: the kernel's line 4, thread 232 of block 3 (element 1000 wrote element 1001).
    EXPECT_EQ(without_object->message, usual->message);
    EXPECT_EQ(without_object->kind, usual->kind);
    EXPECT_EQ(usual->line, 4);
    EXPECT_EQ(without_object->line, 4);
    for (const EngineError* e : {&*usual, &*without_object}) {
        ASSERT_TRUE(e->thread.has_value() && e->block.has_value()) << e->message;
        EXPECT_EQ(e->thread->x, uint32_t((n - 1) % 256));
        EXPECT_EQ(e->block->x, uint32_t((n - 1) / 256));
    }
}

}  // namespace
}  // namespace cp
