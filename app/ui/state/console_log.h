// The messages shown in the Console panel: compile logs, device printf, errors, notes, each timestamped.
#pragma once

#include <chrono>
#include <cstddef>
#include <deque>
#include <string>

namespace cp::ui {

enum class LogKind { Info, Compile, Printf, Warning, Error };
const char* log_kind_name(LogKind k);

struct LogEntry {
    std::chrono::system_clock::time_point when;
    LogKind kind = LogKind::Info;
    std::string text;
    std::string clock() const;  // "14:03:07.125"
};

class ConsoleLog {
public:
    explicit ConsoleLog(size_t capacity = 2000) : capacity_(capacity) {}
    void add(LogKind kind, std::string text);
    void clear() { entries_.clear(); }
    const std::deque<LogEntry>& entries() const { return entries_; }
    size_t errors() const;
    uint64_t added() const { return added_; }  // total ever added (the panel scrolls when it changes)

private:
    size_t capacity_;
    std::deque<LogEntry> entries_;
    uint64_t added_ = 0;
};

}  // namespace cp::ui
