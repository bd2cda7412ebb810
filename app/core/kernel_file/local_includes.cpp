// Local includes: a scan for #include directives (comments and strings skipped), lexical and real-path
// checks against the kernel file's folder, and the rewritten spellings NVRTC needs.
#include "core/kernel_file/local_includes.h"

#include "core/kernel_file/host_code.h"

#include <cctype>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>

namespace cp {
namespace fs = std::filesystem;

namespace {

constexpr size_t kMaxHeaders = 64;
constexpr size_t kMaxBytes = 8u << 20;

struct Directive {
    int line = 0, column = 0;
    char open = '"';   // '"' or '<'
    size_t begin = 0;  // the name, between the delimiters
    size_t end = 0;
};

// #include / #include_next / #import directives whose target is written out (not a macro).
std::vector<Directive> scan_directives(const std::string& s) {
    std::vector<Directive> out;
    bool in_block = false;
    int line = 1;
    size_t i = 0;
    while (i < s.size()) {
        const size_t line_start = i;
        size_t j = i;
        if (!in_block) {
            while (j < s.size() && (s[j] == ' ' || s[j] == '\t')) ++j;
            if (j < s.size() && s[j] == '#') {
                size_t k = j + 1;
                while (k < s.size() && (s[k] == ' ' || s[k] == '\t')) ++k;
                size_t w = k;
                while (w < s.size() && (std::isalnum(static_cast<unsigned char>(s[w])) || s[w] == '_')) ++w;
                const std::string word = s.substr(k, w - k);
                if (word == "include" || word == "include_next" || word == "import") {
                    while (w < s.size() && (s[w] == ' ' || s[w] == '\t')) ++w;
                    if (w < s.size() && (s[w] == '"' || s[w] == '<')) {
                        const char close = s[w] == '"' ? '"' : '>';
                        const size_t end = s.find_first_of(std::string(1, close) + "\n", w + 1);
                        if (end != std::string::npos && s[end] == close)
                            out.push_back({line, int(w - line_start) + 1, s[w], w + 1, end});
                    }
                }
            }
        }
        // The rest of the line: track comments and strings so a "/*" inside a string does not count.
        char quote = 0;
        for (; i < s.size() && s[i] != '\n'; ++i) {
            const char c = s[i];
            if (in_block) {
                if (c == '*' && i + 1 < s.size() && s[i + 1] == '/') {
                    in_block = false;
                    ++i;
                }
            } else if (quote) {
                if (c == '\\')
                    ++i;
                else if (c == quote)
                    quote = 0;
            } else if (c == '"' || c == '\'') {
                quote = c;
            } else if (c == '/' && i + 1 < s.size() && s[i + 1] == '/') {
                while (i + 1 < s.size() && s[i + 1] != '\n') ++i;
            } else if (c == '/' && i + 1 < s.size() && s[i + 1] == '*') {
                in_block = true;
                ++i;
            }
        }
        ++i;  // the newline
        ++line;
    }
    return out;
}

bool has_dot_dot(const fs::path& p) {
    for (const auto& part : p)
        if (part == "..") return true;
    return false;
}

bool inside(const fs::path& p, const fs::path& root) {
    const fs::path rel = p.lexically_relative(root);
    return !rel.empty() && !has_dot_dot(rel) && rel.is_relative();
}

std::optional<std::string> read_all(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    if (!in) return std::nullopt;
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

}  // namespace

LocalIncludes resolve_local_includes(const std::string& source, const std::string& path, bool device_only,
                                     const std::vector<std::string>& search_dirs) {
    LocalIncludes out;
    std::vector<fs::path> origins;  // per header: the file it was read from
    std::error_code ec;
    // `run file.cu` in the file's own folder: a bare name that is a file here has this folder (an unsaved buffer's
    // name, which is no file, has none).
    const bool bare_file = !path.empty() && fs::path(path).parent_path().empty() && fs::is_regular_file(path, ec);
    const fs::path folder = bare_file ? fs::absolute(path, ec).parent_path() : fs::path(path).parent_path();
    const bool has_folder = !path.empty() && !folder.empty() && fs::is_directory(folder, ec);
    const fs::path root = has_folder ? fs::absolute(folder, ec).lexically_normal() : fs::path();
    const fs::path real_root = has_folder ? fs::weakly_canonical(root, ec) : fs::path();
    const std::string folder_words =
        "the kernel file's folder" + (has_folder ? " (" + root.string() + ")" : std::string());

    std::map<std::string, size_t> index;  // header name -> position in out.headers
    size_t total_bytes = 0;
    // Resolves the directives of one text (the kernel or a header at `dir` inside root) and returns it with
    // local includes spelled as names; new headers are appended to out.headers.
    auto process = [&](const std::string& text, const fs::path& dir, const std::string& file) {
        // Spellings to replace, from the end; applied in one pass below (a replace() per directive moves the
        // rest of the text each time: quadratic in a file of many includes).
        std::vector<std::pair<const Directive*, std::string>> respelled;
        // A header found in a search folder (-I DIR): read by the app like a local one, copied into the build folder
        // under the name as written, and always included in quotes from there. Returns false when none has it.
        auto from_search_dirs = [&](const Directive& d, const std::string& name) {
            if (search_dirs.empty() || has_dot_dot(fs::path(name))) return false;
            for (const std::string& dir_text : search_dirs) {
                const fs::path candidate = (fs::path(dir_text) / name).lexically_normal();
                if (!fs::is_regular_file(candidate, ec)) continue;
                const std::string local = fs::path(name).lexically_normal().generic_string();
                respelled.push_back({&d, "\"" + local + "\""});
                if (index.count(local)) return true;
                if (out.headers.size() >= kMaxHeaders) return true;
                const std::optional<std::string> contents = read_all(candidate);
                if (!contents) return false;
                total_bytes += contents->size();
                if (total_bytes > kMaxBytes) return true;
                index[local] = out.headers.size();
                out.headers.push_back({local, *contents, {}});
                origins.push_back(candidate);
                return true;
            }
            return false;
        };
        const std::vector<Directive> directives = scan_directives(text);
        std::vector<Diagnostic> refused;  // found from the end (the rewriting keeps earlier offsets valid)
        for (auto d = directives.rbegin(); d != directives.rend(); ++d) {
            const std::string name = text.substr(d->begin, d->end - d->begin);
            const std::string spelled = d->open == '"' ? "\"" + name + "\"" : "<" + name + ">";
            auto refuse = [&](const std::string& why) {
                refused.push_back(
                    {file, d->line, d->column, Severity::Error, "`#include " + spelled + "` is refused: " + why});
            };
            const fs::path target(name);
            if (target.is_absolute()) {
                refuse(
                    "a kernel file may include only files in its own folder (and below), not an absolute path; "
                    "copy the header next to the kernel file and include it by its name");
                continue;
            }
            if (d->open == '<') {
                if (has_dot_dot(target)) refuse("`..` in a toolkit header's name climbs out of the include folders");
                else (void)from_search_dirs(*d, name);
                continue;  // else the toolkit's or the shim's header
            }
            const fs::path candidate = (dir / target).lexically_normal();
            // A search folder's header includes from the search folders; the file and its own headers look there
            // for what their folder lacks.
            const bool local_dir = has_folder && inside(dir.lexically_normal(), root);
            if ((!local_dir || !fs::is_regular_file(candidate, ec)) && from_search_dirs(*d, name)) continue;
            if (!local_dir) continue;  // no folder: nothing is local (the compiler's include path decides)
            if (!inside(candidate, root)) {
                refuse("it leaves " + folder_words +
                       "; a kernel file may include only files in its own folder (and "
                       "below): copy the header next to the kernel file");
                continue;
            }
            if (!fs::is_regular_file(candidate, ec)) continue;  // not a local file: e.g. "cuda_runtime.h"
            if (!inside(fs::weakly_canonical(candidate, ec), real_root)) {
                refuse(name + " is a link to a file outside " + folder_words);
                continue;
            }
            const std::string local = candidate.lexically_relative(root).generic_string();
            respelled.push_back({&*d, local});
            if (index.count(local)) continue;
            if (out.headers.size() >= kMaxHeaders) {
                refuse("a kernel file may use at most " + std::to_string(kMaxHeaders) + " local headers");
                continue;
            }
            const std::optional<std::string> contents = read_all(candidate);
            if (!contents) {
                refuse("cannot read " + candidate.string());
                continue;
            }
            total_bytes += contents->size();
            if (total_bytes > kMaxBytes) {
                refuse("the local headers add up to more than 8 MiB");
                continue;
            }
            index[local] = out.headers.size();
            out.headers.push_back(
                {local, device_only ? separate_host_code(*contents, true).kernel_source : *contents, {}});
            origins.push_back(candidate);
        }
        out.diagnostics.insert(out.diagnostics.end(), refused.rbegin(), refused.rend());
        std::string rewritten;
        rewritten.reserve(text.size());
        size_t copied = 0;
        for (auto r = respelled.rbegin(); r != respelled.rend(); ++r) {
            // A spelling in quotes replaces the delimiters too (a search folder's <header.h>).
            const bool whole = !r->second.empty() && r->second.front() == '"';
            const size_t begin = whole ? r->first->begin - 1 : r->first->begin;
            rewritten.append(text, copied, begin - copied);
            rewritten += r->second;
            copied = whole ? r->first->end + 1 : r->first->end;
        }
        rewritten.append(text, copied, std::string::npos);
        return rewritten;
    };

    out.rewritten_source = process(source, root, path);
    // Headers found while processing headers are appended: walk until none is new.
    for (size_t i = 0; i < out.headers.size(); ++i) {
        const fs::path header = i < origins.size() ? origins[i] : root / out.headers[i].name;
        const std::string text = out.headers[i].contents;
        std::string rewritten = process(text, header.parent_path(), header.string());  // may add headers
        out.headers[i].rewritten = std::move(rewritten);
    }
    return out;
}

std::string local_includes_fingerprint(const LocalIncludes& includes) {
    std::string s;
    for (const LocalHeader& h : includes.headers)
        s += std::to_string(h.name.size()) + ":" + h.name + std::to_string(h.contents.size()) + ":" + h.contents;
    return s;
}

}  // namespace cp
