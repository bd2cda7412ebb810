// The CUDA backend's memory-recording rewrite (issue 23) without a GPU: PTX that NVRTC really produces for
// typical lessons' accesses gets one recording call per load/store, on the right source lines, and ptxas takes
// the result; the records the device leaves turn into accesses on the CPU backend's offsets.
#include "core/cuda/ptx_memory.h"
#include "core/cpu/access_recorder.h"
#include "core/toolkit/nvrtc_compiler.h"
#include "core/kernel_file/constant_fill.h"
#include "core/kernel_file/kernel_file.h"
#include "support/scoped_env.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>

namespace cp {
namespace {

namespace fs = std::filesystem;

constexpr const char* kPtxas = "/usr/local/cuda/bin/ptxas";

// 1-based line of the first occurrence of `needle`, found in the text, not from the compiler.
int line_of(const std::string& text, const std::string& needle) {
    const size_t pos = text.find(needle);
    EXPECT_NE(pos, std::string::npos) << needle;
    return 1 + int(std::count(text.begin(), text.begin() + long(pos), '\n'));
}

size_t occurrences(const std::string& text, const std::string& needle) {
    size_t n = 0;
    for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++n;
    return n;
}

class PtxMemoryTest : public ::testing::Test {
protected:
    void SetUp() override {
        std::random_device rd;
        root_ = fs::temp_directory_path() / ("cp-ptx-memory-test-" + std::to_string(rd()) + std::to_string(rd()));
        fs::create_directories(root_);
        cache_env_.set("CUDA_PLAYGROUND_CACHE_DIR", (root_ / "cache").string());
    }
    void TearDown() override {
        std::error_code ec;
        fs::remove_all(root_, ec);
    }

    // The user's source as the backend compiles it for recording: with the recorder after it, to PTX.
    PtxMemoryRewrite rewrite(const std::string& source, const std::string& kernel) {
        CompileRequest r;
        r.source = source + "\n" + memory_recorder_source();
        r.path = "lesson.cu";
        r.kernel_name = kernel;
        r.load = false;
        std::vector<std::byte> image;
        const CompileResult compiled = compile_with_nvrtc(r, memory_ptx_arch("sm_90"), &image);
        EXPECT_TRUE(compiled.ok) << compiled.log;
        for (const Diagnostic& d : compiled.diagnostics) ADD_FAILURE() << "the recorder adds a diagnostic: " << d.str();
        original_ = std::string(reinterpret_cast<const char*>(image.data()));
        auto rewritten = instrument_ptx_memory(original_, "lesson.cu");
        EXPECT_TRUE(rewritten.ok()) << (rewritten.ok() ? "" : rewritten.error().message);
        return rewritten.ok() ? *rewritten : PtxMemoryRewrite{};
    }

    // ptxas's complaints about `ptx` for sm_90 ("" when it takes it).
    std::string ptxas_errors(const std::string& ptx) {
        const fs::path in = root_ / "rewritten.ptx", log = root_ / "ptxas.log";
        std::ofstream(in) << ptx;
        const std::string command = std::string(kPtxas) + " -arch=sm_90 " + in.string() + " -o " +
                                    (root_ / "out.cubin").string() + " > " + log.string() + " 2>&1";
        const int rc = std::system(command.c_str());
        std::stringstream text;
        text << std::ifstream(log).rdbuf();
        return rc == 0 ? std::string() : "ptxas failed (" + std::to_string(rc) + "): " + text.str();
    }

    // The checks every case shares: one recording per site, written in place (no call), and ptxas takes it.
    void expect_valid(const PtxMemoryRewrite& r) {
        EXPECT_EQ(occurrences(r.ptx, "// cp_memory site"), r.sites.size());
        EXPECT_EQ(occurrences(r.ptx, "atom.global.add.u64 \t%cpm_d5, [cp_memory_count]"), r.sites.size());
        for (size_t s = 1; s <= r.sites.size(); ++s)
            EXPECT_EQ(occurrences(r.ptx, "$cpm_skip_" + std::to_string(s) + ":\n"), 1u) << "site " << s;
        EXPECT_EQ(r.ptx.find("call \tcp_memory"), std::string::npos);
        if (!fs::exists(kPtxas)) {
            std::cout << "[ skipped ] the ptxas check: " << kPtxas << " is missing\n";
            return;
        }
        EXPECT_EQ(ptxas_errors(r.ptx), "");
    }

    std::string original_;
    fs::path root_;
    cp::test::ScopedEnv cache_env_;
};

TEST_F(PtxMemoryTest, StridedLoadAndStoreGetOneCallEachOnTheirLines) {
    const std::string source = R"(extern "C" __global__ void strided(const float* in, float* out, int n, int stride)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float v = in[(i * stride) % n];
        out[i] = v * 2.0f;
    }
}
)";
    const PtxMemoryRewrite r = rewrite(source, "strided");
    ASSERT_EQ(r.sites.size(), 2u) << r.ptx;
    EXPECT_EQ(r.sites[0].opcode, "ld.global.f32");
    EXPECT_FALSE(r.sites[0].store);
    EXPECT_EQ(r.sites[0].bytes, 4u);
    EXPECT_EQ(r.sites[0].line, line_of(source, "in[(i"));
    EXPECT_EQ(r.sites[1].opcode, "st.global.f32");
    EXPECT_TRUE(r.sites[1].store);
    EXPECT_EQ(r.sites[1].line, line_of(source, "out[i] ="));
    // A global access's address goes through cvta.global, and the info word carries site, store and size.
    EXPECT_NE(r.ptx.find("cvta.global.u64 \t%cpm_a, %cpm_a;"), std::string::npos);
    const uint64_t info = memory_site_info(2, 4, true);
    // The instruction names its space: the info word is global without a test at run time.
    EXPECT_NE(r.ptx.find("mov.u64 \t%cpm_d2, " + std::to_string(info) + ";"), std::string::npos) << r.ptx;
    EXPECT_EQ(r.ptx.find("isspacep"), std::string::npos);
    // The recorder's own loads and stores (its log, its counter) are not recorded: the original has more.
    EXPECT_GT(occurrences(original_, "ld.global") + occurrences(original_, "st.u64"), 2u);
    expect_valid(r);
}

TEST_F(PtxMemoryTest, Float4LoadIsOneSixteenByteSite) {
    const std::string source = R"(extern "C" __global__ void add_one4(const float4* in, float4* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float4 v = in[i];
        v.x += 1.0f; v.y += 1.0f; v.z += 1.0f; v.w += 1.0f;
        out[i] = v;
    }
}
)";
    const PtxMemoryRewrite r = rewrite(source, "add_one4");
    ASSERT_EQ(r.sites.size(), 2u) << r.ptx;
    EXPECT_EQ(r.sites[0].opcode, "ld.global.v4.f32");
    EXPECT_EQ(r.sites[0].bytes, 16u);
    EXPECT_EQ(r.sites[0].line, line_of(source, "= in[i]"));
    EXPECT_EQ(r.sites[1].opcode, "st.global.v4.f32");
    EXPECT_EQ(r.sites[1].bytes, 16u);
    EXPECT_EQ(r.sites[1].line, line_of(source, "out[i] = v"));
    expect_valid(r);
}

TEST_F(PtxMemoryTest, SharedTileWithSymbolAddressing) {
    // The padded transpose's tile, plus a read at a constant index: PTX addresses it as symbol + offset.
    const std::string source = R"(extern "C" __global__ void transpose_tile(const float* in, float* out, int n)
{
    __shared__ float tile[32][33];
    int x = blockIdx.x * 32 + threadIdx.x, y = blockIdx.y * 32 + threadIdx.y;
    if (x < n && y < n) tile[threadIdx.y][threadIdx.x] = in[y * n + x];
    __syncthreads();
    x = blockIdx.y * 32 + threadIdx.x;
    y = blockIdx.x * 32 + threadIdx.y;
    if (x < n && y < n) out[y * n + x] = tile[threadIdx.x][threadIdx.y] + tile[0][5];
}
)";
    const PtxMemoryRewrite r = rewrite(source, "transpose_tile");
    int global_loads = 0, global_stores = 0, shared_loads = 0, shared_stores = 0;
    for (const PtxMemorySite& s : r.sites) {
        if (s.space == "global") (s.store ? global_stores : global_loads) += 1;
        if (s.space == "shared") (s.store ? shared_stores : shared_loads) += 1;
        EXPECT_EQ(s.bytes, 4u) << s.opcode;
        const int expected = s.space == "shared"
                                 ? line_of(source, s.store ? "tile[threadIdx.y][threadIdx.x] =" : "= tile[threadIdx.x]")
                                 : line_of(source, s.store ? "out[y * n + x] =" : "= in[y");
        EXPECT_EQ(s.line, expected) << s.opcode;
    }
    EXPECT_EQ(global_loads, 1);
    EXPECT_EQ(global_stores, 1);
    EXPECT_EQ(shared_stores, 1);
    EXPECT_EQ(shared_loads, 2);  // the transposed read and tile[0][5]
    EXPECT_EQ(r.sites.size(), 5u) << r.ptx;
    // The constant-index read names the tile's symbol: it is moved into the address, which stays an offset in the
    // shared window (what the record keeps); register addresses of 32 bits are widened first.
    EXPECT_NE(r.ptx.find("mov.u64 \t%cpm_a, "), std::string::npos) << r.ptx;
    EXPECT_NE(r.ptx.find("add.s64 \t%cpm_a, %cpm_a, 20;"), std::string::npos) << r.ptx;  // tile[0][5]: 5 * 4
    EXPECT_EQ(r.ptx.find("cvta.shared.u64 \t%cpm_a, %cpm_a;"), std::string::npos);
    // Each shared site records the shared space, each global one the global space: ld.shared / st.shared name
    // theirs, so no run-time test is needed (the test of a generic address is GenericPointerThroughADeviceFunction's).
    for (size_t i = 0; i < r.sites.size(); ++i) {
        const std::string tag = "// cp_memory site " + std::to_string(i + 1) + "\n";
        const size_t at = r.ptx.find(tag);
        ASSERT_NE(at, std::string::npos);
        const std::string recorder = r.ptx.substr(at, r.ptx.find("$cpm_skip_" + std::to_string(i + 1) + ":") - at);
        const uint32_t info = memory_site_info(uint32_t(i + 1), 4, r.sites[i].store);
        const uint64_t word = r.sites[i].space == "shared" ? info | (uint64_t(1) << 32) : info;
        EXPECT_NE(recorder.find("mov.u64 \t%cpm_d2, " + std::to_string(word) + ";"), std::string::npos) << recorder;
        EXPECT_EQ(recorder.find("isspacep"), std::string::npos) << recorder;
    }
    expect_valid(r);
}

TEST_F(PtxMemoryTest, GenericPointerThroughADeviceFunction) {
    // A __noinline__ helper that updates through a pointer the caller takes from shared or global memory: its
    // load and store are generic (no state space), recorded with the address as it is.
    const std::string source = R"(__device__ __noinline__ void add_to(float* p, float v)
{
    *p += v;
}

extern "C" __global__ void through_helper(const float* in, float* out, int n)
{
    __shared__ float s[256];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    s[threadIdx.x] = 1.0f;
    __syncthreads();
    if (i < n) {
        add_to(&s[threadIdx.x], in[i]);
        add_to(out + i, s[threadIdx.x]);
    }
}
)";
    const PtxMemoryRewrite r = rewrite(source, "through_helper");
    int generic_loads = 0, generic_stores = 0;
    for (const PtxMemorySite& s : r.sites)
        if (s.space == "generic") {
            (s.store ? generic_stores : generic_loads) += 1;
            EXPECT_EQ(s.opcode, s.store ? "st.f32" : "ld.f32");
            EXPECT_EQ(s.line, line_of(source, "*p += v"));
        }
    EXPECT_EQ(generic_loads, 1) << r.ptx;
    EXPECT_EQ(generic_stores, 1) << r.ptx;
    // And the kernel's own: the shared store, the global load, the shared load.
    EXPECT_EQ(r.sites.size(), 5u) << r.ptx;
    // The helper's accesses are told shared from global at run time, by their address: NVVM once folded a C++
    // recorder's __isShared() to false from the one visible caller, and the H100 then recorded no shared access.
    for (size_t i = 0; i < r.sites.size(); ++i) {
        if (r.sites[i].space != "generic") continue;
        const size_t at = r.ptx.find("// cp_memory site " + std::to_string(i + 1) + "\n");
        ASSERT_NE(at, std::string::npos);
        const std::string recorder = r.ptx.substr(at, r.ptx.find("$cpm_skip_" + std::to_string(i + 1) + ":") - at);
        EXPECT_NE(recorder.find("isspacep.shared"), std::string::npos) << recorder;
        EXPECT_NE(recorder.find("cvta.to.shared"), std::string::npos) << recorder;
    }
    // The helper, not inlined, has its own recording state, set at the top of its body, as the kernel has.
    EXPECT_EQ(occurrences(r.ptx, "mov.u32 \t%cpm_k, 0;"), 2u) << r.ptx;
    expect_valid(r);
}

TEST_F(PtxMemoryTest, PredicatedAccessKeepsItsPredicateOnTheCall) {
    // NVRTC's own code branches around a guarded access rather than predicating it; a predicated load comes
    // from the user's inline PTX (and from other compilers' PTX), which NVRTC passes through as written.
    const std::string source = R"(extern "C" __global__ void guarded(const float* in, float* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = 0.0f;
    asm volatile("{\n\t.reg .pred q;\n\tsetp.lt.s32 q, %1, %2;\n\t@q ld.global.f32 %0, [%3];\n\t}" : "+f"(v) : "r"(i), "r"(n), "l"(in + i));
    if (i < n) out[i] = v;
}
)";
    const PtxMemoryRewrite r = rewrite(source, "guarded");
    ASSERT_EQ(r.sites.size(), 2u) << r.ptx;
    EXPECT_EQ(r.sites[0].opcode, "ld.global.f32");
    EXPECT_EQ(r.sites[0].line, line_of(source, "asm volatile"));
    EXPECT_EQ(r.sites[1].opcode, "st.global.f32");
    // Recorded only where the load runs: the recording is skipped where q is false.
    EXPECT_NE(r.ptx.find("@!q bra \t$cpm_skip_1;"), std::string::npos) << r.ptx;
    expect_valid(r);
}

TEST_F(PtxMemoryTest, EveryLibraryKernelsRecordingCopyPassesPtxas) {
    // The lessons as the session compiles them (their own text, path and kernel): the rewrite succeeds, ptxas
    // takes it, and every site's line is one of the user's (none lands in the recorder appended after them).
    int checked = 0;
    for (const KernelFile& file : scan_library(kernels_dir())) {
        if (!file.signature) continue;
        SCOPED_TRACE(file.path.string());
        CompileRequest r;
        r.source = text_to_compile(file) + "\n" + memory_recorder_source();
        r.path = file.path.string();
        r.kernel_name = file.signature->launch_name;
        r.load = false;
        std::vector<std::byte> image;
        const CompileResult compiled = compile_with_nvrtc(r, memory_ptx_arch("sm_90"), &image);
        if (!compiled.ok) continue;  // a lesson that does not compile on purpose: its plain run says why
        auto rewritten = instrument_ptx_memory(std::string(reinterpret_cast<const char*>(image.data())), r.path);
        ASSERT_TRUE(rewritten.ok()) << rewritten.error().message;
        const int user_lines = int(std::count(text_to_compile(file).begin(), text_to_compile(file).end(), '\n')) + 1;
        int placed = 0;
        for (const PtxMemorySite& site : rewritten->sites) {
            EXPECT_LE(site.line, user_lines) << site.opcode;
            placed += site.line > 0;
        }
        if (!rewritten->sites.empty()) {
            EXPECT_GT(placed, 0);
        }
        if (fs::exists(kPtxas)) {
            EXPECT_EQ(ptxas_errors(rewritten->ptx), "");
        }
        ++checked;
    }
    EXPECT_GT(checked, 10);
}

TEST_F(PtxMemoryTest, ARegisterHeavyKernelsRecordingCopySpillsNothing) {
    // The register-blocked multiply keeps 64 accumulators a thread in 128 registers. Its recording copy used to
    // call a recording function before every access, and the call's clobbered registers went to local memory
    // and back each time (136 bytes of stack, 428 bytes of spill stores): 41x the plain launch on the H100.
    // Written in place, the recording code takes registers beside the kernel's; its __launch_bounds__(256, 2)
    // wish for two blocks per SM is dropped from the copy (24 bytes of spill stores with it, with CUDA 13.0's
    // ptxas), while .maxntid, which decides what may be launched, stays.
    if (!fs::exists(kPtxas)) GTEST_SKIP() << kPtxas << " is missing";
    auto file = load_kernel_file(kernels_dir() / "matrix" / "matmul_register_blocked.cu");
    ASSERT_TRUE(file.ok());
    ASSERT_TRUE(file->signature);
    CompileRequest r;
    r.source = text_to_compile(*file) + "\n" + memory_recorder_source();
    r.path = file->path.string();
    r.kernel_name = file->signature->launch_name;
    r.load = false;
    std::vector<std::byte> image;
    const CompileResult compiled = compile_with_nvrtc(r, memory_ptx_arch("sm_90"), &image);
    ASSERT_TRUE(compiled.ok) << compiled.log;
    auto rewritten = instrument_ptx_memory(std::string(reinterpret_cast<const char*>(image.data())), r.path);
    ASSERT_TRUE(rewritten.ok()) << rewritten.error().message;
    EXPECT_GT(rewritten->sites.size(), 8u);
    const fs::path in = root_ / "blocked.ptx", log = root_ / "ptxas.log";
    std::ofstream(in) << rewritten->ptx;
    const std::string command = std::string(kPtxas) + " -arch=sm_90 -v " + in.string() + " -o " +
                                (root_ / "blocked.cubin").string() + " > " + log.string() + " 2>&1";
    ASSERT_EQ(std::system(command.c_str()), 0);
    std::stringstream text;
    text << std::ifstream(log).rdbuf();
    const std::string info = text.str();
    const size_t at = info.find("Function properties for " + file->signature->launch_name);
    ASSERT_NE(at, std::string::npos) << info;
    const std::string properties = info.substr(at, info.find('\n', info.find('\n', at) + 1) - at);
    const size_t comma = properties.find("bytes stack frame, ");
    ASSERT_NE(comma, std::string::npos) << properties;
    const int spill_stores = std::atoi(properties.c_str() + comma + 19);
    EXPECT_EQ(spill_stores, 0) << properties;
    EXPECT_EQ(rewritten->ptx.find(".minnctapersm"), std::string::npos);
    EXPECT_NE(rewritten->ptx.find(".maxntid 256, 1, 1"), std::string::npos);
}

TEST_F(PtxMemoryTest, AModuleWithoutTheRecordingVariablesIsRefused) {
    // PTX without the recording variables (a source compiled without them) is refused, not rewritten into code
    // that uses variables that are not there.
    const std::string ptx = ".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k()\n{\nret;\n}\n";
    const auto r = instrument_ptx_memory(ptx, "");
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.error().message.find("recording variable"), std::string::npos);
}

TEST(PtxMemoryRecords, OffsetsFromTheirBufferAsTheCpuBackendGivesThem) {
    EXPECT_EQ(kCudaMemoryRecordCap, kMemoryRecordCap);
    // Two buffers given out of order; a shared access; one outside every buffer; one past the block limit.
    const std::vector<MemoryRegion> buffers = {{0x7f0000200000, 4000}, {0x7f0000100000, 1000}};
    const auto record = [](uint64_t address, uint64_t block, uint32_t thread, uint32_t site, uint32_t bytes, bool store,
                           uint64_t space) {
        return std::vector<uint64_t>{address, (block << 32) | thread,
                                     uint64_t(memory_site_info(site, bytes, store)) | (space << 32)};
    };
    std::vector<uint64_t> words;
    for (const auto& r : {record(0x7f0000100000 + 36, 0, 5, 1, 4, false, 0),    // buffer at 0x...1: first by start
                          record(0x7f0000200000 + 128, 2, 33, 2, 16, true, 0),  // the second buffer
                          record(0x80, 1, 7, 3, 4, false, 1),                   // shared, window offset 128
                          record(0x7f0000100000 + 1000, 0, 0, 1, 4, false, 0),  // just past the first buffer
                          record(0x7f0000100000, 3, 0, 1, 4, false, 0)})        // block 3: past the limit
        words.insert(words.end(), r.begin(), r.end());
    const auto accesses = memory_accesses_from_records(words, 5, buffers, 3);
    ASSERT_EQ(accesses.size(), 3u);
    EXPECT_EQ(accesses[0].address, (uint64_t(1) << 40) + 36);
    EXPECT_EQ(accesses[0].thread, 5u);
    EXPECT_EQ(accesses[0].site, 1u);
    EXPECT_EQ(accesses[0].space, MemorySpace::Global);
    EXPECT_EQ(accesses[1].address, (uint64_t(2) << 40) + 128);
    EXPECT_EQ(accesses[1].block, 2u);
    EXPECT_EQ(accesses[1].thread, 33u);
    EXPECT_EQ(accesses[1].size, 16u);
    EXPECT_TRUE(accesses[1].store);
    EXPECT_EQ(accesses[2].space, MemorySpace::Shared);
    EXPECT_EQ(accesses[2].address, (uint64_t(3) << 40) + 128);
    EXPECT_EQ(accesses[2].site, 3u);
    // With the system's 1 KB at the start of the window (sm_80 and later), a kernel's first shared word is at
    // window offset 1024 and counts as offset 0, as on the CPU backend.
    std::vector<uint64_t> shared_words = record(1024 + 8, 0, 2, 4, 4, true, 1);
    const auto shifted = memory_accesses_from_records(shared_words, 1, buffers, 3, 1024);
    ASSERT_EQ(shifted.size(), 1u);
    EXPECT_EQ(shifted[0].address, (uint64_t(3) << 40) + 8);
}

TEST(PtxMemoryRecords, SlotsAThreadDidNotUseAreNoRecords) {
    // A thread takes the log's slots a chunk at a time and may leave the chunk's last ones unwritten: cleared slots
    // (all three words 0) between records are skipped, and the records around them keep their order.
    const std::vector<MemoryRegion> buffers = {{0x7f0000100000, 1000}};
    std::vector<uint64_t> words;
    const auto add = [&](uint64_t address, uint32_t thread, uint32_t site) {
        for (uint64_t w : {address, uint64_t(thread), uint64_t(memory_site_info(site, 4, false))}) words.push_back(w);
    };
    const auto hole = [&] { words.insert(words.end(), kMemoryRecordWords, 0); };
    add(0x7f0000100000 + 4, 1, 1);  // thread 1's chunk of 1
    add(0x7f0000100000 + 0, 0, 1);  // thread 0's chunk of 1
    add(0x7f0000100000 + 8, 1, 2);  // thread 1's chunk of 2: one used
    hole();
    add(0x7f0000100000 + 12, 0, 2);  // thread 0's chunk of 2: one used
    hole();
    const auto accesses = memory_accesses_from_records(words, words.size() / kMemoryRecordWords, buffers, 1);
    ASSERT_EQ(accesses.size(), 4u);
    const uint64_t base = uint64_t(1) << 40;
    const std::vector<std::pair<uint64_t, uint32_t>> expected = {{base + 4, 1}, {base + 0, 0}, {base + 8, 1},
                                                                 {base + 12, 0}};
    for (size_t i = 0; i < expected.size(); ++i) {
        EXPECT_EQ(accesses[i].address, expected[i].first) << i;
        EXPECT_EQ(accesses[i].thread, expected[i].second) << i;
    }
}

}  // namespace
}  // namespace cp
