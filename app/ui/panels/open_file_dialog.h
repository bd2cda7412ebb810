// The Ctrl+O dialog: a path field and a folder listing (folders and .cu files). Dear ImGui has no file
// dialog and the app needs no more than this.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

namespace cp::ui {

class OpenFileDialog {
public:
    void open(const std::filesystem::path& start_folder);
    // Draws the dialog when open; returns the chosen file once.
    std::optional<std::filesystem::path> draw();

private:
    bool open_requested_ = false;
    std::filesystem::path folder_;
    std::string path_text_;
    std::string error_;
};

}  // namespace cp::ui
