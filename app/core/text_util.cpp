// Small text helpers shared by the metadata parser and the expression evaluator.
#include "core/text_util.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>

namespace cp {

std::string trim(std::string_view s) {
    size_t b = 0, e = s.size();
    while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
    while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
    return std::string(s.substr(b, e - b));
}

std::string collapse_spaces(std::string_view s) {
    std::string out;
    bool pending_space = false;
    for (char c : s) {
        if (std::isspace(static_cast<unsigned char>(c))) {
            pending_space = !out.empty();
        } else {
            if (pending_space) out += ' ';
            pending_space = false;
            out += c;
        }
    }
    return out;
}

bool is_identifier(std::string_view s) {
    if (s.empty() || !(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_')) return false;
    return std::all_of(s.begin(), s.end(),
                       [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; });
}

std::string join(const std::vector<std::string>& items, const std::string& separator) {
    std::string out;
    for (size_t i = 0; i < items.size(); ++i) {
        if (i) out += separator;
        out += items[i];
    }
    return out;
}

size_t edit_distance(std::string_view a, std::string_view b) {
    // Optimal string alignment: insertions, deletions, substitutions and swaps of neighbours ("widht").
    auto lower = [](char c) { return std::tolower(static_cast<unsigned char>(c)); };
    std::vector<std::vector<size_t>> d(a.size() + 1, std::vector<size_t>(b.size() + 1));
    for (size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
    for (size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
    for (size_t i = 1; i <= a.size(); ++i) {
        for (size_t j = 1; j <= b.size(); ++j) {
            const size_t cost = lower(a[i - 1]) == lower(b[j - 1]) ? 0 : 1;
            d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
            if (i > 1 && j > 1 && lower(a[i - 1]) == lower(b[j - 2]) && lower(a[i - 2]) == lower(b[j - 1]))
                d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
        }
    }
    return d[a.size()][b.size()];
}

std::string closest_name(const std::string& word, const std::vector<std::string>& candidates) {
    std::string best;
    size_t best_distance = std::string::npos;
    for (const auto& c : candidates) {
        const size_t d = edit_distance(word, c);
        if (d < best_distance) {
            best_distance = d;
            best = c;
        }
    }
    // A typo changes a few letters; beyond a third of the word it is a different word.
    const size_t allowed = std::max<size_t>(1, std::max(word.size(), best.size()) / 3);
    if (best.empty() || best_distance > allowed) return {};
    return best;
}

std::string bandwidth_text(double gbps) {
    char text[64];
    if (gbps >= 1 || gbps <= 0) std::snprintf(text, sizeof text, "%.1f GB/s", gbps);
    else if (gbps >= 1e-3) std::snprintf(text, sizeof text, "%.1f MB/s", gbps * 1e3);
    else std::snprintf(text, sizeof text, "%.1f kB/s", gbps * 1e6);
    return text;
}

std::string count_text(uint64_t n, const std::string& singular, const std::string& plural) {
    return std::to_string(n) + " " + (n == 1 ? singular : plural.empty() ? singular + "s" : plural);
}

std::string did_you_mean(const std::string& word, const std::vector<std::string>& candidates) {
    const std::string best = closest_name(word, candidates);
    return best.empty() ? std::string() : " Did you mean `" + best + "`?";
}

bool parse_number(std::string_view text, double& out) {
    const std::string s = trim(text);
    if (s.empty()) return false;
    size_t i = 0;
    bool negative = false;
    if (s[i] == '+' || s[i] == '-') negative = s[i++] == '-';
    if (i + 1 < s.size() && s[i] == '0' && (s[i + 1] == 'x' || s[i + 1] == 'X')) {
        i += 2;
        if (i >= s.size()) return false;
        double v = 0;
        for (; i < s.size(); ++i) {
            const char c = static_cast<char>(std::tolower(static_cast<unsigned char>(s[i])));
            if (c >= '0' && c <= '9') v = v * 16 + (c - '0');
            else if (c >= 'a' && c <= 'f') v = v * 16 + (c - 'a' + 10);
            else return false;
        }
        out = negative ? -v : v;
        return true;
    }
    // Plain decimal only: strtod alone would also accept "inf", "nan" and hex floats.
    const size_t digits_start = i;
    bool any_digit = false;
    while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) ++i, any_digit = true;
    if (i < s.size() && s[i] == '.') {
        ++i;
        while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) ++i, any_digit = true;
    }
    if (!any_digit) return false;
    if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
        ++i;
        if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
        if (i >= s.size() || !std::isdigit(static_cast<unsigned char>(s[i]))) return false;
        while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) ++i;
    }
    if (i != s.size()) return false;
    const double v = std::strtod(s.c_str() + digits_start, nullptr);
    out = negative ? -v : v;
    return true;
}

}  // namespace cp
