// Engine requests and responses survive the trip to the CUDA worker process and back, field by field,
// and the framing copes with large blobs, closed peers and timeouts.
#include "core/engine/engine_wire.h"

#include <gtest/gtest.h>

#include <sys/socket.h>
#include <unistd.h>

#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

namespace cp {
namespace {

template <class T>
T round_trip_request(const T& value) {
    auto decoded = decode_request(encode_request(Request{value}));
    EXPECT_TRUE(decoded.ok()) << decoded.error().message;
    return std::get<T>(*decoded);
}

template <class T>
T round_trip_response(const T& value) {
    auto decoded = decode_response(encode_response(Response{value}));
    EXPECT_TRUE(decoded.ok()) << decoded.error().message;
    return std::get<T>(*decoded);
}

std::vector<std::byte> bytes(std::initializer_list<int> v) {
    std::vector<std::byte> out;
    for (int x : v) out.push_back(std::byte(x));
    return out;
}

TEST(EngineWire, Requests) {
    CompileRequest c{"__global__ void k() {}\n\"quoted\" \xc3\xa9", "dir/k.cu", "k<int>", {"-DX=1", "-G"}, false, false, false, true, {}, {}};
    const auto c2 = round_trip_request(c);
    EXPECT_EQ(c2.source, c.source);
    EXPECT_EQ(c2.path, c.path);
    EXPECT_EQ(c2.kernel_name, c.kernel_name);
    EXPECT_EQ(c2.extra_options, c.extra_options);
    EXPECT_EQ(c2.load, false);
    EXPECT_TRUE(c2.instrument_debug);
    c.also_kernels = {"k<float>", "k2"};
    EXPECT_EQ(round_trip_request(c).also_kernels, c.also_kernels);
    c.include_dirs = {"/course/Common", "../inc"};
    EXPECT_EQ(round_trip_request(c).include_dirs, c.include_dirs);

    const auto a = round_trip_request(AllocateRequest{"buf", (1ull << 33) + 5});
    EXPECT_EQ(a.name, "buf");
    EXPECT_EQ(a.bytes, (1ull << 33) + 5);

    const auto u = round_trip_request(UploadRequest{(1ull << 40) + 3, bytes({0, 1, 255, 128})});
    EXPECT_EQ(u.buffer, (1ull << 40) + 3);
    EXPECT_EQ(u.data, bytes({0, 1, 255, 128}));
    EXPECT_FALSE(u.repeat);
    EXPECT_TRUE(round_trip_request(UploadRequest{7, bytes({1, 2}), true}).repeat);
    EXPECT_TRUE(round_trip_request(UploadRequest{7, bytes({1, 2}), false, true}).pinned);
    EXPECT_FALSE(round_trip_request(UploadRequest{7, bytes({1, 2}), false, false}).pinned);
    EXPECT_TRUE(round_trip_request(ReadBackRequest{42, true}).pinned);

    LaunchRequest l;
    l.module = 77;
    l.kernel_name = "blur";
    l.grid = {40, 30, 2};
    l.block = {16, 8, 1};
    l.dynamic_shared_bytes = 1234;
    l.args = {{"src", 9, {}}, {"n", 0, bytes({0xff, 0, 0, 0x80})}};
    l.timing = {3, 17, true};
    const auto l2 = round_trip_request(l);
    EXPECT_EQ(l2.module, 77u);
    EXPECT_EQ(l2.kernel_name, "blur");
    EXPECT_EQ(l2.grid, (Dim3{40, 30, 2}));
    EXPECT_EQ(l2.block, (Dim3{16, 8, 1}));
    EXPECT_EQ(l2.dynamic_shared_bytes, 1234u);
    ASSERT_EQ(l2.args.size(), 2u);
    EXPECT_EQ(l2.args[0].name, "src");
    EXPECT_EQ(l2.args[0].buffer, 9u);
    EXPECT_TRUE(l2.args[0].scalar.empty());
    EXPECT_EQ(l2.args[1].scalar, bytes({0xff, 0, 0, 0x80}));
    EXPECT_EQ(l2.timing.warmup, 3);
    EXPECT_EQ(l2.timing.repeats, 17);
    EXPECT_TRUE(l2.timing.flush_l2);

    EXPECT_EQ(round_trip_request(ReadBackRequest{42}).buffer, 42u);
    const auto r = round_trip_request(ReleaseRequest{{1, 2}, {3}});
    EXPECT_EQ(r.buffers, (std::vector<BufferId>{1, 2}));
    EXPECT_EQ(r.modules, (std::vector<ModuleId>{3}));
    EXPECT_TRUE(std::holds_alternative<InfoRequest>(*decode_request(encode_request(InfoRequest{}))));
}

TEST(EngineWire, Responses) {
    InfoResult info;
    info.device.name = "GPU";
    info.device.arch = "sm_90";
    info.device.cc_major = 9;
    info.device.sm_count = 132;
    info.device.total_memory = 85ull << 30;
    info.device.max_grid = {2147483647u, 65535u, 65535u};
    info.device.l2_bytes = 50 << 20;
    info.device.copy_bandwidth_gbps = 2958.5;
    info.device.notes = "n";
    const auto i2 = round_trip_response(info);
    EXPECT_EQ(i2.device.name, "GPU");
    EXPECT_EQ(i2.device.cc_major, 9);
    EXPECT_EQ(i2.device.sm_count, 132);
    EXPECT_EQ(i2.device.total_memory, 85ull << 30);
    EXPECT_EQ(i2.device.max_grid, info.device.max_grid);
    EXPECT_EQ(i2.device.l2_bytes, 50 << 20);
    EXPECT_DOUBLE_EQ(i2.device.copy_bandwidth_gbps, 2958.5);

    CompileResult c;
    c.ok = true;
    c.diagnostics = {{"k.cu", 3, 7, Severity::Warning, "unused"}};
    c.log = "log";
    c.usage.registers = 24;
    c.usage.barriers = 1;
    c.cache_hit = true;
    c.compile_ms = 1.5;
    c.module = 5;
    c.also_usage["k2"].registers = 40;
    const auto c2 = round_trip_response(c);
    EXPECT_TRUE(c2.ok);
    ASSERT_EQ(c2.also_usage.count("k2"), 1u);
    EXPECT_EQ(c2.also_usage.at("k2").registers, 40);
    ASSERT_EQ(c2.diagnostics.size(), 1u);
    EXPECT_EQ(c2.diagnostics[0].str(), "k.cu:3:7: warning: unused");
    EXPECT_EQ(c2.usage.registers, 24);
    EXPECT_EQ(c2.usage.barriers, 1);
    EXPECT_EQ(c2.usage.spill_load_bytes, -1);
    EXPECT_TRUE(c2.cache_hit);
    EXPECT_EQ(c2.module, 5u);
    EXPECT_FALSE(c2.error.has_value());

    LaunchResult l;
    l.ok = false;
    l.timing = TimingStats::from_samples({3.0, 1.0, 2.0}, false);
    l.printf_output = "hello\n";
    l.error = EngineError{"CUDA_ERROR_ILLEGAL_ADDRESS", "message", "hint", true};
    l.trace = {{0, 131, 1ull << 40, (1ull << 40) + 5}, {1, 7, 3, 4}};
    l.trace_unit = "sm";
    l.backend_ms = 0.125;
    // Each phase a different value, so that two fields swapped on the wire are caught.
    l.phases = {0.0625, 0.03125, 0.015625, 0.0078125, 0.01171875};
    const auto l2 = round_trip_response(l);
    EXPECT_DOUBLE_EQ(l2.backend_ms, 0.125);
    EXPECT_DOUBLE_EQ(l2.phases.setup_ms, 0.0625);
    EXPECT_DOUBLE_EQ(l2.phases.launch_calls_ms, 0.03125);
    EXPECT_DOUBLE_EQ(l2.phases.wait_ms, 0.015625);
    EXPECT_DOUBLE_EQ(l2.phases.after_ms, 0.0078125);
    EXPECT_DOUBLE_EQ(l2.phases.kernel_ms, 0.01171875);
    ASSERT_EQ(l2.trace.size(), 2u);
    EXPECT_EQ(l2.trace[0].unit, 131u);
    EXPECT_EQ(l2.trace[0].end_ns, (1ull << 40) + 5);
    EXPECT_EQ(l2.trace[1].block, 1u);
    EXPECT_EQ(l2.trace_unit, "sm");
    EXPECT_EQ(l2.timing.samples_ms, (std::vector<double>{3.0, 1.0, 2.0}));
    EXPECT_DOUBLE_EQ(l2.timing.median_ms, 2.0);
    EXPECT_EQ(l2.printf_output, "hello\n");
    ASSERT_TRUE(l2.error.has_value());
    EXPECT_EQ(l2.error->name, "CUDA_ERROR_ILLEGAL_ADDRESS");
    EXPECT_TRUE(l2.error->context_was_reset);

    const auto rb = round_trip_response(ReadBackResult{bytes({1, 2, 3}), std::nullopt});
    EXPECT_EQ(rb.data, bytes({1, 2, 3}));
    std::vector<uint8_t> handle(64);
    for (size_t i = 0; i < handle.size(); ++i) handle[i] = uint8_t(i * 7 + 3);
    const auto al = round_trip_response(AllocateResult{8, 0, std::nullopt, handle});
    EXPECT_EQ(al.buffer, 8u);
    EXPECT_EQ(al.ipc_handle, handle);

    // The backend's own measure of each copy survives the trip from the CUDA worker.
    EXPECT_DOUBLE_EQ(round_trip_response(AllocateResult{8, 0, std::nullopt, {}, 4096, 0.25}).elapsed_ms, 0.25);
    EXPECT_EQ(round_trip_response(AllocateResult{8, 0, std::nullopt, {}, 4096, 0.25}).ipc_offset, 4096u);
    EXPECT_DOUBLE_EQ(round_trip_response(UploadResult{std::nullopt, 1.5}).elapsed_ms, 1.5);
    EXPECT_DOUBLE_EQ(round_trip_response(ReadBackResult{bytes({1}), std::nullopt, 2.75}).elapsed_ms, 2.75);
}

// The memory recording's request flags and its per-site figures cross the wire (the CPU worker's answer).
TEST(EngineWire, MemoryRecordingRoundTrips) {
    CompileRequest c;
    c.instrument_memory = true;
    EXPECT_TRUE(round_trip_request(c).instrument_memory);
    EXPECT_FALSE(round_trip_request(CompileRequest{}).instrument_memory);
    LaunchRequest r;
    r.record_memory = true;
    r.memory_warps = {{0, 0}, {(1ull << 33) + 5, 7}};
    EXPECT_TRUE(round_trip_request(r).record_memory);
    EXPECT_EQ(round_trip_request(r).memory_warps, r.memory_warps);

    EXPECT_FALSE(round_trip_response(LaunchResult{}).memory.has_value());
    LaunchResult l;
    MemoryRecording m;
    m.accesses = 1234;
    m.access_cap = 4096;
    m.capped = true;
    m.blocks_recorded = 3;
    m.blocks_total = 40;
    m.ms = 2.5;
    MemoryFigures f;
    f.site = 0x1a2b;
    f.line = 7;
    f.space = MemorySpace::Shared;
    f.store = true;
    f.requests = 5, f.sectors = 6, f.ideal_sectors = 7, f.bank_conflicts = 8, f.active_lanes = 9;
    m.figures = {f, MemoryFigures{}};
    WarpSiteDetail w;
    w.warp = {3, 2};
    w.site = 0x77;
    w.line = 12;
    w.space = MemorySpace::Shared;
    w.store = true;
    w.requests_total = 9;
    WarpRequest q;
    q.active = 0x80000005u;  // lanes 0, 2 and 31
    q.address[0] = 0x100, q.address[2] = (1ull << 41) + 8, q.address[31] = 0x17c;
    q.size[0] = 4, q.size[2] = 8, q.size[31] = 16;
    q.sectors = 3, q.ideal_sectors = 1, q.bank_conflicts = 2;
    w.requests = {q, WarpRequest{}};
    m.warps = {w};
    l.memory = m;
    const auto l2 = round_trip_response(l);
    ASSERT_TRUE(l2.memory.has_value());
    EXPECT_EQ(l2.memory->accesses, 1234u);
    EXPECT_EQ(l2.memory->access_cap, 4096u);
    EXPECT_TRUE(l2.memory->capped);
    EXPECT_EQ(l2.memory->blocks_recorded, 3u);
    EXPECT_EQ(l2.memory->blocks_total, 40u);
    EXPECT_DOUBLE_EQ(l2.memory->ms, 2.5);
    ASSERT_EQ(l2.memory->figures.size(), 2u);
    const MemoryFigures& g = l2.memory->figures[0];
    EXPECT_EQ(g.site, 0x1a2bu);
    EXPECT_EQ(g.line, 7);
    EXPECT_EQ(g.space, MemorySpace::Shared);
    EXPECT_TRUE(g.store);
    EXPECT_EQ(g.requests, 5u);
    EXPECT_EQ(g.sectors, 6u);
    EXPECT_EQ(g.ideal_sectors, 7u);
    EXPECT_EQ(g.bank_conflicts, 8u);
    EXPECT_EQ(g.active_lanes, 9u);
    EXPECT_EQ(l2.memory->figures[1].space, MemorySpace::Global);
    EXPECT_FALSE(l2.memory->figures[1].store);
    ASSERT_EQ(l2.memory->warps.size(), 1u);
    const WarpSiteDetail& v = l2.memory->warps[0];
    EXPECT_EQ(v.warp, (WarpId{3, 2}));
    EXPECT_EQ(v.site, 0x77u);
    EXPECT_EQ(v.line, 12);
    EXPECT_EQ(v.space, MemorySpace::Shared);
    EXPECT_TRUE(v.store);
    EXPECT_EQ(v.requests_total, 9u);
    ASSERT_EQ(v.requests.size(), 2u);
    EXPECT_EQ(v.requests[0].active, 0x80000005u);
    EXPECT_EQ(v.requests[0].address, q.address);
    EXPECT_EQ(v.requests[0].size, q.size);
    EXPECT_EQ(v.requests[0].sectors, 3u);
    EXPECT_EQ(v.requests[0].ideal_sectors, 1u);
    EXPECT_EQ(v.requests[0].bank_conflicts, 2u);
    EXPECT_EQ(v.requests[1].active, 0u);
}

TEST(EngineWire, OccupancyRequestAndResult) {
    const auto q = round_trip_request(OccupancyRequest{(1ull << 41) + 9, "box_blur", 49152 + 7, 640, {64, 96}});
    EXPECT_EQ(q.module, (1ull << 41) + 9);
    EXPECT_EQ(q.kernel_name, "box_blur");
    EXPECT_EQ(q.dynamic_shared_bytes, 49152u + 7);
    EXPECT_EQ(q.block_size_limit, 640u);
    EXPECT_EQ(q.block_sizes, (std::vector<int>{64, 96}));

    OccupancyResult o;
    o.min_grid_size = 264;
    o.block_size = 768;
    o.active_blocks_per_sm = 2;
    o.occupancy = 0.75;
    o.method = "cuOccupancyMaxPotentialBlockSize";
    o.active_blocks = {32, 21, 0};
    const auto o2 = round_trip_response(o);
    EXPECT_EQ(o2.active_blocks, (std::vector<int>{32, 21, 0}));
    EXPECT_EQ(o2.min_grid_size, 264);
    EXPECT_EQ(o2.block_size, 768);
    EXPECT_EQ(o2.active_blocks_per_sm, 2);
    EXPECT_DOUBLE_EQ(o2.occupancy, 0.75);
    EXPECT_EQ(o2.method, o.method);
    EXPECT_FALSE(o2.error.has_value());

    OccupancyResult failed;
    failed.error = EngineError{"not supported", "no occupancy API", "estimate instead", false};
    const auto f2 = round_trip_response(failed);
    ASSERT_TRUE(f2.error.has_value());
    EXPECT_EQ(f2.error->message, "no occupancy API");
    EXPECT_EQ(f2.error->hint, "estimate instead");
    // The release that used to be the last type still decodes as a release, not as the new occupancy type.
    EXPECT_TRUE(std::holds_alternative<ReleaseResult>(*decode_response(encode_response(ReleaseResult{}))));
}

TEST(EngineWire, MalformedInputIsRejected) {
    const auto missing = decode_request(WireMessage{"{\"type\":\"launch\"}", {}, {}});
    ASSERT_FALSE(missing.ok());
    EXPECT_EQ(missing.error().kind, ErrorKind::Internal);
    for (const char* text : {"not json", "{\"no_type\":1}"}) {
        const auto refused = decode_request(WireMessage{text, {}, {}});
        ASSERT_FALSE(refused.ok()) << text;
        EXPECT_EQ(refused.error().kind, ErrorKind::Internal) << text << ": " << refused.error().full();
    }
}

// A tag this build does not know is a clear error naming it: not a crash, and not some other type.
TEST(EngineWire, UnknownTypeIsAClearError) {
    for (const auto& [text, type] : std::vector<std::pair<const char*, std::string>>{
             {"{\"type\":\"nope\"}", "nope"},
             {"{\"type\":\"launch2\",\"ok\":true}", "launch2"},
             {"{\"type\":\"\"}", ""}}) {
        const auto response = decode_response(WireMessage{text, {}, {}});
        ASSERT_FALSE(response.ok()) << text;
        EXPECT_EQ(response.error().kind, ErrorKind::Internal);
        // The tag it does not know, and a hint (what to do about a worker of another build).
        EXPECT_NE(response.error().message.find("`" + type + "`"), std::string::npos) << response.error().message;
        EXPECT_FALSE(response.error().hint.empty());
        const auto request = decode_request(WireMessage{text, {}, {}});
        ASSERT_FALSE(request.ok()) << text;
        EXPECT_EQ(request.error().kind, ErrorKind::Internal) << text;
    }
    const auto named = decode_request(WireMessage{"{\"type\":\"teleport\"}", {}, {}});
    ASSERT_FALSE(named.ok());
    EXPECT_EQ(named.error().kind, ErrorKind::Internal);
    EXPECT_NE(named.error().message.find("`teleport`"), std::string::npos) << named.error().message;
}

// Every alternative of the variants, found from the variant itself (a new type is covered without a line
// here): it decodes as the same type, and encoding it again gives the same JSON and blob.
template <class V, size_t... I>
void round_trip_every_type(std::index_sequence<I...>) {
    auto one = [](auto value) {
        using T = decltype(value);
        const WireMessage first = [&] {
            if constexpr (std::is_same_v<V, Request>)
                return encode_request(V{value});
            else
                return encode_response(V{value});
        }();
        const auto decoded = [&] {
            if constexpr (std::is_same_v<V, Request>)
                return decode_request(first);
            else
                return decode_response(first);
        }();
        ASSERT_TRUE(decoded.ok()) << first.json << ": " << decoded.error().message;
        ASSERT_TRUE(std::holds_alternative<T>(*decoded))
            << first.json << " came back as alternative " << decoded->index();
        const WireMessage again = [&] {
            if constexpr (std::is_same_v<V, Request>)
                return encode_request(*decoded);
            else
                return encode_response(*decoded);
        }();
        EXPECT_EQ(again.json, first.json);
        EXPECT_EQ(again.blob, first.blob);
    };
    (one(std::variant_alternative_t<I, V>{}), ...);
}

TEST(EngineWire, EveryRequestAndResponseTypeRoundTrips) {
    round_trip_every_type<Request>(std::make_index_sequence<std::variant_size_v<Request>>{});
    round_trip_every_type<Response>(std::make_index_sequence<std::variant_size_v<Response>>{});
    // Each request's response type is the one in the same place of the Response variant.
    static_assert(std::is_same_v<ResponseFor<LaunchRequest>, LaunchResult>);
    static_assert(std::is_same_v<ResponseFor<StreamsRequest>, StreamsResult>);
    static_assert(std::is_same_v<ResponseFor<InfoRequest>, InfoResult>);
}

// The error's kind crosses the wire by name, with every other field of the error.
TEST(EngineWire, ErrorKindsCrossTheWire) {
    for (int i = 0; i < kErrorKindCount; ++i) {
        LaunchResult l;
        l.error = engine_error(ErrorKind(i), "NAME", "an unrelated message", "a hint");
        l.error->line = 12;
        const auto back = round_trip_response(l);
        ASSERT_TRUE(back.error.has_value());
        EXPECT_EQ(back.error->kind, ErrorKind(i)) << error_kind_name(ErrorKind(i));
        EXPECT_EQ(back.error->line, 12);
    }
    // A kind this build does not know is refused, not read as another kind.
    const auto odd = decode_response(WireMessage{
        R"({"type":"upload","elapsed_ms":0,"error":{"name":"x","message":"m","hint":"","context_was_reset":false,)"
        R"("line":0,"kind":"melted"}})",
        {},
        {}});
    ASSERT_FALSE(odd.ok());
    EXPECT_EQ(odd.error().kind, ErrorKind::Internal) << odd.error().full();
    EXPECT_NE(odd.error().message.find("`melted`"), std::string::npos) << odd.error().message;
}

// The CUDA thread an error happened in crosses the wire as data (the CPU worker's crash reports); an error
// without one, or from a peer that does not send it, comes back without.
TEST(EngineWire, AnErrorsThreadAndBlockCrossTheWire) {
    LaunchResult l;
    l.error = engine_error(ErrorKind::OutOfBounds, "OUT_OF_BOUNDS", "thread words", "a hint");
    l.error->thread = Dim3{231, 1, 0};
    l.error->block = Dim3{3, 0, 2};
    l.error->line = 9;
    const auto back = round_trip_response(l);
    ASSERT_TRUE(back.error.has_value());
    EXPECT_EQ(back.error->thread, (Dim3{231, 1, 0}));
    EXPECT_EQ(back.error->block, (Dim3{3, 0, 2}));
    EXPECT_EQ(back.error->line, 9);

    l.error = engine_error(ErrorKind::Fault, "X", "no thread");
    const auto none = round_trip_response(l);
    ASSERT_TRUE(none.error.has_value());
    EXPECT_FALSE(none.error->thread);
    EXPECT_FALSE(none.error->block);
    const auto older = decode_response(WireMessage{
        R"({"type":"upload","elapsed_ms":0,"error":{"name":"x","message":"m","hint":"","context_was_reset":false,)"
        R"("line":0,"kind":"fault"}})",
        {},
        {}});
    ASSERT_TRUE(older.ok()) << older.error().message;
    EXPECT_FALSE(std::get<UploadResult>(*older).error->thread);
}

// Capabilities travel by name: one set alone, each in turn, comes back as itself and no other.
TEST(EngineWire, CapabilitiesTravelByName) {
    bool BackendCapabilities::*flags[] = {&BackendCapabilities::launches,
                                          &BackendCapabilities::gpu,
                                          &BackendCapabilities::device_buffers,
                                          &BackendCapabilities::buffers_by_ipc,
                                          &BackendCapabilities::occupancy_api,
                                          &BackendCapabilities::event_timing,
                                          &BackendCapabilities::trace_needs_instrumented_module,
                                          &BackendCapabilities::sanitizer,
                                          &BackendCapabilities::thread_order,
                                          &BackendCapabilities::concurrent_streams};
    for (auto flag : flags) {
        InfoResult info;
        BackendCapabilities none{};
        for (auto f : flags) none.*f = false;
        info.device.caps = none;
        info.device.caps.*flag = true;
        info.device.caps.default_repeats = 7;
        const WireMessage m = encode_response(info);
        const auto back = round_trip_response(info);
        for (auto f : flags) EXPECT_EQ(back.device.caps.*f, f == flag) << m.json;
        EXPECT_EQ(back.device.caps.default_repeats, 7);
    }
    const std::string json = encode_response(InfoResult{}).json;
    EXPECT_NE(json.find("\"concurrent_streams\":"), std::string::npos) << json;
    EXPECT_NE(json.find("\"occupancy_api\":"), std::string::npos) << json;
}

// A worker from another build says another protocol version in its greeting: the app says what to do.
TEST(EngineWire, ProtocolVersionMismatchIsAClearError) {
    EXPECT_FALSE(check_worker_protocol(kWireProtocolVersion, "CUDA worker").has_value());
    for (int other : {0, kWireProtocolVersion - 1, kWireProtocolVersion + 1}) {
        const auto e = check_worker_protocol(other, "CPU worker");
        ASSERT_TRUE(e.has_value()) << other;
        EXPECT_EQ(e->kind, ErrorKind::WorkerLost);
        // The worker, its version and ours, and a hint (rebuild or reinstall).
        EXPECT_NE(e->message.find("CPU worker"), std::string::npos) << e->message;
        EXPECT_NE(e->message.find(std::to_string(other)), std::string::npos) << e->message;
        EXPECT_NE(e->message.find(std::to_string(kWireProtocolVersion)), std::string::npos) << e->message;
        EXPECT_FALSE(e->hint.empty());
    }
}

TEST(EngineWire, FramesOverASocket) {
    int sv[2];
    ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
    WireMessage big{"{\"type\":\"info\"}", std::vector<std::byte>(3'000'001, std::byte{7}), {}};
    std::thread writer([&] { EXPECT_TRUE(write_message(sv[0], big)); });
    WireMessage got;
    EXPECT_EQ(read_message(sv[1], 5000, &got), ReadStatus::Ok);
    writer.join();
    EXPECT_EQ(got.json, big.json);
    EXPECT_EQ(got.blob, big.blob);

    EXPECT_EQ(read_message(sv[1], 50, &got), ReadStatus::TimedOut);
    close(sv[0]);
    EXPECT_EQ(read_message(sv[1], 1000, &got), ReadStatus::Closed);
    EXPECT_FALSE(write_message(sv[1], big)) << "writing to a closed peer fails instead of raising SIGPIPE";
    close(sv[1]);
}

// A remote worker's stdin/stdout are pipes (sshd gives pipes): the same frames travel with read/write, a
// message with descriptors is refused, and a reader gone is a failed write, not SIGPIPE.
TEST(EngineWire, FramesOverAPipe) {
    int p[2];
    ASSERT_EQ(pipe(p), 0);
    WireMessage big{"{\"type\":\"info\"}", std::vector<std::byte>(3'000'001, std::byte{9}), {}};
    big.blob.back() = std::byte{1};
    std::thread writer([&] { EXPECT_TRUE(write_message(p[1], big)); });
    WireMessage got;
    EXPECT_EQ(read_message(p[0], 5000, &got), ReadStatus::Ok);
    writer.join();
    EXPECT_EQ(got.json, big.json);
    EXPECT_EQ(got.blob, big.blob);
    EXPECT_TRUE(got.fds.empty());

    WireMessage with_fd{"{}", {}, {p[1]}};
    EXPECT_FALSE(write_message(p[1], with_fd)) << "descriptors never travel over a pipe";
    EXPECT_EQ(read_message(p[0], 50, &got), ReadStatus::TimedOut);
    close(p[1]);
    EXPECT_EQ(read_message(p[0], 1000, &got), ReadStatus::Closed);
    ASSERT_EQ(pipe(p), 0);
    close(p[0]);
    EXPECT_FALSE(write_message(p[1], big)) << "writing to a pipe nobody reads fails instead of raising SIGPIPE";
    close(p[1]);
}

// A streamed run: the chunks' copies (their bytes in the blob, in order), arguments with offsets, and back the
// operations' times and each copy out's bytes.
TEST(EngineWire, StreamsRequestAndResult) {
    StreamsRequest r;
    r.module = 7;
    r.kernel_name = "overlap";
    r.block = {256, 1, 1};
    r.dynamic_shared_bytes = 64;
    r.streams = 3;
    r.time_one_stream = false;
    for (int k = 0; k < 2; ++k) {
        StreamChunk c;
        c.stream = k;
        c.grid = {uint32_t(10 + k), 1, 1};
        c.h2d.push_back({11, uint64_t(8 * k), 3, bytes({k, k + 1, k + 2})});
        c.h2d.push_back({12, 0, 0, {}});
        c.args.push_back({"x", 11, {}, uint64_t(8 * k)});
        c.args.push_back({"n", 0, bytes({5, 0, 0, 0}), 0});
        c.d2h.push_back({13, uint64_t(4 * k), 4, {}});
        r.chunks.push_back(c);
    }
    const StreamsRequest r2 = round_trip_request(r);
    EXPECT_EQ(r2.module, 7u);
    EXPECT_EQ(r2.kernel_name, "overlap");
    EXPECT_EQ(r2.block, r.block);
    EXPECT_EQ(r2.dynamic_shared_bytes, 64u);
    EXPECT_EQ(r2.streams, 3);
    EXPECT_FALSE(r2.time_one_stream);
    ASSERT_EQ(r2.chunks.size(), 2u);
    for (int k = 0; k < 2; ++k) {
        const StreamChunk& c = r2.chunks[size_t(k)];
        EXPECT_EQ(c.stream, k);
        EXPECT_EQ(c.grid.x, uint32_t(10 + k));
        ASSERT_EQ(c.h2d.size(), 2u);
        EXPECT_EQ(c.h2d[0].offset, uint64_t(8 * k));
        EXPECT_EQ(c.h2d[0].data, bytes({k, k + 1, k + 2}));
        EXPECT_TRUE(c.h2d[1].data.empty());
        ASSERT_EQ(c.args.size(), 2u);
        EXPECT_EQ(c.args[0].offset, uint64_t(8 * k));
        EXPECT_EQ(c.args[0].buffer, 11u);
        EXPECT_EQ(c.args[1].scalar, bytes({5, 0, 0, 0}));
        ASSERT_EQ(c.d2h.size(), 1u);
        EXPECT_EQ(c.d2h[0].offset, uint64_t(4 * k));
        EXPECT_EQ(c.d2h[0].bytes, 4u);
    }

    StreamsResult res;
    res.ok = true;
    res.ops = {{0, 0, StreamOpKind::H2D, 0.0, 0.5, 12}, {1, 1, StreamOpKind::Kernel, 0.25, 1.5, 0},
               {2, 2, StreamOpKind::D2H, 1.0, 2.0, 4}};
    res.total_ms = 2.0;
    res.one_stream_ms = 3.5;
    res.d2h_data = {bytes({1, 2, 3, 4}), {}, bytes({9})};
    res.printf_output = "hi\n";
    const StreamsResult res2 = round_trip_response(res);
    EXPECT_TRUE(res2.ok);
    ASSERT_EQ(res2.ops.size(), 3u);
    EXPECT_EQ(res2.ops[1].kind, StreamOpKind::Kernel);
    EXPECT_EQ(res2.ops[2].stream, 2);
    EXPECT_DOUBLE_EQ(res2.ops[1].start_ms, 0.25);
    EXPECT_EQ(res2.ops[0].bytes, 12u);
    EXPECT_DOUBLE_EQ(res2.one_stream_ms, 3.5);
    EXPECT_EQ(res2.d2h_data, res.d2h_data);
    EXPECT_EQ(res2.printf_output, "hi\n");
    EXPECT_FALSE(res2.error.has_value());
}

}  // namespace
}  // namespace cp
