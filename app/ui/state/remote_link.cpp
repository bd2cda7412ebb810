// RemoteLink: the lost/reconnect state of the window's server link and its backoff.
#include "ui/state/remote_link.h"

#include <algorithm>

namespace cp::ui {

void RemoteLink::failed(std::string why, double now) {
    if (!remote()) return;
    if (!lost_) {
        lost_since_ = now;
        wait_s_ = kFirstWaitS;
        failed_attempts_ = 0;
    } else if (attempting_) {
        ++failed_attempts_;
        wait_s_ = std::min(wait_s_ * 2, kLongestWaitS);
    }
    lost_ = true;
    attempting_ = false;
    why_ = std::move(why);
    next_attempt_ = now + wait_s_;
}

bool RemoteLink::succeeded() {
    const bool was_lost = lost_;
    lost_ = attempting_ = now_asked_ = false;
    failed_attempts_ = 0;
    wait_s_ = 0;
    return was_lost;
}

double RemoteLink::retry_in(double now) const {
    if (!lost_ || attempting_ || now_asked_) return 0;
    return std::max(0.0, next_attempt_ - now);
}

std::string remote_prefix_of(const std::string& where) {
    const std::string head = "remote: `";
    if (where.rfind(head, 0) != 0) return {};
    const size_t end = where.find("` -> ", head.size());
    return end == std::string::npos ? std::string() : where.substr(head.size(), end - head.size());
}

}  // namespace cp::ui
