// Crash reports for the CPU backend: "thread (x,y,z) of block (x,y,z) wrote past the end of buffer `out`:
// element 1000 of 1000 (line N)", and the like for other buffers, the stack, division by zero and stalls.
#include "core/cpu/fault_report.h"

#include "core/cpu/abi_text.h"
#include "core/worker/subprocess.h"

#include <csignal>
#include <cstdio>
#include <dlfcn.h>
#include <sys/uio.h>
#include <unistd.h>

namespace cp {
namespace {

std::string hex(uintptr_t v) {
    char text[32];
    std::snprintf(text, sizeof text, "0x%lx", static_cast<unsigned long>(v));
    return text;
}

// When the crash is inside a library function (memcpy...), the kernel's call is found from a return
// address on the stack that points into the kernel's code.
std::optional<uintptr_t> kernel_return_address(const KernelModule& module, uintptr_t stack_pointer) {
    if (!stack_pointer) return std::nullopt;
    uintptr_t words[256];
    iovec local{words, sizeof words}, remote{reinterpret_cast<void*>(stack_pointer), sizeof words};
    // process_vm_readv fails cleanly instead of faulting when the stack is not readable.
    const ssize_t got = ::process_vm_readv(::getpid(), &local, 1, &remote, 1, 0);
    for (ssize_t i = 0; i < got / ssize_t(sizeof(uintptr_t)); ++i)
        if (module.contains(words[i])) return words[i] - 1;  // inside the call instruction
    return std::nullopt;
}

// Relative paths come back from addr2line joined to the folder the library was compiled in.
bool same_file(const std::string& f, const std::string& source_path) {
    return f.empty() || f == source_path ||
           (f.size() > source_path.size() && f.compare(f.size() - source_path.size(), source_path.size(), source_path) == 0 &&
            f[f.size() - source_path.size() - 1] == '/');
}

std::string line_text(const std::optional<SourceLine>& where, const std::string& source_path) {
    if (!where) return "";
    if (same_file(where->file, source_path)) return " (line " + std::to_string(where->line) + ")";
    // A header of the user's own, copied into the build folder: by the name it is included by.
    std::string file = where->file;
    if (const size_t build = file.find("/cp-build-"); build != std::string::npos)
        if (const size_t slash = file.find('/', build + 1); slash != std::string::npos) file = file.substr(slash + 1);
    return " (" + file + ":" + std::to_string(where->line) + ")";
}

// The element the access hit, counted from the buffer's start (negative before it): "element 1001 of 1001".
std::string element_text(uint64_t bytes, GuardedBuffer::Location loc, uint32_t elem) {
    const int64_t offset =
        loc.where == GuardedBuffer::Where::PastEnd ? int64_t(bytes + loc.distance) : -int64_t(loc.distance);
    const int64_t e = int64_t(elem);
    const int64_t element = offset >= 0 ? offset / e : -((-offset + e - 1) / e);
    return "element " + std::to_string(element) + " of " + std::to_string(bytes / elem);
}

// "wrote past the end of buffer `out`: element 1001 of 1001" and its variants. Without the element size
// (a void* parameter, a buffer this kernel was not given) the distance in bytes.
std::string outside_text(const std::string& verb, const std::string& region, uint64_t bytes,
                         GuardedBuffer::Location loc, uint32_t elem) {
    const uint64_t d = loc.distance;
    const std::string element = elem ? ": " + element_text(bytes, loc, elem) : "";
    switch (loc.where) {
        case GuardedBuffer::Where::PastEnd:
            if (elem || d == 0) return verb + " past the end of " + region + element;
            return verb + " memory " + std::to_string(d) + " bytes past the end of " + region;
        case GuardedBuffer::Where::BeforeStart:
            if (elem) return verb + " before the start of " + region + element;
            return verb + " memory " + std::to_string(d) + " bytes before the start of " + region;
        default: return verb + " " + region + " at byte offset " + std::to_string(d) + ", which faulted";
    }
}

}  // namespace

std::string written_outside_text(const std::string& region, uint64_t bytes, GuardedBuffer::Location loc, uint32_t elem) {
    return std::string("a thread wrote ") + (loc.where == GuardedBuffer::Where::PastEnd ? "past the end" : "before the start") +
           " of " + region + (elem ? ": " + element_text(bytes, loc, elem) : "");
}

namespace {

// A multi-dimensional array's element as indices, the outermost unbounded: element 1056 of tile[32][33] is
// "tile[32][0]", element -1 is "tile[-1][32]". Empty for one dimension (the element number says it).
std::string array_index_text(const std::string& name, const std::vector<uint64_t>& extents, uint64_t bytes,
                             GuardedBuffer::Location loc, uint32_t elem) {
    if (extents.size() < 2 || !elem) return "";
    const int64_t offset =
        loc.where == GuardedBuffer::Where::PastEnd ? int64_t(bytes + loc.distance) : -int64_t(loc.distance);
    const int64_t e = int64_t(elem);
    int64_t element = offset >= 0 ? offset / e : -((-offset + e - 1) / e);
    std::vector<int64_t> index;  // innermost first
    for (size_t d = extents.size(); d-- > 1;) {
        const int64_t n = std::max<int64_t>(1, int64_t(extents[d]));
        int64_t i = element % n;
        element /= n;
        if (i < 0) {
            i += n;
            element -= 1;
        }
        index.push_back(i);
    }
    index.push_back(element);
    std::string out = name;
    for (auto i = index.rbegin(); i != index.rend(); ++i) out += "[" + std::to_string(*i) + "]";
    return out;
}

std::string element_hint(const BufferForReport& b) {
    if (!b.element_size) return "";
    return "`" + b.name + "` holds " + std::to_string(b.memory->size() / b.element_size) + " elements of " +
           std::to_string(b.element_size) + (b.element_size == 1 ? " byte" : " bytes") +
           ", numbered from 0. ";
}

// The largest power of two (up to 256) that divides `bytes`: how aligned the CPU backend's buffer starts.
uint64_t start_alignment(uint64_t bytes) {
    uint64_t a = 1;
    while (a < 256 && bytes % (a * 2) == 0) a *= 2;
    return a;
}

// A general-protection fault: a 16-byte SSE access at an address that is not a multiple of 16 (a float4 or
// uint4 read through a cast pointer), or an address no pointer can hold (a garbage pointer).
EngineError describe_protection_fault(const FaultRecord& r, const std::string& who, const FaultReportContext& context) {
    const std::string verb = r.access == 2 ? "wrote" : "read";
    if (r.vector_operand && r.address % 16 != 0) {
        for (const BufferForReport& b : context.buffers) {
            if (!b.memory) continue;
            const GuardedBuffer::Location loc = b.memory->locate(r.address);
            if (loc.where != GuardedBuffer::Where::Inside) continue;
            const std::string what = who + " " + verb + " 16 bytes at byte " + std::to_string(loc.distance) +
                                     " of buffer `" + b.name +
                                     "` with one vector instruction, which needs an address that is a multiple of 16";
            if (loc.distance % 16 != 0)  // misaligned from a 256-aligned start too: a GPU faults the same way
                return engine_error(ErrorKind::Fault, "MISALIGNED_ADDRESS", what,
                                    "a float4, int4 or double2 at byte " + std::to_string(loc.distance) +
                                        " of a buffer: vector accesses need an offset that is a multiple of their "
                                        "size (for float4 from a float*, an index that is a multiple of 4)");
            const uint64_t align = start_alignment(b.memory->size());
            return engine_error(
                ErrorKind::Fault, "MISALIGNED_ADDRESS", what,
                "A GPU starts buffers 256-byte aligned. The CPU backend ends each buffer exactly at a guard page so "
                "that any access past its end is caught; `" + b.name + "` (" + std::to_string(b.memory->size()) +
                    " bytes, not a multiple of 16) therefore starts only " + std::to_string(align) +
                    "-byte aligned. Read it as float4/uint4 only when its size in bytes is a multiple of 16 (e.g. "
                    "an element count that is a multiple of 4), or run with --backend cuda.");
        }
        return engine_error(ErrorKind::Fault, "MISALIGNED_ADDRESS",
                            who + " " + verb + " 16 bytes at address " + hex(r.address) +
                                " with one vector instruction, which needs an address that is a multiple of 16",
                            "a float4, int4 or double2 read or written through a pointer that is not 16-byte "
                            "aligned (e.g. cast from a float* at an odd index)");
    }
    return engine_error(ErrorKind::Fault, "INVALID_ADDRESS",
                        who + " used an address that no pointer can hold (a garbage pointer)",
                        "a pointer that was never set, or computed from garbage, gives such addresses");
}

// An access outside a static __shared__ array: by `who`, `verb` ("read", "wrote"), or a write found after the
// launch (place.found_after_launch: no thread, no line).
EngineError static_shared_error(const WorkerFaultPlace& place, const std::string& who, const std::string& verb) {
    std::string dims;
    for (const uint64_t n : place.extents) dims += "[" + std::to_string(n) + "]";
    const std::string elements =
        place.element_size ? std::to_string(place.shared_bytes / place.element_size) + " elements of " +
                                 std::to_string(place.element_size) + (place.element_size == 1 ? " byte" : " bytes")
                           : std::to_string(place.shared_bytes) + " bytes";
    const std::string hint =
        "the __shared__ array `" + place.array_name + dims + "` holds " + elements + ", numbered from 0" +
        (place.extents.size() > 1 ? ", row after row" : "") +
        ". On a GPU such an index reads or writes other shared memory of the block, or faults: check it against the "
        "array's dimensions (e.g. a loop that fills a tile a few rows at a time must stop at the tile's height)";
    const std::string region = "the __shared__ array `" + place.array_name + "`";
    const std::string index =
        array_index_text(place.array_name, place.extents, place.shared_bytes, place.location, place.element_size);
    const std::string where = index.empty() ? "" : ", " + index;
    const std::string message =
        place.found_after_launch
            ? written_outside_text(region, place.shared_bytes, place.location, place.element_size) + where +
                  kFoundAfterLaunch
            : who + " " + outside_text(verb, region, place.shared_bytes, place.location, place.element_size) + where;
    return engine_error(ErrorKind::OutOfBounds, "OUT_OF_BOUNDS", message, hint);
}

}  // namespace

std::optional<SourceLine> source_line_of(const std::string& library, uint64_t offset, const std::string& prefer_file) {
    std::string tool;
    for (const char* name : {"addr2line", "llvm-addr2line", "eu-addr2line"})
        if (tool = find_executable(name); !tool.empty()) break;
    if (tool.empty()) return std::nullopt;
    // -i lists the inlining chain, innermost first: an access inside an inlined library function (a
    // fortified memcpy, a device function in a header) is reported at the first line in the user's file.
    const ProcessOutcome out =
        run_process({tool, "-i", "-e", library, hex(uintptr_t(offset))}, 20);
    if (!out.started || out.exit_code != 0) return std::nullopt;
    std::optional<SourceLine> first;
    size_t start = 0;
    while (start < out.output.size()) {
        size_t end = out.output.find('\n', start);
        if (end == std::string::npos) end = out.output.size();
        std::string text = out.output.substr(start, end - start);
        start = end + 1;
        if (const size_t disc = text.find(" (discriminator"); disc != std::string::npos) text.resize(disc);
        const size_t colon = text.rfind(':');
        if (colon == std::string::npos || text.compare(0, 2, "??") == 0) continue;
        SourceLine where;
        where.file = text.substr(0, colon);
        try {
            where.line = std::stoi(text.substr(colon + 1));
        } catch (...) {
            continue;
        }
        if (where.line <= 0) continue;
        if (same_file(where.file, prefer_file)) return where;
        if (!first) first = where;
    }
    return first;
}

CodeSite code_site_of(const KernelModule& module, ModuleId id, uintptr_t instruction, uintptr_t stack_pointer) {
    CodeSite site;
    site.module = id;
    if (module.contains(instruction)) {
        site.offsets.push_back(instruction - module.load_base());
        return site;
    }
    Dl_info info{};
    if (::dladdr(reinterpret_cast<void*>(instruction), &info) && info.dli_sname)
        site.in_function = std::string(" in ") + info.dli_sname;
    if (const auto ret = kernel_return_address(module, stack_pointer)) site.offsets.push_back(*ret - module.load_base());
    return site;
}

std::string code_site_text(const CodeSite& site, const std::string& library, const std::string& source_path,
                           int* user_line) {
    // The innermost place in the user's own file (a thread stopped inside the shim's inlined access check is at
    // the line that made the access), else the innermost place with a line at all.
    std::optional<SourceLine> first;
    for (const uint64_t offset : site.offsets) {
        const auto where = source_line_of(library, offset, source_path);
        if (!where) continue;
        if (same_file(where->file, source_path)) {
            // The line in the user's own file, for the editor's marker (the message says it in words too).
            if (user_line) *user_line = where->line;
            return site.in_function + line_text(where, source_path);
        }
        if (!first) first = where;
    }
    return site.in_function + line_text(first, source_path);
}

int user_line_of(const std::string& library, uint64_t offset, const std::string& source_path) {
    const std::optional<SourceLine> where = source_line_of(library, offset, source_path);
    return where && same_file(where->file, source_path) ? where->line : 0;
}

namespace {

// describe_crash's words. The code site's (" (line 5)") go at the end of every message: the app appends them.
EngineError crash_in_words(const GridFailure& failure, const FaultReportContext& context,
                           std::optional<CodeSite>* site) {
    if (failure.block_failure) {
        const BlockFailure& b = *failure.block_failure;
        return engine_error(b.kind, b.name, b.message, b.hint);
    }
    const WorkerFaultPlace& place = failure.place;
    if (!failure.fault && place.kind == WorkerFaultPlace::Kind::StaticShared && place.found_after_launch)
        return static_shared_error(place, "", "");
    if (!failure.fault)
        return engine_error(ErrorKind::Fault, "LAUNCH_FAILED", "the launch failed for an unknown reason");
    const FaultRecord& r = *failure.fault;
    const std::string who = "thread " + uint3_text(r.thread) + " of block " + uint3_text(r.block);
    if (context.module) *site = code_site_of(*context.module, context.module_id, r.instruction, r.stack_pointer);
    const std::string verb = r.access == 2 ? "wrote" : r.access == 1 ? "read" : "accessed";

    if (r.signal == SIGFPE) {
        const bool overflow = r.code == FPE_INTOVF;
        return engine_error(
            ErrorKind::Fault, "INTEGER_DIVIDE_BY_ZERO",
            who + (overflow ? " overflowed an integer division (INT_MIN / -1)" : " divided an integer by zero"),
            "a GPU returns an unspecified value here, the CPU stops; check the divisor before dividing");
    }
    if (r.signal == SIGILL) {
        return engine_error(ErrorKind::Fault, "ILLEGAL_INSTRUCTION", who + " executed an illegal instruction",
                            "the host compiler plants a trap where code has undefined behaviour, e.g. a non-void "
                            "function that does not return a value");
    }
    if (r.signal == SIGSEGV && r.code == SI_KERNEL) return describe_protection_fault(r, who, context);
    if (failure.place.kind == WorkerFaultPlace::Kind::StackGuard) {
        return engine_error(
            ErrorKind::Fault, "STACK_OVERFLOW", who + " overflowed its stack",
            "each thread has 128 KiB of stack on the CPU backend: use smaller local arrays or less recursion");
    }
    if (failure.place.kind == WorkerFaultPlace::Kind::DynamicShared) {
        const std::string region = "the dynamic shared memory (extern __shared__, " +
                                   std::to_string(failure.place.shared_bytes) + " bytes)";
        return engine_error(
            ErrorKind::OutOfBounds, "OUT_OF_BOUNDS",
            who + " " + outside_text(verb, region, failure.place.shared_bytes, failure.place.location, 0),
            "the launch's dynamic shared memory size is what extern __shared__ arrays may use");
    }
    if (place.kind == WorkerFaultPlace::Kind::StaticShared) return static_shared_error(place, who, verb);
    for (const BufferForReport& b : context.buffers) {
        if (!b.memory) continue;
        const GuardedBuffer::Location loc = b.memory->locate(r.address);
        if (loc.where == GuardedBuffer::Where::Outside) continue;
        return engine_error(
            ErrorKind::OutOfBounds, "OUT_OF_BOUNDS",
            who + " " + outside_text(verb, "buffer `" + b.name + "`", b.memory->size(), loc, b.element_size),
            element_hint(b) +
                "Check the bounds test before the access (e.g. `if (i < n)`) and that the grid does "
                "not cover more than the data.");
    }
    if (r.address < 65536) {
        return engine_error(ErrorKind::Fault, "INVALID_ADDRESS",
                            who + " " + verb + " address " + hex(r.address) + " (a null pointer)",
                            "a pointer parameter was not given a buffer, or an index was applied to a null pointer");
    }
    return engine_error(ErrorKind::Fault, "INVALID_ADDRESS",
                        who + " " + verb + " address " + hex(r.address) + ", which is not inside any buffer",
                        "an index far outside a buffer, or a pointer that was never set, gives such addresses");
}

}  // namespace

EngineError describe_crash(const GridFailure& failure, const FaultReportContext& context,
                           std::optional<CodeSite>* site) {
    EngineError e = crash_in_words(failure, context, site);
    // A CUDA thread's crash: which one, for code to use (a block's assert or deadlock says its own in words).
    if (!failure.block_failure && failure.fault) {
        const FaultRecord& r = *failure.fault;
        e.thread = Dim3{r.thread.x, r.thread.y, r.thread.z};
        e.block = Dim3{r.block.x, r.block.y, r.block.z};
    }
    return e;
}

}  // namespace cp
