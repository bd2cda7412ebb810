// A whole program's device code for a GPU: its kernels and __constant__/__device__ variables compiled with NVRTC
// (host code left out, lines kept), and each mapped to the host library the program's host code runs from. The host
// library holds every kernel instantiation the program launches (each kernel's entry probe takes its own address),
// so its symbol table says which instantiations to compile: `axpy<float>` and `axpy<int>` for a template launched
// with both, deduced or written.
#pragma once

#include "core/engine/engine_api.h"
#include "core/engine/program_device.h"
#include "core/toolkit/elf_symbols.h"

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

namespace cp {

struct ProgramDeviceCompile {
    CompileResult result;                        // NVRTC's diagnostics on the program's lines
    std::shared_ptr<ProgramDeviceImage> image;   // set when it compiled
};

// `source` and `path` as the program was given; `host_symbols` the symbol table (read_elf_symbols) of the library
// compile_program_library made of it; `arch` as nvrtc_arch_for_device gives ("sm_90").
ProgramDeviceCompile compile_program_device_code(const std::string& source, const std::string& path,
                                                 const std::vector<std::string>& include_dirs,
                                                 const std::vector<ElfSymbol>& host_symbols, const std::string& arch);

// The C++ name a demangled function or variable symbol gives a name expression (`void axpy<float>(float, float
// const*)` -> `axpy<float>`, `ns::k(int)` -> `ns::k`), and its last component without template arguments (`axpy`);
// empty when it has none to give (a clone, an anonymous namespace). `params`: a function's parameter list as
// written in the symbol, parentheses included (`(float, float const*)`); empty for a variable.
struct SymbolName {
    std::string qualified, base, params;
};
SymbolName symbol_name(const std::string& demangled_text);

// The __constant__, __device__ and __managed__ variables declared at namespace scope of device code, in order.
struct DeviceVariable {
    std::string name;
    bool managed = false;
};
std::vector<DeviceVariable> device_variables(const std::string& device_source);

}  // namespace cp
