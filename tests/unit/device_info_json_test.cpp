// DeviceInfo's one JSON form (core/engine/device_info_json.h): every field survives the trip, through the
// serialiser itself and through the worker wire that uses it, and the object has exactly the documented keys.
#include "core/engine/device_info_json.h"
#include "core/engine/engine_wire.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <set>
#include <string>

namespace cp {
namespace {

// Every field set to a value that is neither its default nor any other field's, so a field dropped, read into
// the wrong member or swapped with another shows. A field added to DeviceInfo must be added here too.
DeviceInfo every_field_set() {
    DeviceInfo d;
    d.backend = "cuda";
    d.caps.launches = false;  // default true
    d.caps.gpu = true;
    d.caps.device_buffers = true;
    d.caps.buffers_by_ipc = true;
    d.caps.occupancy_api = true;
    d.caps.event_timing = true;
    d.caps.default_repeats = 17;
    d.caps.trace_needs_instrumented_module = true;
    d.caps.sanitizer = true;
    d.caps.thread_order = true;
    d.caps.debug_steps = true;
    d.caps.concurrent_streams = true;
    d.name = "NVIDIA H200";
    d.arch = "sm_90a";
    d.cc_major = 9;
    d.cc_minor = 1;
    d.sm_count = 132;
    d.total_memory = (141ull << 30) + 7;  // past 32 bits
    d.max_threads_per_block = 1000;
    d.max_block = {1001, 1002, 63};
    d.max_grid = {2147483646u, 65534u, 65533u};
    d.max_shared_per_block = 48 * 1024 + 1;
    d.max_shared_per_block_optin = 227 * 1024;
    d.max_shared_per_sm = 228 * 1024;
    d.regs_per_block = 65535;
    d.regs_per_sm = 65537;
    d.max_threads_per_sm = 2047;
    d.max_blocks_per_sm = 31;
    d.warp_size = 33;
    d.l2_bytes = 50 << 20;
    d.copy_bandwidth_gbps = 3912.25;
    d.driver_version = "13.0 (580.65)";
    d.ordinal = 3;
    d.device_count = 8;
    d.notes = "a note";
    d.where = "remote: `ssh gpu01` -> host gpu01";
    return d;
}

// Field by field (DeviceInfo has no operator==): the message names the field that did not come back.
void expect_same(const DeviceInfo& got, const DeviceInfo& want) {
    EXPECT_EQ(got.backend, want.backend);
    EXPECT_EQ(got.caps.launches, want.caps.launches);
    EXPECT_EQ(got.caps.gpu, want.caps.gpu);
    EXPECT_EQ(got.caps.device_buffers, want.caps.device_buffers);
    EXPECT_EQ(got.caps.buffers_by_ipc, want.caps.buffers_by_ipc);
    EXPECT_EQ(got.caps.occupancy_api, want.caps.occupancy_api);
    EXPECT_EQ(got.caps.event_timing, want.caps.event_timing);
    EXPECT_EQ(got.caps.default_repeats, want.caps.default_repeats);
    EXPECT_EQ(got.caps.trace_needs_instrumented_module, want.caps.trace_needs_instrumented_module);
    EXPECT_EQ(got.caps.sanitizer, want.caps.sanitizer);
    EXPECT_EQ(got.caps.thread_order, want.caps.thread_order);
    EXPECT_EQ(got.caps.debug_steps, want.caps.debug_steps);
    EXPECT_EQ(got.caps.concurrent_streams, want.caps.concurrent_streams);
    EXPECT_EQ(got.name, want.name);
    EXPECT_EQ(got.arch, want.arch);
    EXPECT_EQ(got.cc_major, want.cc_major);
    EXPECT_EQ(got.cc_minor, want.cc_minor);
    EXPECT_EQ(got.sm_count, want.sm_count);
    EXPECT_EQ(got.total_memory, want.total_memory);
    EXPECT_EQ(got.max_threads_per_block, want.max_threads_per_block);
    EXPECT_EQ(got.max_block, want.max_block);
    EXPECT_EQ(got.max_grid, want.max_grid);
    EXPECT_EQ(got.max_shared_per_block, want.max_shared_per_block);
    EXPECT_EQ(got.max_shared_per_block_optin, want.max_shared_per_block_optin);
    EXPECT_EQ(got.max_shared_per_sm, want.max_shared_per_sm);
    EXPECT_EQ(got.regs_per_block, want.regs_per_block);
    EXPECT_EQ(got.regs_per_sm, want.regs_per_sm);
    EXPECT_EQ(got.max_threads_per_sm, want.max_threads_per_sm);
    EXPECT_EQ(got.max_blocks_per_sm, want.max_blocks_per_sm);
    EXPECT_EQ(got.warp_size, want.warp_size);
    EXPECT_EQ(got.l2_bytes, want.l2_bytes);
    EXPECT_EQ(got.copy_bandwidth_gbps, want.copy_bandwidth_gbps);  // exact: JSON keeps a double's digits
    EXPECT_EQ(got.driver_version, want.driver_version);
    EXPECT_EQ(got.ordinal, want.ordinal);
    EXPECT_EQ(got.device_count, want.device_count);
    EXPECT_EQ(got.notes, want.notes);
    EXPECT_EQ(got.where, want.where);
}

std::set<std::string> keys_of(const nlohmann::json& j) {
    std::set<std::string> keys;
    for (const auto& [key, value] : j.items()) keys.insert(key);
    return keys;
}

TEST(DeviceInfoJson, EveryFieldRoundTrips) {
    const DeviceInfo d = every_field_set();
    const nlohmann::json j = device_info_to_json(d);
    expect_same(device_info_from_json(j), d);
    // Through text too, as the wire and `info --json` carry it.
    expect_same(device_info_from_json(nlohmann::json::parse(j.dump())), d);
    // And the defaults come back as defaults (no field read from a neighbour).
    expect_same(device_info_from_json(device_info_to_json(DeviceInfo{})), DeviceInfo{});
}

TEST(DeviceInfoJson, TheWorkerWireCarriesTheSameObject) {
    const DeviceInfo d = every_field_set();
    const WireMessage m = encode_response(Response{InfoResult{d}});
    auto decoded = decode_response(m);
    ASSERT_TRUE(decoded.ok()) << decoded.error().message;
    expect_same(std::get<InfoResult>(*decoded).device, d);
    EXPECT_EQ(nlohmann::json::parse(m.json).at("device"), device_info_to_json(d)) << m.json;
}

// The names `info --json` documents (docs/schema/info.schema.json): a renamed or dropped key fails here.
TEST(DeviceInfoJson, HasExactlyTheDocumentedKeys) {
    const nlohmann::json j = device_info_to_json(every_field_set());
    const std::set<std::string> device_keys = {
        "arch", "backend", "capabilities", "compute_capability", "copy_bandwidth_gbps", "device_count",
        "driver_version", "l2_bytes", "max_block", "max_blocks_per_sm", "max_grid", "max_shared_per_block",
        "max_shared_per_block_optin", "max_shared_per_sm", "max_threads_per_block", "max_threads_per_sm", "name",
        "notes", "ordinal", "regs_per_block", "regs_per_sm", "sm_count", "total_memory_bytes", "warp_size", "where"};
    EXPECT_EQ(keys_of(j), device_keys) << j.dump(2);
    const std::set<std::string> capability_keys = {"buffers_by_ipc", "concurrent_streams", "debug_steps", "default_repeats",
                                                   "device_buffers", "event_timing", "gpu", "launches",
                                                   "occupancy_api", "sanitizer", "thread_order",
                                                   "trace_needs_instrumented_module"};
    EXPECT_EQ(keys_of(j.at("capabilities")), capability_keys) << j.dump(2);
    // The values people read: the capability as written, the limits as arrays.
    EXPECT_EQ(j.at("compute_capability"), "9.1");
    EXPECT_EQ(j.at("max_block"), nlohmann::json::array({1001, 1002, 63}));
    EXPECT_EQ(j.at("total_memory_bytes"), (141ull << 30) + 7);
}

TEST(DeviceInfoJson, AMissingOrMalformedFieldIsRefused) {
    nlohmann::json j = device_info_to_json(every_field_set());
    nlohmann::json missing = j;
    missing.erase("regs_per_sm");
    EXPECT_THROW(device_info_from_json(missing), nlohmann::json::exception);
    nlohmann::json no_flag = j;
    no_flag.at("capabilities").erase("sanitizer");
    EXPECT_THROW(device_info_from_json(no_flag), nlohmann::json::exception);
    for (const char* cc : {"9", "9.", ".1", "9.x", "nine.one", "9.1.2"}) {
        nlohmann::json bad = j;
        bad["compute_capability"] = cc;
        EXPECT_THROW(device_info_from_json(bad), std::runtime_error) << cc;
    }
    // On the wire that is a message the app cannot read: an Internal error, not a crash.
    nlohmann::json message = nlohmann::json::parse(encode_response(Response{InfoResult{every_field_set()}}).json);
    message.at("device").erase("where");
    auto decoded = decode_response(WireMessage{message.dump(), {}, {}});
    ASSERT_FALSE(decoded.ok());
    EXPECT_EQ(decoded.error().kind, ErrorKind::Internal);
}

}  // namespace
}  // namespace cp
