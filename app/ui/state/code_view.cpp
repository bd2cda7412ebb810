// The Code panel's listings, made off the UI thread (code_view.h).
#include "ui/state/code_view.h"

#include <algorithm>
#include <chrono>
#include <functional>

namespace cp::ui {

namespace {
constexpr size_t kKept = 8;  // listings kept (architectures and texts switched between)
}

CodeView::CodeView(std::function<void()> wake) : wake_(std::move(wake)), thread_([this] { loop(); }) {}

CodeView::~CodeView() {
    {
        std::lock_guard lock(mutex_);
        stop_ = true;
    }
    cv_.notify_all();
    thread_.join();
}

std::string CodeView::key_of(const MachineCodeRequest& r) {
    std::string key = r.arch + '\n' + r.compile.path + '\n' + r.compile.kernel_name + '\n';
    for (const std::string& o : r.compile.extra_options) key += o + '\n';
    for (const std::string& d : r.compile.include_dirs) key += d + '\n';
    key += std::to_string(std::hash<std::string>{}(r.compile.source)) + ':' + std::to_string(r.compile.source.size());
    return key;
}

void CodeView::request(const MachineCodeRequest& request) {
    const std::string key = key_of(request);
    std::lock_guard lock(mutex_);
    if (key == wanted_key_) return;
    wanted_key_ = key;
    if (auto it = made_.find(key); it != made_.end()) {
        finished_key_ = key;  // made before: shown at the next poll
        next_.reset();
        return;
    }
    next_ = request;
    next_key_ = key;
    cv_.notify_all();
}

void CodeView::request_against(const std::optional<MachineCodeRequest>& request) {
    std::lock_guard lock(mutex_);
    if (!request) {
        against_wanted_key_.clear();
        against_shown_key_.clear();
        against_shown_.reset();
        next_against_.reset();
        return;
    }
    const std::string key = key_of(*request);
    if (key == against_wanted_key_) return;
    against_wanted_key_ = key;
    if (made_.count(key)) return;  // shown at the next poll
    next_against_ = request;
    next_against_key_ = key;
    cv_.notify_all();
}

bool CodeView::poll() {
    std::lock_guard lock(mutex_);
    bool changed = false;
    if (!against_wanted_key_.empty() && against_wanted_key_ != against_shown_key_) {
        if (auto it = made_.find(against_wanted_key_); it != made_.end()) {
            against_shown_ = it->second;
            against_shown_key_ = against_wanted_key_;
            changed = true;
        }
    }
    if (finished_key_.empty() || finished_key_ == shown_key_) return changed;
    auto it = made_.find(finished_key_);
    if (it == made_.end()) return changed;
    shown_ = it->second;
    shown_key_ = finished_key_;
    return true;
}

bool CodeView::busy() const {
    std::lock_guard lock(mutex_);
    return working_ || next_.has_value() || next_against_.has_value();
}

bool CodeView::wait_idle(double timeout_s) const {
    std::unique_lock lock(mutex_);
    return cv_.wait_for(lock, std::chrono::duration<double>(timeout_s),
                        [&] { return !working_ && !next_.has_value() && !next_against_.has_value(); });
}

bool CodeView::has_finished() const {
    std::lock_guard lock(mutex_);
    return (!finished_key_.empty() && finished_key_ != shown_key_ && made_.count(finished_key_)) ||
           (!against_wanted_key_.empty() && against_wanted_key_ != against_shown_key_ && made_.count(against_wanted_key_));
}

void CodeView::loop() {
    std::unique_lock lock(mutex_);
    while (true) {
        cv_.wait(lock, [&] { return stop_ || next_.has_value() || next_against_.has_value(); });
        if (stop_) return;
        const bool main = next_.has_value();  // the main listing first
        MachineCodeRequest request = main ? std::move(*next_) : std::move(*next_against_);
        const std::string key = main ? next_key_ : next_against_key_;
        if (main) next_.reset();
        else next_against_.reset();
        working_ = true;
        lock.unlock();
        auto made = std::make_shared<const MachineCode>(machine_code(request));
        lock.lock();
        working_ = false;
        made_[key] = std::move(made);
        made_order_.push_back(key);
        // The oldest go, except the one shown (it moves to the back).
        for (size_t tries = made_order_.size(); made_order_.size() > kKept && tries > 0; --tries) {
            const std::string old = made_order_.front();
            made_order_.erase(made_order_.begin());
            if (old == shown_key_ || old == against_shown_key_) made_order_.push_back(old);
            else made_.erase(old);
        }
        if (main) finished_key_ = key;
        cv_.notify_all();  // wait_idle
        if (wake_) {
            lock.unlock();
            wake_();
            lock.lock();
        }
    }
}

}  // namespace cp::ui
