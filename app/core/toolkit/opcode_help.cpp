// The opcode table (opcode_help.h). Each entry says what the instruction does in a learner's words and names
// its operands in order; modifiers (.E, .128, .U32, .AND ...) are not separate entries.
#include "core/toolkit/opcode_help.h"

#include <algorithm>
#include <array>
#include <utility>

namespace cp {

namespace {

using Entry = std::pair<std::string_view, OpcodeHelp>;

// SASS (Turing to Blackwell). U-prefixed opcodes run once per warp on the uniform datapath.
constexpr Entry kSass[] = {
    {"ATOM", {"Atomic read-modify-write on generic memory, returning the old value", "old value, [address], operand"}},
    {"ATOMG", {"Atomic read-modify-write on global memory, returning the old value", "old value, [address], operand"}},
    {"ATOMS", {"Atomic read-modify-write on shared memory (e.g. a shared histogram's ++)", "old value, [address], operand"}},
    {"BAR", {"Block-wide barrier: __syncthreads() waits here until every thread of the block arrives", "barrier number"}},
    {"BMOV", {"Moves a convergence barrier's state to or from a register", "destination, source"}},
    {"BPT", {"Breakpoint or trap", "kind, code"}},
    {"BRA", {"Branch to a label (with a predicate, only the lanes where it holds)", "target"}},
    {"BREAK", {"Leaves a convergence region for the lanes that take a loop's exit", "predicate, barrier"}},
    {"BRX", {"Indirect branch to an address in a register", "register"}},
    {"BRXU", {"Indirect branch to an address in a uniform register, the same for the whole warp (a switch's jump table)", "uniform register"}},
    {"BSSY", {"Starts a convergence region: the warp's lanes meet again at its BSYNC", "barrier, label of the join"}},
    {"BSYNC", {"Waits for the lanes of a convergence region (after an if/else or loop they rejoin here)", "barrier"}},
    {"CALL", {"Calls a function that was not inlined (device printf, a library routine)", "target"}},
    {"CS2R", {"Reads a special register fast (SRZ gives zeros: clears two registers at once)", "destination, special register"}},
    {"DADD", {"Double-precision add", "destination, a, b"}},
    {"DFMA", {"Double-precision fused multiply-add: a * b + c rounded once", "destination, a, b, c"}},
    {"DMUL", {"Double-precision multiply", "destination, a, b"}},
    {"DSETP", {"Compares two doubles and sets a predicate", "predicate, predicate, a, b, predicate"}},
    {"EXIT", {"Ends the thread (with a predicate: the lanes where it holds)", ""}},
    {"F2F", {"Converts between floating-point sizes (float <-> double, half)", "destination, source"}},
    {"F2I", {"Converts a float to an integer", "destination, source"}},
    {"FADD", {"Single-precision add", "destination, a, b"}},
    {"FCHK", {"Checks whether a float division needs the slow exact path", "predicate, dividend, divisor"}},
    {"FFMA", {"Single-precision fused multiply-add: a * b + c rounded once (2 flops)", "destination, a, b, c"}},
    {"FMNMX", {"Single-precision minimum or maximum (chosen by a predicate operand)", "destination, a, b, select"}},
    {"FMUL", {"Single-precision multiply", "destination, a, b"}},
    {"FSEL", {"Selects one of two floats by a predicate", "destination, a, b, predicate"}},
    {"FSETP", {"Compares two floats and sets a predicate", "predicate, predicate, a, b, predicate"}},
    {"HADD2", {"Adds two pairs of half-precision values", "destination, a, b"}},
    {"HFMA2", {"Fused multiply-add on two pairs of halves; also used to load constants into a register", "destination, a, b, c"}},
    {"HMMA", {"Tensor-core matrix multiply-accumulate on half-precision tiles", "accumulators, A, B, C"}},
    {"HMUL2", {"Multiplies two pairs of half-precision values", "destination, a, b"}},
    {"I2F", {"Converts an integer to a float", "destination, source"}},
    {"I2FP", {"Converts an integer to a float (newer form)", "destination, source"}},
    {"IABS", {"Integer absolute value", "destination, source"}},
    {"IADD", {"Integer add", "destination, a, b"}},
    {"IADD3", {"Adds three integers", "destination, a, b, c"}},
    {"IDP", {"Integer dot product of packed bytes or halves", "destination, a, b, c"}},
    {"IMAD", {"Integer multiply-add a * b + c; also moves and shifts (IMAD.MOV, IMAD.SHL)", "destination, a, b, c"}},
    {"IMNMX", {"Integer minimum or maximum", "destination, a, b, select"}},
    {"ISETP", {"Compares two integers and sets a predicate (bounds checks, loop conditions)", "predicate, predicate, a, b, predicate"}},
    {"LD", {"Load through a generic address (global, shared or local, found at run time)", "destination, [address]"}},
    {"LDC", {"Load from constant memory: kernel parameters, __constant__ data, launch sizes", "destination, c[bank][offset]"}},
    {"LDCU", {"Load from constant memory into a uniform register", "destination, c[bank][offset]"}},
    {"LDG", {"Load from global memory (.128: 16 bytes per lane, a vector load)", "destination, [address]"}},
    {"LDGDEPBAR", {"Marks a group of asynchronous global-to-shared copies", ""}},
    {"LDGSTS", {"Asynchronous copy from global to shared memory (cp.async)", "[shared], [global]"}},
    {"LDL", {"Load from local memory: a spilled register or a per-thread array read back", "destination, [address]"}},
    {"LDS", {"Load from shared memory", "destination, [address]"}},
    {"LDSM", {"Loads matrix fragments from shared memory for the tensor cores", "destination, [address]"}},
    {"LEA", {"Computes an address: a shifted by n plus b (array indexing)", "destination, a, b, shift"}},
    {"LEPC", {"Reads the program counter (before a call that needs its return address)", "destination"}},
    {"LOP3", {"Any logic function of three inputs (and, or, xor, not...), chosen by an 8-bit table", "destination, a, b, c, table"}},
    {"MEMBAR", {"Memory barrier: this thread's earlier writes are seen before its later ones (__threadfence)", "scope"}},
    {"MOV", {"Copies a value into a register", "destination, source"}},
    {"MUFU", {"Special function unit: reciprocal, square root, sine, cosine, exp2, log2 (approximate)", "destination, source"}},
    {"NOP", {"Does nothing: padding after the end of the code", ""}},
    {"P2R", {"Packs predicates into a register", "destination, predicates, source, mask"}},
    {"PLOP3", {"Any logic function of three predicates", "predicate, predicate, a, b, c, table"}},
    {"POPC", {"Counts the set bits of a word (__popc)", "destination, source"}},
    {"PRMT", {"Picks four bytes out of two registers (byte shuffles, packing uchar4)", "destination, a, selector, b"}},
    {"R2P", {"Unpacks a register into predicates", "predicates, source, mask"}},
    {"RED", {"Atomic reduction in memory with no value returned (an atomicAdd whose result is unused)", "[address], operand"}},
    {"REDG", {"Atomic reduction in global memory with no value returned", "[address], operand"}},
    {"REDUX", {"Reduces a value across the warp's active lanes in one instruction (__reduce_add_sync)", "destination, source"}},
    {"RET", {"Returns from a called function", "return address"}},
    {"S2R", {"Reads a special register: threadIdx (SR_TID), blockIdx (SR_CTAID), lane id, clock", "destination, special register"}},
    {"S2UR", {"Reads a special register into a uniform register (values the same for the whole warp)", "destination, special register"}},
    {"SEL", {"Selects one of two values by a predicate (a branch-free ?:)", "destination, a, b, predicate"}},
    {"SHF", {"Funnel shift: shifts across a pair of registers (64-bit shifts, rotations)", "destination, low, shift, high"}},
    {"SHFL", {"Warp shuffle: reads a register of another lane (__shfl_sync, __shfl_down_sync)", "destination, value, lane or offset, clamp"}},
    {"SHL", {"Shift left", "destination, source, amount"}},
    {"SHR", {"Shift right", "destination, source, amount"}},
    {"ST", {"Store through a generic address", "[address], value"}},
    {"STG", {"Store to global memory (.128: 16 bytes per lane, a vector store)", "[address], value"}},
    {"STL", {"Store to local memory: a register spilled, or a per-thread array the compiler kept in memory", "[address], value"}},
    {"STS", {"Store to shared memory", "[address], value"}},
    {"UFFMA", {"Single-precision fused multiply-add on the uniform datapath", "destination, a, b, c"}},
    {"UFLO", {"Finds the lowest set bit of a warp-wide mask (the leader of the active lanes)", "destination, mask"}},
    {"UI2F", {"Converts an integer to a float on the uniform datapath", "destination, source"}},
    {"UIADD3", {"Adds three integers once per warp (uniform datapath)", "destination, a, b, c"}},
    {"UIMAD", {"Integer multiply-add once per warp (e.g. blockIdx.x * blockDim.x)", "destination, a, b, c"}},
    {"UISETP", {"Compares two uniform integers and sets a uniform predicate", "predicate, predicate, a, b, predicate"}},
    {"ULDC", {"Loads constant memory into a uniform register (parameters the whole warp shares)", "destination, c[bank][offset]"}},
    {"ULEA", {"Computes an address on the uniform datapath", "destination, a, b, shift"}},
    {"ULOP3", {"Logic function of three uniform values", "destination, a, b, c, table"}},
    {"UMOV", {"Copies a value into a uniform register", "destination, source"}},
    {"UPLOP3", {"Logic function of three uniform predicates", "predicate, predicate, a, b, c, table"}},
    {"USEL", {"Selects one of two uniform values by a predicate", "destination, a, b, predicate"}},
    {"USHF", {"Funnel shift on the uniform datapath", "destination, low, shift, high"}},
    {"UVIMNMX", {"Integer minimum or maximum on the uniform datapath", "destination, a, b, select"}},
    {"VIADD", {"Integer add (newer form)", "destination, a, b"}},
    {"VIADDMNMX", {"Integer add then minimum or maximum", "destination, a, b, c, select"}},
    {"VIMNMX", {"Integer minimum or maximum (newer form)", "destination, a, b, select"}},
    {"VOTE", {"Warp vote: a mask of the lanes where a predicate holds (__ballot_sync, __any_sync)", "destination, predicate"}},
    {"VOTEU", {"Warp vote into a uniform register (the active-lanes mask)", "destination, predicate"}},
    {"WARPSYNC", {"Waits until the lanes of a mask have reached this point (__syncwarp)", "mask"}},
    {"YIELD", {"Lets the scheduler switch to another warp (in spin loops)", ""}},
};

// PTX (the virtual ISA the driver or ptxas compiles to SASS).
constexpr Entry kPtx[] = {
    {"abs", {"Absolute value", "destination, source"}},
    {"add", {"Add", "destination, a, b"}},
    {"and", {"Bitwise and (of predicates: logical and)", "destination, a, b"}},
    {"atom", {"Atomic read-modify-write, returning the old value (.shared, .global; .add, .max, .cas...)", "old value, [address], operand"}},
    {"bar", {"Block-wide barrier (__syncthreads)", "barrier number"}},
    {"bfe", {"Extracts a bit field", "destination, source, position, length"}},
    {"bfi", {"Inserts a bit field", "destination, field, base, position, length"}},
    {"bra", {"Branch to a label (with a predicate, only the threads where it holds)", "target"}},
    {"brev", {"Reverses the bits of a word", "destination, source"}},
    {"call", {"Calls a function that was not inlined (vprintf for device printf)", "return values, function, arguments"}},
    {"clz", {"Counts leading zero bits", "destination, source"}},
    {"cp", {"Asynchronous copy (cp.async: global to shared without a register)", "[destination], [source], bytes"}},
    {"cvt", {"Converts between types (int <-> float, sizes, rounding)", "destination, source"}},
    {"cvta", {"Converts an address between a state space and the generic space", "destination, address"}},
    {"div", {"Divide", "destination, a, b"}},
    {"ex2", {"2 to the power of x (approximate)", "destination, source"}},
    {"fma", {"Fused multiply-add: a * b + c rounded once", "destination, a, b, c"}},
    {"ld", {"Load (.global, .shared, .local, .param, .const; .v4: a vector of four)", "destination, [address]"}},
    {"lg2", {"Base-2 logarithm (approximate)", "destination, source"}},
    {"mad", {"Multiply-add (integers: .lo keeps the low half of the product)", "destination, a, b, c"}},
    {"max", {"Maximum", "destination, a, b"}},
    {"membar", {"Memory barrier (__threadfence)", "scope"}},
    {"min", {"Minimum", "destination, a, b"}},
    {"mov", {"Copies a value (special registers too: %tid.x, %ctaid.x, %ntid.x)", "destination, source"}},
    {"mul", {"Multiply (.wide: a 64-bit product of 32-bit operands, for addresses)", "destination, a, b"}},
    {"neg", {"Negate", "destination, source"}},
    {"not", {"Bitwise not", "destination, source"}},
    {"or", {"Bitwise or", "destination, a, b"}},
    {"popc", {"Counts set bits", "destination, source"}},
    {"prmt", {"Picks four bytes out of two registers", "destination, a, b, selector"}},
    {"rcp", {"Reciprocal 1/x", "destination, source"}},
    {"red", {"Atomic reduction with no value returned", "[address], operand"}},
    {"redux", {"Reduction across the warp (redux.sync)", "destination, source, mask"}},
    {"rem", {"Remainder of an integer division", "destination, a, b"}},
    {"ret", {"Returns from the kernel or function", ""}},
    {"rsqrt", {"Reciprocal square root", "destination, source"}},
    {"selp", {"Selects one of two values by a predicate", "destination, a, b, predicate"}},
    {"setp", {"Compares two values and sets a predicate (.lt, .ge, ...)", "predicate, a, b"}},
    {"shfl", {"Warp shuffle: a value from another lane (.down, .up, .bfly, .idx)", "destination, value, lane or offset, clamp, mask"}},
    {"shl", {"Shift left", "destination, source, amount"}},
    {"shr", {"Shift right", "destination, source, amount"}},
    {"sin", {"Sine (approximate)", "destination, source"}},
    {"cos", {"Cosine (approximate)", "destination, source"}},
    {"sqrt", {"Square root", "destination, source"}},
    {"st", {"Store (.global, .shared, .local; .v4: a vector of four)", "[address], value"}},
    {"sub", {"Subtract", "destination, a, b"}},
    {"vote", {"Warp vote (.ballot, .any, .all)", "destination, predicate, mask"}},
    {"xor", {"Bitwise exclusive or", "destination, a, b"}},
};

template <size_t N>
const OpcodeHelp* find(const Entry (&table)[N], std::string_view base) {
    for (const Entry& e : table)
        if (e.first == base) return &e.second;
    return nullptr;
}

}  // namespace

std::string_view opcode_base(std::string_view opcode) { return opcode.substr(0, opcode.find('.')); }

const OpcodeHelp* sass_opcode_help(std::string_view opcode) { return find(kSass, opcode_base(opcode)); }
const OpcodeHelp* ptx_opcode_help(std::string_view opcode) { return find(kPtx, opcode_base(opcode)); }

}  // namespace cp
