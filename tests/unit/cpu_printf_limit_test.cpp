// A kernel that prints a lot on the CPU backend: the output is kept up to kPrintfShownLines lines and ends with
// how many were not shown ("... 3,000 lines not shown"), and the launch succeeds (it was once reported as a sandbox breach: the worker's
// malloc read /proc/sys/vm/overcommit_memory when its heap shrank).
#include "core/cpu/worker_pool.h"
#include "cpu_backend_rig.h"

#include <algorithm>

namespace cp::test {
namespace {

size_t lines_in(const std::string& s) {
    return size_t(std::count(s.begin(), s.end(), '\n'));
}

// One thread prints `lines` lines "line <k> of one thread, padded to about sixty bytes".
LaunchResult print_from_one_thread(CpuRig& rig, int lines) {
    const char* src = R"(
extern "C" __global__ void chatty(int lines)
{
    if (blockIdx.x != 0 || threadIdx.x != 0) return;
    for (int k = 0; k < lines; ++k) printf("line %d of one thread, padded to about sixty bytes\n", k);
}
)";
    const ModuleId m = rig.compile(src, "chatty", "chatty.cu");
    return rig.launch(m, "chatty", {3}, {33}, {value_arg("lines", lines)});
}

std::string expected_line(int k) {
    return "line " + std::to_string(k) + " of one thread, padded to about sixty bytes\n";
}

TEST(CpuPrintfLimit, EightThousandLinesFromOneThreadShowTheFirstFiveThousandAndSayTheRestAreNotShown) {
    CpuRig rig(test_options(2));
    const int printed = 8000;
    const LaunchResult r = print_from_one_thread(rig, printed);
    ASSERT_TRUE(r.ok) << error_text(r);
    const size_t shown = kPrintfShownLines;
    ASSERT_EQ(lines_in(r.printf_output), shown + 1) << r.printf_output.substr(r.printf_output.size() - 300);
    std::string expected;
    for (int k = 0; k < int(shown); ++k) expected += expected_line(k);
    EXPECT_EQ(r.printf_output.substr(0, expected.size()), expected);
    const std::string last = r.printf_output.substr(expected.size());
    EXPECT_EQ(last.rfind("... 3,000 lines not shown", 0), 0u) << last;
}

TEST(CpuPrintfLimit, UnderTheLimitEverythingIsShownAndTheLaunchIsNotABreach) {
    CpuRig rig(test_options(2));
    for (const int printed : {6000, 20000}) {  // 20000: well past the 1 MiB a worker keeps
        const LaunchResult r = print_from_one_thread(rig, printed);
        ASSERT_TRUE(r.ok) << printed << ": " << error_text(r);
        const size_t shown = std::min<size_t>(size_t(printed), kPrintfShownLines);
        EXPECT_EQ(lines_in(r.printf_output), shown + (size_t(printed) > shown ? 1 : 0)) << printed;
        const std::string not_shown = std::to_string(printed - int(shown));
        if (size_t(printed) > shown) {
            const std::string with_comma =
                not_shown.substr(0, not_shown.size() - 3) + "," + not_shown.substr(not_shown.size() - 3);
            EXPECT_NE(r.printf_output.find("... " + with_comma + " lines not shown"), std::string::npos)
                << r.printf_output.substr(r.printf_output.size() - 300);
        }
    }
}

TEST(CpuPrintfLimit, TheCapCountsWhatTheWorkersDroppedAndKeepsWholeLines) {
    std::string text;
    for (int k = 0; k < 10; ++k) text += "abc " + std::to_string(k) + "\n";
    EXPECT_EQ(cap_printf_output(text, 0, 0, 10, 1 << 20), text);  // at the limit: unchanged
    const std::string cut = cap_printf_output(text, 2, 50, 4, 1 << 20);
    EXPECT_EQ(cut.substr(0, 24), "abc 0\nabc 1\nabc 2\nabc 3\n");
    EXPECT_EQ(cut.substr(24).rfind("... 8 lines not shown", 0), 0u) << cut;  // 6 here + 2 dropped in a worker
    // A byte limit mid-line keeps the lines before it whole.
    const std::string bytes = cap_printf_output(text, 0, 0, 100, 8);
    EXPECT_EQ(bytes.substr(0, 6), "abc 0\n");
    EXPECT_EQ(bytes.substr(6).rfind("... 9 lines not shown", 0), 0u) << bytes;
    // Dropped text without a newline is counted in bytes.
    EXPECT_NE(cap_printf_output("x\n", 0, 1234, 100, 1 << 20).find("... 1,234 bytes not shown"), std::string::npos);
}

}  // namespace
}  // namespace cp::test
