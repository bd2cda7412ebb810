// A `devices:` run in the Timing panel: one row per device (its elements and times), the split's wall time
// against one device alone, or, with one device, what it would do with more.
#pragma once

#include "core/session/run_report.h"

namespace cp::ui {

// Where the lines were drawn (screen pixels), for the layout tests: from the separator to the last device's line.
struct DrawnSplit {
    bool valid = false;
    int devices = 0;
    float y0 = 0, y1 = 0;
};

DrawnSplit draw_device_split(const DeviceSplitReport& split);

}  // namespace cp::ui
