// File > Export as a program in the window (issue 38): the dialog's Export button, pressed on screen, writes the
// lesson's program with the values the window holds (a --set parameter), says what it wrote (dialog and Console),
// and the program verifies when the playground's CPU program runner runs it as written.
#include "ui_test_support.h"

#include "core/cpu/program_runner.h"
#include "core/kernel_file/user_dirs.h"
#include "ui/workspace.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "support/process.h"
#include "test_paths.h"

using namespace cp;
using namespace cp::uitest;

TEST(ExportUi, TheExportButtonWritesTheLessonWithTheWindowsValuesAndTheProgramVerifies) {
    ScopedUserDir user;
    ui::AppOptions o = headless_options("basics/vector_add.cu");
    o.backend = "cpu";
    o.sets = {{"n", "4099"}};
    o.width = 1920;
    o.height = 1080;
    o.text_size = 1.75f;
    auto host = start_settled(o, {});
    ASSERT_TRUE(host);
    ui::Workspace& ws = host->workspace();
    ws.open_export_dialog();
    ASSERT_TRUE(frames_until(*host, [&] { return ws.export_dialog().is_open() && ws.export_dialog().export_button().x1 > 0; },
                             "the export dialog", 30));
    host->frame();
    const auto button = ws.export_dialog().export_button();
    click(*host, (button.x0 + button.x1) / 2, (button.y0 + button.y1) / 2);
    const std::filesystem::path program = exports_dir() / "vector_add" / "vector_add.cu";
    ASSERT_TRUE(frames_until(*host, [&] { return std::filesystem::exists(program); }, "the exported program", 30,
                             [&] { return ws.export_dialog().result(); }));
    host->frame();
    EXPECT_TRUE(std::filesystem::exists(program.parent_path() / "CMakeLists.txt"));
    EXPECT_TRUE(console_has(ws, "Wrote " + program.string()));
    EXPECT_NE(ws.export_dialog().result().find("cmake -B build"), std::string::npos);

    // The window's n, not the header's.
    const std::string text = test::read_file(program);
    EXPECT_NE(text.find("const int n = 4099;"), std::string::npos);
    EXPECT_NE(text.find("launch_grid(17, 1, 1)"), std::string::npos);  // ceil(4099 / 256)

    auto runner = make_cpu_program_runner();
    ASSERT_TRUE(runner.ok());
    ProgramRequest request;
    request.source = text;
    request.path = program.string();
    const ProgramRun run = (*runner)->run(request);
    ASSERT_TRUE(run.compiled) << run.compile_log;
    EXPECT_EQ(run.exit_status, 0) << run.stdout_text;
    EXPECT_NE(run.stdout_text.find("check:    Matches the CPU reference (max error 0)\nverified\n"), std::string::npos)
        << run.stdout_text;
    ASSERT_EQ(run.launches.size(), 1u);
    EXPECT_EQ(run.launches[0].grid.x, 17u);

    // What a person sees: the dialog over the window, saying where it wrote the program.
    auto shot = host->screenshot();
    ASSERT_TRUE(shot.ok());
    if (const char* d = std::getenv("CP_UI_TEST_SHOTS"); d && *d) (void)save_png(std::string(d) + "/export_dialog.png", *shot);
}
