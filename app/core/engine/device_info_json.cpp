// DeviceInfo to and from JSON (device_info_json.h). Each struct's fields are listed once, in a visitor that both
// directions call, so a field cannot be written under one name and read under another, or written and not read.
#include "core/engine/device_info_json.h"

#include <charconv>
#include <stdexcept>
#include <type_traits>

namespace cp {

using nlohmann::json;

namespace {

// Calls f(name, member) for every member of `c` (const or not: the same list writes and reads).
template <class Caps, class F>
void capability_fields(Caps& c, F&& f) {
    f("launches", c.launches);
    f("gpu", c.gpu);
    f("device_buffers", c.device_buffers);
    f("buffers_by_ipc", c.buffers_by_ipc);
    f("occupancy_api", c.occupancy_api);
    f("event_timing", c.event_timing);
    f("default_repeats", c.default_repeats);
    f("trace_needs_instrumented_module", c.trace_needs_instrumented_module);
    f("sanitizer", c.sanitizer);
    f("thread_order", c.thread_order);
    f("debug_steps", c.debug_steps);
    f("concurrent_streams", c.concurrent_streams);
}

// Every member of DeviceInfo but cc_major/cc_minor (one "MAJOR.MINOR" string, as people write it) and caps (an
// object of its own).
template <class Info, class F>
void device_fields(Info& d, F&& f) {
    f("backend", d.backend);
    f("name", d.name);
    f("arch", d.arch);
    f("sm_count", d.sm_count);
    f("total_memory_bytes", d.total_memory);
    f("max_threads_per_block", d.max_threads_per_block);
    f("max_block", d.max_block);
    f("max_grid", d.max_grid);
    f("max_shared_per_block", d.max_shared_per_block);
    f("max_shared_per_block_optin", d.max_shared_per_block_optin);
    f("max_shared_per_sm", d.max_shared_per_sm);
    f("regs_per_block", d.regs_per_block);
    f("regs_per_sm", d.regs_per_sm);
    f("max_threads_per_sm", d.max_threads_per_sm);
    f("max_blocks_per_sm", d.max_blocks_per_sm);
    f("warp_size", d.warp_size);
    f("l2_bytes", d.l2_bytes);
    f("copy_bandwidth_gbps", d.copy_bandwidth_gbps);
    f("driver_version", d.driver_version);
    f("ordinal", d.ordinal);
    f("device_count", d.device_count);
    f("notes", d.notes);
    f("where", d.where);
}

// Dim3 as [x, y, z], everything else as nlohmann writes it.
struct Writer {
    json& j;
    template <class T>
    void operator()(const char* name, const T& value) const {
        if constexpr (std::is_same_v<T, Dim3>) j[name] = dim3_json(value);
        else j[name] = value;
    }
};
struct Reader {
    const json& j;
    template <class T>
    void operator()(const char* name, T& value) const {
        const json& v = j.at(name);
        if constexpr (std::is_same_v<T, Dim3>)
            value = Dim3{v.at(0).get<uint32_t>(), v.at(1).get<uint32_t>(), v.at(2).get<uint32_t>()};
        else value = v.get<T>();
    }
};

int parse_int(std::string_view text, const std::string& whole) {
    int value = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc() || end != text.data() + text.size() || text.empty())
        throw std::runtime_error("compute_capability `" + whole + "` is not MAJOR.MINOR");
    return value;
}

}  // namespace

json capabilities_to_json(const BackendCapabilities& caps) {
    json j = json::object();
    capability_fields(caps, Writer{j});
    return j;
}

BackendCapabilities capabilities_from_json(const json& j) {
    BackendCapabilities caps;
    capability_fields(caps, Reader{j});
    return caps;
}

json device_info_to_json(const DeviceInfo& device) {
    json j = json::object();
    device_fields(device, Writer{j});
    j["compute_capability"] = std::to_string(device.cc_major) + "." + std::to_string(device.cc_minor);
    j["capabilities"] = capabilities_to_json(device.caps);
    return j;
}

DeviceInfo device_info_from_json(const json& j) {
    DeviceInfo device;
    device_fields(device, Reader{j});
    const std::string cc = j.at("compute_capability").get<std::string>();
    const size_t dot = cc.find('.');
    if (dot == std::string::npos) throw std::runtime_error("compute_capability `" + cc + "` is not MAJOR.MINOR");
    device.cc_major = parse_int(std::string_view(cc).substr(0, dot), cc);
    device.cc_minor = parse_int(std::string_view(cc).substr(dot + 1), cc);
    device.caps = capabilities_from_json(j.at("capabilities"));
    return device;
}

nlohmann::json dim3_json(const Dim3& d) { return nlohmann::json::array({d.x, d.y, d.z}); }

}  // namespace cp
