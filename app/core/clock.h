// Host time, as the stage figures count it: milliseconds on the steady clock.
#pragma once

#include <chrono>

namespace cp {

inline double ms_since(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace cp
