// Whole-file text I/O with POSIX calls, so the new contents reach the disk before the rename publishes them.
#include "ui/state/text_file.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <fstream>
#include <sstream>
#include <unistd.h>

namespace cp::ui {

Result<std::string> read_text_file(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) return make_error("cannot read " + path.string() + ": " + std::strerror(errno));
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

Result<bool> write_file_atomically(const std::filesystem::path& path, const std::string& contents) {
    std::error_code ec;
    std::filesystem::create_directories(path.parent_path(), ec);
    if (ec) return make_error("cannot create " + path.parent_path().string() + ": " + ec.message());
    // The temp file sits next to the target so rename() stays within one file system.
    const std::filesystem::path tmp = path.string() + ".tmp" + std::to_string(::getpid());
    const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) return make_error("cannot write " + tmp.string() + ": " + std::strerror(errno));
    size_t done = 0;
    while (done < contents.size()) {
        const ssize_t n = ::write(fd, contents.data() + done, contents.size() - done);
        if (n < 0) {
            if (errno == EINTR) continue;
            const std::string why = std::strerror(errno);
            ::close(fd);
            ::unlink(tmp.c_str());
            return make_error("cannot write " + tmp.string() + ": " + why);
        }
        done += size_t(n);
    }
    ::fsync(fd);
    ::close(fd);
    if (::rename(tmp.c_str(), path.c_str()) != 0) {
        const std::string why = std::strerror(errno);
        ::unlink(tmp.c_str());
        return make_error("cannot replace " + path.string() + ": " + why);
    }
    return true;
}

}  // namespace cp::ui
