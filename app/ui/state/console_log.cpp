// Console log storage: a bounded list of timestamped messages.
#include "ui/state/console_log.h"

#include <algorithm>
#include <ctime>

namespace cp::ui {

const char* log_kind_name(LogKind k) {
    switch (k) {
        case LogKind::Info: return "info";
        case LogKind::Compile: return "compile";
        case LogKind::Printf: return "printf";
        case LogKind::Warning: return "warning";
        case LogKind::Error: return "error";
    }
    return "?";
}

std::string LogEntry::clock() const {
    const std::time_t t = std::chrono::system_clock::to_time_t(when);
    std::tm local{};
    localtime_r(&t, &local);
    const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(when.time_since_epoch()).count() % 1000;
    char buf[32];
    std::snprintf(buf, sizeof buf, "%02d:%02d:%02d.%03d", local.tm_hour, local.tm_min, local.tm_sec, int(ms));
    return buf;
}

void ConsoleLog::add(LogKind kind, std::string text) {
    while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.pop_back();
    if (text.empty()) return;
    entries_.push_back({std::chrono::system_clock::now(), kind, std::move(text)});
    ++added_;
    while (entries_.size() > capacity_) entries_.pop_front();
}

size_t ConsoleLog::errors() const {
    return size_t(std::count_if(entries_.begin(), entries_.end(), [](const LogEntry& e) { return e.kind == LogKind::Error; }));
}

}  // namespace cp::ui
