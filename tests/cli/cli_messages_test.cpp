// The command line's messages for mistakes in options and paths: each names the option the user gave and what
// is wrong with it, is given before anything is compiled or run when it can be, and never comes with advice
// that contradicts it. Exit statuses are documented and no user input reaches "internal error" (3).
#include "cli_support.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <regex>
#include "test_paths.h"

using cp::test::cli;
using cp::test::ProcessResult;
using cp::test::TempDir;

namespace {

std::string replaced(std::string text, const std::string& from, const std::string& to) {
    const size_t at = text.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    return at == std::string::npos ? text : text.replace(at, from.size(), to);
}

// A kernel whose source does not compile: a refusal for it proves nothing was compiled.
const char* kBrokenSource =
    "/*@playground\n"
    "title: Broken\n"
    "param n: int = 1000\n"
    "buffer a: float[n] out zeros\n"
    "block: 128\n"
    "grid: ceil(n / block.x)\n"
    "problem: n\n"
    "*/\n"
    "extern \"C\" __global__ void k(float* a, int n) { this does not compile; }\n";

TEST(CliMessages, GridZeroHintTalksAboutGrid) {
    auto r = cli({"run", "basics/vector_add", "--backend", "cpu", "--grid", "0"});
    EXPECT_EQ(r.exit_code, 1) << r.both();
    EXPECT_NE(r.err.find("`--grid 0`: `0` is not a size"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("hint: write 1 to 3 whole numbers separated by x, e.g. --grid 64"), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find("--block"), std::string::npos) << r.err;
    r = cli({"run", "basics/vector_add", "--backend", "cpu", "--block", "0x4"});
    EXPECT_NE(r.err.find("hint: write 1 to 3 whole numbers separated by x, e.g. --block 256"), std::string::npos) << r.err;
}

TEST(CliMessages, BlockBeyondADimensionsLimitIsRefusedBeforeCompilingAndAlone) {
    TempDir dir;
    const auto broken = dir.write("broken.cu", kBrokenSource);
    auto r = cli({"run", broken.string(), "--backend", "cpu", "--block", "1x1x65"});
    EXPECT_EQ(r.exit_code, 1) << r.both();
    EXPECT_NE(r.err.find("launch refused: block 1x1x65 is 65 threads in z; this device allows at most 64 in z. "
                         "Try 256x1x1 and grid 4x1x1."),
              std::string::npos)
        << r.err;
    EXPECT_EQ(r.both().find("does not compile"), std::string::npos) << r.both();  // never compiled
    EXPECT_EQ(r.both().find("compile:"), std::string::npos) << r.both();
    EXPECT_EQ(r.both().find("warning"), std::string::npos) << r.both();
    // The same for the grid's per-dimension limit and the threads per block.
    r = cli({"run", broken.string(), "--backend", "cpu", "--grid", "1x70000"});
    EXPECT_NE(r.err.find("grid 1x70000x1 has 70000 blocks in y"), std::string::npos) << r.err;
    EXPECT_EQ(r.both().find("does not compile"), std::string::npos) << r.both();
    r = cli({"run", broken.string(), "--backend", "cpu", "--block", "33x32"});
    EXPECT_NE(r.err.find("block 33x32x1 has 1056 threads"), std::string::npos) << r.err;
    EXPECT_EQ(r.both().find("does not compile"), std::string::npos) << r.both();
}

TEST(CliMessages, JsonToAFolderSaysItIsAFolderBeforeTheRun) {
    TempDir dir;
    auto r = cli({"run", "basics/vector_add", "--backend", "cpu", "--json", dir.path().string()});
    EXPECT_EQ(r.exit_code, 1) << r.both();
    EXPECT_NE(r.err.find(dir.path().string() + "` is a folder; --json needs a file name"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("e.g. --json " + (dir.path() / "result.json").string()), std::string::npos) << r.err;
    EXPECT_EQ(r.out.find("time:"), std::string::npos) << r.out;  // nothing ran
    // A missing folder on the way is created, as --out-dir's is.
    const auto nested = dir.path() / "new" / "deeper" / "result.json";
    r = cli(
        {"run", "basics/vector_add", "--backend", "cpu", "--set", "n=999", "--repeat", "1", "--json", nested.string()});
    ASSERT_EQ(r.exit_code, 0) << r.both();
    const auto j = nlohmann::json::parse(cp::test::read_file(nested));
    EXPECT_TRUE(j["error"].is_null()) << j.dump();
    EXPECT_EQ(j["verified"], true) << j.dump();
}

TEST(CliMessages, OutputPathsThatCannotBeWrittenAreFoundBeforeTheRun) {
    TempDir dir;
    const auto file = dir.write("a_file", "x");
    auto r = cli({"run", "basics/vector_add", "--backend", "cpu", "--out-dir", (file / "views").string()});
    EXPECT_EQ(r.exit_code, 1) << r.both();
    EXPECT_NE(
        r.err.find("`--out-dir " + (file / "views").string() + "`: `" + file.string() + "` is a file, not a folder"),
        std::string::npos)
        << r.err;
    EXPECT_EQ(r.out.find("time:"), std::string::npos) << r.out;  // found before the run
    r = cli({"run", "basics/vector_add", "--backend", "cpu", "--out-dir", file.string()});
    EXPECT_NE(r.err.find("`" + file.string() + "` is a file, not a folder"), std::string::npos) << r.err;
    EXPECT_EQ(r.out.find("time:"), std::string::npos) << r.out;
    r = cli({"run", "basics/vector_add", "--backend", "cpu", "--json", (file / "r.json").string()});
    EXPECT_NE(r.err.find("is a file, not a folder, so `" + (file / "r.json").string() + "` cannot be created"),
              std::string::npos)
        << r.err;
    EXPECT_EQ(r.out.find("time:"), std::string::npos) << r.out;
}

TEST(CliMessages, WarmupZeroMeansNoWarmUpLaunch) {
    auto r = cli({"run", "basics/vector_add", "--backend", "cpu", "--set", "n=1001", "--warmup", "0", "--repeat", "2",
                  "--json", "-"});
    ASSERT_EQ(r.exit_code, 0) << r.both();
    const auto j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j["timing"]["samples_ms"].size(), 2u) << j["timing"].dump();
    EXPECT_EQ(j["verified"], true) << r.out;
    r = cli({"run", "basics/vector_add", "--backend", "cpu", "--warmup", "-1"});
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.err.find("`--warmup -1`: expected a whole number from 0 to 1000000"), std::string::npos) << r.err;
}

// A kernel file in Latin-1 (or any bytes that are not UTF-8) and its printf output become JSON with U+FFFD;
// they used to end in "internal error: [json.exception.type_error.316] invalid UTF-8 byte", exit 3.
TEST(CliMessages, TextThatIsNotUtf8StillMakesJson) {
    TempDir dir;
    std::string source = replaced(kBrokenSource, "title: Broken", "title: Caf\xe9 na\xefve");
    source = replaced(
        source, "this does not compile;",
        "int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) a[i] = 0; if (i == 0) printf(\"\\xe9\\n\");");
    std::filesystem::create_directories(dir.path() / "lib" / "x");
    const auto file = dir.write("lib/x/latin1.cu", source);
    auto r = cli({"run", file.string(), "--backend", "cpu", "--repeat", "1", "--json", "-"});
    EXPECT_EQ(r.exit_code, 0) << r.both();
    EXPECT_EQ(r.err.find("internal error"), std::string::npos) << r.err;
    const auto j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j["title"], "Caf\xef\xbf\xbd na\xef\xbf\xbdve") << r.out;
    EXPECT_NE(j["printf"].get<std::string>().find("\xef\xbf\xbd"), std::string::npos) << r.out;
    r = cli({"list", "--json"}, {"CUDA_PLAYGROUND_KERNELS=" + (dir.path() / "lib").string()});
    EXPECT_EQ(r.exit_code, 0) << r.both();
    EXPECT_EQ(nlohmann::json::parse(r.out).at("kernels").at(0)["title"], "Caf\xef\xbf\xbd na\xef\xbf\xbdve") << r.out;
}

// Sizes come from the user: memory running out is a user error (1) with a hint, not an internal error (3).
// The address-space limit makes the allocation fail at once instead of waking the kernel's OOM killer.
TEST(CliMessages, NotEnoughMemoryIsAUserError) {
    TempDir dir;
    const auto file = dir.write("big.cu", replaced(kBrokenSource, "this does not compile;", ""));
    auto r = cp::test::run_process({"/bin/sh", "-c", "ulimit -v 3000000 && exec \"$0\" \"$@\"", CP_BINARY, "run",
                                    file.string(), "--backend", "cpu", "--repeat", "1", "--set", "n=1000000000"});
    EXPECT_EQ(r.exit_code, 1) << r.both();
    EXPECT_EQ(r.err.find("internal error"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("memory"), std::string::npos) << r.err;
}

TEST(CliMessages, EveryExitStatusIsDocumented) {
    const std::string readme = cp::test::read_file(std::string(CP_SOURCE_DIR) + "/README.md");
    auto top = cli({"--help"});
    auto run = cli({"run", "--help"});
    // Each status with its meaning, not just the digit (a "2 " is in any text): 2 must say it is the check.
    const char* statuses[] = {R"((^|[^0-9.])0 success)", R"((^|[^0-9.])1 a (user error|mistake))",
                              R"((^|[^0-9.])2 [^;|\n]*\bcheck)", R"((^|[^0-9.])3 an internal error)"};
    for (const std::string& text : {readme, top.out, run.out}) {
        for (const char* status : statuses)
            EXPECT_TRUE(std::regex_search(text, std::regex(status))) << "`" << status << "` missing from:\n"
                                                                     << text.substr(0, 4000);
    }
    for (const char* command : {"list", "info", "compile"})
        EXPECT_NE(cli({command, "--help"}).out.find("3 an internal error"), std::string::npos) << command;
}

}  // namespace

namespace {

nlohmann::json read_json_file(const std::filesystem::path& p) {
    std::ifstream in(p);
    return nlohmann::json::parse(in, nullptr, false);
}

// A script that asks for JSON gets JSON also when an option, the file or the backend is refused before anything
// runs: the run's format with nothing resolved, the error's kind and stage `none`, and the same exit status.
TEST(CliMessages, ARefusalBeforeTheRunIsWrittenAsJsonWhenJsonWasAsked) {
    TempDir dir;
    const auto file = dir.path() / "out" / "run.json";
    struct Case {
        std::vector<std::string> options;
        const char* kind;
    };
    for (const Case& c : {Case{{"--repeat", "0"}, "user_input"}, Case{{"--block", "16*16"}, "user_input"},
                          Case{{"--thread-order", "sideways"}, "user_input"}}) {
        std::filesystem::remove(file);
        std::vector<std::string> args = {"run", "basics/vector_add", "--backend", "cpu", "--json", file.string()};
        args.insert(args.end(), c.options.begin(), c.options.end());
        const ProcessResult r = cli(args);
        EXPECT_EQ(r.exit_code, 1) << r.both();
        const nlohmann::json j = read_json_file(file);
        ASSERT_TRUE(j.is_object()) << c.options[0] << ": no JSON in " << file << "\n" << r.both();
        EXPECT_EQ(j.at("schema_version"), 1);
        EXPECT_EQ(j.at("error_kind"), c.kind) << c.options[0];
        EXPECT_EQ(j.at("error").at("stage"), "none") << c.options[0];
        EXPECT_EQ(j.at("check").at("state"), "not_run");
        EXPECT_TRUE(j.at("grid").is_null());
        EXPECT_EQ(j.at("where"), "local");
    }
    // A file that does not exist, with the JSON on stdout: stdout is that JSON alone.
    const ProcessResult missing = cli({"run", (dir.path() / "nope.cu").string(), "--backend", "cpu", "--json", "-"});
    EXPECT_EQ(missing.exit_code, 1) << missing.both();
    const nlohmann::json j = nlohmann::json::parse(missing.out, nullptr, false);
    ASSERT_TRUE(j.is_object()) << missing.out;
    EXPECT_EQ(j.at("error_kind"), "io");
    // --json's own file refused: nothing is written anywhere, and the refusal says why once.
    const auto blocked = dir.path() / "a_file";
    std::ofstream(blocked) << "x";
    const ProcessResult unwritable =
        cli({"run", "basics/vector_add", "--backend", "cpu", "--json", (blocked / "run.json").string()});
    EXPECT_EQ(unwritable.exit_code, 1) << unwritable.both();
    EXPECT_TRUE(unwritable.out.empty()) << unwritable.out;
}

}  // namespace

namespace {

size_t occurrences(const std::string& text, const std::string& what) {
    size_t n = 0;
    for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + what.size())) ++n;
    return n;
}

// A kernel that does not compile: each of the compiler's errors is on stderr once, with its line, and the last
// word counts them rather than repeating the first (the JSON's diagnostics are the same errors).
TEST(CliMessages, EachCompileErrorIsSaidOnce) {
    TempDir dir;
    const auto broken = dir.write("broken.cu", kBrokenSource);
    const auto json_file = dir.path() / "run.json";
    const ProcessResult r = cli({"run", broken.string(), "--backend", "cpu", "--json", json_file.string()});
    EXPECT_EQ(r.exit_code, 1) << r.both();
    const nlohmann::json j = read_json_file(json_file);
    ASSERT_TRUE(j.is_object()) << r.both();
    EXPECT_EQ(j.at("error_kind"), "compile");
    size_t errors = 0;
    for (const auto& d : j.at("diagnostics")) {
        if (d.at("severity") != "error") continue;
        ++errors;
        const std::string located = d.at("file").get<std::string>() + ":" + std::to_string(d.at("line").get<int>());
        const std::string message = d.at("message").get<std::string>();
        EXPECT_EQ(occurrences(r.err, message), 1u) << message << "\n" << r.err;
        EXPECT_NE(r.err.find(located), std::string::npos) << located << "\n" << r.err;
    }
    ASSERT_GT(errors, 0u) << r.both();
    EXPECT_NE(r.err.find(std::to_string(errors) + " error"), std::string::npos) << r.err;
}

}  // namespace
