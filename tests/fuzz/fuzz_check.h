// FUZZ_CHECK: a property every input must keep; on failure it prints what broke and aborts, which libFuzzer
// reports as a crash (saving the input) and the corpus replay test reports as a failure.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <string>

#define FUZZ_CHECK(condition, what)                                                                    \
    do {                                                                                               \
        if (!(condition)) {                                                                            \
            std::fprintf(stderr, "%s:%d: FUZZ_CHECK(%s) failed: %s\n", __FILE__, __LINE__, #condition, \
                         std::string(what).c_str());                                                   \
            std::abort();                                                                              \
        }                                                                                              \
    } while (0)
