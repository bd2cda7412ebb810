// The session's compiled modules in one cache keyed by everything a compile depends on (source, path, kernel,
// the other kernels loaded with it, instrumentation, options): it serves the plain, traced, write-counting and
// step compiles alike, so one rule decides when each is compiled again.
#pragma once

#include "core/engine/engine.h"

#include <map>
#include <string>

namespace cp {

class ModuleCache {
public:
    // What a compile of `request` depends on, as one string (equal keys compile to equal modules).
    static std::string key_of(const CompileRequest& request);

    // The compile of `request` in `slot` ("plain", "traced", "counted", "step:NAME"): the one already there when
    // its key is the same (a failed compile too: the same text fails the same way, and is reported once), else
    // a new compile, after releasing the slot's previous module. `compiled` says which it was.
    const CompileResult& get(Engine& engine, const std::string& slot, CompileRequest request, bool* compiled = nullptr);
    // A result this cache did not compile and must never release (a compare variant's kernel loaded by the
    // session it borrows from), under `key`.
    const CompileResult& lend(Engine& engine, const std::string& slot, const std::string& source, CompileResult lent);
    const CompileResult* find(const std::string& slot) const;
    // The source text the slot's module was compiled from (nullptr: none).
    const std::string* source_of(const std::string& slot) const;
    bool borrowed(const std::string& slot) const;

    // Releases the modules of every slot whose name starts with `prefix` and forgets them.
    void drop(Engine& engine, const std::string& prefix);
    // The backend lost every module (its context was reset): forget them without releasing.
    void forget() { slots_.clear(); }

private:
    struct Entry {
        std::string key;
        std::string source;
        CompileResult result;
        bool borrowed = false;  // another session's module: never released here
    };
    void release(Engine& engine, Entry& entry);
    std::map<std::string, Entry> slots_;
};

}  // namespace cp
