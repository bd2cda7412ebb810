// Library panel: the bundled kernels by category, a search box, and the selected kernel's title and
// explanation. Opening one goes through a callback; the panel owns nothing but its search text.
#pragma once

#include "core/kernel_file/kernel_spec.h"
#include "ui/panels/panel.h"

#include <filesystem>
#include <functional>
#include <string>
#include <vector>

namespace cp::ui {

struct LibraryActions {
    std::function<void(const std::filesystem::path&)> open;
    std::function<std::filesystem::path()> current;             // the open kernel's original path
    // "  (edited)", "  (edited; library updated)" or "" (ui/state/edit_marks.h)
    std::function<const char*(const std::filesystem::path&)> edit_mark;
};

class LibraryPanel final : public Panel {
public:
    LibraryPanel(const std::vector<KernelFile>& library, LibraryActions actions)
        : library_(library), actions_(std::move(actions)) {}
    const char* title() const override { return "Library"; }
    DockPlace dock_place() const override { return {DockSlot::Side, false}; }
    void draw() override;

    // True when `k` matches every word of `query` in its title, category, tags or file name.
    static bool matches(const KernelFile& k, const std::string& query);

private:
    const std::vector<KernelFile>& library_;
    LibraryActions actions_;
    std::string search_;
};

}  // namespace cp::ui
