// Where a stopped CPU thread was, in the user's words: of the kernel-code addresses found (the instruction, then
// return addresses, innermost first), the line reported is the innermost one in the user's own file. A thread
// the watchdog stops inside an inlined helper of another file (the shim's access check) is at the line of the
// user's code that called it.
#include "core/cpu/fault_report.h"
#include "core/worker/subprocess.h"
#include "support/process.h"

#include <gtest/gtest.h>

#include <sstream>

namespace cp::test {
namespace {

// The address of `symbol` in the library, from nm's listing (`0000000000001139 t helper`).
uint64_t symbol_offset(const std::string& library, const std::string& symbol) {
    const ProcessOutcome nm = cp::run_process({"nm", library}, 20);
    EXPECT_TRUE(nm.started && nm.exit_code == 0) << nm.output << nm.error;
    std::istringstream lines(nm.output);
    std::string address, type, name;
    while (lines >> address) {
        if (address.size() < 8 || !(lines >> type >> name)) continue;  // undefined symbols have no address
        if (name == symbol) return std::stoull(address, nullptr, 16);
    }
    ADD_FAILURE() << symbol << " is not in " << library << ":\n" << nm.output;
    return 0;
}

TEST(CpuCodeSite, AThreadStoppedInAnotherFilesHelperIsAtTheUsersLineThatCalledIt) {
    TempDir dir;
    // As the shim is: a header of helpers compiled into the kernel's library, each here on one line (DWARF 4:
    // binutils 2.40's addr2line names the main file for a header's lines in GCC 12's DWARF 5 -g1 tables).
    const int helper_line = 2, entry_line = 5;
    dir.write("helper.h", "// helpers\n__attribute__((noinline)) static int helper(volatile int* p) { return *p + 1; }\n");
    const std::string source = "#include \"helper.h\"\n"
                               "#line " + std::to_string(entry_line) + " \"user.cu\"\n"
                               "extern \"C\" int entry(volatile int* p) { int s = 0; for (int i = 0; i < 3; ++i) "
                               "s += helper(p); return s; }\n";
    const std::string library = (dir.path() / "site.so").string();
    const ProcessOutcome cc = cp::run_process({"g++", "-O1", "-gdwarf-4", "-g1", "-fPIC", "-shared", "-I", dir.path().string(), "-x",
                                               "c++", dir.write("site.cpp", source).string(), "-o", library},
                                              60);
    ASSERT_TRUE(cc.started && cc.exit_code == 0) << cc.output << cc.error;
    const uint64_t helper = symbol_offset(library, "_ZL6helperPVi"), entry = symbol_offset(library, "entry");
    ASSERT_NE(helper, 0u);
    ASSERT_NE(entry, 0u);

    CodeSite site;
    site.offsets = {helper, entry};  // stopped in the helper, called from the user's function
    int line = 0;
    const std::string text = code_site_text(site, library, "user.cu", &line);
    EXPECT_EQ(line, entry_line) << text;

    // With no address in the user's file the helper's place is named in words, and no line of the user's is.
    CodeSite only_helper;
    only_helper.offsets = {helper};
    int no_line = 0;
    EXPECT_FALSE(code_site_text(only_helper, library, "user.cu", &no_line).empty());
    EXPECT_EQ(no_line, 0);
    // The same address is the user's own line when the user's file is the helper's.
    int own_line = 0;
    code_site_text(only_helper, library, "helper.h", &own_line);
    EXPECT_EQ(own_line, helper_line);
}

}  // namespace
}  // namespace cp::test
