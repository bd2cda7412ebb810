// `streams: S over PARAM [chunks=C]`: the header's mistakes named on their line with the fix, the counts checked
// when resolving, and streamed runs on the real CPU backend (n = 1000003, 3 streams, 7 chunks) whose outputs are
// compared with values computed here and whose operations are reported chunk by chunk in order.
#include "core/kernel_file/kernel_file.h"
#include "core/session/report_json.h"
#include "unit/cpu_session.h"
#include "unit/diagnostics_text.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstring>

namespace cp {
namespace {

using test::dump;

const char* kKernel = "extern \"C\" __global__ void k(const float* a, float* c, int n) { }\n";

// Header lines 2..8, then `extra` from line 9.
KernelFile parse_with(const std::string& extra, const std::string& params = "param s: int = 4\n") {
    const std::string text =
        "/*@playground\n"
        "title: Streams\n"             // line 2
        "param n: int = 1000\n"        // 3
        "param f: float = 1.5\n" +     // 4
        params +                       // 5
        "buffer a: float[n] in\n"      // 6
        "buffer c: float[n] out\n"     // 7
        "grid: ceil(n / block.x)\n" +  // 8
        extra +
        "*/\n" + kKernel;
    return parse_kernel_source(text, "streams.cu");
}

void expect_error(const KernelFile& f, int line, std::initializer_list<std::string> pieces) {
    for (const auto& d : f.diagnostics) {
        if (d.severity != Severity::Error || d.line != line) continue;
        bool all = true;
        for (const auto& p : pieces) all = all && d.message.find(p) != std::string::npos;
        if (all) return;
    }
    ADD_FAILURE() << "no error on line " << line << " with the expected words; got:\n" << dump(f.diagnostics);
}

TEST(StreamsHeader, ParsesCountsParamAndChunks) {
    KernelFile f = parse_with("streams: 4 over n\n");
    EXPECT_FALSE(has_errors(f.diagnostics)) << dump(f.diagnostics);
    ASSERT_TRUE(f.spec.streams.has_value());
    EXPECT_EQ(f.spec.streams->streams_expr, "4");
    EXPECT_EQ(f.spec.streams->param, "n");
    EXPECT_EQ(f.spec.streams->chunks_expr, "");
    EXPECT_EQ(f.spec.streams->line, 9);

    f = parse_with("streams: s over n chunks=3 * s\n");
    EXPECT_FALSE(has_errors(f.diagnostics)) << dump(f.diagnostics);
    ASSERT_TRUE(f.spec.streams.has_value());
    EXPECT_EQ(f.spec.streams->streams_expr, "s");
    EXPECT_EQ(f.spec.streams->chunks_expr, "3 * s");
    // `s` is used by the streams line, so it is not reported as an unused param.
    for (const auto& d : f.diagnostics) EXPECT_EQ(d.message.find("`s` is neither"), std::string::npos) << d.str();
}

TEST(StreamsHeader, MistakesNameTheirLineAndTheFix) {
    expect_error(parse_with("streams: 4\n"), 9, {"`over PARAM` is missing", "streams: 4 over n"});
    expect_error(parse_with("streams: over n\n"), 9, {"number of streams", "before `over`"});
    expect_error(parse_with("streams: 0 over n\n"), 9, {"from 1 to 16"});
    expect_error(parse_with("streams: 17 over n\n"), 9, {"from 1 to 16"});
    expect_error(parse_with("streams: 2.5 over n\n"), 9, {"whole number"});
    expect_error(parse_with("streams: 4 over\n"), 9, {"after `over`", "size parameter"});
    expect_error(parse_with("streams: 4 over m\n"), 9, {"no param `m`", "Did you mean `n`"});
    expect_error(parse_with("streams: 4 over f\n"), 9, {"`f` (line 4) is float", "int or uint"});
    expect_error(parse_with("streams: 4 over n chunks=2\n"), 9, {"fewer than the 4 streams", "chunks=4"});
    expect_error(parse_with("streams: 4 over n chunks=0\n"), 9, {"from 1 to 1024"});
    expect_error(parse_with("streams: 4 over n chunk=8\n"), 9, {"unknown setting `chunk=`", "Did you mean `chunks`"});
    expect_error(parse_with("streams: 4 over n please\n"), 9, {"only `chunks=C`", "`please`"});
    expect_error(parse_with("streams: 4 over n chunks=4 chunks=8\n"), 9, {"given twice"});
    expect_error(parse_with("streams: q over n\n"), 9, {"number of streams", "q"});
    expect_error(parse_with("streams: 2 over n\nstreams: 4 over n\n"), 10, {"given twice", "line 9"});
    expect_error(parse_with("streams: 2 over n\ndevices: all over n\n"), 9, {"`devices:` (line 10)", "one of the two"});
}

TEST(StreamsHeader, CountsFromParamsAreCheckedWhenResolving) {
    auto run = test::open_on_cpu(
        "/*@playground\n"
        "title: Streams\n"
        "param n: int = 1000\n"
        "param s: int = 20\n"  // line 4: no range, so the header cannot refuse it
        "buffer a: float[n] in\n"
        "buffer c: float[n] out\n"
        "grid: ceil(n / block.x)\n"
        "streams: s over n\n"  // line 8
        "*/\n"
        "extern \"C\" __global__ void k(const float* a, float* c, int n, int s) { }\n",
        "streams.cu");
    auto resolved = run.session->resolve();
    ASSERT_FALSE(resolved.ok());
    EXPECT_EQ(resolved.error().kind, ErrorKind::UserInput) << resolved.error().full();
    // The `streams:` line, the value s = 20 and the limit.
    for (const std::string& datum : {std::string("line 8"), std::string("20"), std::to_string(kMaxStreams)})
        EXPECT_NE(resolved.error().message.find(datum), std::string::npos) << datum << ": " << resolved.error().message;
    // A value from 1 to 16 resolves, with 4 chunks per stream; a tiny n gets one chunk per element.
    RunChoices choices;
    choices.params["s"] = 3;
    run.session->set_choices(choices);
    resolved = run.session->resolve();
    ASSERT_TRUE(resolved.ok()) << resolved.error().full();
    ASSERT_TRUE(resolved->streams.has_value());
    EXPECT_EQ(resolved->streams->streams, 3);
    EXPECT_EQ(resolved->streams->chunks, 12);
    choices.params["n"] = 5;
    run.session->set_choices(choices);
    resolved = run.session->resolve();
    ASSERT_TRUE(resolved.ok()) << resolved.error().full();
    EXPECT_EQ(resolved->streams->chunks, 5);
    EXPECT_EQ(resolved->streams->streams, 3);
}

// y = 2 x + table[x % 7] and acc += x over ints: x and acc are cut into chunks, the table (7 elements, `in`)
// is passed whole to every chunk, `acc` is inout (copied in and out per chunk).
const char* kChunked = R"(/*@playground
title: Chunked
param n: int = 1000003
buffer x: int[n] in ramp(start=5, step=3)
buffer table: int[7] in ramp(start=100, step=1)
buffer acc: int[n] inout ramp(start=1, step=2)
buffer y: int[n] out zeros
block: 128
grid: ceil(n / block.x)
streams: 3 over n chunks=7
reference: chunked_ref
*/
extern "C" __global__ void chunked(const int* x, const int* table, int* acc, int* y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        y[i] = 2 * x[i] + table[x[i] % 7];
        acc[i] += x[i];
    }
}
#ifdef PLAYGROUND_REFERENCE
static void chunked_ref(const int* x, const int* table, int* acc, int* y, int n)
{
    for (int i = 0; i < n; ++i) {
        y[i] = 2 * x[i] + table[x[i] % 7];
        acc[i] += x[i];
    }
}
#endif
)";

std::vector<int> stream_ints(const RunReport& r, const std::string& name) {
    const HostBuffer& b = r.outputs.at(name);
    std::vector<int> v(b.count());
    std::memcpy(v.data(), b.bytes.data(), v.size() * sizeof(int));
    return v;
}

TEST(StreamsRun, ChunkedOutputsMatchValuesComputedHere) {
    auto run = test::open_on_cpu(kChunked, "chunked.cu");
    RunOptions options;
    options.timing.repeats = 1;
    options.timing.warmup = 0;
    const RunReport r = run.session->run(options);
    ASSERT_TRUE(r.ok()) << r.error->full();
    const int n = 1000003;
    const std::vector<int> y = stream_ints(r, "y"), acc = stream_ints(r, "acc");
    ASSERT_EQ(y.size(), size_t(n));
    ASSERT_EQ(acc.size(), size_t(n));
    for (int i = 0; i < n; ++i) {
        const int x = 5 + 3 * i;
        ASSERT_EQ(y[size_t(i)], 2 * x + 100 + x % 7) << "y[" << i << "]";
        ASSERT_EQ(acc[size_t(i)], 1 + 2 * i + x) << "acc[" << i << "] (inout: once per element, not once per pass)";
    }
    EXPECT_EQ(r.verified, std::optional<bool>(true));

    ASSERT_TRUE(r.streams.has_value());
    const StreamsReport& s = *r.streams;
    EXPECT_EQ(s.streams, 3);
    EXPECT_EQ(s.chunks, 7);
    EXPECT_EQ(s.param, "n");
    EXPECT_EQ(s.elements, uint64_t(n));
    EXPECT_TRUE(s.host_clock);
    EXPECT_FALSE(s.concurrent);  // the CPU backend runs them one after another, and says so
    // Per chunk, in issue order: x and acc in, the kernel, acc and y out (the file's buffer order).
    const StreamOpKind order[] = {StreamOpKind::H2D, StreamOpKind::H2D, StreamOpKind::Kernel, StreamOpKind::D2H,
                                  StreamOpKind::D2H};
    ASSERT_EQ(s.ops.size(), 7u * 5u);
    uint64_t h2d_bytes = 0, d2h_bytes = 0;
    for (size_t i = 0; i < s.ops.size(); ++i) {
        const StreamOp& op = s.ops[i];
        EXPECT_EQ(op.chunk, int(i / 5)) << "op " << i;
        EXPECT_EQ(op.stream, op.chunk % 3) << "op " << i;
        EXPECT_EQ(op.kind, order[i % 5]) << "op " << i;
        EXPECT_LE(op.start_ms, op.end_ms);
        if (op.kind == StreamOpKind::H2D) h2d_bytes += op.bytes;
        if (op.kind == StreamOpKind::D2H) d2h_bytes += op.bytes;
    }
    EXPECT_EQ(h2d_bytes, 2ull * n * 4);  // every element of x and acc exactly once
    EXPECT_EQ(d2h_bytes, 2ull * n * 4);
    ASSERT_EQ(s.lanes.size(), 3u);
    size_t in_lanes = 0;
    for (size_t lane = 0; lane < 3; ++lane) {
        in_lanes += s.lanes[lane].size();
        for (size_t k = 1; k < s.lanes[lane].size(); ++k) {
            const StreamOp& before = s.ops[s.lanes[lane][k - 1]];
            const StreamOp& after = s.ops[s.lanes[lane][k]];
            EXPECT_EQ(after.stream, int(lane));
            EXPECT_GE(after.start_ms, before.end_ms) << "a stream runs its operations in order";
        }
    }
    EXPECT_EQ(in_lanes, s.ops.size());
    EXPECT_GT(s.total_ms, 0);
    EXPECT_DOUBLE_EQ(s.total_ms, s.ops.back().end_ms);

    const auto j = run_report_json(r, {});
    ASSERT_TRUE(j.contains("streams"));
    EXPECT_EQ(j["streams"]["streams"], 3);
    EXPECT_EQ(j["streams"]["chunks"], 7);
    EXPECT_EQ(j["streams"]["ops"].size(), 35u);
    EXPECT_EQ(j["streams"]["ops"][2]["kind"], "kernel");
    EXPECT_EQ(j["streams"]["lanes"].size(), 3u);
    EXPECT_FALSE(j["streams"]["concurrent"].get<bool>());
    const std::string text = streams_timeline_text(s, 40);
    EXPECT_NE(text.find("stream 2 |"), std::string::npos) << text;
    EXPECT_NE(text.find('K'), std::string::npos) << text;

    // The `streams:` driver goes through the same stages as one kernel's run, with its own after the read-back:
    // run again, the compile is reused and the chunks are copied again (their copies are what it times).
    const RunReport again = run.session->run(options);
    ASSERT_TRUE(again.ok()) << again.error->full();
    std::string stages;
    for (const StageRun& e : again.stage_runs) stages += e.stage + (e.reused ? " (reused), " : ", ");
    EXPECT_EQ(stages.rfind("compile (reused), ", 0), 0u) << stages;
    const size_t read_back = stages.find("read back, "), streamed = stages.find("streams, ");
    ASSERT_NE(streamed, std::string::npos) << stages;
    EXPECT_LT(read_back, streamed) << stages;
    EXPECT_LT(streamed, stages.find("check, ")) << "the streamed outputs are the ones checked: " << stages;
    EXPECT_EQ(again.stage_run("streams")->reason, "7 chunks on 3 streams: each copies its part in and out");
    EXPECT_EQ(again.verified, std::optional<bool>(true));
}

// A kernel that writes its thread's own index is right over the whole array and wrong in chunks (each chunk
// starts again at 0): the check must judge the streamed outputs, not the ordinary launch's.
TEST(StreamsRun, AKernelThatIsNotChunkSafeFailsTheCheck) {
    const std::string code = R"(
buffer y: int[n] out zeros
block: 64
grid: ceil(n / block.x)
reference: index_ref
*/
extern "C" __global__ void index_of(int* y, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) y[i] = i; }
#ifdef PLAYGROUND_REFERENCE
static void index_ref(int* y, int n) { for (int i = 0; i < n; ++i) y[i] = i; }
#endif
)";
    const std::string head = "/*@playground\ntitle: Index\nparam n: int = 1001\n";
    RunOptions options;
    options.timing.repeats = 1;
    options.timing.warmup = 0;
    auto plain = test::open_on_cpu(head + code, "index.cu");
    const RunReport ok = plain.session->run(options);
    ASSERT_TRUE(ok.ok()) << ok.error->full();
    EXPECT_EQ(ok.verified, std::optional<bool>(true));
    EXPECT_FALSE(ok.streams.has_value());

    auto streamed = test::open_on_cpu(head + "streams: 2 over n chunks=3\n" + code, "index.cu");
    const RunReport bad = streamed.session->run(options);
    ASSERT_TRUE(bad.ok()) << bad.error->full();
    EXPECT_EQ(bad.verified, std::optional<bool>(false));
    // Chunk 0 (elements 0..332) is right; chunks 1 and 2 restart at 0.
    EXPECT_EQ(bad.mismatched_elements, uint64_t(1001 - 1001 / 3));
    EXPECT_EQ(stream_ints(bad, "y")[400], 400 - 1001 / 3);
}

TEST(StreamsRun, AnOutputOfAnotherSizeIsRefusedWithItsName) {
    auto run = test::open_on_cpu(R"(/*@playground
title: Sum
param n: int = 1000
buffer x: float[n] in
buffer total: float[1] out
grid: ceil(n / block.x)
streams: 2 over n
*/
extern "C" __global__ void sum(const float* x, float* total, int n) { }
)",
                                 "sum.cu");
    const RunReport r = run.session->run();
    ASSERT_FALSE(r.ok());
    ASSERT_TRUE(r.error.has_value());
    EXPECT_EQ(r.error->kind, ErrorKind::UserInput) << r.error->full();
    // Refused when the run is resolved: nothing was launched.
    EXPECT_EQ(r.failed_stage, RunStage::Resolve);
    EXPECT_FALSE(r.launched);
    EXPECT_EQ(r.stage_run("launch"), nullptr);
    // The buffer, its line (5), its 1 element, and the `streams:` line (7).
    for (const std::string datum : {"`total`", "line 5", "1 elements", "line 7"})
        EXPECT_NE(r.error->message.find(datum), std::string::npos) << datum << ": " << r.error->message;
}

}  // namespace
}  // namespace cp
