// The course (issue 12) end to end: every lesson of the library runs with `run --json` on the CPU backend and
// either verifies against its own reference or fails exactly as its header's `expect:` states (a mismatch,
// a fault, a refused launch); `list` shows every category of the course, and README.md's course table lists the
// same lessons; the run reports where its time went.
#include "cli_support.h"
#include "support/lessons.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>

using cp::test::cli;
using cp::test::ProcessResult;
using cp::test::TempDir;

namespace {

// "mismatch", "fault", "refused" or "hang" from the header's `expect:` line; "" for a lesson that must verify.
std::string expected_outcome(const std::string& path) {
    std::ifstream f(path);
    std::stringstream text;
    text << f.rdbuf();
    const std::string header = text.str().substr(0, text.str().find("*/"));
    std::smatch m;
    static const std::regex expect_line(R"((^|\n)expect:\s*(\w+))");
    return std::regex_search(header, m, expect_line) ? m[2].str() : std::string();
}

// The lessons `list` shows are the tests below, one per lesson (support/lessons.h), at the paths it gives; the
// course has its buggy-on-purpose lessons.
TEST(Course, EveryLessonListShowsHasATestOfItsOwn) {
    const auto lessons = nlohmann::json::parse(cli({"list", "--json"}).out).at("kernels");
    ASSERT_GE(lessons.size(), 30u);
    std::vector<std::string> names;
    int buggy = 0;
    for (const auto& lesson : lessons) {
        const std::string name = lesson["name"].get<std::string>(), path = lesson["path"].get<std::string>();
        names.push_back(name);
        EXPECT_EQ(path, cp::test::lesson_path(name).string());
        buggy += !expected_outcome(path).empty();
    }
    std::sort(names.begin(), names.end());
    EXPECT_EQ(names, cp::test::library_lesson_names());
    EXPECT_GE(buggy, 6);  // the course's buggy-on-purpose lessons
}

// Every lesson verifies, or (buggy on purpose) fails as its `expect:` says. One test per lesson: it was two walks
// over the library with the same command (this one and Cli.EveryLibraryKernelVerifiesOnTheCpuBackend, which
// checked the lessons that must verify); each lesson now runs once and gets the checks of both.
class CourseLesson : public testing::TestWithParam<std::string> {};

TEST_P(CourseLesson, VerifiesOrFailsAsItsHeaderSays) {
    const std::string path = cp::test::lesson_path(GetParam()).string();
    const std::string expect = expected_outcome(path);
    auto r = cli({"run", path, "--backend", "cpu", "--repeat", "1", "--json", "-"});
    SCOPED_TRACE(path + " (expect: " + (expect.empty() ? "verified" : expect) + ")\n" + r.err);
    ASSERT_EQ(r.exit_code, 0) << r.both();
    auto result = nlohmann::json::parse(r.out);
    EXPECT_EQ(result["backend"], "cpu");
    if (expect.empty()) {
        EXPECT_EQ(result["verified"], true) << result["mismatch_detail"];
        EXPECT_EQ(result["mismatches"], 0) << result.dump(2);
        EXPECT_TRUE(result["error"].is_null()) << result["error"].dump();
        // Every lesson that ran says where its time went.
        ASSERT_TRUE(result["transfers"].is_object());
        EXPECT_GT(result["transfers"]["kernel_ms"].get<double>(), 0);
        return;
    }
    // Buggy on purpose: the run passes (exit 0, checked above) because the bug showed as the header says.
    EXPECT_EQ(result["expect"], expect);
    EXPECT_EQ(result["outcome"], expect);
    EXPECT_EQ(result["as_expected"], true);
    EXPECT_FALSE(result["learn"].get<std::string>().empty()) << "a buggy lesson says what it teaches";
    const auto& error = result["error"];
    if (expect == "mismatch") {
        EXPECT_EQ(result["verified"], false);
        EXPECT_GT(result["mismatches"].get<uint64_t>(), 0u);
    } else if (expect == "fault") {
        ASSERT_FALSE(error.is_null());
        EXPECT_EQ(error["stage"], "launch") << error.dump();
        // The kind says what happened (the words may change): a crash or an access outside a buffer.
        const std::string kind = result["error_kind"].get<std::string>();
        EXPECT_TRUE(kind == "fault" || kind == "out_of_bounds") << kind << ": " << error.dump();
    } else if (expect == "refused") {
        ASSERT_FALSE(error.is_null());
        EXPECT_EQ(result["error_kind"], "launch_refused") << error.dump();
    } else if (expect == "hang") {
        // On the CPU backend a barrier some threads never reach is reported at once, as a hang.
        ASSERT_FALSE(error.is_null());
        EXPECT_EQ(error["stage"], "launch") << error.dump();
        EXPECT_EQ(result["error_kind"], "hang") << error.dump();
    } else {
        ADD_FAILURE() << "unknown expected outcome `" << expect << "`";
    }
}

INSTANTIATE_TEST_SUITE_P(Library, CourseLesson, testing::ValuesIn(cp::test::library_lesson_names()),
                         cp::test::lesson_test_name);

TEST(Course, ListShowsEveryCategoryOfTheCourse) {
    const auto lessons = nlohmann::json::parse(cli({"list", "--json"}).out).at("kernels");
    std::set<std::string> categories;
    for (const auto& lesson : lessons) categories.insert(lesson["category"].get<std::string>());
    for (const char* c : {"Basics", "Memory", "Parallel patterns", "Image filters", "Matrices", "Performance",
                          "Common mistakes", "Streams", "More than one GPU"}) {
        EXPECT_TRUE(categories.count(c)) << c;
    }
}

// The README's course table is the library: one row per category `list` shows, naming (in backticks) exactly
// that category's lessons. A lesson added, moved or renamed without the README fails here with its name.
TEST(Course, TheReadmesCourseTableListsEveryLessonOfList) {
    const std::string readme = cp::test::read_file(std::filesystem::path(CP_SOURCE_DIR) / "README.md");
    const size_t start = readme.find("| Category | Lessons |");
    ASSERT_NE(start, std::string::npos) << "README.md has no course table";
    const size_t end = readme.find("\n\n", start);
    std::map<std::string, std::set<std::string>> table;  // category -> lesson names
    std::istringstream rows(readme.substr(start, end - start));
    std::string row;
    static const std::regex cells(R"(^\| ([^|]+?) \| (.*) \|$)"), name(R"(`([a-z0-9_]+/[a-z0-9_]+)`)");
    while (std::getline(rows, row)) {
        std::smatch m;
        if (!std::regex_match(row, m, cells) || m[1] == "Category" || m[1] == "---") continue;
        auto& names = table[m[1].str()];
        const std::string lessons = m[2].str();
        for (std::sregex_iterator it(lessons.begin(), lessons.end(), name), stop; it != stop; ++it)
            names.insert((*it)[1].str());
    }
    std::map<std::string, std::set<std::string>> listed;
    const auto lessons = nlohmann::json::parse(cli({"list", "--json"}).out).at("kernels");
    ASSERT_GE(lessons.size(), 30u);
    for (const auto& lesson : lessons)
        listed[lesson["category"].get<std::string>()].insert(lesson["name"].get<std::string>());
    for (const auto& [category, names] : listed) {
        ASSERT_TRUE(table.count(category)) << "README.md's course table has no row for " << category;
        for (const std::string& n : names)
            EXPECT_TRUE(table[category].count(n)) << n << " (" << category << ") is missing from README.md's course table";
    }
    for (const auto& [category, names] : table) {
        EXPECT_TRUE(listed.count(category)) << "README.md's course table has a row `" << category << "` that `list` has not";
        for (const std::string& n : names)
            EXPECT_TRUE(listed[category].count(n)) << "README.md's course table lists " << n << " under " << category
                                                   << ", but `list` does not";
    }
}

TEST(Course, RunPrintsTheStepsOfTheRoundTrip) {
    auto r = cli({"run", "memory/round_trip", "--backend", "cpu", "--set", "n=100003", "--repeat", "1"});
    ASSERT_EQ(r.exit_code, 0) << r.both();
    const std::regex steps(R"(steps: +allocate [0-9.]+ ms, host->device [0-9.]+ ms \([0-9.]+ MB in 2 copies\), )"
                           R"(kernel [0-9.]+ ms, device->host [0-9.]+ ms \([0-9.]+ MB\); total [0-9.]+ ms)");
    EXPECT_TRUE(std::regex_search(r.out, steps)) << r.out;
}

TEST(Course, ManySmallCopiesAreCountedAndTheResultIsStillRight) {
    auto r = cli({"run", "memory/many_small_transfers", "--backend", "cpu", "--set", "n=100003", "--chunk-bytes",
                  "4096", "--repeat", "1", "--json", "-"});
    ASSERT_EQ(r.exit_code, 0) << r.both();
    auto j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j["verified"], true);
    EXPECT_EQ(j["transfers"]["host_to_device_copies"], 98 + 1);  // x in 4 KiB chunks, y as one fill
    EXPECT_GT(j["transfers"]["host_to_device_ms_per_copy"].get<double>(), 0);
}

}  // namespace
