// The Code panel's state (ImGui-free): the machine code of the open file for one architecture, made on a
// thread of its own (NVRTC, then nvdisasm) so that the frame never waits for it, and kept per request so that
// switching back to an architecture or an earlier text costs nothing. Only asked for while the panel is shown.
#pragma once

#include "core/toolkit/machine_code.h"

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace cp::ui {

class CodeView {
public:
    // `wake`: called on the worker thread when a listing is ready (wakes the window).
    explicit CodeView(std::function<void()> wake);
    ~CodeView();
    CodeView(const CodeView&) = delete;
    CodeView& operator=(const CodeView&) = delete;

    // Asks for the machine code of `request` (kept when it was made before). The newest request wins; one
    // being made is finished first.
    void request(const MachineCodeRequest& request);
    // The other side of a comparison (another architecture, a compare variant, the last version that compiled);
    // null: none. Made after the main request.
    void request_against(const std::optional<MachineCodeRequest>& request);
    const std::shared_ptr<const MachineCode>& against() const { return against_shown_; }
    // Takes a finished listing into shown(); true when what is shown changed.
    bool poll();
    bool busy() const;                 // a request is being made or waits
    bool has_finished() const;         // poll() would change what is shown
    // Blocks until nothing is being made or waits (or `timeout_s` passes); true when idle. For tests and headless
    // screenshots that must see the listing, whatever the machine's speed.
    bool wait_idle(double timeout_s) const;

    // What the panel shows: the latest finished listing (null before the first), and the key of the latest request.
    const std::shared_ptr<const MachineCode>& shown() const { return shown_; }
    bool shown_is_latest() const { return shown_key_ == wanted_key_; }

    // The architecture chosen in the panel ("" = the device's) and the source line picked (0 = none): by the
    // editor's cursor, or by clicking an instruction.
    std::string arch;
    // What the panel compares with: "" (nothing), "sm_XY", "lesson:NAME" (a compare variant), "before" (the last
    // version of this file that compiled, before the current edit).
    std::string compare_with;
    int picked_line = 0;
    uint64_t picked_serial = 0;  // goes up when the panel picks a line (the editor then moves its cursor)

    static std::string key_of(const MachineCodeRequest& request);

private:
    void loop();

    std::function<void()> wake_;
    mutable std::mutex mutex_;
    mutable std::condition_variable cv_;
    std::optional<MachineCodeRequest> next_, next_against_;
    std::string next_key_, next_against_key_;
    std::string against_wanted_key_, against_shown_key_;
    std::shared_ptr<const MachineCode> against_shown_;
    bool working_ = false, stop_ = false;
    std::map<std::string, std::shared_ptr<const MachineCode>> made_;  // by key (a few kept)
    std::vector<std::string> made_order_;
    std::string finished_key_;  // the newest made, not yet shown
    std::shared_ptr<const MachineCode> shown_;
    std::string shown_key_, wanted_key_;
    std::thread thread_;
};

}  // namespace cp::ui
