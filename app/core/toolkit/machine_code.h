// A kernel file's machine code: the PTX NVRTC makes and the SASS of the cubin it makes for a real
// architecture (disassembled by nvdisasm), each instruction with the source lines it came from. No GPU is
// needed. The `compile` command prints it (--ptx, --sass); the window's Code panel shows it beside the source.
#pragma once

#include "core/engine/engine_api.h"

#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace cp {

// One line of a listing as shown.
struct CodeLine {
    enum class Kind { Instruction, Label, Function, Other };
    Kind kind = Kind::Other;
    std::string text;    // as the tool printed it, offsets and comments left out
    std::string opcode;  // instructions: "LDG.E.128", "ld.global.f32" (predicate left out)
    int offset = -1;     // SASS: the instruction's byte offset in its function
    // The kernel file's lines this instruction came from, innermost first: a helper's line, then the line
    // that called it (inlined), and so on. Empty when the compiler said none, or only lines of other files.
    std::vector<int> lines;
    std::string function;  // the function (mangled or extern "C" name) this line belongs to
};

struct CodeListing {
    std::vector<CodeLine> lines;
    // Instructions per source line of the kernel file (by each instruction's innermost line).
    std::map<int, int> per_line;
    // Of those, the instructions that reach local memory (SASS STL/LDL, PTX st.local/ld.local): a spill where ptxas
    // reports spill bytes (registers ran out on that line), else a local array or the stack frame.
    std::map<int, int> local_per_line;
    int instructions = 0;
    std::vector<std::string> functions;  // in the order they appear

    // Index of the listing's lines whose instructions came from `source_line` (innermost or a call site).
    std::vector<size_t> lines_of(int source_line) const;
};

// Builds a listing from PTX text with `.loc` / `.file` directives (NVRTC's -lineinfo). `file` is the kernel
// file's path as the compiler was given it; lines of other files (headers) are not the file's lines.
CodeListing parse_ptx(std::string_view ptx, std::string_view file);
// Builds a listing from `nvdisasm -c -gi` output ("//## File "...", line N [inlined at ...]" comments).
CodeListing parse_sass(std::string_view nvdisasm_output, std::string_view file);
// Fills per_line/instructions/functions from `lines`.
void count_listing(CodeListing& listing);

// The nvdisasm this build uses: $CUDA_PLAYGROUND_NVDISASM, the one set-up fetched or found (CP_NVDISASM), the
// toolkit's ($CUDA_HOME/bin, /usr/local/cuda/bin), then PATH. Empty with `why` set when there is none.
std::string nvdisasm_path(std::string* why = nullptr);

struct MachineCodeRequest {
    CompileRequest compile;  // source, path, kernel, options (load is ignored)
    std::string arch;        // a real architecture, "sm_90"
    bool ptx = true;
    bool sass = true;
};

struct MachineCode {
    std::string arch;
    CompileResult compile;     // the cubin compile: diagnostics, resource usage
    bool ok = false;           // compiled (PTX and/or SASS below as asked)
    std::vector<std::byte> cubin;  // what the SASS is of
    CodeListing ptx;
    CodeListing sass;
    std::string sass_missing;  // why there is no SASS although it was asked for (no nvdisasm, it failed)
    double ptx_ms = 0, sass_ms = 0;  // the PTX compile; the disassembly (nvdisasm's run and the parse)
    double nvdisasm_ms = 0;          // of sass_ms, nvdisasm's own run (0 when its output was kept on disk)
    bool sass_cached = false;        // nvdisasm's output for this cubin came from the disk cache
};

// Compiles request.compile for request.arch (a cubin, and PTX for the matching virtual architecture) and
// lists both. Never throws; a compile error is in compile.diagnostics with ok false.
MachineCode machine_code(const MachineCodeRequest& request);

}  // namespace cp

namespace cp {

// Two listings side by side (two versions of a kernel, two lessons, two architectures): their instructions
// aligned where the opcodes agree (a longest common subsequence), and how many of each opcode each has.
struct ListingDiff {
    enum class Row { Same, OnlyA, OnlyB };
    struct Pair {
        Row row = Row::Same;
        int a = -1, b = -1;  // indices into the listings' lines (-1: none on that side)
        bool text_differs = false;  // Same opcode, other operands
    };
    std::vector<Pair> rows;
    // Per opcode (with its modifiers): count in A, count in B.
    std::map<std::string, std::pair<int, int>> opcodes;
    int same = 0, only_a = 0, only_b = 0;
    bool aligned = true;  // false: too long to align here (only the counts are given)
};

ListingDiff diff_listings(const CodeListing& a, const CodeListing& b);

}  // namespace cp
