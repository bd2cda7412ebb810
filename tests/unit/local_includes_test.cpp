// A kernel file's own headers: what is taken (its folder and below, nested includes spelled for NVRTC), what
// is refused with its line (absolute paths, escapes, links out), and what is left to the compiler.
#include "core/kernel_file/local_includes.h"
#include "support/process.h"

#include <gtest/gtest.h>

#include <filesystem>

namespace cp {
namespace {

using test::TempDir;

std::string messages(const LocalIncludes& r) {
    std::string s;
    for (const Diagnostic& d : r.diagnostics) s += d.str() + "\n";
    return s;
}

TEST(LocalIncludes, NestedHeadersAreFoundOnceAndSpelledFromTheKernelsFolder) {
    TempDir dir;
    dir.write("k/sub/a.h", "#include \"b.h\"\n#include \"../top.h\"\n#define A SUBB\n");
    dir.write("k/sub/b.h", "#define SUBB 1\n#include \"a.h\"\n");  // a cycle: each header once
    dir.write("k/top.h", "#define TOP 3\n");
    dir.write("k/b.h", "#define B 2\n");
    const std::string source =
        "#include \"sub/a.h\"\n#  include \"./b.h\"\n#include <cuda_runtime.h>\n"
        "#include \"cuda_runtime.h\"\n";
    const LocalIncludes r = resolve_local_includes(source, (dir.path() / "k" / "kernel.cu").string());
    EXPECT_TRUE(r.diagnostics.empty()) << messages(r);
    ASSERT_EQ(r.headers.size(), 4u);
    std::map<std::string, std::string> by_name;
    for (const LocalHeader& h : r.headers) by_name[h.name] = h.rewritten;
    EXPECT_EQ(by_name.at("sub/a.h"), "#include \"sub/b.h\"\n#include \"top.h\"\n#define A SUBB\n");
    EXPECT_EQ(by_name.at("sub/b.h"), "#define SUBB 1\n#include \"sub/a.h\"\n");
    EXPECT_EQ(by_name.at("b.h"), "#define B 2\n");
    EXPECT_EQ(by_name.at("top.h"), "#define TOP 3\n");
    EXPECT_EQ(r.rewritten_source,
              "#include \"sub/a.h\"\n#  include \"b.h\"\n#include <cuda_runtime.h>\n"
              "#include \"cuda_runtime.h\"\n")
        << "a quoted name that is no local file is left to the compiler's include path";
}

TEST(LocalIncludes, AbsolutePathsAndEscapesAreRefusedWithTheirLine) {
    TempDir dir;
    dir.write("secret.h", "#define SECRET 1\n");
    dir.write("k/ok.h", "#define OK 1\n");
    const std::string source =
        "#include \"ok.h\"\n"
        "#include \"" +
        (dir.path() / "secret.h").string() +
        "\"\n"
        "  #include \"../secret.h\"\n"
        "#include \"ok/../../secret.h\"\n"
        "#include </etc/passwd>\n"
        "#include <../../../etc/passwd>\n";
    const std::string path = (dir.path() / "k" / "kernel.cu").string();
    const LocalIncludes r = resolve_local_includes(source, path);
    ASSERT_EQ(r.diagnostics.size(), 5u) << messages(r);
    EXPECT_EQ(r.diagnostics[0].line, 2);
    EXPECT_EQ(r.diagnostics[0].column, 10);
    EXPECT_EQ(r.diagnostics[0].file, path);
    EXPECT_NE(r.diagnostics[0].message.find("not an absolute path"), std::string::npos) << messages(r);
    for (int i : {1, 2}) {
        EXPECT_EQ(r.diagnostics[size_t(i)].line, i + 2);
        EXPECT_NE(r.diagnostics[size_t(i)].message.find("it leaves the kernel file's folder"), std::string::npos)
            << messages(r);
    }
    EXPECT_EQ(r.diagnostics[3].line, 5);
    EXPECT_NE(r.diagnostics[4].message.find("climbs out"), std::string::npos) << messages(r);
    ASSERT_EQ(r.headers.size(), 1u);
    EXPECT_EQ(r.headers[0].name, "ok.h");
}

TEST(LocalIncludes, ALinkToAFileOutsideTheFolderIsRefused) {
    TempDir dir;
    dir.write("outside.h", "#define SECRET 1\n");
    dir.write("k/kernel.cu", "");
    std::filesystem::create_symlink(dir.path() / "outside.h", dir.path() / "k" / "inside.h");
    const LocalIncludes r =
        resolve_local_includes("#include \"inside.h\"\n", (dir.path() / "k" / "kernel.cu").string());
    ASSERT_EQ(r.diagnostics.size(), 1u) << messages(r);
    EXPECT_NE(r.diagnostics[0].message.find("inside.h is a link to a file outside"), std::string::npos) << messages(r);
    EXPECT_TRUE(r.headers.empty());
}

TEST(LocalIncludes, CommentsAndStringsAreNotDirectives) {
    TempDir dir;
    const std::string source =
        "// #include \"/etc/passwd\"\n"
        "/* an example:\n#include \"/etc/passwd\"\n*/\n"
        "const char* s = \"/*\";\n"
        "#include \"/etc/shadow\"\n";
    const LocalIncludes r = resolve_local_includes(source, (dir.path() / "kernel.cu").string());
    ASSERT_EQ(r.diagnostics.size(), 1u) << messages(r);
    EXPECT_EQ(r.diagnostics[0].line, 6) << "only the real directive, after the string holding /*";
}

TEST(LocalIncludes, WithoutAFolderNothingIsLocal) {
    const LocalIncludes r = resolve_local_includes("#include \"helper.h\"\n#include \"/abs.h\"\n", "kernel.cu");
    EXPECT_TRUE(r.headers.empty());
    ASSERT_EQ(r.diagnostics.size(), 1u) << "absolute paths are refused everywhere";
}

}  // namespace
}  // namespace cp
