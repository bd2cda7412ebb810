// The Program panel (issue 36; scripts, issue 37): a whole program (a file with its own main()) or a Python script as
// it ran: how it ended, its own
// output, and the strip of its launches in order (kernel, grid x block, time, what the program saw). A launch
// picked in the strip shows its arguments and the buffers it wrote (before and after, plotted), and can be re-run
// alone on its captured inputs with another grid, block or scalar argument, live as the values change.
#pragma once

#include "render/gl_objects.h"
#include "ui/panels/panel.h"
#include "ui/state/program_run.h"

#include <functional>
#include <list>
#include <string>
#include <vector>

namespace cp::ui {

class ProgramPanel final : public Panel {
public:
    // `open_as_lesson(index)`: saves launch `index` of the last run as a lesson and opens it (after this frame);
    // returns why it could not, or an empty string.
    // `debug(index)`: launch `index` in the Debug panel, one block stepped through on its captured inputs.
    ProgramPanel(ProgramRunState& state, const double& now, std::function<void()> wake,
                 std::function<std::string(size_t)> open_as_lesson = {}, std::function<void(size_t)> debug = {})
        : state_(state), now_(now), wake_(std::move(wake)), open_as_lesson_(std::move(open_as_lesson)),
          debug_(std::move(debug)) {}
    const char* title() const override { return "Program"; }
    DockPlace dock_place() const override { return {DockSlot::Main, false}; }
    void draw() override;

private:
    void draw_launch(const ProgramRun& run, size_t index);
    void draw_buffer(const ReplayBuffer& b, const std::string& type, size_t index);

    void start_replay(size_t index);
    ProgramLaunchChange change_of(size_t index) const;  // the edited values unlike the launch's own

    ProgramRunState& state_;
    const double& now_;
    std::function<void()> wake_;
    std::function<std::string(size_t)> open_as_lesson_;
    std::function<void(size_t)> debug_;
    std::string lesson_refusal_;  // why the picked launch could not be opened as a lesson (this run and launch)
    // The values being edited for the picked launch (reset when another launch or run is picked).
    uint64_t edited_run_ = 0;  // ProgramRunState::runs_taken() of the run being edited
    size_t edited_index_ = size_t(-1);
    int grid_[3] = {1, 1, 1}, block_[3] = {1, 1, 1};
    std::vector<std::vector<std::byte>> scalars_;
    std::vector<ReplayBuffer> shown_;  // its buffers as captured (replayed stays empty)
    std::vector<bool> written_;        // ... and whether the program's launch changed each
    uint64_t counted_replay_ = 0;      // ProgramRunState::replays_taken() that differing_ counts
    std::vector<uint64_t> differing_;  // per buffer of that replay: elements unlike the program's launch's
    bool live_ = true;
    // The pictures drawn, by what they are of (run, launch, buffer, which, replay): made again only when that changes.
    struct Picture {
        std::string key;
        render::Texture texture;
        int width = 0, height = 0;
        bool colour = false;
        double lo = 0, hi = 0;
    };
    std::list<Picture> pictures_;  // a list: the row being drawn points into it
    const Picture* picture(const std::string& key, const std::vector<std::byte>& bytes, const ProgramBuffer& pb);
    struct ShownPicture {
        std::string label;
        const Picture* picture = nullptr;
    };
    // A script's 2D or (h, w, 3) array: before (or as read), after the script's launch, after the re-run, added to
    // the launch's row of pictures; false when it is not a picture (then it is plotted).
    bool add_pictures(const ReplayBuffer& b, const ProgramBuffer& pb, size_t index, bool written,
                      std::vector<ShownPicture>& row);
    void draw_picture_row(const std::vector<ShownPicture>& row);
};

}  // namespace cp::ui
