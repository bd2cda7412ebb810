// The CUDA backend's memory recording, without the driver: the recording function's source, the PTX rewrite
// that calls it before each load/store, and decoding its records into accesses (ptx_memory.h).
#include "core/cuda/ptx_memory.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <optional>
#include <sstream>
#include <string_view>

namespace cp {

const std::string& memory_recorder_source() {
    // Appended after the user's code, so its lines are past the user's last line and the user's keep theirs.
    // One warp's lanes that call together take one atomicAdd between them (warp-aggregated), so the counter is
    // not the bottleneck of a recording launch. A thread's own records come in the order it made them (its
    // later calls add to the counter later), which is what memory_figures() needs to tell a loop's iterations
    // apart. Records past the cap are counted, not kept: the host then records fewer blocks.
    static const std::string source = R"(
extern "C" {
__device__ unsigned long long* cp_memory_log;
__device__ unsigned long long cp_memory_count;
__device__ unsigned long long cp_memory_cap;
__device__ unsigned long long cp_memory_block_limit;
}
// The address arrives as a number and is classified in inline PTX: with a pointer and __isShared(), NVVM
// infers the address space from the one call it sees (cp_memory_keep's kernel parameter, global) and folds the
// test away, so every shared access would be taken for a global one. The rewrite's calls come later, in PTX.
extern "C" __device__ __noinline__ void cp_memory_record(unsigned long long p, unsigned info) {
    unsigned long long* log = cp_memory_log;
    if (!log) return;
    const unsigned long long block =
        blockIdx.x + (unsigned long long)gridDim.x * (blockIdx.y + (unsigned long long)gridDim.y * blockIdx.z);
    if (block >= cp_memory_block_limit) return;
    unsigned long long address = 0;
    unsigned space = 2u;  // 0 global, 1 shared, 2 neither (a thread's local memory): not recorded
    unsigned is_shared = 0, is_global = 0;
    asm volatile("{ .reg .pred q; isspacep.shared q, %1; selp.u32 %0, 1, 0, q; }" : "=r"(is_shared) : "l"(p));
    asm volatile("{ .reg .pred q; isspacep.global q, %1; selp.u32 %0, 1, 0, q; }" : "=r"(is_global) : "l"(p));
    if (is_shared) {
        asm volatile("cvta.to.shared.u64 %0, %1;" : "=l"(address) : "l"(p));
        space = 1u;
    } else if (is_global) {
        address = p;
        space = 0u;
    }
    const unsigned active = __activemask();
    const unsigned keep = __ballot_sync(active, space != 2u);
    if (space == 2u) return;
    unsigned lane;
    asm volatile("mov.u32 %0, %%laneid;" : "=r"(lane));
    const int leader = __ffs(keep) - 1;
    unsigned long long first = 0;
    if ((int)lane == leader) first = atomicAdd(&cp_memory_count, (unsigned long long)__popc(keep));
    first = __shfl_sync(keep, first, leader);
    const unsigned long long at = first + __popc(keep & ((1u << lane) - 1u));
    if (at >= cp_memory_cap) return;
    const unsigned thread = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
    unsigned long long* r = log + at * 3;
    r[0] = address;
    r[1] = (block << 32) | thread;
    r[2] = (unsigned long long)info | ((unsigned long long)space << 32);
}
extern "C" __global__ void cp_memory_keep(unsigned long long p, unsigned info) { cp_memory_record(p, info); }
)";
    return source;
}

std::string memory_ptx_arch(const std::string& arch) {
    return arch.rfind("sm_", 0) == 0 ? "compute_" + arch.substr(3) : arch;
}

namespace {

std::string_view trim(std::string_view s) {
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
    return s;
}

bool starts_with(std::string_view s, std::string_view prefix) {
    return s.substr(0, prefix.size()) == prefix;
}

bool identifier_char(char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$';
}

std::vector<std::string_view> split(std::string_view s, char sep) {
    std::vector<std::string_view> out;
    size_t at = 0;
    while (true) {
        const size_t next = s.find(sep, at);
        out.push_back(s.substr(at, next == std::string_view::npos ? std::string_view::npos : next - at));
        if (next == std::string_view::npos) break;
        at = next + 1;
    }
    return out;
}

// Bytes of a PTX fundamental type ("f32" -> 4); 0 when it is not one.
uint32_t type_bytes(std::string_view t) {
    if (t.size() < 2) return 0;
    const char k = t[0];
    if (k != 'b' && k != 'u' && k != 's' && k != 'f') return 0;
    if (t == "f16x2" || t == "bf16x2") return 4;
    if (t == "bf16") return 2;
    const std::string_view bits = t.substr(1);
    if (bits == "8") return 1;
    if (bits == "16") return 2;
    if (bits == "32") return 4;
    if (bits == "64") return 8;
    if (bits == "128") return 16;
    return 0;
}

// The function named by a header line after `.entry` / `.func` (a .func's return parameter list skipped).
std::string function_name(std::string_view line) {
    size_t at = line.find(".entry");
    at = at != std::string_view::npos ? at + 6 : line.find(".func") + 5;
    while (at < line.size() && std::isspace(static_cast<unsigned char>(line[at]))) ++at;
    if (at < line.size() && line[at] == '(') {
        const size_t close = line.find(')', at);
        if (close == std::string_view::npos) return {};
        at = close + 1;
        while (at < line.size() && std::isspace(static_cast<unsigned char>(line[at]))) ++at;
    }
    size_t end = at;
    while (end < line.size() && identifier_char(line[end])) ++end;
    return std::string(line.substr(at, end - at));
}

bool is_function_header(std::string_view t) {
    for (std::string_view word : split(t, ' '))
        if (word == ".entry" || word == ".func") return true;
    return false;
}

struct Loc {
    int file = 0, line = 0;
    int inlined_file = 0, inlined_line = 0;  // the call site an inlined function's code came from
};

Loc parse_loc(std::string_view t) {
    Loc loc;
    std::istringstream in{std::string(t.substr(4))};
    in >> loc.file >> loc.line;
    if (const size_t at = t.find("inlined_at"); at != std::string_view::npos) {
        std::istringstream rest{std::string(t.substr(at + 10))};
        rest >> loc.inlined_file >> loc.inlined_line;
    }
    return loc;
}

struct Access {
    std::string predicate;  // "@%p1", "@!%p1" or ""
    std::string space;      // global | shared | generic
    std::string opcode;
    uint32_t bytes = 0;
    bool store = false;
    std::string base;    // a register or a symbol
    std::string offset;  // "" or a signed decimal
};

// A load or store worth recording, or nothing (other instructions; .param/.local/.const; bulk or async copies).
std::optional<Access> parse_access(std::string_view t) {
    Access a;
    if (!t.empty() && t[0] == '@') {
        const size_t space = t.find_first_of(" \t");
        if (space == std::string_view::npos) return std::nullopt;
        a.predicate = std::string(t.substr(0, space));
        t = trim(t.substr(space));
    }
    const size_t opcode_end = t.find_first_of(" \t");
    if (opcode_end == std::string_view::npos) return std::nullopt;
    const std::string_view opcode = t.substr(0, opcode_end);
    const auto parts = split(opcode, '.');
    if (parts[0] != "ld" && parts[0] != "st" && parts[0] != "ldu") return std::nullopt;
    a.store = parts[0] == "st";
    a.space = "generic";
    uint32_t vector = 1;
    for (size_t i = 1; i < parts.size(); ++i) {
        const std::string_view p = parts[i];
        if (p == "param" || starts_with(p, "param::") || p == "local" || p == "const" || p == "async" || p == "bulk" ||
            p == "shared::cluster" || p == "tex")
            return std::nullopt;
        if (p == "global") a.space = "global";
        if (p == "shared" || p == "shared::cta") a.space = "shared";
        if (p == "v2") vector = 2;
        if (p == "v4") vector = 4;
        if (p == "v8") vector = 8;
    }
    a.bytes = type_bytes(parts.back()) * vector;
    if (!a.bytes) return std::nullopt;
    a.opcode = std::string(opcode);
    const std::string_view operands = t.substr(opcode_end);
    const size_t open = operands.find('['), close = operands.find(']');
    if (open == std::string_view::npos || close == std::string_view::npos || close < open) return std::nullopt;
    std::string address;
    for (char c : operands.substr(open + 1, close - open - 1))
        if (!std::isspace(static_cast<unsigned char>(c))) address += c;
    const size_t plus = address.find('+', 1);
    a.base = address.substr(0, plus);
    if (plus != std::string::npos) a.offset = address.substr(plus + 1);
    if (a.base.empty() || std::isdigit(static_cast<unsigned char>(a.base[0])) || a.base[0] == '-')
        return std::nullopt;  // an absolute address: nothing a kernel's C++ makes
    return a;
}

}  // namespace

Result<PtxMemoryRewrite> instrument_ptx_memory(const std::string& ptx, const std::string& main_file) {
    const std::string record = kMemoryRecordFunction;
    // The recording function must be there with its two parameters (had the compiler folded one away, the
    // calls below would not match it).
    const size_t def = ptx.find(".func " + record + "(");
    if (def == std::string::npos)
        return make_error(ErrorKind::Internal, "the recording function is missing from the compiled module",
                          "run without --memory");
    const size_t def_end = ptx.find(')', def);
    const std::string params = ptx.substr(def, def_end - def);
    size_t param_count = 0;
    for (size_t at = params.find(".param"); at != std::string::npos; at = params.find(".param", at + 1)) ++param_count;
    if (param_count != 2 || params.find(".b64") == std::string::npos || params.find(".b32") == std::string::npos)
        return make_error(ErrorKind::Internal, "the recording function was compiled with other parameters",
                          "run without --memory");

    PtxMemoryRewrite out;
    std::vector<Loc> site_locs;
    std::map<int, std::string> files;
    std::map<std::string, std::string> symbol_space;  // module-level .global/.shared variables
    std::map<std::string, int> register_bits;         // of the current function: "%rd" -> 64
    std::string function;
    bool in_header = false;
    int depth = 0;
    Loc loc;
    bool declared = false;

    std::istringstream in(ptx);
    std::string raw;
    out.ptx.reserve(ptx.size() * 2);
    while (std::getline(in, raw)) {
        const std::string_view t = trim(raw);
        const auto emit_line = [&] {
            out.ptx += raw;
            out.ptx += '\n';
        };
        if (depth == 0) {
            if (starts_with(t, ".file")) {
                std::istringstream f{std::string(t.substr(5))};
                int index = 0;
                f >> index;
                const size_t q1 = t.find('"'), q2 = t.find('"', q1 + 1);
                if (q1 != std::string_view::npos && q2 != std::string_view::npos)
                    files[index] = std::string(t.substr(q1 + 1, q2 - q1 - 1));
            } else if (is_function_header(t)) {
                function = function_name(t);
                register_bits.clear();
                loc = Loc();
                in_header = true;
            } else if (!in_header &&
                       (t.find(".shared") != std::string_view::npos || t.find(".global") != std::string_view::npos)) {
                // ".shared .align 4 .b8 _ZZ4tileE1s[4224];" / ".global .align 8 .u64 x;"
                const size_t end = t.find_first_of("[;=");
                if (end != std::string_view::npos) {
                    size_t start = end;
                    while (start > 0 && (identifier_char(t[start - 1]))) --start;
                    std::string_view name = trim(t.substr(start, end - start));
                    if (!name.empty())
                        symbol_space[std::string(name)] =
                            t.find(".shared") != std::string_view::npos ? "shared" : "global";
                }
            }
            emit_line();
            // The prototype, once, after the module's header: calls may come before the definition.
            if (!declared && starts_with(t, ".address_size")) {
                out.ptx +=
                    ".func " + record + "(.param .b64 " + record + "_address, .param .b32 " + record + "_info);\n";
                declared = true;
            }
            if (t == "{") {
                depth = 1;
                in_header = false;
            } else if (in_header && !t.empty() && t.back() == ';') {
                in_header = false;  // a prototype, no body
            }
            continue;
        }
        // Inside a function body: braces of call blocks and vector operands nest and balance.
        for (char c : t) depth += c == '{' ? 1 : c == '}' ? -1 : 0;
        if (starts_with(t, ".reg")) {
            // ".reg .b64 %rd<20>;"
            const size_t pct = t.find('%');
            if (pct != std::string_view::npos) {
                size_t end = pct + 1;
                while (end < t.size() && identifier_char(t[end])) ++end;
                int bits = 0;
                for (const char* width : {"64", "32", "16", "8"})
                    if (t.find(std::string(".b") + width) != std::string_view::npos ||
                        t.find(std::string(".u") + width) != std::string_view::npos ||
                        t.find(std::string(".s") + width) != std::string_view::npos) {
                        bits = std::atoi(width);
                        break;
                    }
                if (bits) register_bits[std::string(t.substr(pct, end - pct))] = bits;
            }
        } else if (starts_with(t, ".loc")) {
            // Line 0 is code the compiler made up (a merge of two paths): it stays with the line before.
            const Loc next = parse_loc(t);
            if (next.line != 0) loc = next;
        }
        std::optional<Access> access;
        if (function != record) access = parse_access(t);
        if (!access) {
            emit_line();
            continue;
        }
        // The address as a generic 64-bit one, from a register (32-bit shared-window addresses widened) or
        // a symbol, plus the instruction's offset.
        std::string space = access->space;
        std::string setup;
        if (access->base[0] == '%') {
            std::string prefix = access->base;
            while (!prefix.empty() && std::isdigit(static_cast<unsigned char>(prefix.back()))) prefix.pop_back();
            const auto found = register_bits.find(prefix);
            const int bits = found != register_bits.end() ? found->second : starts_with(prefix, "%rd") ? 64 : 32;
            setup += bits == 64 ? "\tmov.b64 \t%cpm_a, " + access->base + ";\n"
                                : "\tcvt.u64.u32 \t%cpm_a, " + access->base + ";\n";
        } else {
            const auto declared_space = symbol_space.find(access->base);
            if (space == "generic") {
                if (declared_space == symbol_space.end()) {
                    emit_line();  // a generic access to a symbol we do not know the space of: not recorded
                    continue;
                }
                space = declared_space->second;
            }
            setup += "\tmov.u64 \t%cpm_a, " + access->base + ";\n";
        }
        if (!access->offset.empty() && access->offset != "0")
            setup += "\tadd.s64 \t%cpm_a, %cpm_a, " + access->offset + ";\n";
        if (space == "global") setup += "\tcvta.global.u64 \t%cpm_a, %cpm_a;\n";
        if (space == "shared") setup += "\tcvta.shared.u64 \t%cpm_a, %cpm_a;\n";
        if (out.sites.size() >= kMaxMemorySites)
            return make_error(ErrorKind::Unsupported, "the kernel has more loads and stores than can be recorded",
                              "run without --memory");
        PtxMemorySite site;
        site.bytes = access->bytes;
        site.store = access->store;
        site.space = access->space;
        site.opcode = access->opcode;
        out.sites.push_back(site);
        site_locs.push_back(loc);
        const uint32_t info = memory_site_info(uint32_t(out.sites.size()), access->bytes, access->store);
        out.ptx += "\t{ // cp_memory site " + std::to_string(out.sites.size()) + "\n\t.reg .b64 \t%cpm_a;\n";
        out.ptx += setup;
        out.ptx += "\t.param .b64 \tcpm_p0;\n\tst.param.b64 \t[cpm_p0], %cpm_a;\n";
        out.ptx += "\t.param .b32 \tcpm_p1;\n\tst.param.b32 \t[cpm_p1], " + std::to_string(info) + ";\n";
        out.ptx += "\t" + (access->predicate.empty() ? std::string() : access->predicate + " ") + "call \t" + record +
                   ", (cpm_p0, cpm_p1);\n\t}\n";
        emit_line();
    }
    if (!declared)
        return make_error(ErrorKind::Internal, "the compiled module has no .address_size line", "run without --memory");
    // Lines of the user's file: the access's own, else the call site it was inlined into (a header's helper).
    // NVRTC names the file as given, made absolute from its working folder ("lesson.cu" becomes
    // "/home/me/lesson.cu"): the same file name counts.
    const auto base_name = [](const std::string& path) {
        const size_t slash = path.find_last_of('/');
        return slash == std::string::npos ? path : path.substr(slash + 1);
    };
    const auto in_main = [&](int file) {
        const auto f = files.find(file);
        return f != files.end() &&
               (main_file.empty() || f->second == main_file || base_name(f->second) == base_name(main_file));
    };
    for (size_t i = 0; i < out.sites.size(); ++i) {
        const Loc& l = site_locs[i];
        out.sites[i].line = in_main(l.file) ? l.line : in_main(l.inlined_file) ? l.inlined_line : 0;
    }
    return out;
}

std::vector<MemoryAccess> memory_accesses_from_records(const std::vector<uint64_t>& words, uint64_t count,
                                                       std::vector<MemoryRegion> global, uint64_t block_limit,
                                                       uint64_t shared_reserved) {
    std::sort(global.begin(), global.end(),
              [](const MemoryRegion& a, const MemoryRegion& b) { return a.start < b.start; });
    std::vector<MemoryAccess> out;
    count = std::min<uint64_t>(count, words.size() / kMemoryRecordWords);
    out.reserve(count);
    for (uint64_t i = 0; i < count; ++i) {
        const uint64_t* w = words.data() + i * kMemoryRecordWords;
        MemoryAccess a;
        a.block = w[1] >> 32;
        a.thread = uint32_t(w[1]);
        const uint32_t info = uint32_t(w[2]);
        a.site = info >> 9;
        a.store = (info >> 8) & 1;
        a.size = info & 0xFF;
        if (a.block >= block_limit) continue;
        if ((w[2] >> 32) == 1) {
            a.space = MemorySpace::Shared;
            a.address = memory_region_base(global.size()) + (w[0] >= shared_reserved ? w[0] - shared_reserved : w[0]);
        } else {
            auto it = std::upper_bound(global.begin(), global.end(), w[0],
                                       [](uint64_t x, const MemoryRegion& r) { return x < r.start; });
            if (it == global.begin()) continue;
            --it;
            if (w[0] - it->start >= it->bytes) continue;
            a.space = MemorySpace::Global;
            a.address = memory_region_base(uint64_t(it - global.begin())) + (w[0] - it->start);
        }
        out.push_back(a);
    }
    return out;
}

}  // namespace cp
