// Host time, as the stage figures count it: milliseconds on the steady clock.
#pragma once

#include <chrono>

namespace cp {

// From `start` to `end`.
inline double ms_between(std::chrono::steady_clock::time_point start, std::chrono::steady_clock::time_point end) {
    return std::chrono::duration<double, std::milli>(end - start).count();
}

inline double ms_since(std::chrono::steady_clock::time_point start) {
    return ms_between(start, std::chrono::steady_clock::now());
}

}  // namespace cp
