// Small text helpers shared by the metadata parser and the expression evaluator: trimming, splitting,
// and "did you mean" suggestions by edit distance.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace cp {

std::string trim(std::string_view s);
std::string collapse_spaces(std::string_view s);  // runs of whitespace -> one space, trimmed
bool is_identifier(std::string_view s);
// A C/C++ identifier's first character, and any of its characters.
inline bool is_ident_start(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
inline bool is_ident_char(char c) { return is_ident_start(c) || (c >= '0' && c <= '9'); }
std::string join(const std::vector<std::string>& items, const std::string& separator);

// Edit distance counting swapped neighbours as one edit, case-insensitive.
size_t edit_distance(std::string_view a, std::string_view b);

// The candidate closest to `word` when it is close enough to be a likely typo; empty otherwise.
std::string closest_name(const std::string& word, const std::vector<std::string>& candidates);

// "1 thread", "2 threads", "0 errors": a count with its noun, plural unless it is one ("es" plurals: give it).
std::string count_text(uint64_t n, const std::string& singular, const std::string& plural = "");

// "812.4 GB/s", "3.1 GB/s", "11.0 MB/s", "0.4 kB/s": three or so figures whatever the size (a CPU-emulated
// multiply moves megabytes per second, which "0.0 GB/s" hid).
std::string bandwidth_text(double gbps);

// " Did you mean `x`?" or "" (leading space included, for appending to a message).
std::string did_you_mean(const std::string& word, const std::vector<std::string>& candidates);

// Parses a whole string as a number (decimal, exponent, or 0x hex); false on anything else.
bool parse_number(std::string_view text, double& out);

}  // namespace cp
