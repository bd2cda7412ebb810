// Whether a `devices:` split's figures mean what they say: a speed-up above the number of devices cannot come
// from the split; with several parts the report's top lines (time, steps, bandwidth) are the split's.
#pragma once

#include "core/session/run_report.h"

#include <string>

namespace cp {

// Why a speed-up above the number of parts means nothing ("2.71x on 2 GPUs is not a meaningful speed-up:
// splitting the work 2 ways can make it at most 2x faster, so..."); "" when both figures (the wall clock's and
// the devices' own) are within it.
std::string speedup_caveat(const DeviceSplitReport& s);
inline bool speedup_meaningful(const DeviceSplitReport& s) { return speedup_caveat(s).empty(); }

// With several parts, the report's time, steps and bandwidth are the split's (its slowest part's launch, every
// part's bytes), not the one-device baseline's.
inline bool top_lines_are_split(const DeviceSplitReport& s) { return s.parts.size() > 1; }

}  // namespace cp
