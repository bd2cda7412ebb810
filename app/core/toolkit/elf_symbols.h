// The functions and variables a shared library defines, read from its ELF symbol tables (never loaded: the library
// may be a program's, untrusted). The GPU side of a whole program maps the host library's kernel instantiations and
// device variables to the device module's names with it (program_device_compile.h).
#pragma once

#include "core/result.h"

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace cp {

struct ElfSymbol {
    std::string name;     // as in the table (mangled)
    uint64_t value = 0;   // its address relative to the library's load base
    uint64_t size = 0;
    bool function = false;  // FUNC; else OBJECT
};

// Every defined FUNC and OBJECT symbol of .symtab (local ones too), and of .dynsym when there is no .symtab.
Result<std::vector<ElfSymbol>> read_elf_symbols(const std::filesystem::path& library);

// The C++ name of a mangled symbol (`_Z4axpyIfEvT_PKS0_PS0_i` -> `void axpy<float>(float, float const*, float*, int)`);
// the name itself when it is not mangled.
std::string demangled(const std::string& symbol);

}  // namespace cp
