// The debugger's recording read back (DebugTimeline): the last writer of each shared element, the buffer
// elements a block touched, the round that set a variable's value, and the recording's trip over the CPU
// worker's wire with its accesses (checked: the worker runs user code). The recordings here are made by hand,
// so every expected value is known exactly.
#include "core/cpu/debug_recorder.h"
#include "core/engine/debug_recording.h"
#include "core/engine/engine_wire.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstring>

namespace cp {
namespace {

// Two threads, three rounds; shared int s[4] at 0x1000, buffer `in` (float[8]) at 0x2000, `out` (int[4]) at 0x3000.
// Thread t has variable x: 5 at rounds 0 and 1, then 9 (thread 0) or 5 still (thread 1).
DebugRecording made_up() {
    DebugRecording r;
    r.threads = 2;
    r.block_dim = {2, 1, 1};
    r.rounds = 3;
    r.names = {"x"};
    auto step = [&](uint32_t round, uint32_t thread, int line, int32_t x) {
        DebugVariable v;
        v.name = 0;
        v.kind = DebugValueKind::Signed;
        v.element_size = 4;
        v.offset = r.values.size();
        v.bytes = 4;
        r.values.resize(r.values.size() + 4);
        std::memcpy(r.values.data() + v.offset, &x, 4);
        r.steps.push_back({round, thread, line, uint32_t(r.variables.size()), 1});
        r.variables.push_back(v);
    };
    step(0, 0, 10, 5), step(0, 1, 10, 5);
    step(1, 0, 11, 5), step(1, 1, 11, 5);
    step(2, 0, 12, 9), step(2, 1, 12, 5);
    DebugSharedArray s;
    s.name = "s";
    s.kind = DebugValueKind::Signed;
    s.element_size = 4;
    s.extents = {4};
    s.bytes = 16;
    s.base = 0x1000;
    r.shared = {s};
    r.shared_snapshots = {std::vector<std::byte>(16)};
    r.shared_after_round = {0, 0, 0};
    r.regions = {{"in", 0x2000, 32, 4}, {"out", 0x3000, 16, 4}, {"s", 0x1000, 16, 4}};
    auto access = [&](uint64_t address, uint32_t round, uint32_t thread, int line, uint16_t bytes, bool write) {
        r.accesses.push_back({address, round, thread, line, bytes, write});
    };
    access(0x2000 + 4 * 0, 0, 0, 10, 4, false);  // in[0]
    access(0x2000 + 4 * 1, 0, 1, 10, 4, false);  // in[1]
    access(0x1000 + 4 * 0, 0, 0, 10, 4, true);   // s[0] by 0
    access(0x1000 + 4 * 1, 0, 1, 10, 4, true);   // s[1] by 1
    access(0x1000 + 4 * 2, 1, 1, 11, 8, true);   // s[2], s[3] by 1 (an 8-byte store)
    access(0x1000 + 4 * 0, 2, 1, 12, 4, true);   // s[0] again, by 1
    access(0x2000 + 4 * 2, 2, 0, 12, 16, false);  // in[2..5] (a float4)
    access(0x3000 + 4 * 3, 2, 0, 12, 4, true);    // out[3]
    r.accesses_recorded = true;
    return r;
}

TEST(DebugTimeline, TheLastWriterOfEachSharedElementUpToARound) {
    const DebugRecording r = made_up();
    const DebugTimeline t(r);
    auto writer_threads = [&](uint32_t round) {
        std::vector<int> out;
        for (int64_t k : t.shared_writers(round, 0)) out.push_back(k < 0 ? -1 : int(r.accesses[size_t(k)].thread));
        return out;
    };
    EXPECT_EQ(writer_threads(0), (std::vector<int>{0, 1, -1, -1}));
    EXPECT_EQ(writer_threads(1), (std::vector<int>{0, 1, 1, 1}));
    EXPECT_EQ(writer_threads(2), (std::vector<int>{1, 1, 1, 1}));
    EXPECT_EQ(r.accesses[size_t(t.shared_writers(2, 0)[0])].line, 12);
    EXPECT_TRUE(t.shared_writers(0, 5).empty());  // no such array
}

TEST(DebugTimeline, TheBufferElementsTheBlockTouchedAsRanges) {
    const DebugRecording r = made_up();
    const DebugTimeline t(r);
    using Ranges = std::vector<std::pair<uint64_t, uint64_t>>;
    const std::vector<DebugTouched> first = t.touched(0);
    ASSERT_EQ(first.size(), 1u);  // `in` only: the shared array is not a buffer
    EXPECT_EQ(r.regions[first[0].region].name, "in");
    EXPECT_EQ(first[0].read, (Ranges{{0, 1}}));
    EXPECT_TRUE(first[0].written.empty());
    const std::vector<DebugTouched> all = t.touched(2);
    ASSERT_EQ(all.size(), 2u);
    EXPECT_EQ(all[0].read, (Ranges{{0, 5}}));  // in[0], in[1], then in[2..5] from the float4
    EXPECT_EQ(r.regions[all[1].region].name, "out");
    EXPECT_EQ(all[1].written, (Ranges{{3, 3}}));
}

TEST(DebugTimeline, TheRoundThatSetAValue) {
    const DebugRecording r = made_up();
    const DebugTimeline t(r);
    EXPECT_EQ(t.round_that_set(0, 2, "x"), 2u);  // 9 first seen at round 2
    EXPECT_EQ(t.round_that_set(0, 1, "x"), 0u);  // 5 since its first probe
    EXPECT_EQ(t.round_that_set(1, 2, "x"), 0u);
    EXPECT_FALSE(t.round_that_set(1, 2, "y").has_value());
    ASSERT_NE(t.step_at(1, 1), nullptr);
    EXPECT_EQ(t.step_at(1, 1)->line, 11);
}

TEST(DebugTimeline, TheRecordingCrossesTheWireWithItsAccessesChecked) {
    LaunchResult l;
    l.debug = made_up();
    l.debug->focus_warp = 0;
    auto decoded = decode_response(encode_response(Response{l}));
    ASSERT_TRUE(decoded.ok()) << decoded.error().message;
    const LaunchResult back = std::get<LaunchResult>(*decoded);
    ASSERT_TRUE(back.debug.has_value());
    const DebugRecording& d = *back.debug;
    EXPECT_TRUE(d.accesses_recorded);
    EXPECT_EQ(d.focus_warp, 0);
    ASSERT_EQ(d.accesses.size(), l.debug->accesses.size());
    for (size_t k = 0; k < d.accesses.size(); ++k) {
        const DebugAccess &a = d.accesses[k], &b = l.debug->accesses[k];
        EXPECT_EQ(a.address, b.address);
        EXPECT_EQ(a.round, b.round);
        EXPECT_EQ(a.thread, b.thread);
        EXPECT_EQ(a.line, b.line);
        EXPECT_EQ(a.bytes, b.bytes);
        EXPECT_EQ(a.write, b.write);
    }
    EXPECT_EQ(d.shared.at(0).base, 0x1000u);
    // A worker that names a thread outside the block is refused, not trusted.
    LaunchResult bad = l;
    bad.debug->accesses[3].thread = 7;
    EXPECT_FALSE(decode_response(encode_response(Response{bad})).ok());
    LaunchResult past = l;  // a warp the block does not have
    past.debug->focus_warp = 1;
    EXPECT_FALSE(decode_response(encode_response(Response{past})).ok());
    // The request's warp crosses too.
    LaunchRequest ask;
    ask.debug_block = 3;
    ask.debug_warp = 2;
    auto asked = decode_request(encode_request(Request{ask}));
    ASSERT_TRUE(asked.ok()) << asked.error().message;
    EXPECT_EQ(std::get<LaunchRequest>(*asked).debug_warp, 2);
    EXPECT_EQ(std::get<LaunchRequest>(*asked).debug_block, 3u);
    LaunchResult unordered = l;
    std::swap(unordered.debug->accesses[0].round, unordered.debug->accesses[7].round);
    EXPECT_FALSE(decode_response(encode_response(Response{unordered})).ok());
}

// The recording's tables travel packed in the message's blob: every field of every step, variable and access comes
// back as it was (a variable pointing back at bytes kept earlier, large addresses and values, a load's value),
// and a blob cut short or a count larger than its table is refused.
TEST(DebugTimeline, ThePackedTablesComeBackFieldByFieldAndADamagedBlobIsRefused) {
    LaunchResult l;
    l.debug = made_up();
    DebugRecording& r = *l.debug;
    DebugVariable back = r.variables[0];  // the last step's variable reads the first step's bytes again
    back.pointee_kind = DebugValueKind::Float;
    back.pointee_size = 4;
    back.count = 1;
    r.variables.back() = back;
    r.accesses[1].has_value = true;
    r.accesses[1].value = 0xfedcba9876543210ull;
    r.accesses[2].address = 0x7ffd'1234'5678'9abcull;
    r.regions.push_back({"far", 0x7ffd'1234'5678'9000ull, 4096, 4});
    const WireMessage message = encode_response(Response{l});
    EXPECT_GE(message.blob.size(), r.values.size());
    auto decoded = decode_response(message);
    ASSERT_TRUE(decoded.ok()) << decoded.error().message;
    const DebugRecording& d = *std::get<LaunchResult>(*decoded).debug;
    ASSERT_EQ(d.steps.size(), r.steps.size());
    for (size_t k = 0; k < d.steps.size(); ++k) {
        EXPECT_EQ(d.steps[k].round, r.steps[k].round);
        EXPECT_EQ(d.steps[k].thread, r.steps[k].thread);
        EXPECT_EQ(d.steps[k].line, r.steps[k].line);
        EXPECT_EQ(d.steps[k].first_variable, r.steps[k].first_variable);
        EXPECT_EQ(d.steps[k].variable_count, r.steps[k].variable_count);
    }
    ASSERT_EQ(d.variables.size(), r.variables.size());
    for (size_t k = 0; k < d.variables.size(); ++k) {
        const DebugVariable &a = d.variables[k], &b = r.variables[k];
        EXPECT_EQ(a.name, b.name);
        EXPECT_EQ(a.kind, b.kind);
        EXPECT_EQ(a.element_size, b.element_size);
        EXPECT_EQ(a.count, b.count);
        EXPECT_EQ(a.offset, b.offset) << "variable " << k;
        EXPECT_EQ(a.bytes, b.bytes);
        EXPECT_EQ(a.pointee_kind, b.pointee_kind);
        EXPECT_EQ(a.pointee_size, b.pointee_size);
    }
    EXPECT_EQ(d.variables.back().offset, 0u);
    EXPECT_EQ(d.values, r.values);
    ASSERT_EQ(d.accesses.size(), r.accesses.size());
    EXPECT_EQ(d.accesses[2].address, 0x7ffd'1234'5678'9abcull);
    EXPECT_TRUE(d.accesses[1].has_value);
    EXPECT_EQ(d.accesses[1].value, 0xfedcba9876543210ull);
    EXPECT_FALSE(d.accesses[0].has_value);
    // Damaged on the way: the blob cut short, or more steps said than the table holds.
    WireMessage cut = message;
    cut.blob.resize(cut.blob.size() / 2);
    EXPECT_FALSE(decode_response(cut).ok());
    WireMessage more = message;
    nlohmann::json j = nlohmann::json::parse(more.json);
    ASSERT_TRUE(j.contains("debug"));
    j["debug"]["step_count"] = r.steps.size() + 1;
    more.json = j.dump();
    EXPECT_FALSE(decode_response(more).ok());
    j["debug"]["step_count"] = uint64_t(1) << 40;
    more.json = j.dump();
    EXPECT_FALSE(decode_response(more).ok());
}

}  // namespace
}  // namespace cp

namespace cp {

// The recorder keeps an array's bytes once while they stay the same from one probe of the thread to the next: the
// later steps point at them, and every step still reads its own values (here a weight table that never changes and
// a tile that changes at the third probe).
TEST(DebugRecorderArrays, AnUnchangedArrayIsKeptOnceAndEveryStepReadsItsValues) {
    DebugRecorder rec(Dim3{0, 0, 0}, Dim3{1, 1, 1}, nullptr, nullptr);
    float weights[16], tile[8];
    for (int k = 0; k < 16; ++k) weights[k] = 0.5f * float(k);
    for (int k = 0; k < 8; ++k) tile[k] = 0;
    auto value = [](const void* data, unsigned count) {
        return cp_abi::DebugValue{cp_abi::kValueFloat, 4, count, count * 4, data, 0, 0};
    };
    for (int probe = 0; probe < 5; ++probe) {
        if (probe == 2) tile[3] = 7.0f;
        const cp_abi::DebugValue values[2] = {value(weights, 16), value(tile, 8)};
        rec.step(0, 10 + probe, "weights,tile", values, 2);
        rec.end_round();
    }
    const DebugRecording r = rec.take();
    ASSERT_EQ(r.steps.size(), 5u);
    // The weights once, the tile twice (before and after its change).
    EXPECT_EQ(r.values.size(), sizeof weights + 2 * sizeof tile);
    const DebugTimeline t(r);
    for (uint32_t round = 0; round < 5; ++round) {
        const DebugStep* s = t.step_at(0, round);
        ASSERT_NE(s, nullptr);
        const DebugVariable* w = t.variable(*s, "weights");
        const DebugVariable* p = t.variable(*s, "tile");
        ASSERT_TRUE(w && p);
        float got[16];
        std::memcpy(got, r.values.data() + w->offset, sizeof got);
        for (int k = 0; k < 16; ++k) EXPECT_EQ(got[k], 0.5f * float(k));
        float tile_got[8];
        std::memcpy(tile_got, r.values.data() + p->offset, sizeof tile_got);
        EXPECT_EQ(tile_got[3], round >= 2 ? 7.0f : 0.0f) << "round " << round;
    }
}

}  // namespace cp
