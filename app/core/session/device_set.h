// The devices a `devices:` split runs on: the session's own engine (its device) and one Engine per other device,
// each a backend of its own (a CUDA worker process per GPU, or a CPU worker), opened on first use by a factory the
// app gives (the core never picks a backend itself) and kept for later runs, with each one's compiled module.
#pragma once

#include "core/engine/engine.h"
#include "core/result.h"

#include <functional>
#include <map>
#include <memory>
#include <string>

namespace cp {

// Opens the engine of device `ordinal` (an Error in plain words when it cannot).
using OpenEngine = std::function<Result<std::unique_ptr<Engine>>(int ordinal)>;

class DeviceSet {
public:
    // `count`: the devices of this backend on the machine (DeviceInfo::device_count); without `open` only the
    // first engine is usable, whatever `count` says.
    DeviceSet(Engine& first, int count, OpenEngine open);
    ~DeviceSet();
    DeviceSet(const DeviceSet&) = delete;
    DeviceSet& operator=(const DeviceSet&) = delete;

    int count() const { return count_; }               // devices there are
    int usable() const { return open_ ? count_ : 1; }  // devices a split can use
    // The engine of the `index`-th device of the set (0: the first engine's device); opened on first use.
    Result<Engine*> engine(int index);
    // The module of `request` loaded on device `index`, compiled once per source text (the first device's
    // module is the session's own and is not asked here).
    Result<ModuleId> module(int index, const CompileRequest& request);
    // Device `index` lost its context (a fault): its module is gone and is compiled again when next asked.
    void forget(int index) { modules_.erase(index); }

private:
    Engine& first_;
    int count_ = 1;
    OpenEngine open_;
    std::map<int, std::unique_ptr<Engine>> others_;  // by index
    struct Compiled {
        std::string source;
        ModuleId module = 0;
    };
    std::map<int, Compiled> modules_;
};

}  // namespace cp
