// Parsing NVRTC logs into Diagnostic values and ptxas "-v" reports into ResourceUsage.
//
// The diagnostic format (NVRTC 12/13, EDG front end):
//   k.cu(3): error: identifier "b" is undefined
//     <the source line, indented by two spaces>
//     <spaces/tabs copied from the source line>^
//             detected during instantiation of ... at line 3        (optional continuation lines)
// The caret line copies the source line's tabs, so the caret's byte offset minus the two-space indent is
// the 0-based column.
#include "core/toolkit/nvrtc_log.h"
#include "core/text_util.h"

#include <regex>
#include <sstream>

namespace cp {

namespace {

std::vector<std::string> split_lines(const std::string& text) {
    std::vector<std::string> lines;
    std::istringstream in(text);
    std::string line;
    while (std::getline(in, line)) {
        if (!line.empty() && line.back() == '\r') line.pop_back();
        lines.push_back(line);
    }
    return lines;
}

// libstdc++'s std::regex recurses as it matches: NVRTC echoes each erroneous source line, a kernel file's line
// can be megabytes long (files are untrusted), and matching one overflowed the stack. Diagnostic lines are
// short, so only a line's first kMaxMatched bytes are matched.
constexpr size_t kMaxMatched = 4096;
std::string head(const std::string& line) { return line.size() > kMaxMatched ? line.substr(0, kMaxMatched) : line; }

bool is_caret_line(const std::string& line) {
    const std::string t = trim(line);
    return t == "^";
}

Severity severity_from(const std::string& word) {
    if (word == "warning") return Severity::Warning;
    if (word == "note" || word == "remark") return Severity::Note;
    return Severity::Error;  // "error", "catastrophic error", "fatal"
}

// "ptxas error   : Entry function 'k' uses too much shared data (0x10000 bytes, 0xc000 max)"
bool parse_ptxas_message(const std::string& line, const std::string& path, Diagnostic* out) {
    static const std::regex re(R"(^ptxas\s+(error|fatal|warning)\s*:\s*(.*)$)");
    std::smatch m;
    if (!std::regex_match(line, m, re)) return false;
    out->file = path;
    out->severity = severity_from(m[1].str());
    out->message = "ptxas: " + m[2].str();
    return true;
}

}  // namespace

std::vector<Diagnostic> parse_nvrtc_diagnostics(const std::string& log, const std::string& path,
                                                int source_line_count) {
    // file(line): severity[ #code[-D]]: message
    static const std::regex located(
        R"(^(.+)\((\d+)\): (catastrophic error|error|warning|note|remark)(?: #[0-9]+(?:-[A-Z])?)?: (.*)$)");
    static const std::regex at_end(
        R"(^At end of source: (catastrophic error|error|warning|note|remark)(?: #[0-9]+(?:-[A-Z])?)?: (.*)$)");
    // Option errors and other messages without a location: "nvrtc: error: invalid value for --gpu-architecture"
    static const std::regex unlocated(R"(^(?:nvrtc|nvcc|error)(?:: (error|warning))?: (.*)$)");

    const std::vector<std::string> lines = split_lines(log);
    std::vector<Diagnostic> diags;
    size_t i = 0;
    while (i < lines.size()) {
        const std::string line = head(lines[i]);
        std::smatch m;
        Diagnostic d;
        d.file = path;
        bool has_block = false;
        if (std::regex_match(line, m, located)) {
            d.file = m[1].str();
            d.line = std::stoi(m[2].str());
            d.severity = severity_from(m[3].str());
            d.message = m[4].str();
            has_block = true;
        } else if (std::regex_match(line, m, at_end)) {
            d.line = source_line_count;
            d.severity = severity_from(m[1].str());
            d.message = m[2].str();
            has_block = true;
        } else if (parse_ptxas_message(line, path, &d)) {
        } else if (std::regex_match(line, m, unlocated)) {
            d.severity = m[1].matched ? severity_from(m[1].str()) : Severity::Error;
            d.message = m[2].str();
        } else {
            ++i;
            continue;
        }
        ++i;
        if (has_block) {
            // The block runs to the next blank line (or the next located message).
            size_t end = i;
            while (end < lines.size() && !trim(lines[end]).empty() && !std::regex_match(head(lines[end]), located) &&
                   !std::regex_match(head(lines[end]), at_end))
                ++end;
            size_t caret = end;
            for (size_t k = i; k < end; ++k)
                if (is_caret_line(lines[k]) && k > i) {
                    caret = k;
                    break;
                }
            if (caret < end) {
                const size_t pos = lines[caret].find('^');
                d.column = pos >= 2 ? int(pos - 2) + 1 : int(pos) + 1;
            }
            for (size_t k = i; k < end; ++k) {
                if (caret < end && (k == caret || k + 1 == caret)) continue;  // excerpt and caret
                const std::string extra = trim(lines[k]);
                if (!extra.empty()) d.message += "; " + extra;
            }
            i = end;
        }
        diags.push_back(std::move(d));
    }
    return diags;
}

std::vector<std::string> ptxas_entry_functions(const std::string& log) {
    static const std::regex entry(R"(Compiling entry function '([^']+)')");
    std::vector<std::string> names;
    for (const std::string& full : split_lines(log)) {
        const std::string line = head(full);
        std::smatch m;
        if (std::regex_search(line, m, entry)) names.push_back(m[1].str());
    }
    return names;
}

ResourceUsage parse_ptxas_usage(const std::string& log, const std::string& lowered_name, bool* found) {
    static const std::regex entry(R"(Compiling entry function '([^']+)')");
    static const std::regex properties(R"(Function properties for (\S+))");
    static const std::regex frame(R"((\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads)");
    static const std::regex regs(R"(Used (\d+) registers)");
    static const std::regex barriers(R"(used (\d+) barriers)");
    static const std::regex stack(R"((\d+) bytes cumulative stack size)");
    static const std::regex smem(R"((\d+) bytes smem)");

    std::string want = lowered_name;
    if (want.empty()) {
        const auto entries = ptxas_entry_functions(log);
        if (entries.size() == 1) want = entries.front();
    }
    ResourceUsage u;
    bool seen = false;
    std::string current_entry, current_properties;
    for (const std::string& full : split_lines(log)) {
        const std::string line = head(full);
        std::smatch m;
        if (std::regex_search(line, m, entry)) {
            current_entry = m[1].str();
            continue;
        }
        if (std::regex_search(line, m, properties)) {
            current_properties = m[1].str();
            continue;
        }
        if (std::regex_search(line, m, frame)) {
            if (current_properties == want) {
                if (u.local_bytes < 0) u.local_bytes = std::stoi(m[1].str());
                u.spill_store_bytes = std::stoi(m[2].str());
                u.spill_load_bytes = std::stoi(m[3].str());
            }
            continue;
        }
        if (current_entry != want || want.empty()) continue;
        if (std::regex_search(line, m, regs)) {
            seen = true;
            u.registers = std::stoi(m[1].str());
            if (std::regex_search(line, m, barriers)) u.barriers = std::stoi(m[1].str());
            // The cumulative stack size includes callees, so it is what a thread really needs.
            if (std::regex_search(line, m, stack)) u.local_bytes = std::stoi(m[1].str());
            u.static_shared_bytes = std::regex_search(line, m, smem) ? std::stoi(m[1].str()) : 0;
        }
    }
    if (found) *found = seen;
    return u;
}

}  // namespace cp
