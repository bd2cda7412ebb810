// Reading and writing raw data files (data_file.h).
#include "core/data/data_file.h"

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace cp {

namespace {

// FNV-1a over the bytes, 64 bits: enough to tell an edited file from the one read before.
uint64_t content_hash(const std::vector<std::byte>& bytes) {
    uint64_t h = 1469598103934665603ull;
    for (const std::byte b : bytes) h = (h ^ uint64_t(b)) * 1099511628211ull;
    return h;
}

std::string size_text(uint64_t bytes) {
    char text[64];
    if (bytes >= (uint64_t(1) << 20))
        std::snprintf(text, sizeof text, "%.1f MiB", double(bytes) / double(1 << 20));
    else
        std::snprintf(text, sizeof text, "%llu bytes", static_cast<unsigned long long>(bytes));
    return text;
}

}  // namespace

Result<DataFile> load_data_file(const std::filesystem::path& kernel_path, const std::string& written,
                                uint64_t max_bytes) {
    const std::filesystem::path path = kernel_path.parent_path() / written;
    std::error_code ec;
    if (!std::filesystem::is_regular_file(path, ec)) {
        return make_error(ErrorKind::Io, "data file `" + written + "` was not found next to the kernel file (" +
                                             path.string() + ")",
                          "put the file there, or fill the buffer another way (zeros, random(...), ramp(...))");
    }
    const uint64_t size = std::filesystem::file_size(path, ec);
    if (ec) return make_error(ErrorKind::Io, "data file `" + written + "` could not be read: " + ec.message());
    if (size > max_bytes) {
        return make_error(ErrorKind::UserInput, "data file `" + written + "` is " + size_text(size) +
                                                    ", above the " + size_text(max_bytes) + " a buffer may be read from",
                          "use a smaller file");
    }
    std::FILE* f = std::fopen(path.c_str(), "rb");
    if (!f) {
        return make_error(ErrorKind::Io, "data file `" + written + "` could not be opened: " + std::strerror(errno));
    }
    auto bytes = std::make_shared<std::vector<std::byte>>(size);
    const size_t got = size ? std::fread(bytes->data(), 1, size, f) : 0;
    std::fclose(f);
    if (got != size) {
        return make_error(ErrorKind::Io, "data file `" + written + "` ended after " + std::to_string(got) + " of " +
                                             std::to_string(size) + " bytes while it was read");
    }
    DataFile file;
    file.path = path.string();
    file.key = file.path + ":" + std::to_string(size) + ":" + std::to_string(content_hash(*bytes));
    file.bytes = std::move(bytes);
    return file;
}

Result<bool> save_data_file(const std::filesystem::path& path, const std::byte* bytes, size_t size) {
    std::FILE* f = std::fopen(path.c_str(), "wb");
    if (!f) return make_error(ErrorKind::Io, "could not write `" + path.string() + "`: " + std::strerror(errno));
    const size_t put = size ? std::fwrite(bytes, 1, size, f) : 0;
    const bool closed = std::fclose(f) == 0;
    if (put != size || !closed) return make_error(ErrorKind::Io, "could not write all of `" + path.string() + "`");
    return true;
}

}  // namespace cp
