// The CUDA backend's memory recording, without the driver: the recording variables' source, the PTX rewrite
// that records each load/store in place, and decoding its records into accesses (ptx_memory.h).
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
    // Only the variables the worker sets: the recording code itself is PTX that the rewrite writes in place at
    // every access (memory_record_ptx below), and cp_memory_keep keeps them in the whole-program module.
    static const std::string source = R"(
extern "C" {
__device__ unsigned long long* cp_memory_log;
__device__ unsigned long long cp_memory_count;
__device__ unsigned long long cp_memory_cap;
__device__ unsigned long long cp_memory_block_limit;
}
extern "C" __global__ void cp_memory_keep(unsigned long long* out) {
    out[0] = (unsigned long long)cp_memory_log + cp_memory_count + cp_memory_cap + cp_memory_block_limit;
}
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

// PTX written a line at a time, each indented as NVRTC indents its own.
struct PtxLines {
    std::string text;
    void operator()(const std::string& line) {
        text += '\t';
        text += line;
        text += '\n';
    }
};

// Slots a thread takes from the log at once, at most. Its chunks hold 1, 1, 2, 4, 8 and then 16 records, each as
// many as it has taken before: a thread that makes 1, 2, 4 or 8 accesses (most lessons' threads: a load and a
// store, a transpose's four) leaves no slot unused, one that makes 3 leaves one, and one that makes hundreds (the
// register-blocked multiply's inner loop) goes to the counter once in 16 accesses instead of at every one. Unused
// slots count against the cap: with chunks of 1, 2, 4 ... the 1000 x 1000 transpose took 7 slots for its 4
// accesses a thread and was recorded on 541 of its 1024 blocks instead of all.
constexpr uint32_t kMaxChunkSlots = 16;

// Per function, set once at the top of its body: whether this thread records at all (%cpm_on: a log is set and
// the block is below the limit), the log's address, the record's who-word (block << 32 | thread, thread = tid.x +
// ntid.x * (tid.y + ntid.y * tid.z)) and the cap in 32 bits (the worker sets it far below 2^32,
// kCudaMemoryRecordCap). Then the thread's next slot (%cpm_pos), the step to the one after it (%cpm_n: the lanes
// that took its chunk together), where its slots end (%cpm_end: it takes a new chunk there) and the records its
// next chunk holds (%cpm_k, 0 before the first). Work done here once is not repeated at every access (the
// register-blocked multiply has 252 sites; code at each one is what the driver's JIT spends its time on), and a
// device function that is not inlined starts from an empty chunk at each call: its records still come after the
// caller's, as chunks are taken in increasing order.
std::string function_state_ptx() {
    PtxLines op;
    op(".reg .b32 \t%cpm_pos;");
    op(".reg .b32 \t%cpm_end;");
    op(".reg .b32 \t%cpm_k;");
    op(".reg .b32 \t%cpm_n;");
    op(".reg .b32 \t%cpm_cap;");
    op(".reg .b64 \t%cpm_log;");
    op(".reg .b64 \t%cpm_who;");
    op(".reg .pred \t%cpm_on;");
    op("mov.u32 \t%cpm_pos, 0;");
    op("mov.u32 \t%cpm_end, 0;");
    op("mov.u32 \t%cpm_k, 0;");  // the first chunk holds max(k, 1) = 1 record, and so does the second
    op("mov.u32 \t%cpm_n, 1;");
    op("{");
    op(".reg .pred \t%cpm_t<2>;");
    op(".reg .b32 \t%cpm_u<3>;");
    op(".reg .b64 \t%cpm_e<4>;");
    // The three variables read at once: one memory latency, not three in a row.
    op("ld.global.u64 \t%cpm_log, [" + std::string(kMemoryLogSymbol) + "];");
    op("ld.global.u64 \t%cpm_e0, [" + std::string(kMemoryCapSymbol) + "];");
    op("ld.global.u64 \t%cpm_e1, [" + std::string(kMemoryBlockLimitSymbol) + "];");
    // block = ctaid.x + nctaid.x * (ctaid.y + nctaid.y * ctaid.z), in 64 bits
    op("mov.u32 \t%cpm_u0, %ctaid.z;");
    op("mov.u32 \t%cpm_u1, %nctaid.y;");
    op("mul.wide.u32 \t%cpm_e2, %cpm_u0, %cpm_u1;");
    op("mov.u32 \t%cpm_u0, %ctaid.y;");
    op("cvt.u64.u32 \t%cpm_e3, %cpm_u0;");
    op("add.s64 \t%cpm_e2, %cpm_e2, %cpm_e3;");
    op("mov.u32 \t%cpm_u0, %nctaid.x;");
    op("cvt.u64.u32 \t%cpm_e3, %cpm_u0;");
    op("mul.lo.s64 \t%cpm_e2, %cpm_e2, %cpm_e3;");
    op("mov.u32 \t%cpm_u0, %ctaid.x;");
    op("cvt.u64.u32 \t%cpm_e3, %cpm_u0;");
    op("add.s64 \t%cpm_e2, %cpm_e2, %cpm_e3;");
    op("setp.ne.u64 \t%cpm_t0, %cpm_log, 0;");
    op("setp.lt.u64 \t%cpm_t1, %cpm_e2, %cpm_e1;");
    op("and.pred \t%cpm_on, %cpm_t0, %cpm_t1;");
    op("cvta.to.global.u64 \t%cpm_log, %cpm_log;");
    op("min.u64 \t%cpm_e0, %cpm_e0, 4294967295;");
    op("cvt.u32.u64 \t%cpm_cap, %cpm_e0;");
    op("shl.b64 \t%cpm_who, %cpm_e2, 32;");
    op("mov.u32 \t%cpm_u0, %tid.z;");
    op("mov.u32 \t%cpm_u1, %ntid.y;");
    op("mov.u32 \t%cpm_u2, %tid.y;");
    op("mad.lo.s32 \t%cpm_u0, %cpm_u0, %cpm_u1, %cpm_u2;");
    op("mov.u32 \t%cpm_u1, %ntid.x;");
    op("mov.u32 \t%cpm_u2, %tid.x;");
    op("mad.lo.s32 \t%cpm_u0, %cpm_u0, %cpm_u1, %cpm_u2;");
    op("cvt.u64.u32 \t%cpm_e3, %cpm_u0;");
    op("or.b64 \t%cpm_who, %cpm_who, %cpm_e3;");
    op("}");
    return op.text;
}

// The recording code for one access, written in place of a call so that ptxas allocates its registers with the
// kernel's (a call clobbers the caller-saved registers: a register-heavy kernel such as the register-blocked
// multiply spilled its accumulators to local memory around every access). It does what a C++ recorder would,
// in this order: nothing where the function's state says this thread does not record; the address `%cpm_a`
// of a generic instruction classified (0 global, 1 shared converted to its window offset, neither: a thread's
// local memory, not recorded) at run time, as an address (NVVM once folded a C++ recorder's __isShared() to false
// and every shared access was taken for a global one); an instruction that names its space (`space`) needs no
// test. Each thread writes its records into slots it holds (function_state_ptx); the lanes whose slots are used
// up take new ones together, with one atomicAdd on the counter between them (warp-aggregated), so a thread's own
// records come in the order it made them, and the counter's round trip, which a recording launch used to wait on
// at every access, comes once per chunk. The n lanes that take a chunk of n * k slots together interleave in it
// (lane r's records at r, r + n, r + 2n ...), so a converged warp's records of one access are side by side and
// its stores coalesce, as they did with a slot per access (a run of slots per lane made the register-blocked
// multiply's recording 1.5x slower on the H100). Slots a thread does not use stay zero (the log is cleared
// before each pass; a record's info word never is). Records past the cap are dropped, and the counter, past the
// cap, says so. `skip` runs it only where the instruction's predicate holds ("" for none).
std::string record_access_ptx(uint32_t site, uint32_t info, const std::string& skip, const std::string& space) {
    const std::string label = "$cpm_skip_" + std::to_string(site);
    const std::string have = "$cpm_have_" + std::to_string(site);
    const uint64_t global_word = info, shared_word = uint64_t(info) | (uint64_t(1) << 32);
    PtxLines op;
    op.text.reserve(1800);
    op(".reg .pred \t%cpm_q<4>;");
    op(".reg .b32 \t%cpm_r<9>;");
    op(".reg .b64 \t%cpm_d<6>;");
    if (!skip.empty()) op(skip + " bra \t" + label + ";");
    op("@!%cpm_on bra \t" + label + ";");
    if (space == "generic") {
        // The space, tested at run time, as an address.
        op("isspacep.shared \t%cpm_q1, %cpm_a;");
        op("isspacep.global \t%cpm_q2, %cpm_a;");
        op("or.pred \t%cpm_q3, %cpm_q1, %cpm_q2;");
        op("@!%cpm_q3 bra \t" + label + ";");
        op("cvta.to.shared.u64 \t%cpm_d3, %cpm_a;");
        op("selp.b64 \t%cpm_d3, %cpm_d3, %cpm_a, %cpm_q1;");
        op("selp.b64 \t%cpm_d2, " + std::to_string(shared_word) + ", " + std::to_string(global_word) + ", %cpm_q1;");
    } else {
        // The instruction names its space: `%cpm_a` is already the global address or the shared window's offset.
        op("mov.u64 \t%cpm_d3, %cpm_a;");
        op("mov.u64 \t%cpm_d2, " + std::to_string(space == "shared" ? shared_word : global_word) + ";");
    }
    // The n lanes whose slots are used up take their next chunk together, k records each (k of the lowest such
    // lane): that lane adds n * k to the counter and tells the others where the chunk starts; lane r of them then
    // writes at start + r, stepping by n. Past the cap the chunk starts at the cap (nothing is kept there).
    op("setp.eq.u32 \t%cpm_q0, %cpm_pos, %cpm_end;");
    op("activemask.b32 \t%cpm_r1;");
    op("vote.sync.ballot.b32 \t%cpm_r2, %cpm_q0, %cpm_r1;");
    op("@!%cpm_q0 bra \t" + have + ";");
    op("mov.u32 \t%cpm_r3, %laneid;");
    op("neg.s32 \t%cpm_r4, %cpm_r2;");
    op("and.b32 \t%cpm_r4, %cpm_r4, %cpm_r2;");
    op("bfind.u32 \t%cpm_r4, %cpm_r4;");
    op("shfl.sync.idx.b32 \t%cpm_r5, %cpm_k, %cpm_r4, 31, %cpm_r2;");
    op("shl.b32 \t%cpm_r0, %cpm_r5, 1;");  // the next chunk's k: twice this one's, 1 after the first, at most 16
    op("max.u32 \t%cpm_r0, %cpm_r0, 1;");
    op("min.u32 \t%cpm_r0, %cpm_r0, " + std::to_string(kMaxChunkSlots) + ";");
    op("max.u32 \t%cpm_r5, %cpm_r5, 1;");
    op("popc.b32 \t%cpm_r6, %cpm_r2;");
    op("mul.wide.u32 \t%cpm_d4, %cpm_r6, %cpm_r5;");
    op("mov.u64 \t%cpm_d5, 0;");
    op("setp.eq.u32 \t%cpm_q0, %cpm_r3, %cpm_r4;");
    op("@%cpm_q0 atom.global.add.u64 \t%cpm_d5, [" + std::string(kMemoryCountSymbol) + "], %cpm_d4;");
    op("cvt.u64.u32 \t%cpm_d4, %cpm_cap;");
    op("min.u64 \t%cpm_d5, %cpm_d5, %cpm_d4;");
    op("cvt.u32.u64 \t%cpm_r7, %cpm_d5;");
    op("shfl.sync.idx.b32 \t%cpm_r7, %cpm_r7, %cpm_r4, 31, %cpm_r2;");
    op("mov.u32 \t%cpm_r8, %lanemask_lt;");
    op("and.b32 \t%cpm_r8, %cpm_r8, %cpm_r2;");
    op("popc.b32 \t%cpm_r8, %cpm_r8;");
    op("add.u32 \t%cpm_pos, %cpm_r7, %cpm_r8;");
    op("mov.u32 \t%cpm_n, %cpm_r6;");
    op("mad.lo.u32 \t%cpm_end, %cpm_r6, %cpm_r5, %cpm_pos;");
    op("mov.u32 \t%cpm_k, %cpm_r0;");
    op.text += have + ":\n";
    // The record: address; block << 32 | thread; info | space << 32 (kMemoryRecordWords), in the thread's next slot.
    op("setp.ge.u32 \t%cpm_q0, %cpm_pos, %cpm_cap;");
    op("mul.wide.u32 \t%cpm_d1, %cpm_pos, " + std::to_string(kMemoryRecordWords * 8) + ";");
    op("add.s64 \t%cpm_d1, %cpm_d1, %cpm_log;");
    op("add.u32 \t%cpm_pos, %cpm_pos, %cpm_n;");
    op("@%cpm_q0 bra \t" + label + ";");
    op("st.global.u64 \t[%cpm_d1], %cpm_d3;");
    op("st.global.u64 \t[%cpm_d1+8], %cpm_who;");
    op("st.global.u64 \t[%cpm_d1+16], %cpm_d2;");
    op.text += label + ":\n";
    return op.text;
}

// The branch that skips the recording where `predicate` ("@%p1", "@!%p1") does not hold.
std::string negated(const std::string& predicate) {
    if (predicate.empty()) return {};
    return starts_with(predicate, "@!") ? "@" + predicate.substr(2) : "@!" + predicate.substr(1);
}

}  // namespace

Result<PtxMemoryRewrite> instrument_ptx_memory(const std::string& ptx, const std::string& main_file) {
    // The variables the recording code uses must be in the module (declared by memory_recorder_source()).
    for (const char* symbol : {kMemoryLogSymbol, kMemoryCountSymbol, kMemoryCapSymbol, kMemoryBlockLimitSymbol})
        if (ptx.find(std::string(".u64 ") + symbol + ";") == std::string::npos)
            return make_error(ErrorKind::Internal,
                              std::string("the recording variable ") + symbol + " is missing from the compiled module",
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
            // __launch_bounds__' blocks-per-SM wish: the register cap it sets for two blocks per SM leaves no room
            // for the recording code (the register-blocked multiply spilled 24 bytes with it, none without). The
            // recording launch runs once, and .maxntid, which decides what may be launched, stays.
            if (in_header && starts_with(t, ".minnctapersm")) continue;
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
            if (t == "{") {
                depth = 1;
                in_header = false;
                if (function != kMemoryKeepKernel) out.ptx += function_state_ptx();
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
        std::optional<Access> access = function != kMemoryKeepKernel ? parse_access(t) : std::nullopt;
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
        // A shared access stays an offset in the shared window (what the record keeps); a generic one is classified
        // by the recording code at run time.
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
        out.ptx += record_access_ptx(uint32_t(out.sites.size()), info, negated(access->predicate), space);
        out.ptx += "\t}\n";
        emit_line();
    }
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
    // Accesses in a row mostly fall in the buffer of the one before (or the one before that: a copy's load and
    // store), so the two last found are tried before a search.
    const MemoryRegion* recent[2] = {nullptr, nullptr};
    for (uint64_t i = 0; i < count; ++i) {
        const uint64_t* w = words.data() + i * kMemoryRecordWords;
        MemoryAccess a;
        a.block = w[1] >> 32;
        a.thread = uint32_t(w[1]);
        const uint32_t info = uint32_t(w[2]);
        if (info == 0) continue;  // a slot of a thread's chunk that it did not use (a record's site is >= 1)
        a.site = info >> 9;
        a.store = (info >> 8) & 1;
        a.size = info & 0xFF;
        if (a.block >= block_limit) continue;
        if ((w[2] >> 32) == 1) {
            a.space = MemorySpace::Shared;
            a.address = memory_region_base(global.size()) + (w[0] >= shared_reserved ? w[0] - shared_reserved : w[0]);
        } else {
            const MemoryRegion* found = nullptr;
            for (const MemoryRegion* r : recent)
                if (r && w[0] - r->start < r->bytes && w[0] >= r->start) found = r;
            if (!found) {
                auto it = std::upper_bound(global.begin(), global.end(), w[0],
                                           [](uint64_t x, const MemoryRegion& r) { return x < r.start; });
                if (it == global.begin()) continue;
                --it;
                if (w[0] - it->start >= it->bytes) continue;
                found = &*it;
                recent[1] = recent[0];
                recent[0] = found;
            }
            a.space = MemorySpace::Global;
            a.address = memory_region_base(uint64_t(found - global.data())) + (w[0] - found->start);
        }
        out.push_back(a);
    }
    return out;
}

}  // namespace cp
