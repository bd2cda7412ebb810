// Reading kernel files from disk: each way a file can be unusable gets its own message; the library and
// asset folders can be moved with environment variables.
#include "core/kernel_file/kernel_file.h"
#include "support/scoped_env.h"

#include <gtest/gtest.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <unistd.h>

namespace cp {
namespace {

namespace fs = std::filesystem;

// The data (a path, a line, a byte) an error's message names: a file error has no field for them.
::testing::AssertionResult names_all(const Error& e, std::initializer_list<std::string> data) {
    for (const std::string& datum : data)
        if (e.message.find(datum) == std::string::npos)
            return ::testing::AssertionFailure() << "`" << datum << "` not in: " << e.full();
    return ::testing::AssertionSuccess();
}

class KernelFileIo : public ::testing::Test {
protected:
    void SetUp() override {
        dir_ = fs::temp_directory_path() / ("cp_kernel_io_" + std::to_string(::getpid()) + "_" +
                                            ::testing::UnitTest::GetInstance()->current_test_info()->name());
        fs::create_directories(dir_);
    }
    void TearDown() override {
        std::error_code ec;
        fs::permissions(dir_ / "locked.cu", fs::perms::owner_all, ec);
        fs::remove_all(dir_);
    }
    fs::path write(const std::string& name, const std::string& text) {
        std::ofstream(dir_ / name, std::ios::binary) << text;
        return dir_ / name;
    }
    fs::path dir_;
};

TEST_F(KernelFileIo, Missing) {
    auto r = load_kernel_file(dir_ / "nope.cu");
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().kind, ErrorKind::Io) << r.error().full();
    EXPECT_TRUE(names_all(r.error(), {"`" + (dir_ / "nope.cu").string() + "`"}));
}

TEST_F(KernelFileIo, Directory) {
    auto r = load_kernel_file(dir_);
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().kind, ErrorKind::UserInput) << r.error().full();
    EXPECT_TRUE(names_all(r.error(), {"`" + dir_.string() + "`"}));
}

TEST_F(KernelFileIo, Empty) {
    auto r = load_kernel_file(write("empty.cu", ""));
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().kind, ErrorKind::Io) << r.error().full();
    EXPECT_TRUE(names_all(r.error(), {"`" + (dir_ / "empty.cu").string() + "`"}));
    // The hint gives a library kernel to start from.
    EXPECT_NE(r.error().hint.find("vector_add.cu"), std::string::npos) << r.error().hint;
}

TEST_F(KernelFileIo, Binary) {
    auto r = load_kernel_file(write("k.cu", std::string("\x7f" "ELF\0\0\x01", 7)));
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().kind, ErrorKind::Io) << r.error().full();
    EXPECT_TRUE(names_all(r.error(), {"`" + (dir_ / "k.cu").string() + "`", "NUL"}));
}

// NVRTC stops reading at a 0xFF byte (a Latin-1 "ÿ", or a UTF-16 file's mark): refused with its line, while
// other non-UTF-8 bytes (Latin-1 "é" in a comment) compile and are kept.
TEST_F(KernelFileIo, ByteThatEndsTheFileForTheCompiler) {
    auto r = load_kernel_file(write("latin1.cu", "// caf\xe9\n/* na\xefve \xff */\n__global__ void k(float* a) {}\n"));
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().kind, ErrorKind::Io) << r.error().full();
    // The file, the line of the byte and the byte.
    EXPECT_TRUE(names_all(r.error(), {"`" + (dir_ / "latin1.cu").string() + "`", "line 2", "0xFF"}));
    EXPECT_NE(r.error().hint.find("UTF-8"), std::string::npos) << r.error().hint;
    auto ok = load_kernel_file(write("e.cu", "// caf\xe9\n__global__ void k(float* a) {}\n"));
    ASSERT_TRUE(ok) << ok.error().full();
    EXPECT_EQ(ok->source.find('\xe9'), 6u);
}

TEST_F(KernelFileIo, Unreadable) {
    const fs::path p = write("locked.cu", "__global__ void k() {}\n");
    fs::permissions(p, fs::perms::none);
    if (::access(p.c_str(), R_OK) == 0) GTEST_SKIP() << "running with permission to read everything (root)";
    auto r = load_kernel_file(p);
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().kind, ErrorKind::Io) << r.error().full();
    // The file and the system's reason.
    EXPECT_TRUE(names_all(r.error(), {"`" + p.string() + "`", std::strerror(EACCES)}));
}

TEST_F(KernelFileIo, ScanKeepsBrokenFilesWithTheirReason) {
    write("good.cu", "/*@playground\ntitle: B\ncategory: Z\n*/\n__global__ void k() {}\n");
    write("a_plain.cu", "__global__ void k() {}\n");
    write("empty.cu", "");
    write("notes.txt", "not a kernel");
    fs::create_directories(dir_ / "sub");
    write("sub/also.cu", "/*@playground\ntitle: A\ncategory: Z\n*/\n__global__ void k() {}\n");
    const auto files = scan_library(dir_);
    ASSERT_EQ(files.size(), 4u);
    // Uncategorised files sort before "Z" ("U" < "Z"); within Z, A before B.
    EXPECT_EQ(files[0].spec.category, "Uncategorised");
    EXPECT_EQ(files[2].spec.title, "A");
    EXPECT_EQ(files[3].spec.title, "B");
    bool saw_empty = false;
    for (const auto& f : files) {
        if (f.path.filename() != "empty.cu") continue;
        saw_empty = true;
        ASSERT_EQ(f.diagnostics.size(), 1u);
        EXPECT_NE(f.diagnostics[0].message.find("is empty"), std::string::npos);
        EXPECT_FALSE(f.usable());
    }
    EXPECT_TRUE(saw_empty);
}

TEST(KernelDirs, EnvironmentOverridesBuiltInFolders) {
    // Built in: the source tree's folders, which exist in a build tree.
    cp::test::ScopedEnv env;
    env.unset("CUDA_PLAYGROUND_KERNELS");
    env.unset("CUDA_PLAYGROUND_ASSETS");
    EXPECT_TRUE(fs::exists(kernels_dir() / "basics" / "vector_add.cu")) << kernels_dir();
    EXPECT_TRUE(fs::exists(assets_dir() / "coffee.png")) << assets_dir();
    env.set("CUDA_PLAYGROUND_KERNELS", "/some/where");
    EXPECT_EQ(kernels_dir(), fs::path("/some/where"));
    env.set("CUDA_PLAYGROUND_ASSETS", "/assets/here");
    EXPECT_EQ(assets_dir(), fs::path("/assets/here"));
}

}  // namespace
}  // namespace cp
