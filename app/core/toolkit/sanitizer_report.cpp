// Parsing compute-sanitizer's text log into findings, and naming their buffers (see sanitizer_report.h).
#include "core/toolkit/sanitizer_report.h"
#include "core/text_util.h"

#include <fstream>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <regex>
#include <sstream>

namespace cp {

namespace {

uint64_t parse_number(std::string text) {  // "4,000" or "0x7f00"
    std::string digits;
    for (char c : text)
        if (c != ',') digits += c;
    return std::strtoull(digits.c_str(), nullptr, 0);
}

std::string dim3_text(const Dim3& d) {
    return "(" + std::to_string(d.x) + "," + std::to_string(d.y) + "," + std::to_string(d.z) + ")";
}

}  // namespace

std::string SanitizerFinding::message() const {
    std::string m = kind;
    if (thread) m += " by thread " + dim3_text(*thread);
    if (block) m += " in block " + dim3_text(*block);
    if (!buffer.empty()) {
        const bool outside = element < 0 || uint64_t(element) >= buffer_elements;
        m += std::string(outside ? ", outside `" : ", in `") + buffer + "` (element " + std::to_string(element) +
             " of " + std::to_string(buffer_elements) + ")";
    }
    if (!file.empty()) m += " at " + std::filesystem::path(file).filename().string() + ":" + std::to_string(line);
    return m;
}

SanitizerSummary parse_sanitizer_log(const std::string& log) {
    static const std::regex kPrefix(R"(^=+ ?)");
    static const std::regex kThreadBlock(R"(by thread \((\d+),(\d+),(\d+)\) in block \((\d+),(\d+),(\d+)\))");
    static const std::regex kFileLine(R"(in (\S+):(\d+))");
    // "Address 0x... is out of bounds" (older tools) or "Access to 0x... is out of bounds" (CUDA 13).
    static const std::regex kAddress(R"((?:Address|Access to|Access at) (0x[0-9a-fA-F]+))");
    static const std::regex kSummary(R"(ERROR SUMMARY: ([\d,]+) error)");
    // The first line of a finding: what went wrong, as each tool words it.
    static const std::regex kStart(R"(^(Invalid |Misaligned |Uninitialized |Race reported|Error: Race|Barrier error|)"
                                   R"(Program hit|Error: |Warning: |.* error detected|Out-of-range|Cuda API error))");
    SanitizerSummary out;
    std::istringstream in(log);
    std::string raw;
    SanitizerFinding* current = nullptr;
    while (std::getline(in, raw)) {
        std::smatch m;
        if (!std::regex_search(raw, m, kPrefix)) continue;  // the program's own output
        const bool indented = raw.size() > size_t(m.length(0)) && (raw[size_t(m.length(0))] == ' ');
        const std::string line = trim(raw.substr(size_t(m.length(0))));
        if (line.empty() || line == "COMPUTE-SANITIZER") {
            current = nullptr;
            continue;
        }
        if (std::regex_search(line, m, kSummary)) {
            out.reported_errors = int(parse_number(m[1].str()));
            current = nullptr;
            continue;
        }
        if (!indented && std::regex_search(line, kStart)) {
            out.findings.emplace_back();
            current = &out.findings.back();
            current->kind = line;
            // racecheck puts the first access's place on the same line
            if (std::regex_search(line, m, kFileLine)) {
                current->file = m[1].str();
                current->line = std::atoi(m[2].str().c_str());
            }
            continue;
        }
        if (!current) continue;
        if (line.rfind("Saved host backtrace", 0) == 0 || line.rfind("Host Frame", 0) == 0 ||
            line.rfind("Device Frame", 0) == 0)
            continue;
        if (std::regex_search(line, m, kThreadBlock)) {
            current->thread = Dim3{uint32_t(std::stoul(m[1].str())), uint32_t(std::stoul(m[2].str())),
                                   uint32_t(std::stoul(m[3].str()))};
            current->block = Dim3{uint32_t(std::stoul(m[4].str())), uint32_t(std::stoul(m[5].str())),
                                  uint32_t(std::stoul(m[6].str()))};
            continue;
        }
        if (line.rfind("at ", 0) == 0 && current->file.empty() && std::regex_search(line, m, kFileLine)) {
            current->file = m[1].str();
            current->line = std::atoi(m[2].str().c_str());
            continue;
        }
        if (std::regex_search(line, m, kAddress)) current->address = parse_number(m[1].str());
        if (line.rfind("at ", 0) != 0) current->detail += (current->detail.empty() ? "" : " ") + line;
    }
    // memcheck stops a kernel at its first error; the worker's next driver calls then report the stopped
    // launch ("Program hit CUDA_ERROR_LAUNCH_FAILED ... cuCtxSynchronize"). Those are echoes of the finding
    // above them, not findings of their own.
    const bool device_finding = std::any_of(out.findings.begin(), out.findings.end(),
                                            [](const SanitizerFinding& f) { return f.thread.has_value(); });
    if (device_finding)
        std::erase_if(out.findings, [](const SanitizerFinding& f) {
            return f.kind.rfind("Program hit", 0) == 0 && f.kind.find("CUDA_ERROR_LAUNCH_FAILED") != std::string::npos;
        });
    return out;
}

void attribute_findings(std::vector<SanitizerFinding>& findings, const std::vector<BufferPlacement>& buffers) {
    constexpr uint64_t kNear = 64 * 1024;
    for (SanitizerFinding& f : findings) {
        if (f.address == 0) continue;
        const BufferPlacement* best = nullptr;
        uint64_t best_distance = kNear + 1;
        for (const BufferPlacement& b : buffers) {
            if (b.address == 0) continue;
            uint64_t distance = 0;
            if (f.address < b.address) distance = b.address - f.address;
            else if (f.address >= b.address + b.bytes) distance = f.address - (b.address + b.bytes) + 1;
            if (distance < best_distance) {
                best = &b;
                best_distance = distance;
            }
        }
        if (!best) continue;
        const int64_t e = std::max<uint32_t>(best->element_bytes, 1);
        const int64_t offset = int64_t(f.address - best->address);  // wraps to negative before the start
        f.buffer = best->name;
        f.element = offset >= 0 ? offset / e : -((-offset + e - 1) / e);
        f.buffer_elements = best->bytes / uint64_t(e);
    }
}

std::string find_compute_sanitizer() {
    namespace fs = std::filesystem;
    std::error_code ec;
    if (const char* v = std::getenv("CUDA_PLAYGROUND_COMPUTE_SANITIZER"); v && *v)
        return fs::exists(v, ec) ? std::string(v) : std::string();
    std::vector<std::string> candidates;
    for (const char* var : {"CUDA_HOME", "CUDA_PATH"})
        if (const char* v = std::getenv(var); v && *v) candidates.push_back(std::string(v) + "/bin/compute-sanitizer");
    candidates.emplace_back("/usr/local/cuda/bin/compute-sanitizer");
    candidates.emplace_back("/usr/local/cuda/compute-sanitizer/compute-sanitizer");
    if (const char* path = std::getenv("PATH")) {
        std::istringstream dirs(path);
        std::string dir;
        while (std::getline(dirs, dir, ':'))
            if (!dir.empty()) candidates.push_back(dir + "/compute-sanitizer");
    }
    for (const auto& c : candidates)
        if (fs::exists(c, ec)) return c;
    return {};
}

bool is_sanitizer_tool(const std::string& tool) {
    return tool == "memcheck" || tool == "racecheck" || tool == "synccheck" || tool == "initcheck";
}

std::string take_sanitizer_log(const std::string& log_path) {
    if (log_path.empty()) return {};
    std::ifstream in(log_path);
    std::stringstream text;
    text << in.rdbuf();
    in.close();
    std::error_code ec;
    std::filesystem::remove(log_path, ec);
    return text.str();
}

}  // namespace cp
