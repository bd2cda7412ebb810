// Timing history storage: a bounded list, newest last.
#include "ui/state/timing_history.h"

namespace cp::ui {

void TimingHistory::add(TimingSample s) {
    samples_.push_back(std::move(s));
    while (samples_.size() > capacity_) samples_.pop_front();
}

}  // namespace cp::ui
