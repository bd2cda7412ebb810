// Whole-file text I/O with POSIX calls, so the new contents reach the disk before the rename publishes them.
#include "ui/state/text_file.h"

#include <atomic>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <fstream>
#include <sstream>
#include <unistd.h>

namespace cp::ui {

Result<std::string> read_text_file(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) return make_error(ErrorKind::Io, "cannot read " + path.string() + ": " + std::strerror(errno));
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

namespace {

std::atomic<WriteStageHook> g_stage_hook{nullptr};

void reached(WriteStage stage) {
    if (const WriteStageHook hook = g_stage_hook.load()) hook(stage);
}

}  // namespace

void set_write_stage_hook(WriteStageHook hook) { g_stage_hook.store(hook); }

Result<bool> write_file_atomically(const std::filesystem::path& where, const std::string& contents) {
    std::error_code ec;
    // A link is followed: the file it names gets the new contents (renaming over the link would replace it).
    std::filesystem::path path = where;
    if (std::filesystem::is_symlink(where, ec)) {
        const std::filesystem::path target = std::filesystem::canonical(where, ec);
        if (!ec) path = target;
    }
    std::filesystem::create_directories(path.parent_path(), ec);
    if (ec) return make_error(ErrorKind::Io, "cannot create " + path.parent_path().string() + ": " + ec.message());
    // The temp file sits next to the target so rename() stays within one file system.
    const std::filesystem::path tmp = path.string() + ".tmp" + std::to_string(::getpid());
    const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) return make_error(ErrorKind::Io, "cannot write " + tmp.string() + ": " + std::strerror(errno));
    // A file saved in place (the user's own) keeps its permissions.
    if (struct stat st {}; ::stat(path.c_str(), &st) == 0) (void)::fchmod(fd, st.st_mode & 07777);
    // Writes bytes [done, end) of the contents; false (with errno) when the disk refuses.
    size_t done = 0;
    auto write_up_to = [&](size_t end) {
        while (done < end) {
            const ssize_t n = ::write(fd, contents.data() + done, end - done);
            if (n < 0 && errno == EINTR) continue;
            if (n < 0) return false;
            done += size_t(n);
        }
        return true;
    };
    bool written = write_up_to(contents.size() / 2);
    if (written) {
        reached(WriteStage::PartWritten);
        written = write_up_to(contents.size());
    }
    if (!written) {
        const std::string why = std::strerror(errno);
        ::close(fd);
        ::unlink(tmp.c_str());
        return make_error(ErrorKind::Io, "cannot write " + tmp.string() + ": " + why);
    }
    ::fsync(fd);
    ::close(fd);
    reached(WriteStage::Written);
    if (::rename(tmp.c_str(), path.c_str()) != 0) {
        const std::string why = std::strerror(errno);
        ::unlink(tmp.c_str());
        return make_error(ErrorKind::Io, "cannot replace " + path.string() + ": " + why);
    }
    reached(WriteStage::Renamed);
    return true;
}

}  // namespace cp::ui
