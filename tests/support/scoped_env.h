// Test support: ScopedEnv sets or unsets environment variables for one scope and puts back exactly what was
// there before (the value, or the variable's absence), so a test cannot change what a later test sees.
#pragma once

#include <cstdlib>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace cp::test {

class ScopedEnv {
public:
    ScopedEnv() = default;
    // Sets NAME to `value` (std::nullopt: unsets it) until the guard dies.
    ScopedEnv(const std::string& name, std::optional<std::string> value) { set(name, std::move(value)); }
    // Changes nothing now: for code under test that changes NAME itself, puts back what it was.
    explicit ScopedEnv(const std::string& name) { keep(name); }
    ~ScopedEnv() {
        // Latest first, so a variable changed twice in one scope ends as it was before the first change.
        for (auto it = saved_.rbegin(); it != saved_.rend(); ++it) apply(it->first, it->second);
    }
    ScopedEnv(const ScopedEnv&) = delete;
    ScopedEnv& operator=(const ScopedEnv&) = delete;

    // Another change under the same guard (also restored when it dies).
    void set(const std::string& name, std::optional<std::string> value) {
        keep(name);
        apply(name, value);
    }
    void keep(const std::string& name) {
        const char* before = std::getenv(name.c_str());
        saved_.emplace_back(name, before ? std::optional<std::string>(before) : std::nullopt);
    }
    void unset(const std::string& name) { set(name, std::nullopt); }

private:
    static void apply(const std::string& name, const std::optional<std::string>& value) {
        if (value) ::setenv(name.c_str(), value->c_str(), 1);
        else ::unsetenv(name.c_str());
    }

    std::vector<std::pair<std::string, std::optional<std::string>>> saved_;
};

}  // namespace cp::test
