// Formatting helpers for the core value types.
#include "core/types.h"

#include <algorithm>
#include <cstddef>
#include <cstring>

namespace cp {

std::string Dim3::str() const {
    return std::to_string(x) + "x" + std::to_string(y) + "x" + std::to_string(z);
}

std::string ThreadOrderChoice::str() const {
    switch (kind) {
        case Kind::Natural: return "natural";
        case Kind::Reversed: return "reversed";
        case Kind::Shuffled: return "shuffled:" + std::to_string(seed);
    }
    return "?";
}

bool parse_thread_order(const std::string& text, ThreadOrderChoice& out, std::string* why) {
    std::string name = text;
    ThreadOrderChoice c;
    if (const size_t colon = name.find(':'); colon != std::string::npos) {
        const std::string seed = name.substr(colon + 1);
        name.resize(colon);
        const bool digits = !seed.empty() && seed.size() <= 19 &&
                            std::all_of(seed.begin(), seed.end(), [](char ch) { return ch >= '0' && ch <= '9'; });
        if (name != "shuffled" || !digits) {
            if (why) *why = name != "shuffled" ? "only shuffled takes a seed (shuffled:SEED)" : "the seed after ':' must be a whole number";
            return false;
        }
        c.seed = std::stoull(seed);
    }
    if (name == "natural") c.kind = ThreadOrderChoice::Kind::Natural;
    else if (name == "reversed") c.kind = ThreadOrderChoice::Kind::Reversed;
    else if (name == "shuffled") c.kind = ThreadOrderChoice::Kind::Shuffled;
    else {
        if (why) *why = "the orders are natural, reversed and shuffled[:SEED]";
        return false;
    }
    out = c;
    return true;
}

const char* severity_name(Severity s) {
    switch (s) {
        case Severity::Error: return "error";
        case Severity::Warning: return "warning";
        case Severity::Note: return "note";
    }
    return "?";
}

std::string Diagnostic::str() const {
    std::string out = file.empty() ? std::string("<input>") : file;
    if (line > 0) {
        out += ":" + std::to_string(line);
        if (column > 0) out += ":" + std::to_string(column);
    }
    return out + ": " + severity_name(severity) + ": " + message;
}

bool has_errors(const std::vector<Diagnostic>& diags) {
    return std::any_of(diags.begin(), diags.end(), [](const Diagnostic& d) { return d.severity == Severity::Error; });
}

void fill_with_pattern(std::byte* dst, uint64_t bytes, const std::vector<std::byte>& pattern) {
    if (pattern.empty() || bytes == 0) return;
    // One byte repeated (zeros, the usual output reset): one pass of writes instead of reads and writes.
    if (std::all_of(pattern.begin(), pattern.end(), [&](std::byte b) { return b == pattern[0]; })) {
        std::memset(dst, std::to_integer<int>(pattern[0]), bytes);
        return;
    }
    std::copy(pattern.begin(), pattern.end(), dst);
    // Double the filled prefix each step: log2(bytes / pattern) copies instead of one per element.
    uint64_t filled = pattern.size();
    while (filled < bytes) {
        const uint64_t n = std::min(filled, bytes - filled);
        std::copy(dst, dst + n, dst + filled);
        filled += n;
    }
}

}  // namespace cp
