// The NVRTC result cache on disk: JSON entries with a base64 cubin and a checksum, written atomically.
#include "core/toolkit/cubin_cache.h"

#include <nlohmann/json.hpp>

#include <cstdlib>
#include <fstream>
#include <random>
#include <sstream>
#include <system_error>

namespace cp {

namespace {

constexpr int kFormatVersion = 1;
constexpr char kBase64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

std::string base64_encode(const std::vector<std::byte>& data) {
    std::string out;
    out.reserve((data.size() + 2) / 3 * 4);
    for (size_t i = 0; i < data.size(); i += 3) {
        uint32_t v = uint32_t(data[i]) << 16;
        if (i + 1 < data.size()) v |= uint32_t(data[i + 1]) << 8;
        if (i + 2 < data.size()) v |= uint32_t(data[i + 2]);
        out += kBase64[(v >> 18) & 63];
        out += kBase64[(v >> 12) & 63];
        out += i + 1 < data.size() ? kBase64[(v >> 6) & 63] : '=';
        out += i + 2 < data.size() ? kBase64[v & 63] : '=';
    }
    return out;
}

std::optional<std::vector<std::byte>> base64_decode(const std::string& text) {
    if (text.size() % 4) return std::nullopt;
    auto value = [](char c) -> int {
        if (c >= 'A' && c <= 'Z') return c - 'A';
        if (c >= 'a' && c <= 'z') return c - 'a' + 26;
        if (c >= '0' && c <= '9') return c - '0' + 52;
        if (c == '+') return 62;
        if (c == '/') return 63;
        return -1;
    };
    std::vector<std::byte> out;
    out.reserve(text.size() / 4 * 3);
    for (size_t i = 0; i < text.size(); i += 4) {
        uint32_t v = 0;
        int pad = 0;
        for (int k = 0; k < 4; ++k) {
            const char c = text[i + k];
            if (c == '=' && i + 4 == text.size() && k >= 2) {
                ++pad;
                v <<= 6;
                continue;
            }
            const int x = value(c);
            if (x < 0 || pad) return std::nullopt;
            v = (v << 6) | uint32_t(x);
        }
        out.push_back(std::byte((v >> 16) & 255));
        if (pad < 2) out.push_back(std::byte((v >> 8) & 255));
        if (pad < 1) out.push_back(std::byte(v & 255));
    }
    return out;
}

std::string hex64(uint64_t v) {
    static const char digits[] = "0123456789abcdef";
    std::string s(16, '0');
    for (int i = 15; i >= 0; --i, v >>= 4) s[size_t(i)] = digits[v & 15];
    return s;
}

std::string_view bytes_view(const std::vector<std::byte>& data) {
    return {reinterpret_cast<const char*>(data.data()), data.size()};
}

nlohmann::json usage_json(const ResourceUsage& u) {
    return {{"registers", u.registers},         {"static_shared_bytes", u.static_shared_bytes},
            {"local_bytes", u.local_bytes},     {"spill_store_bytes", u.spill_store_bytes},
            {"spill_load_bytes", u.spill_load_bytes}, {"constant_bytes", u.constant_bytes},
            {"max_threads_per_block", u.max_threads_per_block}, {"barriers", u.barriers}};
}

ResourceUsage usage_from_json(const nlohmann::json& j) {
    ResourceUsage u;
    u.registers = j.at("registers").get<int>();
    u.static_shared_bytes = j.at("static_shared_bytes").get<int>();
    u.local_bytes = j.at("local_bytes").get<int>();
    u.spill_store_bytes = j.at("spill_store_bytes").get<int>();
    u.spill_load_bytes = j.at("spill_load_bytes").get<int>();
    u.constant_bytes = j.at("constant_bytes").get<int>();
    u.max_threads_per_block = j.at("max_threads_per_block").get<int>();
    u.barriers = j.at("barriers").get<int>();
    return u;
}

}  // namespace

uint64_t fnv1a64(std::string_view data, uint64_t basis) {
    uint64_t h = basis;
    for (const char c : data) {
        h ^= uint8_t(c);
        h *= 0x100000001b3ull;
    }
    return h;
}

std::string cache_key(std::string_view inputs) {
    // A second basis makes the key 128 bits wide, so colliding inputs are not a practical concern.
    return hex64(fnv1a64(inputs)) + hex64(fnv1a64(inputs, 0x84222325cbf29ce4ull));
}

std::filesystem::path user_cache_dir() {
    if (const char* dir = std::getenv("CUDA_PLAYGROUND_CACHE_DIR"); dir && *dir) return std::filesystem::path(dir);
    if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg)
        return std::filesystem::path(xdg) / "cuda-playground";
    if (const char* home = std::getenv("HOME"); home && *home)
        return std::filesystem::path(home) / ".cache" / "cuda-playground";
    return {};
}

std::filesystem::path cubin_cache_dir() {
    if (const char* off = std::getenv("CUDA_PLAYGROUND_NO_CACHE"); off && *off && std::string(off) != "0") return {};
    const std::filesystem::path base = user_cache_dir();
    return base.empty() ? base : base / "cubin";
}

std::optional<CachedCompile> load_cached_compile(const std::filesystem::path& dir, const std::string& key) {
    if (dir.empty()) return std::nullopt;
    std::ifstream in(dir / (key + ".json"), std::ios::binary);
    if (!in) return std::nullopt;
    std::stringstream text;
    text << in.rdbuf();
    try {
        const auto j = nlohmann::json::parse(text.str());
        if (j.at("format").get<int>() != kFormatVersion || j.at("key").get<std::string>() != key)
            return std::nullopt;
        CachedCompile entry;
        entry.log = j.at("log").get<std::string>();
        entry.lowered_name = j.at("lowered_name").get<std::string>();
        entry.also_lowered = j.value("also_lowered", std::map<std::string, std::string>{});
        entry.usage = usage_from_json(j.at("usage"));
        auto image = base64_decode(j.at("image").get<std::string>());
        if (!image || image->empty() || image->size() != j.at("image_size").get<size_t>() ||
            hex64(fnv1a64(bytes_view(*image))) != j.at("image_fnv").get<std::string>())
            return std::nullopt;
        entry.image = std::move(*image);
        return entry;
    } catch (const std::exception&) {
        return std::nullopt;  // truncated, hand-edited or from another version: treat as a miss
    }
}

bool write_file_whole(const std::filesystem::path& path, const std::string& text) {
    std::error_code ec;
    std::filesystem::create_directories(path.parent_path(), ec);
    // Another process (or thread) may write the same file at the same time: each writes its own temporary file
    // and the rename makes one of them win whole.
    std::random_device rd;
    const auto tmp = path.string() + ".tmp" + hex64((uint64_t(rd()) << 32) | rd());
    {
        std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
        if (!out) return false;
        out << text;
        if (!out) {
            std::filesystem::remove(tmp, ec);
            return false;
        }
    }
    std::filesystem::rename(tmp, path, ec);
    const bool stored = !ec;
    if (!stored) std::filesystem::remove(tmp, ec);
    return stored;
}

bool store_cached_compile(const std::filesystem::path& dir, const std::string& key, const CachedCompile& entry) {
    if (dir.empty()) return false;
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (ec) return false;
    const nlohmann::json j = {{"format", kFormatVersion},
                              {"key", key},
                              {"log", entry.log},
                              {"lowered_name", entry.lowered_name},
                              {"also_lowered", entry.also_lowered},
                              {"usage", usage_json(entry.usage)},
                              {"image_size", entry.image.size()},
                              {"image_fnv", hex64(fnv1a64(bytes_view(entry.image)))},
                              {"image", base64_encode(entry.image)}};
    // Invalid UTF-8 in the log must not throw: replace it.
    return write_file_whole(dir / (key + ".json"), j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
}

}  // namespace cp
