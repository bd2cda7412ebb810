// Free host memory, and the refusal a run gets when its buffers do not fit (see memory_budget.h).
#include "core/session/memory_budget.h"

#include <cstdio>
#include <fstream>
#include <sstream>

namespace cp {

namespace {

uint64_t read_number_file(const char* path) {
    std::ifstream in(path);
    std::string text;
    if (!(in >> text) || text == "max") return 0;
    try {
        return std::stoull(text);
    } catch (...) {
        return 0;
    }
}

}  // namespace

uint64_t mem_available_from_meminfo(const std::string& meminfo) {
    std::istringstream in(meminfo);
    std::string line;
    while (std::getline(in, line)) {
        unsigned long long kib = 0;
        if (std::sscanf(line.c_str(), "MemAvailable: %llu kB", &kib) == 1) return mul_sat(kib, 1024);
    }
    return 0;
}

uint64_t free_host_memory() {
    std::ifstream in("/proc/meminfo");
    std::stringstream text;
    text << in.rdbuf();
    // A container's limit can be far below the machine's memory.
    return within_cgroup_limit(mem_available_from_meminfo(text.str()), read_number_file("/sys/fs/cgroup/memory.max"),
                               read_number_file("/sys/fs/cgroup/memory.current"));
}

uint64_t within_cgroup_limit(uint64_t available, uint64_t limit, uint64_t used) {
    if (limit == 0) return available;
    const uint64_t left = limit > used ? limit - used : 0;
    return available == 0 || left < available ? left : available;
}

std::string human_bytes(uint64_t bytes) {
    char buf[64];
    if (bytes >= (1ull << 30)) std::snprintf(buf, sizeof buf, "%.1f GiB", double(bytes) / double(1ull << 30));
    else if (bytes >= (1ull << 20)) std::snprintf(buf, sizeof buf, "%.1f MiB", double(bytes) / double(1ull << 20));
    else std::snprintf(buf, sizeof buf, "%llu bytes", static_cast<unsigned long long>(bytes));
    return buf;
}

uint64_t add_sat(uint64_t a, uint64_t b) { return a > UINT64_MAX - b ? UINT64_MAX : a + b; }

uint64_t mul_sat(uint64_t a, uint64_t b) { return b != 0 && a > UINT64_MAX / b ? UINT64_MAX : a * b; }

std::optional<Error> check_fits(const std::string& what, const std::string& where, uint64_t needed,
                                uint64_t free_bytes) {
    if (free_bytes == 0 || needed <= free_bytes) return std::nullopt;
    return make_error(ErrorKind::OutOfMemory,
                      what + " need " + human_bytes(needed) + " of " + where + " memory but only " +
                          human_bytes(free_bytes) + " is free",
                      "use a smaller size (e.g. a smaller n or a smaller image), or close programs that use memory");
}

}  // namespace cp
