// `devices: all over n`: the header line's mistakes named with the fix, and split runs on three real CPU workers
// (CUDA_PLAYGROUND_CPU_DEVICES=3, each device its own worker process) whose assembled outputs are compared with
// values computed here, whose parts must tile [0, n), and where a kernel that forgets its part's offset fails.
#include "core/engine/backend.h"
#include "core/kernel_file/kernel_file.h"
#include "core/session/report_json.h"
#include "core/session/session.h"
#include "support/scoped_env.h"
#include "unit/diagnostics_text.h"
#include "core/backends/registry.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdlib>

namespace cp {
namespace {

using test::dump;

KernelFile parse_devices(const std::string& devices_line, const std::string& extra_buffers = "",
                         const std::string& extra_params = "") {
    const std::string source =
        "/*@playground\n"  // line 1
        "title: Split\n"
        "param n: int = 1000\n"
        "param s: float = 2\n"
        "buffer x: float[n] in\n"  // line 5
        "buffer y: float[n] out\n" +
        extra_buffers +
        "block: 128\n"
        "grid: ceil(n / block.x)\n" +
        devices_line +
        "\n*/\n"
        "extern \"C\" __global__ void k(const float* x, float* y, int n, float s" +
        extra_params + ") {}\n";
    return parse_kernel_source(source, "split.cu");
}

// The first error's text, checked to be on `line`.
std::string first_error(const KernelFile& f, int line) {
    for (const Diagnostic& d : f.diagnostics) {
        if (d.severity != Severity::Error) continue;
        EXPECT_EQ(d.line, line) << d.str();
        return d.message;
    }
    ADD_FAILURE() << "no error; diagnostics:\n" << dump(f.diagnostics);
    return "";
}

TEST(DevicesHeader, ReadsAllAndACountOverAParam) {
    KernelFile all = parse_devices("devices: all over n");
    EXPECT_FALSE(has_errors(all.diagnostics)) << dump(all.diagnostics);
    EXPECT_TRUE(all.spec.devices.enabled());
    EXPECT_EQ(all.spec.devices.param, "n");
    EXPECT_EQ(all.spec.devices.max_devices, 0);
    EXPECT_EQ(all.spec.devices.line, 9);
    KernelFile two = parse_devices("devices: 2 over n");
    EXPECT_FALSE(has_errors(two.diagnostics)) << dump(two.diagnostics);
    EXPECT_EQ(two.spec.devices.max_devices, 2);
    EXPECT_EQ(two.spec.devices.str(), "2 over n");
    EXPECT_FALSE(parse_devices("").spec.devices.enabled());
}

TEST(DevicesHeader, MistakesNameTheLineAndTheFix) {
    // Line 9 is the `devices:` line (no extra buffers).
    std::string m = first_error(parse_devices("devices: al over n"), 9);
    EXPECT_NE(m.find("Did you mean `all`?"), std::string::npos) << m;
    EXPECT_NE(m.find("`devices: all over n`"), std::string::npos) << m;
    m = first_error(parse_devices("devices: 0 over n"), 9);
    EXPECT_NE(m.find("from 1 to 64"), std::string::npos) << m;
    m = first_error(parse_devices("devices: all on n"), 9);
    EXPECT_NE(m.find("expected `over`"), std::string::npos) << m;
    EXPECT_NE(m.find("Write `devices: all over n`"), std::string::npos) << m;
    m = first_error(parse_devices("devices: all"), 9);
    EXPECT_NE(m.find("after `over`"), std::string::npos) << m;
    m = first_error(parse_devices("devices: all over nn"), 9);
    EXPECT_NE(m.find("no such param"), std::string::npos) << m;
    EXPECT_NE(m.find("Did you mean `n`?"), std::string::npos) << m;
    m = first_error(parse_devices("devices: all over s"), 9);
    EXPECT_NE(m.find("is float"), std::string::npos) << m;
    m = first_error(parse_devices("devices: all over n m"), 9);
    EXPECT_NE(m.find("remove `m`"), std::string::npos) << m;
    // An output of another size: named on its own line (7), with the fix.
    m = first_error(parse_devices("devices: all over n", "buffer total: float[4] out\n", ", float* total"), 7);
    EXPECT_NE(m.find("buffer `total` holds [4] elements"), std::string::npos) << m;
    EXPECT_NE(m.find("`total: float[n]`"), std::string::npos) << m;
    // An input of another size is passed whole to every device: fine.
    KernelFile whole_in = parse_devices("devices: all over n", "buffer c: float[4] in\n", ", const float* c");
    EXPECT_FALSE(has_errors(whole_in.diagnostics)) << dump(whole_in.diagnostics);
    // Given twice.
    KernelFile twice = parse_devices("devices: all over n\ndevices: 2 over n");
    EXPECT_NE(dump(twice.diagnostics).find("`devices` is given twice"), std::string::npos) << dump(twice.diagnostics);
}

// y = 2x + 1 from a ramp (x[i] = i, exact in float up to 2^24), z doubled in place, c passed whole.
const char* kSplit = R"(/*@playground
title: Split over CPU workers
param n: int = 1000003
buffer x: float[n] in ramp(start=0, step=1)
buffer c: float[2] in ramp(start=1, step=1)
buffer y: float[n] out constant(-9)
buffer z: int[n] inout constant(7)
block: 256
grid: ceil(n / block.x)
devices: DEVICES over n
reference: twice_plus_one
tolerance: 0
*/
extern "C" __global__ void split(const float* x, const float* c, float* y, int* z, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) { y[i] = c[1] * x[i] + c[0]; z[i] *= 2; }
}
#ifdef PLAYGROUND_REFERENCE
static void twice_plus_one(const float* x, const float* c, float* y, int* z, int n) {
    for (int i = 0; i < n; ++i) { y[i] = c[1] * x[i] + c[0]; z[i] *= 2; }
}
#endif
)";

// The classic multi-GPU bug: the kernel takes its part's index for the index in the whole array.
const char* kForgetsOffset = R"(/*@playground
title: Forgets the part's offset
param n: int = 1000003
buffer y: float[n] out constant(-9)
block: 256
grid: ceil(n / block.x)
devices: all over n
reference: global_index
tolerance: 0
*/
extern "C" __global__ void forgets_offset(float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = (float)i;
}
#ifdef PLAYGROUND_REFERENCE
static void global_index(float* y, int n) { for (int i = 0; i < n; ++i) y[i] = (float)i; }
#endif
)";

std::string with_devices(const std::string& devices) {
    std::string s = kSplit;
    s.replace(s.find("DEVICES"), 7, devices);
    return s;
}

// Three CPU devices for the test's duration: each make_backend("cpu", k) is a worker process of its own.
class SplitOnCpuWorkers : public ::testing::Test {
protected:
    // Restored when the fixture dies, whatever a test changed it to meanwhile.
    cp::test::ScopedEnv devices_{"CUDA_PLAYGROUND_CPU_DEVICES", "3"};

    struct Opened {
        std::unique_ptr<Engine> engine;
        std::unique_ptr<KernelSession> session;
        int opened = 0;  // engines the factory made
    };
    // `all_devices`: give the session the factory (as the CLI and the window do); else it has one device.
    std::unique_ptr<Opened> open(const std::string& source, bool all_devices) {
        auto o = std::make_unique<Opened>();
        auto made = make_backend("cpu", 0);
        EXPECT_TRUE(made.ok()) << made.error().full();
        o->engine = std::make_unique<Engine>(std::move(made->backend));
        EXPECT_EQ(o->engine->device().device_count, 3);
        o->session = std::make_unique<KernelSession>(*o->engine);
        KernelFile file = parse_kernel_source(source, "split.cu");
        EXPECT_FALSE(has_errors(file.diagnostics)) << dump(file.diagnostics);
        o->session->set_kernel(std::move(file));
        if (all_devices) {
            Opened* raw = o.get();
            o->session->use_devices(3, [raw](int ordinal) -> Result<std::unique_ptr<Engine>> {
                auto other = make_backend("cpu", ordinal);
                if (!other) return other.error();
                ++raw->opened;
                return std::make_unique<Engine>(std::move(other->backend));
            });
        }
        return o;
    }
};

TEST_F(SplitOnCpuWorkers, ThreeDevicesTileTheArrayAndTheAssembledOutputsAreRight) {
    auto o = open(with_devices("all"), true);
    RunOptions options;
    options.timing.repeats = 1;
    const RunReport r = o->session->run(options);
    ASSERT_TRUE(r.ok()) << r.error->full();
    EXPECT_EQ(o->opened, 2);  // devices 1 and 2; device 0 is the session's own engine
    ASSERT_TRUE(r.device_split.has_value());
    const DeviceSplitReport& s = *r.device_split;
    const uint64_t n = 1000003;
    EXPECT_EQ(s.total, n);
    EXPECT_EQ(s.devices_here, 3);
    EXPECT_EQ(s.devices_used, 3);
    EXPECT_FALSE(s.gpu);
    ASSERT_EQ(s.parts.size(), 3u);
    uint64_t next = 0;
    for (size_t k = 0; k < 3; ++k) {
        const DevicePart& p = s.parts[k];
        EXPECT_EQ(p.ordinal, int(k));
        EXPECT_NE(p.name.find("CPU worker " + std::to_string(k) + " of 3"), std::string::npos) << p.name;
        EXPECT_EQ(p.begin, next) << "part " << k << " must start where the previous one ended";
        EXPECT_EQ(p.begin, n * k / 3);
        EXPECT_EQ(p.end, n * (k + 1) / 3);
        EXPECT_EQ(p.grid.x, (p.end - p.begin + 255) / 256) << "each part's grid is worked out for its own length";
        EXPECT_GT(p.times.kernel_ms, 0.0);
        EXPECT_EQ(p.times.allocated_bytes, (p.end - p.begin) * (4 + 4 + 4) + 8) << "its parts of x, y, z and all of c";
        next = p.end;
    }
    EXPECT_EQ(next, n) << "the parts must end at n";
    EXPECT_GT(s.split_ms, 0.0);
    EXPECT_GT(s.one_device_ms, 0.0);
    EXPECT_EQ(s.one_device.end - s.one_device.begin, n);

    // Independently of the kernel and the in-file reference: y[i] = 2 * i + 1, z[i] = 14.
    const HostBuffer& y = r.outputs.at("y");
    const HostBuffer& z = r.outputs.at("z");
    ASSERT_EQ(y.count(), n);
    ASSERT_EQ(z.count(), n);
    for (uint64_t i = 0; i < n; ++i) {
        ASSERT_EQ(y.as<float>()[i], float(2 * i + 1)) << "y[" << i << "]";
        ASSERT_EQ(z.as<int>()[i], 14) << "z[" << i << "]";
    }
    EXPECT_EQ(r.verified, std::optional<bool>(true)) << r.mismatch_detail;

    const auto j = run_report_json(r, {});
    ASSERT_TRUE(j.contains("devices"));
    EXPECT_EQ(j["devices"]["kind"], "cpu worker");
    EXPECT_EQ(j["devices"]["parts"].size(), 3u);
    EXPECT_EQ(j["devices"]["parts"][1]["begin"], n / 3);
    EXPECT_EQ(j["devices"]["over"], "n");

    // A second run reuses the opened devices.
    const RunReport again = o->session->run(options);
    ASSERT_TRUE(again.ok()) << again.error->full();
    EXPECT_EQ(o->opened, 2);
    EXPECT_EQ(again.verified, std::optional<bool>(true));
}

TEST_F(SplitOnCpuWorkers, AtMostTheDevicesTheHeaderAsksFor) {
    auto o = open(with_devices("2"), true);
    const RunReport r = o->session->run();
    ASSERT_TRUE(r.ok()) << r.error->full();
    ASSERT_TRUE(r.device_split.has_value());
    ASSERT_EQ(r.device_split->parts.size(), 2u);
    EXPECT_EQ(r.device_split->parts[1].begin, 1000003u / 2);
    EXPECT_EQ(o->opened, 1);
    EXPECT_EQ(r.verified, std::optional<bool>(true)) << r.mismatch_detail;
}

TEST_F(SplitOnCpuWorkers, AKernelThatForgetsItsPartsOffsetFailsTheCheck) {
    auto o = open(kForgetsOffset, true);
    const RunReport r = o->session->run();
    ASSERT_TRUE(r.ok()) << r.error->full();
    ASSERT_TRUE(r.device_split.has_value());
    ASSERT_EQ(r.device_split->parts.size(), 3u);
    EXPECT_EQ(r.verified, std::optional<bool>(false));
    // Every element of parts 1 and 2 is its local index instead of its global one; part 0 is right.
    EXPECT_EQ(r.mismatched_elements, 1000003u - r.device_split->parts[0].end);
    // On one device the same kernel is right: the split is what exposes it.
    auto alone = open(kForgetsOffset, false);
    const RunReport one = alone->session->run();
    ASSERT_TRUE(one.ok()) << one.error->full();
    EXPECT_EQ(one.verified, std::optional<bool>(true)) << one.mismatch_detail;
}

TEST_F(SplitOnCpuWorkers, OneDeviceRunsItAllAndSaysWhatItWouldDo) {
    devices_.unset("CUDA_PLAYGROUND_CPU_DEVICES");
    auto made = make_backend("cpu");
    ASSERT_TRUE(made.ok());
    Engine engine(std::move(made->backend));
    EXPECT_EQ(engine.device().device_count, 1);
    KernelSession session(engine);
    session.set_kernel(parse_kernel_source(with_devices("all"), "split.cu"));
    const RunReport r = session.run();
    ASSERT_TRUE(r.ok()) << r.error->full();
    ASSERT_TRUE(r.device_split.has_value());
    ASSERT_EQ(r.device_split->parts.size(), 1u);
    EXPECT_EQ(r.device_split->parts[0].end, 1000003u);
    EXPECT_EQ(
        r.device_split->summary(),
        "1 CPU worker here: CPU worker 0 did all 1,000,003 elements; with 2 CPU workers each would take about 500,002");
    EXPECT_EQ(r.verified, std::optional<bool>(true)) << r.mismatch_detail;
}

TEST_F(SplitOnCpuWorkers, ABadOrdinalIsRefusedInPlainWords) {
    auto five = make_backend("cpu", 5);
    ASSERT_FALSE(five.ok());
    EXPECT_NE(five.error().message.find("there is no CPU device 5: the CPU backend has 3 devices"), std::string::npos)
        << five.error().message;
    EXPECT_NE(five.error().hint.find("CUDA_PLAYGROUND_CPU_DEVICES"), std::string::npos);
    auto negative = make_backend("cpu", -1);
    ASSERT_FALSE(negative.ok());
    EXPECT_NE(negative.error().message.find("numbered from 0"), std::string::npos) << negative.error().message;
    devices_.set("CUDA_PLAYGROUND_CPU_DEVICES", "0");
    auto zero = make_backend("cpu", 0);
    ASSERT_FALSE(zero.ok());
    EXPECT_NE(zero.error().message.find("CUDA_PLAYGROUND_CPU_DEVICES=0"), std::string::npos) << zero.error().message;
}

}  // namespace
}  // namespace cp
