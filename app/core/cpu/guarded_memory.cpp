// Guarded buffers: mmap a PROT_NONE reservation, open (or map shared) the pages the data needs, end the data
// at the guard; and the shared-memory files behind buffers that the app and the worker both map.
#include "core/cpu/guarded_memory.h"

#include "core/cpu/access_bounds.h"
#include "core/cpu/sanitizer_support.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>
#include <algorithm>
#include <cerrno>
#include <cstring>
#include <utility>

namespace cp {
namespace {

constexpr unsigned char kSlackPattern = 0xA5;

size_t page_size() {
    static const size_t size = size_t(::sysconf(_SC_PAGESIZE));
    return size;
}

size_t round_up(uint64_t n, size_t to) {
    return size_t((n + to - 1) / to * to);
}

// Where the data starts in its pages: its last byte is the last byte of the last page, so the first byte past
// the end is the guard's and faults, whatever the element size (1001 floats, 999 uchar3s). The start is then
// aligned to the largest power of two dividing the size, which is at least the alignment of the element
// type (a type's size is a multiple of its alignment): a float buffer is 4-byte aligned, a float4 buffer
// 16-byte aligned. A GPU's buffers start 256-byte aligned; a kernel that reads a float buffer of 1001
// elements as float4s needs more than the size gives, which fault_report.cpp explains when it happens.
size_t data_offset(uint64_t bytes, size_t data_pages, size_t start_align = 1) {
    return (data_pages - size_t(bytes)) / start_align * start_align;
}

}  // namespace

// The reservation: guards as large as the buffer (64 KiB .. 1 GiB), so an index up to twice the size still
// faults here instead of landing in another buffer. Address space only; no memory is committed.
Result<GuardedBuffer> GuardedBuffer::reserve(uint64_t bytes, size_t start_align) {
    const size_t page = page_size();
    start_align = std::clamp<size_t>(start_align, 1, page);
    const size_t data_pages = round_up(bytes, page);
    const size_t guard = std::clamp<size_t>(data_pages, size_t(64) << 10, size_t(1) << 30);
    const size_t total = guard + data_pages + guard;
    void* map = ::mmap(nullptr, total, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (map == MAP_FAILED)
        return make_error(ErrorKind::OutOfMemory,
                          "cannot reserve " + std::to_string(bytes) + " bytes for a buffer: " + std::strerror(errno),
                          "use smaller buffers");
    GuardedBuffer b;
    b.map_ = static_cast<std::byte*>(map);
    b.map_bytes_ = total;
    b.slack_ = b.map_ + guard;
    b.data_ = b.slack_ + data_offset(bytes, data_pages, start_align);
    b.end_ = b.data_ + bytes;
    b.tail_end_ = b.slack_ + data_pages;
    b.bytes_ = bytes;
    return b;
}

bool GuardedBuffer::set_accessible(bool accessible) {
    if (!slack_ || tail_end_ <= slack_) return true;
    return ::mprotect(slack_, size_t(tail_end_ - slack_), accessible ? PROT_READ | PROT_WRITE : PROT_NONE) == 0;
}

Result<GuardedBuffer> GuardedBuffer::allocate(uint64_t bytes, size_t start_align) {
    auto reserved = reserve(bytes, start_align);
    if (!reserved) return reserved;
    GuardedBuffer& b = *reserved;
    const size_t data_pages = round_up(bytes, page_size());
    if (data_pages && ::mprotect(b.slack_, data_pages, PROT_READ | PROT_WRITE) != 0)
        return make_error(ErrorKind::OutOfMemory,
                          "cannot allocate " + std::to_string(bytes) + " bytes for a buffer: " + std::strerror(errno),
                          "use smaller buffers");
    forget_stack_poison(b.slack_, data_pages);  // the addresses may have been a fiber stack before
    b.restore_slack();
    bounds_add(b.data_, b.bytes_);  // instrumented kernels check accesses in its first and last page
    return reserved;
}

Result<GuardedBuffer> GuardedBuffer::map_shared(int fd, uint64_t bytes, size_t start_align) {
    auto reserved = reserve(bytes, start_align);
    if (!reserved) return reserved;
    GuardedBuffer& b = *reserved;
    const size_t data_pages = round_up(bytes, page_size());
    if (data_pages && ::mmap(b.slack_, data_pages, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, 0) == MAP_FAILED)
        return make_error(
            ErrorKind::OutOfMemory,
            "cannot map " + std::to_string(bytes) + " bytes of shared memory for a buffer: " + std::strerror(errno),
            "use smaller buffers");
    forget_stack_poison(b.slack_, data_pages);
    b.restore_slack();
    bounds_add(b.data_, b.bytes_);
    return reserved;
}

GuardedBuffer::~GuardedBuffer() {
    release();
}

void GuardedBuffer::release() {
    if (map_) {
        bounds_remove(data_, bytes_);  // harmless for a reservation that failed before bounds_add
        ::munmap(map_, map_bytes_);
    }
    map_ = slack_ = data_ = end_ = tail_end_ = nullptr;
    map_bytes_ = 0;
    bytes_ = 0;
}

GuardedBuffer::GuardedBuffer(GuardedBuffer&& o) noexcept {
    *this = std::move(o);
}

GuardedBuffer& GuardedBuffer::operator=(GuardedBuffer&& o) noexcept {
    if (this != &o) {
        release();
        map_ = std::exchange(o.map_, nullptr);
        map_bytes_ = std::exchange(o.map_bytes_, 0);
        slack_ = std::exchange(o.slack_, nullptr);
        data_ = std::exchange(o.data_, nullptr);
        end_ = std::exchange(o.end_, nullptr);
        tail_end_ = std::exchange(o.tail_end_, nullptr);
        bytes_ = std::exchange(o.bytes_, 0);
    }
    return *this;
}

GuardedBuffer::Location GuardedBuffer::locate(uintptr_t address) const {
    const auto begin = reinterpret_cast<uintptr_t>(map_), end = begin + map_bytes_;
    const auto data = reinterpret_cast<uintptr_t>(data_), data_end = data + bytes_;
    if (!map_ || address < begin || address >= end) return {};
    if (address >= data_end) return {Where::PastEnd, address - data_end};
    if (address < data) return {Where::BeforeStart, data - address};
    return {Where::Inside, address - data};
}

std::optional<GuardedBuffer::Location> GuardedBuffer::written_outside() {
    std::optional<Location> found;
    for (const std::byte* p = tail_end_; p > end_ && !found; --p)  // the highest written byte after the end
        if (p[-1] != std::byte{kSlackPattern}) found = Location{Where::PastEnd, uint64_t(p - 1 - end_)};
    for (const std::byte* p = slack_; p < data_ && !found; ++p)  // else the lowest before the start
        if (*p != std::byte{kSlackPattern}) found = Location{Where::BeforeStart, uint64_t(data_ - p)};
    if (found) restore_slack();
    return found;
}

void GuardedBuffer::restore_slack() {
    if (slack_ && data_ > slack_) std::memset(slack_, kSlackPattern, size_t(data_ - slack_));
    if (end_ && tail_end_ > end_) std::memset(end_, kSlackPattern, size_t(tail_end_ - end_));
}

}  // namespace cp

namespace cp {

// ---- SharedMemoryFile -------------------------------------------------------------------------------------

namespace {

constexpr unsigned kSizeSeals = F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL;

int new_memfd(const std::string& name) {
    std::string label = "cp-" + name;
    for (char& c : label)
        if (c == '/' || c < ' ') c = '_';
    if (label.size() > 240) label.resize(240);
    return ::memfd_create(label.c_str(), MFD_CLOEXEC | MFD_ALLOW_SEALING);
}

}  // namespace

Result<SharedMemoryFile> SharedMemoryFile::create(const std::string& name, uint64_t bytes, size_t start_align) {
    SharedMemoryFile f;
    f.start_align_ = std::max<size_t>(start_align, 1);
    f.fd_ = new_memfd(name);
    if (f.fd_ < 0)
        return make_error(ErrorKind::OutOfMemory,
                          std::string("cannot create shared memory for a buffer: ") + std::strerror(errno));
    f.bytes_ = bytes;
    f.map_bytes_ = round_up(bytes, page_size());
    if (::ftruncate(f.fd_, off_t(f.map_bytes_)) != 0 || ::fcntl(f.fd_, F_ADD_SEALS, kSizeSeals) != 0)
        return make_error(ErrorKind::OutOfMemory,
                          "cannot allocate " + std::to_string(bytes) +
                              " bytes of shared memory for a buffer: " + std::strerror(errno),
                          "use smaller buffers");
    if (f.map_bytes_) {
        void* map = ::mmap(nullptr, f.map_bytes_, PROT_READ | PROT_WRITE, MAP_SHARED, f.fd_, 0);
        if (map == MAP_FAILED)
            return make_error(
                ErrorKind::OutOfMemory,
                "cannot map " + std::to_string(bytes) + " bytes of shared memory for a buffer: " + std::strerror(errno),
                "use smaller buffers");
        f.map_ = static_cast<std::byte*>(map);
    }
    f.data_ = f.map_ + data_offset(bytes, f.map_bytes_, f.start_align_);
    return f;
}

SharedMemoryFile::~SharedMemoryFile() {
    release();
}

void SharedMemoryFile::release() {
    if (map_) ::munmap(map_, map_bytes_);
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
    map_ = data_ = nullptr;
    map_bytes_ = 0;
    bytes_ = 0;
}

SharedMemoryFile::SharedMemoryFile(SharedMemoryFile&& o) noexcept {
    *this = std::move(o);
}

SharedMemoryFile& SharedMemoryFile::operator=(SharedMemoryFile&& o) noexcept {
    if (this != &o) {
        release();
        start_align_ = std::exchange(o.start_align_, 1);
        fd_ = std::exchange(o.fd_, -1);
        map_ = std::exchange(o.map_, nullptr);
        map_bytes_ = std::exchange(o.map_bytes_, 0);
        data_ = std::exchange(o.data_, nullptr);
        bytes_ = std::exchange(o.bytes_, 0);
    }
    return *this;
}

}  // namespace cp
