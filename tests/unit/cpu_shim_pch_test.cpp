// The CPU backend reads its shim precompiled: one PCH per set of flags, made by the first compile in the build
// root, read by the next ones, passed over (and the compile still right) when a user's macro changes the shim,
// and off with CUDA_PLAYGROUND_NO_PCH. The libraries built either way compute the same values.
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

struct Rig {
    test::TempDir cache;
    HostCompiler compiler;
    ShimLocation shim;
    bool usable = false;
    Rig() {
        auto c = find_host_compiler("");
        auto s = find_shim();
        if (!c || !s) return;
        compiler = *c;
        shim = *s;
        usable = compiler.version.find("clang") == std::string::npos;
    }
    CpuCompileOutput build(const std::vector<std::string>& defines, const std::string& tag) {
        return compile_host_library({std::string(kHostSource) + "// " + tag + "\n", "sum.cu", defines}, compiler,
                                    shim, cache.path());
    }
    std::vector<fs::path> pch_folders() const {
        std::vector<fs::path> out;
        std::error_code ec;
        for (const auto& e : fs::directory_iterator(cache.path() / "build", ec))
            if (e.path().filename().string().rfind("shim-pch-", 0) == 0) out.push_back(e.path());
        return out;
    }
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

}  // namespace
}  // namespace cp
