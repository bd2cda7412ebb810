// Measured coverage (coverage.h): sentinels, counting never-written elements, and the warning they replace.
#include "core/session/coverage.h"

#include <algorithm>
#include <cstring>

namespace cp {

std::vector<std::byte> coverage_sentinel(size_t element_bytes, int pass) {
    return std::vector<std::byte>(element_bytes, std::byte(pass == 0 ? 0xA5 : 0x5A));
}

CoverageMap count_unwritten(const std::string& buffer, size_t element_bytes, const std::vector<std::byte>& first,
                            const std::vector<std::byte>& second) {
    CoverageMap map;
    map.buffer = buffer;
    if (element_bytes == 0) return map;
    map.elements = std::min(first.size(), second.size()) / element_bytes;
    map.unwritten.assign(map.elements, 0);
    const std::vector<std::byte> s0 = coverage_sentinel(element_bytes, 0), s1 = coverage_sentinel(element_bytes, 1);
    for (uint64_t i = 0; i < map.elements; ++i) {
        const std::byte* a = first.data() + i * element_bytes;
        const std::byte* b = second.data() + i * element_bytes;
        if (std::memcmp(a, s0.data(), element_bytes) == 0 && std::memcmp(b, s1.data(), element_bytes) == 0) {
            map.unwritten[i] = 1;
            ++map.never_written;
        }
    }
    return map;
}

std::string with_thousands(uint64_t n) {
    std::string digits = std::to_string(n), out;
    for (size_t i = 0; i < digits.size(); ++i) {
        if (i && (digits.size() - i) % 3 == 0) out += ',';
        out += digits[i];
    }
    return out;
}

std::string CoverageMap::summary() const {
    if (!not_measured.empty()) return buffer + ": coverage not measured (" + not_measured + ")";
    return with_thousands(never_written) + " of " + with_thousands(elements) + " elements never written";
}

std::string CoverageMap::writers_summary() const {
    if (!writers_not_measured.empty()) return "written-more-than-once not measured: " + writers_not_measured;
    if (!writers_counted) return {};
    if (written_more_than_once == 0) return "no element written by more than one thread";
    return with_thousands(written_more_than_once) + (written_more_than_once == 1 ? " element" : " elements") +
           " written by more than one thread (up to " + std::to_string(max_writers) + ")";
}

void apply_measured_coverage(const std::vector<CoverageMap>& coverage, std::vector<LaunchIssue>& issues) {
    // Elements several threads stored: a race whose last store wins (counted, so no guess to replace).
    for (const auto& c : coverage)
        if (c.writers_counted && c.written_more_than_once > 0)
            issues.push_back(LaunchIssue{Severity::Warning, kWrittenTwiceLimit,
                                         "`" + c.buffer + "`: " + c.writers_summary() +
                                             " (measured): which store lands is down to timing; check that the "
                                             "kernel's indexing gives each thread its own elements",
                                         c.written_more_than_once, c.elements, std::nullopt, std::nullopt});
    // The launch checks' guess (the first), kept past its removal below: its words and its fix follow the measure.
    std::optional<LaunchIssue> guess;
    for (const auto& issue : issues)
        if (issue.limit == kCoverageLimit) {
            guess = issue;
            break;
        }
    bool measured_any = false;
    for (const auto& c : coverage) measured_any = measured_any || c.not_measured.empty();
    if (!measured_any) return;  // nothing measured (inout outputs only): keep the guess
    issues.erase(std::remove_if(issues.begin(), issues.end(), [](const LaunchIssue& i) { return i.limit == kCoverageLimit; }),
                 issues.end());
    for (const auto& c : coverage) {
        if (!c.not_measured.empty() || c.never_written == 0) continue;
        std::string message = "`" + c.buffer + "`: " + c.summary() + " (measured)";
        // The guess's own words follow: what the grid reaches and the fix (within the device's limits).
        message += !guess ? "; check that the grid and the kernel's indexing reach every element" : ". " + guess->message;
        // Measured: the elements written against the buffer's; the guess's fix stays.
        issues.push_back(LaunchIssue{Severity::Warning, kCoverageLimit, message, c.elements - c.never_written,
                                     c.elements, guess ? guess->try_block : std::nullopt,
                                     guess ? guess->try_grid : std::nullopt});
    }
}

}  // namespace cp
