// PTX and SASS listings with their source lines (machine_code.h).
#include "core/toolkit/machine_code.h"

#include "core/clock.h"
#include "core/text_util.h"
#include "core/toolkit/cubin_cache.h"
#include "core/toolkit/nvrtc_compiler.h"
#include "core/worker/subprocess.h"
#include "cp_build_paths.h"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <optional>

namespace cp {

namespace {

std::string_view trim_view(std::string_view s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\r')) s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
    return s;
}

bool starts_with(std::string_view s, std::string_view prefix) { return s.substr(0, prefix.size()) == prefix; }

// The compiler's file name is the kernel file's when they are the same path or name the same file.
bool same_file(std::string_view reported, std::string_view file) {
    if (reported == file) return true;
    const auto base = [](std::string_view p) {
        const size_t slash = p.find_last_of('/');
        return slash == std::string_view::npos ? p : p.substr(slash + 1);
    };
    return !file.empty() && base(reported) == base(file);
}

// "@!P0 BRA `(.L_x_0)" -> "BRA"; "@%p1 bra $L__BB0_2" -> "bra".
std::string opcode_of(std::string_view instruction) {
    std::string_view s = trim_view(instruction);
    if (!s.empty() && s.front() == '@') {
        const size_t space = s.find_first_of(" \t");
        s = space == std::string_view::npos ? std::string_view() : trim_view(s.substr(space));
    }
    const size_t end = s.find_first_of(" \t;");
    return std::string(s.substr(0, end));
}

std::vector<std::string_view> split_lines(std::string_view text) {
    std::vector<std::string_view> out;
    size_t start = 0;
    while (start <= text.size()) {
        const size_t nl = text.find('\n', start);
        const size_t end = nl == std::string_view::npos ? text.size() : nl;
        out.push_back(text.substr(start, end - start));
        if (nl == std::string_view::npos) break;
        start = nl + 1;
    }
    return out;
}

int to_int(std::string_view s) {
    int v = 0;
    bool any = false;
    for (char c : s) {
        if (c < '0' || c > '9') break;
        v = v * 10 + (c - '0');
        any = true;
    }
    return any ? v : -1;
}

// `File "X", line N` pairs of one nvdisasm comment, innermost first.
std::vector<std::pair<std::string, int>> sass_locations(std::string_view comment) {
    std::vector<std::pair<std::string, int>> out;
    size_t at = 0;
    while (true) {
        const size_t q = comment.find('"', at);
        if (q == std::string_view::npos) break;
        const size_t q2 = comment.find('"', q + 1);
        if (q2 == std::string_view::npos) break;
        const size_t line = comment.find("line ", q2);
        if (line == std::string_view::npos) break;
        out.emplace_back(std::string(comment.substr(q + 1, q2 - q - 1)), to_int(comment.substr(line + 5)));
        at = line + 5;
    }
    return out;
}

}  // namespace

std::vector<size_t> CodeListing::lines_of(int source_line) const {
    std::vector<size_t> out;
    for (size_t i = 0; i < lines.size(); ++i)
        for (int l : lines[i].lines)
            if (l == source_line) {
                out.push_back(i);
                break;
            }
    return out;
}

void count_listing(CodeListing& listing) {
    listing.per_line.clear();
    listing.local_per_line.clear();
    listing.instructions = 0;
    listing.functions.clear();
    for (const CodeLine& l : listing.lines) {
        if (l.kind == CodeLine::Kind::Function) listing.functions.push_back(l.function);
        if (l.kind != CodeLine::Kind::Instruction) continue;
        ++listing.instructions;
        if (l.lines.empty()) continue;
        ++listing.per_line[l.lines.front()];
        if (starts_with(l.opcode, "STL") || starts_with(l.opcode, "LDL") || starts_with(l.opcode, "st.local") ||
            starts_with(l.opcode, "ld.local"))
            ++listing.local_per_line[l.lines.front()];
    }
}

CodeListing parse_sass(std::string_view text, std::string_view file) {
    CodeListing listing;
    std::vector<int> chain;  // the lines of the latest run of "//##" comments, innermost first
    bool in_comment_run = false;
    std::string function;
    for (std::string_view raw : split_lines(text)) {
        const std::string_view s = trim_view(raw);
        if (s.empty()) continue;
        if (starts_with(s, "//##")) {
            if (!in_comment_run) chain.clear();
            in_comment_run = true;
            // "line 4 inlined at ..., line 10" then "line 10": each comment's first place is one level.
            const auto places = sass_locations(s);
            if (!places.empty() && same_file(places.front().first, file) && places.front().second > 0 &&
                std::find(chain.begin(), chain.end(), places.front().second) == chain.end())
                chain.push_back(places.front().second);
            continue;
        }
        in_comment_run = false;
        if (starts_with(s, "/*")) {
            const size_t close = s.find("*/");
            if (close == std::string_view::npos) continue;
            CodeLine line;
            line.kind = CodeLine::Kind::Instruction;
            line.offset = int(std::strtol(std::string(s.substr(2, close - 2)).c_str(), nullptr, 16));
            std::string_view body = trim_view(s.substr(close + 2));
            if (!body.empty() && body.back() == ';') body = trim_view(body.substr(0, body.size() - 1));
            line.text = std::string(body);
            line.opcode = opcode_of(body);
            line.function = function;
            // The padding after a function's end (NOPs, and the branch to itself that stops a runaway
            // warp) belongs to no source line, though nvdisasm prints it under the last one.
            const bool self_loop = line.opcode == "BRA" && !listing.lines.empty() &&
                                   listing.lines.back().kind == CodeLine::Kind::Label &&
                                   line.text.find(listing.lines.back().text.substr(0, listing.lines.back().text.size() - 1)) !=
                                       std::string::npos;
            if (line.opcode != "NOP" && !self_loop) line.lines = chain;
            listing.lines.push_back(std::move(line));
            continue;
        }
        if (starts_with(s, ".text.") && s.back() == ':') {
            function = std::string(s.substr(6, s.size() - 7));
            CodeLine line;
            line.kind = CodeLine::Kind::Function;
            line.text = function + ":";
            line.function = function;
            listing.lines.push_back(std::move(line));
            chain.clear();
            continue;
        }
        // Labels: a branch target (.L_x_3:) and a subroutine the kernel calls ($__internal_0_$__cuda_sm20_div_u64:,
        // integer division and the slow paths of division and square root), which CALL.REL names.
        if ((starts_with(s, ".L") || starts_with(s, "$")) && s.back() == ':') {
            CodeLine line;
            line.kind = CodeLine::Kind::Label;
            line.text = std::string(s);
            line.function = function;
            listing.lines.push_back(std::move(line));
        }
        // Section headers, directives and symbol lines are left out.
    }
    count_listing(listing);
    return listing;
}

CodeListing parse_ptx(std::string_view text, std::string_view file) {
    CodeListing listing;
    const auto rows = split_lines(text);
    // .file directives come after the code: read them first.
    std::map<int, bool> ours;
    for (std::string_view raw : rows) {
        const std::string_view s = trim_view(raw);
        if (!starts_with(s, ".file")) continue;
        std::string_view rest = trim_view(s.substr(5));
        const int number = to_int(rest);
        const size_t q = rest.find('"');
        const size_t q2 = q == std::string_view::npos ? q : rest.find('"', q + 1);
        if (number < 0 || q2 == std::string_view::npos) continue;
        ours[number] = same_file(rest.substr(q + 1, q2 - q - 1), file);
    }
    const auto place = [&](std::string_view s, std::vector<int>& chain) {
        // "F L C" at the start of s
        const int f = to_int(s);
        const size_t sp = s.find_first_of(" \t");
        if (sp == std::string_view::npos) return;
        const std::string_view after = trim_view(s.substr(sp));
        const int l = to_int(after);
        if (f >= 0 && l > 0 && ours.count(f) && ours[f] && std::find(chain.begin(), chain.end(), l) == chain.end())
            chain.push_back(l);
    };
    std::vector<int> chain;
    std::string function;
    for (std::string_view raw : rows) {
        const std::string_view s = trim_view(raw);
        if (starts_with(s, ".section") && s.find(".debug") != std::string_view::npos) break;  // DWARF data
        if (s.empty() || starts_with(s, "//") || starts_with(s, ".file")) continue;
        if (starts_with(s, ".loc")) {
            chain.clear();
            const std::string_view rest = trim_view(s.substr(4));
            place(rest, chain);
            const size_t inl = rest.find("inlined_at");
            if (inl != std::string_view::npos) place(trim_view(rest.substr(inl + 10)), chain);
            continue;
        }
        CodeLine line;
        line.text = collapse_spaces(s);  // PTX separates operands with tabs
        const size_t entry = s.find(".entry ");
        const size_t func = s.find(".func ");
        if (entry != std::string_view::npos || (func != std::string_view::npos && s.find('(') != std::string_view::npos)) {
            std::string_view name = s.substr(entry != std::string_view::npos ? entry + 7 : func + 6);
            // ".func (.param .b32 func_retval0) name(" : the name is the last word before its '('
            const size_t paren = name.rfind('(') == 0 ? name.find('(', 1) : name.find('(');
            std::string_view before = trim_view(name.substr(0, paren));
            const size_t space = before.find_last_of(" \t)");
            if (space != std::string_view::npos) before = before.substr(space + 1);
            function = std::string(before);
            line.kind = CodeLine::Kind::Function;
            line.function = function;
            chain.clear();
            listing.lines.push_back(std::move(line));
            continue;
        }
        line.function = function;
        if (s.back() == ':' && s.front() == '$') {
            line.kind = CodeLine::Kind::Label;
        } else if (s.back() == ';' && s.front() != '.' && s.front() != ')' && s.front() != '(' && !function.empty()) {
            line.kind = CodeLine::Kind::Instruction;
            line.opcode = opcode_of(s);
            line.lines = chain;
        }
        listing.lines.push_back(std::move(line));
    }
    count_listing(listing);
    return listing;
}

std::string nvdisasm_path(std::string* why) {
    std::error_code ec;
    const auto runnable = [&](const std::string& p) {
        return !p.empty() && std::filesystem::is_regular_file(p, ec) && ::access(p.c_str(), X_OK) == 0;
    };
    if (const char* env = std::getenv("CUDA_PLAYGROUND_NVDISASM"); env && *env) {
        if (runnable(env)) return env;
        if (why) *why = std::string("CUDA_PLAYGROUND_NVDISASM is ") + env + ", which is not an executable file";
        return {};
    }
    std::vector<std::string> candidates = {CP_BUILD_NVDISASM};
    if (const char* home = std::getenv("CUDA_HOME"); home && *home) candidates.push_back(std::string(home) + "/bin/nvdisasm");
    candidates.push_back("/usr/local/cuda/bin/nvdisasm");
    for (const std::string& c : candidates)
        if (runnable(c)) return c;
    if (std::string found = find_executable("nvdisasm"); !found.empty()) return found;
    if (why)
        *why = "SASS needs NVIDIA's disassembler nvdisasm, which this build has not got (the CUDA toolkit here has none "
               "and set-up could not fetch the pinned nvidia-cuda-nvdisasm package): run the README's set-up with "
               "the network on, or set CUDA_PLAYGROUND_NVDISASM to an nvdisasm; the PTX is shown meanwhile";
    return {};
}

namespace {

// nvdisasm's output is kept on disk beside the compile cache, by the cubin and the tool: the largest lesson takes
// nvdisasm most of a second on 2 cores, and a lesson opened again should not wait for it.
std::filesystem::path sass_file(const std::vector<std::byte>& cubin, const std::string& tool) {
    const std::filesystem::path dir = cubin_cache_dir();
    if (dir.empty()) return {};
    std::string inputs(reinterpret_cast<const char*>(cubin.data()), cubin.size());
    inputs += '\n' + tool + "\n-c -gi";
    return dir.parent_path() / "sass" / (cache_key(inputs) + ".txt");
}

std::optional<std::string> kept_sass(const std::vector<std::byte>& cubin, const std::string& tool) {
    const std::filesystem::path path = sass_file(cubin, tool);
    if (path.empty()) return std::nullopt;
    std::ifstream in(path, std::ios::binary);
    if (!in) return std::nullopt;
    std::stringstream read;
    read << in.rdbuf();
    std::string text = read.str();
    if (text.find(".text.") == std::string::npos) return std::nullopt;  // not a listing: disassemble again
    return text;
}

void keep_sass(const std::vector<std::byte>& cubin, const std::string& tool, const std::string& text) {
    const std::filesystem::path path = sass_file(cubin, tool);
    if (!path.empty()) write_file_whole(path, text);
}

}  // namespace

MachineCode machine_code(const MachineCodeRequest& request) {
    MachineCode out;
    out.arch = request.arch;
    CompileRequest compile = request.compile;
    compile.load = false;
    std::vector<std::byte>& cubin = out.cubin;
    out.compile = compile_with_nvrtc(compile, request.arch, &cubin);
    out.ok = out.compile.ok;
    if (!out.ok) return out;
    if (request.ptx) {
        const auto started = std::chrono::steady_clock::now();
        std::string virt = request.arch;
        if (virt.rfind("sm_", 0) == 0) virt = "compute_" + virt.substr(3);
        std::vector<std::byte> ptx;
        const CompileResult r = compile_with_nvrtc(compile, virt, &ptx);
        if (r.ok && !ptx.empty()) {
            std::string_view text(reinterpret_cast<const char*>(ptx.data()), ptx.size());
            while (!text.empty() && text.back() == '\0') text.remove_suffix(1);
            out.ptx = parse_ptx(text, request.compile.path);
        }
        out.ptx_ms = ms_since(started);
    }
    if (request.sass) {
        const auto started = std::chrono::steady_clock::now();
        std::string why;
        const std::string tool = nvdisasm_path(&why);
        if (tool.empty()) {
            out.sass_missing = why;
        } else if (cubin.empty()) {
            out.sass_missing = "NVRTC made no cubin for " + request.arch;
        } else if (auto kept = kept_sass(cubin, tool)) {
            out.sass = parse_sass(*kept, request.compile.path);
            out.sass_cached = true;
        } else {
            std::error_code ec;
            std::string pattern = (std::filesystem::temp_directory_path(ec) / "cp-sass-XXXXXX").string();
            const int fd = ::mkstemp(pattern.data());
            if (fd < 0) {
                out.sass_missing = "could not write the cubin for nvdisasm to the temporary folder";
            } else {
                const bool written = ::write(fd, cubin.data(), cubin.size()) == ssize_t(cubin.size());
                ::close(fd);
                const auto tool_started = std::chrono::steady_clock::now();
                const ProcessOutcome p = written ? run_process({tool, "-c", "-gi", pattern}, 60) : ProcessOutcome{};
                out.nvdisasm_ms = ms_since(tool_started);
                std::filesystem::remove(pattern, ec);
                if (!written) {
                    out.sass_missing = "could not write the cubin for nvdisasm to the temporary folder";
                } else if (!p.started) {
                    out.sass_missing = "nvdisasm (" + tool + ") could not be started: " + p.error;
                } else if (p.exit_code != 0) {
                    out.sass_missing = "nvdisasm (" + tool + ") failed" +
                                       (p.timed_out ? std::string(" (it ran past 60 s)") : ": " + trim(p.output.substr(0, p.output.find('\n'))));
                } else {
                    out.sass = parse_sass(p.output, request.compile.path);
                    keep_sass(cubin, tool, p.output);
                }
            }
        }
        out.sass_ms = ms_since(started);
    }
    return out;
}

}  // namespace cp

namespace cp {

ListingDiff diff_listings(const CodeListing& a, const CodeListing& b) {
    ListingDiff d;
    std::vector<int> ia, ib;  // the instructions' line indices
    for (size_t i = 0; i < a.lines.size(); ++i)
        if (a.lines[i].kind == CodeLine::Kind::Instruction) {
            ia.push_back(int(i));
            ++d.opcodes[a.lines[i].opcode].first;
        }
    for (size_t i = 0; i < b.lines.size(); ++i)
        if (b.lines[i].kind == CodeLine::Kind::Instruction) {
            ib.push_back(int(i));
            ++d.opcodes[b.lines[i].opcode].second;
        }
    const size_t n = ia.size(), m = ib.size();
    // The longest common subsequence of opcodes, by the table of suffix lengths (n x m 32-bit cells: up to
    // 64 M cells, i.e. two listings of 8,000 instructions; longer ones get the counts only).
    if (double(n + 1) * double(m + 1) > 64e6) {
        d.aligned = false;
        return d;
    }
    std::vector<uint32_t> len((n + 1) * (m + 1), 0);
    const auto at = [&](size_t i, size_t j) -> uint32_t& { return len[i * (m + 1) + j]; };
    for (size_t i = n; i-- > 0;)
        for (size_t j = m; j-- > 0;)
            at(i, j) = a.lines[size_t(ia[i])].opcode == b.lines[size_t(ib[j])].opcode ? at(i + 1, j + 1) + 1
                                                                                    : std::max(at(i + 1, j), at(i, j + 1));
    size_t i = 0, j = 0;
    while (i < n || j < m) {
        if (i < n && j < m && a.lines[size_t(ia[i])].opcode == b.lines[size_t(ib[j])].opcode) {
            d.rows.push_back({ListingDiff::Row::Same, ia[i], ib[j], a.lines[size_t(ia[i])].text != b.lines[size_t(ib[j])].text});
            ++d.same;
            ++i;
            ++j;
        } else if (j < m && (i == n || at(i, j + 1) >= at(i + 1, j))) {
            d.rows.push_back({ListingDiff::Row::OnlyB, -1, ib[j]});
            ++d.only_b;
            ++j;
        } else {
            d.rows.push_back({ListingDiff::Row::OnlyA, ia[i], -1});
            ++d.only_a;
            ++i;
        }
    }
    return d;
}

}  // namespace cp
