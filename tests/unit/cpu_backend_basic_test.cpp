// CPU backend basics through the Backend API: device info, 1D/2D indexing, printf, dynamic shared memory,
// the compile cache, compile errors on the user's line, unsupported features, argument checks.
#include "cpu_backend_rig.h"
#include "support/scoped_env.h"

#include <random>

namespace cp::test {
namespace {

const char* kVectorAdd = R"(
extern "C" __global__ void vector_add(const float* a, const float* b, float* c, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}
)";

TEST(CpuBackendBasic, InfoSaysCpuAndCudaLikeLimits) {
    CpuRig rig(test_options(3));
    const DeviceInfo d = rig.backend->info().device;
    EXPECT_EQ(d.backend, "cpu");
    EXPECT_TRUE(d.caps.launches);
    EXPECT_FALSE(d.caps.gpu);
    EXPECT_NE(d.name.find("CPU emulation (3 threads, "), std::string::npos) << d.name;
    EXPECT_NE(d.notes.find("CPU time"), std::string::npos) << d.notes;
    EXPECT_EQ(d.max_threads_per_block, 1024);
    EXPECT_EQ(d.max_block, (Dim3{1024, 1024, 64}));
    EXPECT_EQ(d.max_shared_per_block, 48 * 1024);
    EXPECT_EQ(d.warp_size, 32);
    EXPECT_GT(d.total_memory, 0u);
}

TEST(CpuBackendBasic, VectorAddMatchesLoop) {
    CpuRig rig;
    const int n = 1000003;
    std::vector<float> a(n), b(n);
    std::mt19937 rng(7);
    std::uniform_real_distribution<float> dist(-1, 1);
    for (int i = 0; i < n; ++i) {
        a[size_t(i)] = dist(rng);
        b[size_t(i)] = float(i) * 0.001f;
    }
    const ModuleId m = rig.compile(kVectorAdd, "vector_add");
    const BufferId ba = rig.buffer("a", a), bb = rig.buffer("b", b), bc = rig.buffer("c", std::vector<float>(n, -7.f));
    const LaunchResult r = rig.launch(m, "vector_add", {div_up(n, 256)}, {256},
                                      {buffer_arg("a", ba), buffer_arg("b", bb), buffer_arg("c", bc), value_arg("n", n)});
    ASSERT_TRUE(r.ok) << error_text(r);
    EXPECT_TRUE(r.timing.cpu_time);
    EXPECT_EQ(r.timing.samples_ms.size(), 1u);
    const std::vector<float> c = rig.read<float>(bc);
    ASSERT_EQ(c.size(), size_t(n));
    for (int i = 0; i < n; ++i) ASSERT_EQ(c[size_t(i)], a[size_t(i)] + b[size_t(i)]) << "at " << i;
}

TEST(CpuBackendBasic, TwoDimensionalThreadIds) {
    CpuRig rig;
    const char* src = R"(
extern "C" __global__ void ids2d(int* ids, int* dims, int width, int height)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < width && y < height) {
        ids[y * width + x] = y * width + x;
        if (x == 0 && y == 0) { dims[0] = blockDim.x; dims[1] = blockDim.y; dims[2] = gridDim.x; dims[3] = gridDim.y; dims[4] = warpSize; }
    }
}
)";
    const int w = 333, h = 200;
    const ModuleId m = rig.compile(src, "ids2d");
    const BufferId ids = rig.buffer("ids", std::vector<int>(size_t(w * h), -1));
    const BufferId dims = rig.buffer("dims", std::vector<int>(5, 0));
    const LaunchResult r = rig.launch(m, "ids2d", {div_up(w, 16), div_up(h, 16)}, {16, 16},
                                      {buffer_arg("ids", ids), buffer_arg("dims", dims), value_arg("width", w), value_arg("height", h)});
    ASSERT_TRUE(r.ok) << error_text(r);
    const std::vector<int> out = rig.read<int>(ids);
    for (int i = 0; i < w * h; ++i) ASSERT_EQ(out[size_t(i)], i);
    EXPECT_EQ(rig.read<int>(dims), (std::vector<int>{16, 16, int(div_up(w, 16)), int(div_up(h, 16)), 32}));
}

TEST(CpuBackendBasic, PlainGlobalWithoutExternC) {
    CpuRig rig;
    const char* src = R"(
__device__ float twice(float v) { return 2.0f * v; }
__global__ void scale(float* v, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) v[i] = twice(v[i]);
}
)";
    const ModuleId m = rig.compile(src, "scale");
    std::vector<float> v(1000);
    for (size_t i = 0; i < v.size(); ++i) v[i] = float(i);
    const BufferId b = rig.buffer("v", v);
    ASSERT_TRUE(rig.launch(m, "scale", {4}, {256}, {buffer_arg("v", b), value_arg("n", 1000)}).ok);
    const std::vector<float> out = rig.read<float>(b);
    for (size_t i = 0; i < v.size(); ++i) ASSERT_EQ(out[i], 2.0f * float(i));
}

TEST(CpuBackendBasic, PrintfIsCapturedPerBlockInBlockOrder) {
    CpuRig rig(test_options(4));
    const char* src = R"(
extern "C" __global__ void hello(int unused)
{
    if (threadIdx.x < 2) printf("block %d thread %d\n", blockIdx.x, threadIdx.x);
}
)";
    const ModuleId m = rig.compile(src, "hello");
    const LaunchResult r = rig.launch(m, "hello", {5}, {64}, {value_arg("unused", 0)});
    ASSERT_TRUE(r.ok) << error_text(r);
    std::string expected;
    for (int b = 0; b < 5; ++b)
        for (int t = 0; t < 2; ++t) expected += "block " + std::to_string(b) + " thread " + std::to_string(t) + "\n";
    EXPECT_EQ(r.printf_output, expected);
}

TEST(CpuBackendBasic, DynamicExternSharedMemory) {
    CpuRig rig;
    // Reverses each block's chunk through dynamic shared memory; one declaration at namespace scope, one local.
    const char* src = R"(
extern __shared__ int chunk[];
extern "C" __global__ void reverse_chunks(const int* in, int* out, int n)
{
    extern __shared__ __align__(16) unsigned char raw[];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    chunk[threadIdx.x] = i < n ? in[i] : -1;
    __syncthreads();
    int from = blockDim.x - 1 - threadIdx.x;
    int j = blockIdx.x * blockDim.x + from;
    if (j < n) out[j] = reinterpret_cast<int*>(raw)[threadIdx.x];
}
)";
    const int n = 1000, block = 128;
    std::vector<int> in(n);
    for (int i = 0; i < n; ++i) in[size_t(i)] = i * 3 + 1;
    const ModuleId m = rig.compile(src, "reverse_chunks");
    const BufferId bi = rig.buffer("in", in), bo = rig.buffer("out", std::vector<int>(n, 0));
    const LaunchResult r = rig.launch(m, "reverse_chunks", {div_up(n, block)}, {unsigned(block)},
                                      {buffer_arg("in", bi), buffer_arg("out", bo), value_arg("n", n)}, block * sizeof(int));
    ASSERT_TRUE(r.ok) << error_text(r);
    const std::vector<int> out = rig.read<int>(bo);
    for (int j = 0; j < n; ++j) {
        const int b = j / block, t = j % block;
        const int src_index = b * block + (block - 1 - t);
        ASSERT_EQ(out[size_t(j)], src_index < n ? in[size_t(src_index)] : -1) << j;
    }
}

TEST(CpuBackendBasic, SecondCompileIsACacheHit) {
    CpuRig rig;
    const std::string src = std::string(kVectorAdd) + "// cache test " + std::to_string(::getpid()) + "\n";
    const CompileResult first = rig.compile_result(src, "vector_add");
    ASSERT_TRUE(first.ok);
    EXPECT_FALSE(first.cache_hit);
    const CompileResult second = rig.compile_result(src, "vector_add");
    ASSERT_TRUE(second.ok);
    EXPECT_TRUE(second.cache_hit);
    EXPECT_NE(second.module, first.module);
    EXPECT_GT(first.compile_ms, 0);
    // The cached module works.
    const BufferId a = rig.buffer("a", std::vector<float>{1, 2}), b = rig.buffer("b", std::vector<float>{10, 20});
    const BufferId c = rig.buffer("c", std::vector<float>{0, 0});
    ASSERT_TRUE(rig.launch(second.module, "vector_add", {1}, {32},
                           {buffer_arg("a", a), buffer_arg("b", b), buffer_arg("c", c), value_arg("n", 2)}).ok);
    EXPECT_EQ(rig.read<float>(c), (std::vector<float>{11, 22}));
}

TEST(CpuBackendBasic, DeviceGlobalsLiveAsLongAsTheModule) {
    CpuRig rig;
    const std::string src = "__device__ int launches = 0;\n"
                            "extern \"C\" __global__ void count(int* out)\n"
                            "{ if (threadIdx.x == 0 && blockIdx.x == 0) out[0] = ++launches; }\n"
                            "// " + std::to_string(::getpid()) + "\n";
    const BufferId out = rig.buffer("out", std::vector<int>{0});
    const ModuleId m = rig.compile(src, "count");
    ASSERT_TRUE(rig.launch(m, "count", {3}, {32}, {buffer_arg("out", out)}).ok);
    ASSERT_TRUE(rig.launch(m, "count", {3}, {32}, {buffer_arg("out", out)}).ok);
    EXPECT_EQ(rig.read<int>(out)[0], 2);
    // A new load of the same (cached) library starts from the initial values, like a new CUDA module.
    rig.backend->release(ReleaseRequest{{}, {m}});
    const CompileResult again = rig.compile_result(src, "count");
    ASSERT_TRUE(again.ok);
    EXPECT_TRUE(again.cache_hit);
    ASSERT_TRUE(rig.launch(again.module, "count", {3}, {32}, {buffer_arg("out", out)}).ok);
    EXPECT_EQ(rig.read<int>(out)[0], 1);
}

TEST(CpuBackendBasic, CompileErrorIsOnTheUsersLine) {
    CpuRig rig;
    const char* src = "extern \"C\" __global__ void broken(float* v)\n"
                      "{\n"
                      "    int i = threadIdx.x;\n"
                      "    v[i] = undeclared_thing * 2.0f;\n"
                      "}\n";
    const CompileResult r = rig.compile_result(src, "broken", "kernels/broken.cu");
    EXPECT_FALSE(r.ok);
    ASSERT_TRUE(has_errors(r.diagnostics)) << r.log;
    const auto it = std::find_if(r.diagnostics.begin(), r.diagnostics.end(),
                                 [](const Diagnostic& d) { return d.severity == Severity::Error; });
    EXPECT_EQ(it->file, "kernels/broken.cu");
    EXPECT_EQ(it->line, 4);
    EXPECT_GT(it->column, 0);
    EXPECT_NE(it->message.find("undeclared_thing"), std::string::npos) << it->message;
    EXPECT_EQ(r.module, 0u);
}

size_t count_of(const CompileResult& r, Severity severity) {
    return size_t(std::count_if(r.diagnostics.begin(), r.diagnostics.end(),
                                [severity](const Diagnostic& d) { return d.severity == severity; }));
}

// A plain mistake (a missing `;`) is said once, on its line, with no note about host functions: the host compiler
// refused it too. A host function called from a kernel, which only NVRTC refuses, gets the note, on the same line.
TEST(CpuBackendBasic, TheHostFunctionNoteComesOnlyForWhatOnlyNvrtcRefuses) {
    CpuRig rig;
    const CompileResult missing = rig.compile_result("extern \"C\" __global__ void k(float* v, int n)\n"
                                                     "{\n"
                                                     "    int i = threadIdx.x\n"
                                                     "    if (i < n) v[i] = 1.0f;\n"
                                                     "}\n",
                                                     "k", "semi.cu");
    ASSERT_FALSE(missing.ok);
    EXPECT_EQ(count_of(missing, Severity::Error), 1u) << missing.log;
    EXPECT_EQ(count_of(missing, Severity::Note), 0u) << missing.log;
    EXPECT_EQ(missing.diagnostics.front().file, "semi.cu");
    EXPECT_EQ(missing.diagnostics.front().line, 4) << missing.diagnostics.front().str();

    const CompileResult host = rig.compile_result("extern \"C\" __global__ void k(float* v, int n)\n"
                                                  "{\n"
                                                  "    int i = threadIdx.x;\n"
                                                  "    if (i < n) v[i] = fopen(\"x\", \"r\") ? 1.0f : 0.0f;\n"
                                                  "}\n",
                                                  "k", "host.cu");
    ASSERT_FALSE(host.ok);
    EXPECT_EQ(count_of(host, Severity::Error), 1u) << host.log;
    ASSERT_EQ(count_of(host, Severity::Note), 1u) << host.log;
    const auto note = std::find_if(host.diagnostics.begin(), host.diagnostics.end(),
                                   [](const Diagnostic& d) { return d.severity == Severity::Note; });
    EXPECT_EQ(note->file, "host.cu");
    EXPECT_EQ(note->line, 4) << note->str();
    EXPECT_GT(note->column, 0);
}

// <stdlib.h> and <string.h> are taken by both compilers: what device code may use of them (malloc, free, memcpy,
// memset) compiles and runs, and a host function from them (system) is refused at its call, with the note, where
// NVRTC used to say only that it cannot open the header.
TEST(CpuBackendBasic, TheCStandardHeadersGiveDeviceCodeItsFunctionsAndRefuseTheHostsAtTheCall) {
    CpuRig rig;
    const CompileResult host = rig.compile_result("#include <stdlib.h>\n"
                                                  "extern \"C\" __global__ void k(int* v)\n"
                                                  "{\n"
                                                  "    if (threadIdx.x == 0) v[0] = system(\"ls\");\n"
                                                  "}\n",
                                                  "k", "sys.cu");
    ASSERT_FALSE(host.ok);
    ASSERT_EQ(count_of(host, Severity::Error), 1u) << host.log;
    EXPECT_EQ(host.diagnostics.front().line, 4) << host.diagnostics.front().str();
    EXPECT_NE(host.diagnostics.front().message.find("system"), std::string::npos) << host.diagnostics.front().str();
    EXPECT_EQ(count_of(host, Severity::Note), 1u) << host.log;

    const ModuleId m = rig.compile("#include <cstdlib>\n#include <cstring>\n#include <stdlib.h>\n#include <string.h>\n"
                                   "extern \"C\" __global__ void k(float* v, int n)\n"
                                   "{\n"
                                   "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                                   "    float* one = (float*)malloc(sizeof(float));\n"
                                   "    const float value = 1.5f;\n"
                                   "    memset(one, 0, sizeof(float));\n"
                                   "    memcpy(one, &value, sizeof value);\n"
                                   "    if (i < n) v[i] = *one + i;\n"
                                   "    free(one);\n"
                                   "}\n",
                                   "k");
    const int n = 300;
    const BufferId v = rig.buffer("v", std::vector<float>(n, -1.f));
    ASSERT_TRUE(rig.launch(m, "k", {div_up(n, 128)}, {128}, {buffer_arg("v", v), value_arg("n", n)}).ok);
    const std::vector<float> got = rig.read<float>(v);
    for (int i = 0; i < n; ++i) ASSERT_EQ(got[size_t(i)], 1.5f + float(i)) << i;
}

TEST(CpuBackendBasic, ErrorInsideAShimMacroPointsAtTheUser) {
    CpuRig rig;
    const char* src = "extern \"C\" __global__ void k(int* v)\n"
                      "{\n"
                      "    __syncthreads(1, 2);\n"
                      "}\n";
    const CompileResult r = rig.compile_result(src, "k", "k.cu");
    ASSERT_FALSE(r.ok);
    const auto it = std::find_if(r.diagnostics.begin(), r.diagnostics.end(),
                                 [](const Diagnostic& d) { return d.severity == Severity::Error; });
    ASSERT_NE(it, r.diagnostics.end()) << r.log;
    EXPECT_EQ(it->file, "k.cu") << it->str();
    EXPECT_EQ(it->line, 3) << it->str();
}

TEST(CpuBackendBasic, UnsupportedFeatureGivesAClearMessage) {
    CpuRig rig;
    const char* src = "extern \"C\" __global__ void k(float* v)\n"
                      "{\n"
                      "    float x;\n"
                      "    asm(\"mov.f32 %0, 1.0;\" : \"=f\"(x));\n"
                      "    v[threadIdx.x] = x;\n"
                      "}\n";
    const CompileResult r = rig.compile_result(src, "k", "asm.cu");
    ASSERT_FALSE(r.ok);
    ASSERT_EQ(r.diagnostics.size(), 1u);
    EXPECT_EQ(r.diagnostics[0].line, 4);
    EXPECT_EQ(r.diagnostics[0].file, "asm.cu");
    EXPECT_NE(r.diagnostics[0].message.find("inline assembly"), std::string::npos);
    EXPECT_NE(r.diagnostics[0].message.find("not supported by the CPU backend"), std::string::npos);
    EXPECT_NE(r.diagnostics[0].message.find("--backend cuda"), std::string::npos);

    const char* tex = "extern \"C\" __global__ void t(cudaTextureObject_t tex, float* out)\n"
                      "{ out[0] = tex2D<float>(tex, 0.5f, 0.5f); }\n";
    const CompileResult rt = rig.compile_result(tex, "t", "tex.cu");
    ASSERT_FALSE(rt.ok);
    ASSERT_FALSE(rt.diagnostics.empty());
    EXPECT_NE(rt.diagnostics[0].message.find("textures"), std::string::npos);

    // The common cooperative-groups subset runs (cpu_shim); what it lacks names the plain-CUDA way instead.
    const char* cg = "#include <cooperative_groups.h>\n"
                     "namespace cg = cooperative_groups;\n"
                     "extern \"C\" __global__ void g(float* out) { out[0] = cg::coalesced_threads().size(); }\n";
    const CompileResult rc = rig.compile_result(cg, "g", "cg.cu");
    ASSERT_FALSE(rc.ok);
    EXPECT_EQ(rc.diagnostics.at(0).line, 3);
    EXPECT_NE(rc.diagnostics.at(0).message.find("coalesced_threads"), std::string::npos) << rc.diagnostics.at(0).message;
    EXPECT_NE(rc.diagnostics.at(0).message.find("__activemask"), std::string::npos) << rc.diagnostics.at(0).message;
}

TEST(CpuBackendBasic, MissingKernelNameIsNamed) {
    CpuRig rig;
    const CompileResult r = rig.compile_result(kVectorAdd, "vector_sub");
    ASSERT_FALSE(r.ok);
    ASSERT_FALSE(r.diagnostics.empty());
    EXPECT_NE(r.diagnostics[0].message.find("vector_sub"), std::string::npos);
    EXPECT_NE(r.diagnostics[0].message.find("vector_add"), std::string::npos);
}

TEST(CpuBackendBasic, ArgumentMismatchesAreErrorsNotCrashes) {
    CpuRig rig;
    const ModuleId m = rig.compile(kVectorAdd, "vector_add");
    const BufferId a = rig.buffer("a", std::vector<float>(4, 1));
    LaunchResult r = rig.launch(m, "vector_add", {1}, {4}, {buffer_arg("a", a)});
    ASSERT_FALSE(r.ok);
    EXPECT_EQ(r.error->kind, ErrorKind::LaunchRefused) << r.error->message;
    EXPECT_EQ(r.error->name, "INVALID_ARGUMENTS");
    // The kernel's 4 parameters and the 1 argument passed.
    EXPECT_NE(r.error->message.find("4"), std::string::npos) << r.error->message;
    EXPECT_NE(r.error->message.find("1"), std::string::npos) << r.error->message;
    r = rig.launch(m, "vector_add", {1}, {4},
                   {buffer_arg("a", a), buffer_arg("b", a), buffer_arg("c", a), value_arg<double>("n", 4)});
    ASSERT_FALSE(r.ok);
    EXPECT_EQ(r.error->kind, ErrorKind::LaunchRefused) << r.error->message;
    EXPECT_EQ(r.error->name, "INVALID_ARGUMENTS");
    // The parameter passed a double (8 bytes) for an int (4 bytes) is named.
    EXPECT_NE(r.error->message.find("`n`"), std::string::npos) << r.error->message;
    r = rig.launch(m, "vector_add", {1}, {2048}, {buffer_arg("a", a), buffer_arg("b", a), buffer_arg("c", a), value_arg("n", 4)});
    ASSERT_FALSE(r.ok);
    EXPECT_EQ(r.error->kind, ErrorKind::LaunchRefused) << r.error->message;
    EXPECT_EQ(r.error->name, "INVALID_CONFIGURATION");
}

TEST(CpuBackendBasic, TimingHasOneSamplePerRepeat) {
    CpuRig rig;
    const ModuleId m = rig.compile(kVectorAdd, "vector_add");
    const BufferId a = rig.buffer("a", std::vector<float>(1000, 1));
    LaunchRequest req;
    req.module = m;
    req.kernel_name = "vector_add";
    req.grid = {4};
    req.block = {256};
    req.args = {buffer_arg("a", a), buffer_arg("b", a), buffer_arg("c", a), value_arg("n", 1000)};
    req.timing.warmup = 2;
    req.timing.repeats = 5;
    req.args.push_back(value_arg("unused", 0));  // too many arguments: refused, not launched
    EXPECT_FALSE(rig.backend->launch(req).ok);
    req.args.pop_back();
    const LaunchResult r = rig.backend->launch(req);
    ASSERT_TRUE(r.ok) << error_text(r);
    EXPECT_EQ(r.timing.samples_ms.size(), 5u);
    EXPECT_TRUE(r.timing.cpu_time);
    EXPECT_LE(r.timing.min_ms, r.timing.median_ms);
    EXPECT_LE(r.timing.median_ms, r.timing.max_ms);
    // a = a + a ran 7 times, but each run starts from the inputs as they were: the result of exactly one run.
    EXPECT_EQ(rig.read<float>(a)[999], 2.0f);
}

TEST(CpuBackendOptionsEnv, ParsesAndRejects) {
    cp::test::ScopedEnv env("CUDA_PLAYGROUND_CPU_WORKERS", "1");
    env.set("CUDA_PLAYGROUND_CPU_ORDER", "shuffled:42");
    auto o = cpu_backend_options_from_env();
    ASSERT_TRUE(o.ok());
    EXPECT_EQ(o->workers, 1);
    EXPECT_EQ(o->order, ThreadOrder::Shuffled);
    EXPECT_EQ(o->seed, 42u);
    env.set("CUDA_PLAYGROUND_CPU_ORDER", "sideways");
    o = cpu_backend_options_from_env();
    ASSERT_FALSE(o.ok());
    EXPECT_EQ(o.error().kind, ErrorKind::UserInput) << o.error().full();
    EXPECT_NE(o.error().message.find("sideways"), std::string::npos) << o.error().message;
    env.set("CUDA_PLAYGROUND_CPU_ORDER", "reversed");
    env.set("CUDA_PLAYGROUND_CPU_WORKERS", "many");
    o = cpu_backend_options_from_env();
    ASSERT_FALSE(o.ok());
    EXPECT_EQ(o.error().kind, ErrorKind::UserInput) << o.error().full();
    EXPECT_NE(o.error().message.find("many"), std::string::npos) << o.error().message;
}


TEST(CpuBackendBasic, RepeatedUploadFillsTheWholeBufferWithThePattern) {
    CpuRig rig;
    const BufferId id = rig.buffer<int32_t>("out", std::vector<int32_t>(1001, 5));
    UploadRequest fill{id, {}, true};
    const int32_t minus_one = -1;
    fill.data.resize(sizeof minus_one);
    std::memcpy(fill.data.data(), &minus_one, sizeof minus_one);
    ASSERT_FALSE(rig.backend->upload(fill).error.has_value());
    EXPECT_EQ(rig.read<int32_t>(id), std::vector<int32_t>(1001, -1));
    // A pattern that does not divide the buffer is refused, not truncated.
    fill.data.resize(3);
    auto refused = rig.backend->upload(fill);
    ASSERT_TRUE(refused.error.has_value());
    EXPECT_EQ(refused.error->kind, ErrorKind::Internal) << refused.error->message;
    EXPECT_EQ(refused.error->name, "INVALID_VALUE");
    // It names the buffer, its size (1001 ints) and the pattern's.
    for (const std::string& datum : {std::string("`out`"), std::to_string(1001 * sizeof(int32_t)), std::string("3")})
        EXPECT_NE(refused.error->message.find(datum), std::string::npos) << datum << ": " << refused.error->message;
    EXPECT_EQ(rig.read<int32_t>(id), std::vector<int32_t>(1001, -1));
}

TEST(FillWithPattern, RepeatsAnyElementSize) {
    for (size_t element : {1u, 2u, 3u, 4u, 12u, 16u}) {
        std::vector<std::byte> pattern(element);
        for (size_t i = 0; i < element; ++i) pattern[i] = std::byte(i * 37 + 1);
        const uint64_t count = 1237;
        std::vector<std::byte> out(count * element, std::byte{0xEE});
        fill_with_pattern(out.data(), out.size(), pattern);
        for (uint64_t i = 0; i < out.size(); ++i) ASSERT_EQ(out[i], pattern[i % element]) << "element size " << element << " at " << i;
        // One byte repeated (zeros, -1) takes the memset path: every byte still set, none past the end.
        for (const std::byte b : {std::byte{0}, std::byte{0x7F}}) {
            std::vector<std::byte> whole(count * element + 5, std::byte{0xEE});
            fill_with_pattern(whole.data(), count * element, std::vector<std::byte>(element, b));
            for (uint64_t i = 0; i < count * element; ++i) ASSERT_EQ(whole[i], b) << "element size " << element << " at " << i;
            for (uint64_t i = count * element; i < whole.size(); ++i) ASSERT_EQ(whole[i], std::byte{0xEE}) << i;
        }
    }
}

}  // namespace
}  // namespace cp::test
