// File > Export as a program: a folder field for the lesson's standalone program (core/session/lesson_export.h)
// and, once written, what was written and how to build it. The workspace does the export; this only asks where.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

namespace cp::ui {

class ExportDialog {
public:
    void open(const std::filesystem::path& folder, std::string title);
    // Draws the dialog when open; returns the folder once, when Export is pressed.
    std::optional<std::filesystem::path> draw();
    // What the export did: the files and the commands (ok), or the error and its fix.
    void show_result(std::string text, bool ok);
    bool is_open() const { return open_; }
    // Where the Export button was drawn last (screen coordinates), for tests that press it.
    struct Rect {
        float x0 = 0, y0 = 0, x1 = 0, y1 = 0;
    };
    Rect export_button() const { return export_button_; }
    const std::string& result() const { return result_; }

private:
    bool open_requested_ = false, open_ = false;
    std::string title_, folder_text_, result_;
    bool result_ok_ = true;
    Rect export_button_;
};

}  // namespace cp::ui
