// The window and `run` resolve a run the same way: the same --set/--block/--grid values (images by path,
// enum labels, out-of-range and malformed values, launches the device refuses) are accepted or refused by
// both, with the same message. The window is driven headless in this process; `run` is the real binary.
#include "ui_test_support.h"

#include "ui/workspace.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <iostream>
#include <optional>
#include "test_paths.h"
#include "core/backends/registry.h"

using namespace cp;
using namespace cp::uitest;

namespace {

struct Case {
    std::string name;
    std::string kernel;  // absolute path
    std::vector<std::pair<std::string, std::string>> sets;
    std::string block, grid;  // as typed; empty: not given
    bool accepted;
};

struct Verdict {
    bool accepted = false;
    std::string message;  // "error: <message>\n  hint: <hint>" as `run` prints it; empty when accepted
};

std::string as_printed(const Error& e) {
    return "error: " + e.message + "\n" + (e.hint.empty() ? "" : "  hint: " + e.hint + "\n");
}

Verdict via_run(const Case& c) {
    std::vector<std::string> args = {CP_BINARY, "run", c.kernel, "--backend", "cpu", "--repeat", "1", "--no-verify"};
    for (const auto& [k, v] : c.sets) {
        args.push_back("--set");
        args.push_back(k + "=" + v);
    }
    if (!c.block.empty()) args.insert(args.end(), {"--block", c.block});
    if (!c.grid.empty()) args.insert(args.end(), {"--grid", c.grid});
    const test::ProcessResult r = test::run_process(args);
    EXPECT_NE(r.exit_code, 3) << c.name << ": internal error\n" << r.both();
    Verdict v;
    v.accepted = r.exit_code == 0;
    if (!v.accepted) {
        // The message is the last "error:" block on stderr (compile diagnostics, if any, come before it).
        const size_t at = r.err.rfind("error: ");
        v.message = at == std::string::npos ? r.err : r.err.substr(at);
    }
    return v;
}

Verdict via_window(const Case& c) {
    ui::AppOptions o = headless_options(c.kernel);
    o.backend = "cpu";
    o.sets = c.sets;
    // The window's --block/--grid text goes through the same parser as run's (cli::parse_launch_options in
    // main.cpp); here the parsed values are handed over, and malformed text is left to the CLI-only case below.
    if (auto b = parse_dim3(c.block); !c.block.empty() && b) o.block = *b;
    if (auto g = parse_dim3(c.grid); !c.grid.empty() && g) o.grid = *g;
    auto host = ui::AppHost::create(o, {});
    Verdict v;
    if (!host) {  // refused as the window starts, before any run
        v.message = as_printed(host.error());
        return v;
    }
    settle(**host);
    const auto& latest = (*host)->workspace().latest();
    EXPECT_TRUE(latest.has_value()) << c.name;
    if (!latest) return v;
    const RunReport& r = latest->report;
    v.accepted = r.launched && !r.error;
    if (r.error) v.message = as_printed(*r.error);
    return v;
}

}  // namespace

TEST(SameChoices, TheWindowAndRunAcceptAndRefuseTheSameValuesWithTheSameMessage) {
    ScopedUserDir user;
    if (auto cpu = find_backend("cpu")->make(); !cpu) FAIL() << "the CPU backend is needed here and could not be made: " << cpu.error().message;
    const std::string choices = std::string(CP_TEST_DATA_DIR) + "/choices.cu";
    const std::string vector_add = (kernels_dir() / "basics/vector_add.cu").string();
    const std::string astronaut = (assets_dir() / "astronaut.png").string();
    const std::vector<Case> cases = {
        {"defaults", choices, {}, "", "", true},
        {"image by absolute path", choices, {{"src", astronaut}}, "", "", true},
        {"image by name in assets/", choices, {{"src", "camera.png"}}, "", "", true},
        {"enum label", choices, {{"mode", "invert"}}, "", "", true},
        {"enum value", choices, {{"mode", "1"}}, "", "", true},
        {"float in range", choices, {{"gain", "2.5"}}, "", "", true},
        {"block and grid", vector_add, {{"n", "5000"}}, "128", "40", true},
        {"missing image", choices, {{"src", "/nonexistent/nope.png"}}, "", "", false},
        {"unknown enum label", choices, {{"mode", "sideways"}}, "", "", false},
        {"out of range", choices, {{"gain", "9"}}, "", "", false},
        {"out of int range", vector_add, {{"n", "3000000000"}}, "", "", false},
        {"below range", vector_add, {{"n", "0"}}, "", "", false},
        {"not a number", vector_add, {{"n", "lots"}}, "", "", false},
        {"not whole", vector_add, {{"n", "10.5"}}, "", "", false},
        {"derived", choices, {{"width", "10"}}, "", "", false},
        {"unknown name", choices, {{"gian", "1"}}, "", "", false},
        {"a buffer", choices, {{"dst", "1"}}, "", "", false},
        {"block too large", vector_add, {}, "2000", "", false},
        {"block z over its limit", vector_add, {}, "1x1x65", "", false},
        {"grid y over its limit", vector_add, {}, "", "1x70000", false},
    };
    for (const Case& c : cases) {
        const Verdict cli = via_run(c);
        const Verdict window = via_window(c);
        EXPECT_EQ(cli.accepted, c.accepted) << c.name << ": run says\n" << cli.message;
        EXPECT_EQ(window.accepted, c.accepted) << c.name << ": the window says\n" << window.message;
        EXPECT_EQ(window.message, cli.message) << c.name;
        if (!c.accepted) {
            EXPECT_NE(cli.message.find("error: "), std::string::npos) << c.name << ": no message";
        }
        if (std::getenv("CP_SHOW_MESSAGES")) std::cout << c.name << ":\n" << cli.message;
    }
}
