// The window's views: its panels, which are shown and which is in front of its tab group, the docked layout
// (the user's, from ImGui's ini file, or the default one built around the lesson's `show:` panels) and
// presentation mode (the output and the lesson alone). The panels themselves draw what they are given; this
// decides where and whether.
#pragma once

#include "ui/panels/editor_panel.h"
#include "ui/panels/memory_panel.h"
#include "ui/panels/output_panel.h"
#include "ui/panels/panel.h"
#include "ui/panels/presentation_view.h"
#include "ui/panels/streams_panel.h"
#include "ui/panels/timing_panel.h"

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace cp::ui {

class PanelLayout {
public:
    // The panels in their View-menu order; the typed ones are kept for the window's own use.
    template <typename P>
    P& add(std::unique_ptr<P> panel) {
        P& p = *panel;
        panels_.push_back(std::move(panel));
        return p;
    }
    void set_named(EditorPanel& editor, OutputPanel& output, TimingPanel& timing, StreamsPanel& streams, MemoryPanel& memory) {
        editor_ = &editor, output_ = &output, timing_ = &timing, streams_ = &streams, memory_ = &memory;
    }
    void set_presentation_view(std::unique_ptr<PresentationView> view) { presentation_ = std::move(view); }

    const std::vector<std::unique_ptr<Panel>>& panels() const { return panels_; }
    bool has(const std::string& title) const;
    std::vector<std::string> titles() const;
    EditorPanel& editor() const { return *editor_; }
    OutputPanel& output() const { return *output_; }
    TimingPanel& timing() const { return *timing_; }
    StreamsPanel& streams() const { return *streams_; }
    MemoryPanel& memory() const { return *memory_; }
    PresentationView& presentation_view() const { return *presentation_; }

    // Shows a panel and brings it to the front of its tab group (from the next frame on).
    void show(const std::string& title);
    // Closes a panel, as its tab's close button does.
    void hide(const std::string& title);
    // Shows or hides the panel with this title; false when there is none.
    bool set_visible(const std::string& title, bool v);
    void set_all_visible(bool v);
    // The default layout with every panel shown, built on the next frame (View > Reset layout).
    void reset();
    // Panels brought to the front once the first layout has settled (--show): windows take the focus as they
    // first appear, which would undo an earlier request.
    void show_when_settled(const std::string& title);
    // The opened lesson's `show:` panels (and the Memory panel with --memory): in front, with room, and in the
    // presentation view under the output; the docked layout is rebuilt when they differ from the last lesson's.
    void set_stage(std::vector<std::string> show);
    void set_memory_stage(bool on) { memory_stage_ = on; }

    bool presenting() const { return presenting_; }
    // Presentation mode (F11); true when it changed.
    bool set_presenting(bool on);

    // Each panel's shown or hidden, from the settings and into them.
    void restore_visibility(const std::map<std::string, bool>& shown);
    void save_visibility(std::map<std::string, bool>& shown) const;

    // At the start of a frame: a layout change made outside a frame counts down, the settled --show panels come
    // to the front.
    void begin_frame();
    // Whether a layout change still needs frames to show.
    bool settling() const { return layout_frames_ > 0; }
    // Draws the visible panels docked in the work area left by the bars (ImGui); true when the user closed one.
    bool draw_docked();

private:
    std::vector<std::unique_ptr<Panel>> panels_;
    EditorPanel* editor_ = nullptr;
    OutputPanel* output_ = nullptr;
    TimingPanel* timing_ = nullptr;
    StreamsPanel* streams_ = nullptr;
    MemoryPanel* memory_ = nullptr;
    std::unique_ptr<PresentationView> presentation_;
    bool presenting_ = false;
    bool rebuild_ = false;  // the default layout is built on the next frame
    // The `show:` panels the docked layout was last built around (dock_layout.h stage_panels()).
    std::vector<std::string> stage_;
    std::vector<std::string> bring_to_front_;  // panel titles to select in their tab groups, one a frame
    int layout_frames_ = 0;                    // frames still needed to show a layout change made outside a frame
    std::vector<std::string> startup_show_;
    int startup_show_frames_ = 3;  // frames until the first layout has settled
    bool memory_stage_ = false;
};

}  // namespace cp::ui
