// Class panel: a graded class (File > Open of a `grade` results.json): a row per student with their score, each
// case's result and their speed against the reference; a click on a row opens the submission with the case they
// failed first loaded and its line marked (ClassResults::open, done by the workspace).
#pragma once

#include "ui/panels/panel.h"
#include "ui/state/class_results.h"

#include <functional>
#include <string>

namespace cp::ui {

class ClassPanel final : public Panel {
public:
    // `open_student(i)`: what a click on student i does; it returns what to say under the table ("" when fine).
    ClassPanel(ClassResults& results, std::function<std::string(size_t)> open_student)
        : results_(results), open_student_(std::move(open_student)) {
        visible = false;  // shown once a results.json is opened
    }
    const char* title() const override { return "Class"; }
    // Beside the output, where a class's table has room; it comes to the front when a results.json is opened.
    DockPlace dock_place() const override { return {DockSlot::Main, false}; }
    void draw() override;
    void set_note(std::string note) { note_ = std::move(note); }

private:
    ClassResults& results_;
    std::function<std::string(size_t)> open_student_;
    std::string note_;
};

}  // namespace cp::ui
