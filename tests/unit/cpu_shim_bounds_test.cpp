// The shim's bounds hooks (shim/cuda_shim_bounds.h): compiled once per set of flags into an object that every
// bounds-checked library links, each library with its own copy; the recording variant compiles them with its
// kernel; and when the object cannot be made, the library defines them itself and accesses are still checked.
#include "cpu_backend_rig.h"
#include "core/cpu/host_compiler.h"
#include "support/scoped_env.h"

#include <dlfcn.h>
#include <stdlib.h>

#include <fstream>

namespace cp::test {
namespace {

namespace fs = std::filesystem;

// A fresh folder, removed at the end: these tests need compiles nobody made before them.
class FreshFolder {
public:
    FreshFolder() {
        std::string pattern = (fs::temp_directory_path() / "cp-bounds-hooks-XXXXXX").string();
        if (::mkdtemp(pattern.data())) path_ = pattern;
    }
    ~FreshFolder() {
        std::error_code ec;
        if (!path_.empty()) fs::remove_all(path_, ec);
    }
    const fs::path& path() const { return path_; }

private:
    fs::path path_;
};

std::vector<fs::path> folders_named(const fs::path& root, const std::string& prefix) {
    std::vector<fs::path> out;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(root, ec))
        if (e.path().filename().string().rfind(prefix, 0) == 0) out.push_back(e.path());
    return out;
}

// Thread i writes out[i + shift] for i < n: with shift 1, thread n-1 writes one element past the end.
const char* kShiftedCopy = R"(extern "C" __global__ void shifted_copy(const int* in, int* out, int n, int shift)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i + shift] = in[i];
}
)";

CompileRequest bounds_request(const std::string& source, const std::string& kernel) {
    CompileRequest r;
    r.source = source;
    r.path = "hooks.cu";
    r.kernel_name = kernel;
    return r;
}

struct CompilerAndShim {
    HostCompiler compiler;
    ShimLocation shim;
    bool checks = false;  // GCC on x86-64: accesses are checked
    CompilerAndShim() {
        auto c = find_host_compiler("");
        auto s = find_shim();
        if (!c || !s) return;
        compiler = *c;
        shim = *s;
        checks = !access_check_flags(compiler).empty();
    }
};

TEST(CpuShimBounds, TheHooksAreMadeOnceAndEveryBoundsCheckedLibraryLinksItsOwnCopy) {
    const CompilerAndShim tools;
    if (!tools.checks) GTEST_SKIP() << "the host compiler here does not check accesses (GCC on x86-64 does)";
    const FreshFolder cache;
    ASSERT_FALSE(cache.path().empty());
    const CpuCompileOutput a =
        compile_for_cpu(bounds_request(kShiftedCopy, "shifted_copy"), tools.compiler, tools.shim, cache.path());
    const CpuCompileOutput b = compile_for_cpu(
        bounds_request(std::string(kShiftedCopy) + "// another library\n", "shifted_copy"), tools.compiler, tools.shim,
        cache.path());
    ASSERT_TRUE(a.ok) << a.log;
    ASSERT_TRUE(b.ok) << b.log;
    EXPECT_FALSE(b.cache_hit);
    const std::vector<fs::path> made = folders_named(cache.path() / "build", "shim-bounds-");
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
    CompileRequest recording = bounds_request(kShiftedCopy, "shifted_copy");
    recording.instrument_memory = true;
    const CpuCompileOutput r = compile_for_cpu(recording, tools.compiler, tools.shim, cache.path());
    ASSERT_TRUE(r.ok) << r.log;
    EXPECT_EQ(folders_named(cache.path() / "build", "shim-bounds-").size(), 1u);
    void* lr = ::dlopen(r.library.c_str(), RTLD_NOW | RTLD_LOCAL);
    ASSERT_NE(lr, nullptr) << ::dlerror();
    EXPECT_NE(::dlsym(lr, "cp_module_bind_recorder"), nullptr);
    EXPECT_NE(::dlsym(lr, "cp_module_bind_bounds"), nullptr);
    ::dlclose(lr);
}

// The write past the end, on a fresh backend whose cache is `cache`: the launch's error.
std::optional<EngineError> shifted_copy_error(const fs::path& cache, int n) {
    CpuBackendOptions options = test_options(1);
    options.cache_dir = cache.string();
    CpuRig rig(options);
    if (!rig.backend) return std::nullopt;
    const ModuleId m = rig.compile(kShiftedCopy, "shifted_copy", "hooks.cu");
    std::vector<int> in(static_cast<size_t>(n));
    for (int i = 0; i < n; ++i) in[size_t(i)] = 3 * i + 1;
    const BufferId bi = rig.buffer("in", in), bo = rig.buffer("out", std::vector<int>(static_cast<size_t>(n)));
    const auto run = [&](int shift) {
        return rig.launch(m, "shifted_copy", {div_up(uint32_t(n), 256u)}, {256},
                          {buffer_arg("in", bi), buffer_arg("out", bo), value_arg("n", n), value_arg("shift", shift)});
    };
    const LaunchResult fine = run(0);
    EXPECT_TRUE(fine.ok) << (fine.error ? fine.error->message : "");
    EXPECT_EQ(rig.read<int>(bo), in);
    const LaunchResult past = run(1);
    EXPECT_FALSE(past.ok);
    return past.error;
}

TEST(CpuShimBounds, WhenTheHooksCannotBeMadeTheLibraryDefinesThemAndAccessesAreStillChecked) {
    const CompilerAndShim tools;
    if (!tools.checks) GTEST_SKIP() << "the host compiler here does not check accesses (GCC on x86-64 does)";
    // A copy of the shim whose hooks do not compile alone (they still do inside cuda_shim.h).
    const FreshFolder copy;
    ASSERT_FALSE(copy.path().empty());
    fs::copy(tools.shim.dir, copy.path() / "shim", fs::copy_options::recursive);
    const fs::path hooks = copy.path() / "shim" / "cuda_shim_bounds.h";
    const std::string text = read_file(hooks);
    ASSERT_FALSE(text.empty());
    std::ofstream(hooks, std::ios::binary | std::ios::trunc)
        << "#ifndef __CUDA_PLAYGROUND_CPU__\n#error planted: only inside cuda_shim.h\n#endif\n" << text;

    const int n = 1001;  // not a multiple of the block
    const FreshFolder usual_cache;
    const std::optional<EngineError> usual = shifted_copy_error(usual_cache.path(), n);
    ASSERT_TRUE(usual.has_value());
    EXPECT_EQ(usual->name, "OUT_OF_BOUNDS");
    EXPECT_EQ(folders_named(usual_cache.path() / "build", "shim-bounds-").size(), 1u);

    const ScopedEnv shim_dir("CUDA_PLAYGROUND_SHIM_DIR", (copy.path() / "shim").string());
    const FreshFolder cache;
    const std::optional<EngineError> without_object = shifted_copy_error(cache.path(), n);
    ASSERT_TRUE(without_object.has_value());
    EXPECT_EQ(without_object->name, "OUT_OF_BOUNDS");
    EXPECT_TRUE(folders_named(cache.path() / "build", "shim-bounds-").empty());
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
}  // namespace cp::test
