// A `devices:` run in the Timing panel: one row per device (its elements and times), the split's wall time
// against one device alone, or, with one device, what it would do with more.
#pragma once

#include "core/session/run_report.h"

namespace cp::ui {

void draw_device_split(const DeviceSplitReport& split);

}  // namespace cp::ui
