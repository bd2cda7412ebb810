// One line on what a PTX or SASS instruction does and what its operands are, for the Code panel's hover and
// `compile --sass --json`. Written for this project from NVIDIA's public PTX ISA and CUDA binary utilities
// documentation; looked up by the opcode's base (the part before its first '.': "LDG" of "LDG.E.128").
#pragma once

#include <string>
#include <string_view>

namespace cp {

struct OpcodeHelp {
    std::string_view what;      // "Load from global memory"
    std::string_view operands;  // "destination register, [address]"
};

// Null when the table has no entry for the base of `opcode`.
const OpcodeHelp* sass_opcode_help(std::string_view opcode);
const OpcodeHelp* ptx_opcode_help(std::string_view opcode);

// The base an opcode is looked up by: "LDG.E.128" -> "LDG", "ld.global.f32" -> "ld".
std::string_view opcode_base(std::string_view opcode);

}  // namespace cp
