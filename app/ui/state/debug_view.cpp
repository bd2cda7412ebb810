// The Debug panel's state (debug_view.h).
#include "ui/state/debug_view.h"

#include <algorithm>
#include <cstdio>

namespace cp::ui {

void DebugViewState::take(BlockDebugRun run) {
    const bool first = !run_;
    const uint32_t keep = round_;
    run_ = std::make_unique<BlockDebugRun>(std::move(run));
    timeline_ = std::make_unique<DebugTimeline>(run_->recording);
    recording = false;
    error.clear();
    error_kind.reset();
    // A new recording of the same block after an edit keeps the stop where it was, when the run is that long; the
    // first one stops at the first breakpoint, or at the start. A block that faulted stops at the fault.
    const uint32_t rounds = run_->recording.rounds;
    if (run_->failure && rounds) {
        round_ = rounds - 1;
    } else if (pending_barrier > 0 && size_t(pending_barrier) <= run_->recording.barriers.size()) {
        // As if stepped there barrier by barrier: what changed is what changed since the barrier before.
        const std::vector<uint32_t>& b = run_->recording.barriers;
        round_ = b[size_t(pending_barrier) - 1];
        previous_ = pending_barrier >= 2 ? b[size_t(pending_barrier) - 2] : 0;
        pending_barrier = 0;
        marks.fault_line = 0;
        refresh();
        return;
    } else if (first || keep >= rounds) {
        round_ = 0;
        if (!marks.breakpoints.empty() && !continue_to_breakpoint()) round_ = 0;
    } else {
        round_ = keep;
    }
    marks.fault_line = run_->failure ? run_->failure->line : 0;
    previous_ = round_;
    refresh();
}

void DebugViewState::fail(const Error& e) {
    recording = false;
    error = e.full();
    error_kind = e.kind;
    run_.reset();
    timeline_.reset();
    marks.fault_line = 0;
    refresh();
}

void DebugViewState::forget() {
    run_.reset();
    timeline_.reset();
    recording = false;
    recorded_key.clear();
    error.clear();
    error_kind.reset();
    round_ = 0;
    selected_thread.reset();
    marks.fault_line = 0;
    refresh();
}

void DebugViewState::set_round(uint32_t round) {
    if (!run_ || rounds() == 0) return;
    const uint32_t to = std::min(round, rounds() - 1);
    if (to != round_) previous_ = round_;
    round_ = to;
    refresh();
}

std::vector<uint32_t> DebugViewState::watched() const {
    std::vector<uint32_t> out;
    if (!run_) return out;
    const uint32_t threads = run_->recording.threads;
    const uint32_t first = warp < 0 ? 0 : uint32_t(warp) * 32;
    const uint32_t end = warp < 0 ? threads : std::min(threads, first + 32);
    for (uint32_t t = first; t < end; ++t) out.push_back(t);
    return out;
}

uint32_t DebugViewState::warps() const { return run_ ? (run_->recording.threads + 31) / 32 : 0; }

void DebugViewState::set_warp(int w) {
    warp = w < 0 ? -1 : std::min<int>(w, int(std::max(warps(), 1u)) - 1);
    refresh();
}

bool DebugViewState::step_forward() {
    if (!run_) return false;
    const std::vector<uint32_t> mine = watched();
    for (uint32_t r = round_ + 1; r < rounds(); ++r) {
        for (uint32_t t : mine) {
            const DebugStep* s = timeline_->step_at(t, r);
            if (s && s->round == r) {
                set_round(r);
                return true;
            }
        }
    }
    return false;
}

bool DebugViewState::step_back() {
    if (!run_ || round_ == 0) return false;
    const std::vector<uint32_t> mine = watched();
    for (uint32_t r = round_; r-- > 0;) {
        for (uint32_t t : mine) {
            const DebugStep* s = timeline_->step_at(t, r);
            if (s && s->round == r) {
                set_round(r);
                return true;
            }
        }
    }
    set_round(0);
    return true;
}

bool DebugViewState::continue_to_breakpoint() {
    if (!run_ || rounds() == 0) return false;
    std::optional<uint32_t> best;
    for (int line : marks.breakpoints) {
        const std::optional<uint32_t> at = timeline_->first_round_at(line, round_ + 1);
        if (at && (!best || *at < *best)) best = at;
    }
    if (round_ == 0 && !best)  // the very start may itself be at a breakpoint: the first probe's line
        for (int line : marks.breakpoints)
            if (timeline_->first_round_at(line, 0) == 0u) best = 0;
    set_round(best ? *best : rounds() - 1);
    return best.has_value();
}

bool DebugViewState::next_barrier() {
    if (!run_) return false;
    for (uint32_t b : run_->recording.barriers)
        if (b > round_) {
            set_round(b);
            return true;
        }
    return false;
}

int DebugViewState::barrier_at_stop() const {
    if (!run_) return 0;
    const std::vector<uint32_t>& b = run_->recording.barriers;
    const auto it = std::find(b.begin(), b.end(), round_);
    return it == b.end() ? 0 : int(it - b.begin()) + 1;
}

bool DebugViewState::jump_to_writer(uint32_t thread, const std::string& name) {
    if (!run_) return false;
    const std::optional<uint32_t> r = timeline_->round_that_set(thread, round_, name);
    if (!r) return false;
    selected_thread = thread;
    set_round(*r);
    return true;
}

bool DebugViewState::jump_to_shared_writer(size_t array, uint64_t index) {
    if (!run_) return false;
    const std::vector<int64_t> w = timeline_->shared_writers(round_, array);
    if (index >= w.size() || w[index] < 0) return false;
    const DebugAccess& a = run_->recording.accesses[size_t(w[index])];
    selected_thread = a.thread;
    if (warp >= 0) warp = int(a.thread / 32);
    set_round(a.round);
    return true;
}

void DebugViewState::add_watch(const std::string& expression) {
    const size_t first = expression.find_first_not_of(' ');
    if (first == std::string::npos) return;
    const std::string e = expression.substr(first, expression.find_last_not_of(' ') - first + 1);
    if (std::find(watches_.begin(), watches_.end(), e) != watches_.end()) return;
    watches_.push_back(e);
    refresh();
}

void DebugViewState::remove_watch(size_t index) {
    if (index >= watches_.size()) return;
    watches_.erase(watches_.begin() + long(index));
    refresh();
}

void DebugViewState::toggle_breakpoint(int line) {
    if (line <= 0) return;
    if (!marks.breakpoints.erase(line)) marks.breakpoints.insert(line);
}

int DebugViewState::main_line() const {
    int best = 0;
    uint32_t most = 0;
    for (const auto& [line, n] : marks.threads_at)
        if (n > most) most = n, best = line;
    return best;
}

void DebugViewState::refresh() {
    ++moves;
    columns_.clear();
    rows_.clear();
    shared_.clear();
    std::map<int, uint32_t>& marks_at = marks.threads_at;
    marks_at.clear();
    if (!run_ || rounds() == 0) return;
    const DebugRecording& rec = run_->recording;
    const DebugTimeline& t = *timeline_;
    const std::vector<uint32_t> mine = watched();
    // What changed: since the stop before (the one the last move came from), or the round before at the first.
    const uint32_t base = previous_ != round_ ? previous_ : round_ > 0 ? round_ - 1 : round_;
    // The columns: every variable any watched thread has at the stop, in the order the probes name them.
    std::vector<const DebugStep*> now(mine.size()), before(mine.size());
    for (size_t k = 0; k < mine.size(); ++k) {
        now[k] = t.step_at(mine[k], round_);
        before[k] = base != round_ ? t.step_at(mine[k], base) : nullptr;
        if (!now[k]) continue;
        for (uint32_t v = 0; v < now[k]->variable_count; ++v) {
            const std::string& name = rec.names[rec.variables[now[k]->first_variable + v].name];
            if (std::find(columns_.begin(), columns_.end(), name) == columns_.end()) columns_.push_back(name);
        }
    }
    const size_t variable_columns = columns_.size();
    for (const std::string& w : watches_) columns_.push_back(w);
    watch_notes_.clear();
    const std::vector<DebugThreadAt> at = t.threads_at(round_);
    auto watch_text = [&](uint32_t th, uint32_t round, const std::string& w, std::string* why) {
        const Result<double> v = t.watch(th, round, w);
        if (!v) {
            if (why) *why = v.error().full();
            return std::string("?");
        }
        char text[64];
        std::snprintf(text, sizeof text, "%.9g", *v);
        return std::string(text);
    };
    const Dim3 d = rec.block_dim;
    for (size_t k = 0; k < mine.size(); ++k) {
        const uint32_t th = mine[k];
        DebugRow row;
        row.thread = th;
        row.index = {th % d.x, (th / d.x) % d.y, th / (d.x * d.y)};
        const DebugThreadAt& a = at[th];
        row.state = !a.step ? DebugThreadState::NotStarted
                    : a.finished ? DebugThreadState::Returned
                    : a.moved    ? DebugThreadState::Stepped
                                 : DebugThreadState::Waiting;
        row.line = a.step ? a.step->line : 0;
        if (a.step && row.state != DebugThreadState::Returned) ++marks_at[row.line];
        row.values.assign(columns_.size(), "");
        row.changed.assign(columns_.size(), false);
        for (size_t c = variable_columns; c < columns_.size() && now[k]; ++c) {
            std::string why;
            row.values[c] = watch_text(th, round_, columns_[c], &why);
            if (!why.empty()) watch_notes_[{th, c}] = why;
            if (base != round_ && before[k]) row.changed[c] = watch_text(th, base, columns_[c], nullptr) != row.values[c];
        }
        for (size_t c = 0; c < variable_columns && now[k]; ++c) {
            const DebugVariable* v = t.variable(*now[k], columns_[c]);
            if (!v) continue;
            row.values[c] = t.value_text(*v);
            const DebugVariable* b = before[k] ? t.variable(*before[k], columns_[c]) : nullptr;
            row.changed[c] = before[k] != now[k] && (!b || t.value_text(*b) != row.values[c]);
        }
        rows_.push_back(std::move(row));
    }
    for (size_t a = 0; a < rec.shared.size(); ++a) {
        const DebugSharedArray& s = rec.shared[a];
        DebugSharedView view;
        view.name = s.name;
        view.extents = s.extents;
        const uint64_t n = s.element_size ? s.bytes / s.element_size : 0;
        const std::vector<int64_t> writers = t.shared_writers(round_, a);
        for (uint64_t i = 0; i < n; ++i) {
            view.values.push_back(t.shared_text(round_, a, i));
            view.changed.push_back(base != round_ && t.shared_text(base, a, i) != view.values.back());
            const int64_t w = i < writers.size() ? writers[size_t(i)] : -1;
            view.writers.push_back(w < 0 ? -1 : int64_t(rec.accesses[size_t(w)].thread));
            view.writer_lines.push_back(w < 0 ? 0 : rec.accesses[size_t(w)].line);
            view.writer_rounds.push_back(w < 0 ? 0 : rec.accesses[size_t(w)].round);
        }
        shared_.push_back(std::move(view));
    }
}

std::string DebugViewState::touched_text() const {
    if (!run_ || !run_->recording.accesses_recorded) return "";
    std::string out;
    for (const DebugTouched& t : timeline_->touched(round_)) {
        auto ranges = [&](const char* what, const std::vector<std::pair<uint64_t, uint64_t>>& v) {
            if (v.empty()) return;
            if (!out.empty()) out += "; ";
            out += run_->recording.regions[t.region].name + "[";
            for (size_t k = 0; k < v.size() && k < 4; ++k)
                out += (k ? ", " : "") + std::to_string(v[k].first) +
                       (v[k].second > v[k].first ? ".." + std::to_string(v[k].second) : std::string());
            out += std::string(v.size() > 4 ? ", ..." : "") + "] " + what;
        };
        ranges("read", t.read);
        ranges("written", t.written);
    }
    return out.empty() ? "none yet" : out;
}

std::string DebugViewState::where_text() const {
    if (!run_ || rounds() == 0) return "";
    std::string out = "round " + std::to_string(round_ + 1) + " of " + std::to_string(rounds());
    if (const int b = barrier_at_stop())
        out += " \xc2\xb7 at __syncthreads() " + std::to_string(b) + " of " +
               std::to_string(run_->recording.barriers.size());
    return out;
}

}  // namespace cp::ui
