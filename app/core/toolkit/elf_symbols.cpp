// ELF64 little-endian symbol tables, read with bounds checks on every offset (elf_symbols.h).
#include "core/toolkit/elf_symbols.h"

#include <cxxabi.h>
#include <elf.h>

#include <cstdlib>
#include <cstring>
#include <fstream>

namespace cp {

namespace {

template <class T>
bool read_at(const std::string& file, uint64_t offset, T* out) {
    if (offset > file.size() || sizeof(T) > file.size() - offset) return false;
    std::memcpy(out, file.data() + offset, sizeof(T));
    return true;
}

}  // namespace

Result<std::vector<ElfSymbol>> read_elf_symbols(const std::filesystem::path& library) {
    std::ifstream in(library, std::ios::binary | std::ios::ate);
    if (!in) return make_error(ErrorKind::Io, "cannot read " + library.string());
    const std::streamoff size = in.tellg();
    std::string file(size > 0 ? size_t(size) : 0, '\0');
    in.seekg(0);
    if (size <= 0 || !in.read(file.data(), size)) return make_error(ErrorKind::Io, "cannot read " + library.string());
    Elf64_Ehdr header{};
    if (!read_at(file, 0, &header) || std::memcmp(header.e_ident, ELFMAG, SELFMAG) != 0 ||
        header.e_ident[EI_CLASS] != ELFCLASS64 || header.e_ident[EI_DATA] != ELFDATA2LSB)
        return make_error(ErrorKind::Internal, library.string() + " is not a 64-bit ELF library");
    std::vector<Elf64_Shdr> sections(header.e_shnum);
    for (size_t i = 0; i < sections.size(); ++i)
        if (header.e_shentsize != sizeof(Elf64_Shdr) ||
            !read_at(file, header.e_shoff + i * sizeof(Elf64_Shdr), &sections[i]))
            return make_error(ErrorKind::Internal, library.string() + ": its section table is cut short");
    auto table = [&](uint32_t type) -> const Elf64_Shdr* {
        for (const Elf64_Shdr& s : sections)
            if (s.sh_type == type) return &s;
        return nullptr;
    };
    const Elf64_Shdr* symbols = table(SHT_SYMTAB);
    if (!symbols) symbols = table(SHT_DYNSYM);
    std::vector<ElfSymbol> out;
    if (!symbols || symbols->sh_link >= sections.size()) return out;
    const Elf64_Shdr& names = sections[symbols->sh_link];
    const uint64_t count = symbols->sh_entsize ? symbols->sh_size / symbols->sh_entsize : 0;
    for (uint64_t i = 0; i < count; ++i) {
        Elf64_Sym sym{};
        if (!read_at(file, symbols->sh_offset + i * sizeof(Elf64_Sym), &sym)) break;
        const int type = ELF64_ST_TYPE(sym.st_info);
        if ((type != STT_FUNC && type != STT_OBJECT) || sym.st_shndx == SHN_UNDEF || sym.st_name >= names.sh_size)
            continue;
        const uint64_t at = names.sh_offset + sym.st_name;
        if (at >= file.size()) continue;
        const size_t limit = std::min<uint64_t>(file.size() - at, names.sh_size - sym.st_name);
        const char* start = file.data() + at;
        const size_t length = strnlen(start, limit);
        if (length == 0 || length == limit) continue;
        out.push_back({std::string(start, length), sym.st_value, sym.st_size, type == STT_FUNC});
    }
    return out;
}

std::string demangled(const std::string& symbol) {
    int status = 0;
    char* text = abi::__cxa_demangle(symbol.c_str(), nullptr, nullptr, &status);
    if (status != 0 || !text) return symbol;
    std::string out(text);
    std::free(text);
    return out;
}

}  // namespace cp
