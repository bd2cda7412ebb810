// The window's link to a server (--remote): whether it is lost, why (the last error, which carries the remote's
// last stderr lines), and when to try again: by itself after 1, 2, 4 ... 30 s, or at once (Reconnect).
// Plain state on the UI thread: the attempts themselves are runs on the runner's thread.
#pragma once

#include <string>

namespace cp::ui {

class RemoteLink {
public:
    static constexpr double kFirstWaitS = 1, kLongestWaitS = 30;

    // `prefix`: the command that reaches the server (`ssh gpu01`); empty: kernels run here, never lost.
    explicit RemoteLink(std::string prefix = {}) : prefix_(std::move(prefix)) {}

    bool remote() const { return !prefix_.empty(); }
    const std::string& prefix() const { return prefix_; }
    bool lost() const { return lost_; }
    // The last failure's words (WorkerLost: the command, what happened, the remote's last stderr lines).
    const std::string& why() const { return why_; }
    double lost_since() const { return lost_since_; }
    int failed_attempts() const { return failed_attempts_; }

    // A request failed with WorkerLost at `now`: lost; the next attempt waits 1 s after the first failure and
    // twice as long after each failed attempt, at most 30 s.
    void failed(std::string why, double now);
    // A request went through: not lost any more. True when it was (the link came back).
    bool succeeded();
    // Whether an attempt is due now: lost, none in flight, and its wait over (or Reconnect pressed).
    bool attempt_due(double now) const { return lost_ && !attempting_ && (now_asked_ || now >= next_attempt_); }
    // An attempt (a run) was sent; its result comes through failed() or succeeded().
    void attempt_started() {
        attempting_ = true;
        now_asked_ = false;
    }
    bool attempting() const { return attempting_; }
    // Reconnect, now rather than after the wait.
    void reconnect_now() { now_asked_ = lost_; }
    // Seconds until the next attempt by itself (0 when due or not lost).
    double retry_in(double now) const;

private:
    std::string prefix_;
    bool lost_ = false, attempting_ = false, now_asked_ = false;
    std::string why_;
    double lost_since_ = 0, next_attempt_ = 0, wait_s_ = 0;
    int failed_attempts_ = 0;
};

// The command prefix from DeviceInfo::where of a remote backend ("remote: `ssh gpu01` -> host ..."); empty
// for a local one.
std::string remote_prefix_of(const std::string& where);

}  // namespace cp::ui
