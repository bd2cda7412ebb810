// A run's stages as types: each keeps the fingerprint of exactly what it depends on and the product it made from
// it, redoes its work only when the fingerprint differs, and says why it ran (RunReport::stage_runs).
// KernelSession's own (session_run.cpp, session_buffers.cpp, session.cpp, and the drivers' files); no UI.
#pragma once

#include "core/engine/engine_api.h"
#include "core/kernel_file/kernel_spec.h"
#include "core/session/run_report.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace cp {

// What a stage's product depends on, as named parts. Each part carries the words a run gives when that part
// changed ("scalar n changed", "new image for `src`"), so "why did this stage run" is read off the first part
// that differs.
class Fingerprint {
public:
    // `why` empty: "NAME changed".
    Fingerprint& add(std::string name, std::string value, std::string why = {});
    Fingerprint& add(std::string name, double value, std::string why = {});
    bool operator==(const Fingerprint& other) const;  // the same parts with the same values
    // Why `*this` is not `before`: the first part that differs (or appeared, or went); "" when they are equal.
    std::string changed_since(const Fingerprint& before) const;
    // All parts as one string (equal strings: equal fingerprints), for keys kept outside a stage.
    std::string key() const;

private:
    struct Part {
        std::string name, value, why;
    };
    std::vector<Part> parts_;
};

// One stage: its product, the fingerprint it was made from, and whether it may be reused for the next run.
template <class Product>
class Stage {
public:
    explicit Stage(std::string name) : name_(std::move(name)) {}

    // The product made from exactly `fp`, when there is one.
    const Product* reusable(const Fingerprint& fp) const { return product_ && fp == made_from_ ? &*product_ : nullptr; }
    // Why a product of `fp` has to be made: "first run", what changed, why the last one was dropped, or ""
    // (it is reusable).
    std::string why(const Fingerprint& fp) const {
        if (product_) return fp == made_from_ ? std::string() : fp.changed_since(made_from_);
        return dropped_because_.empty() ? "first run" : dropped_because_;
    }
    const Product& keep(Fingerprint fp, Product product) {
        made_from_ = std::move(fp);
        product_ = std::move(product);
        dropped_because_.clear();
        return *product_;
    }
    // The product is gone (the device lost its buffers, a module was released): the next run makes it again.
    void drop(std::string because) {
        if (!product_) return;
        product_.reset();
        dropped_because_ = std::move(because);
    }
    const Product* product() const { return product_ ? &*product_ : nullptr; }
    const std::string& name() const { return name_; }

    StageRun ran(std::string reason) const { return {name_, false, std::move(reason)}; }
    StageRun reused(std::string reason = "unchanged") const { return {name_, true, std::move(reason)}; }

private:
    std::string name_;
    Fingerprint made_from_;
    std::optional<Product> product_;
    std::string dropped_because_;
};

// The stages of a KernelSession's runs: resolved choices -> compiled module -> device buffers with inputs
// uploaded -> launched -> outputs read back -> checked. Views are drawn by the caller from the report.
struct RunStages {
    // The kernel's module: source, path, kernel, the kernels loaded with it, options, the device; the module
    // itself lives in the session's one keyed compile cache (ModuleCache).
    Stage<ModuleId> compile{"compile"};
    // Per buffer, the device copy's initial contents: type, size, initialiser, image (the product: its id).
    std::map<std::string, Stage<BufferId>> uploads;
    // The launch: module, kernel, grid, block, shared memory, scalar arguments, buffers and their inputs. A run
    // asked for always launches (re-timing, racy lessons); the fingerprint says what changed since the last one.
    Stage<uint64_t> launch{"launch"};  // product: the launch's generation
    // The CPU reference's expected outputs: the reference text, the scalars and every buffer's initial contents.
    Stage<std::map<std::string, HostBuffer>> reference{"reference"};
    // The compiles beside the kernel's own, by stage name ("compile trace", "compile memory", "compile counting",
    // "compile step NAME"): each module lives in its ModuleCache slot; the stage says whether it was made again.
    std::map<std::string, Stage<ModuleId>> extra_compiles;
    // A `devices:` split's modules on the other devices (DeviceSet's, by "compile device ORDINAL"): not this
    // engine's, so a reset of this one leaves them; a new module id says one was made.
    std::map<std::string, Stage<ModuleId>> device_compiles;
    uint64_t launches = 0;  // generations: one per launch this session made
    uint64_t compiles = 0;  // one per compile of the kernel's module (a released id may come back for a new one)

    // What the last compile() and prepare_buffers() did, for the run that called them to report.
    std::optional<StageRun> compile_run;
    std::vector<StageRun> upload_runs;
    // What the extra compiles did since the stage that asked for them last took them (take_extra_runs).
    std::vector<StageRun> extra_runs;

    Stage<ModuleId>& extra_compile(const std::string& stage) {
        return extra_compiles.try_emplace(stage, stage).first->second;
    }
    std::vector<StageRun> take_extra_runs() { return std::exchange(extra_runs, {}); }

    Stage<BufferId>& upload(const std::string& buffer) {
        return uploads.try_emplace(buffer, "upload " + buffer).first->second;
    }
    // The backend lost every buffer and module (its context was reset).
    void device_lost() {
        compile.drop("the device was reset");
        for (auto& [name, stage] : uploads) stage.drop("the device was reset");
        for (auto& [name, stage] : extra_compiles) stage.drop("the device was reset");
    }
};

// A compile request's fingerprint: what the module depends on, part by part.
Fingerprint compile_fingerprint(const CompileRequest& request, const std::string& device);
// A buffer's initial contents: its type and size, its initialiser and (for images) the file.
Fingerprint input_fingerprint(const BufferSpec& spec, uint64_t count, const std::string& image);
// How a later stage (the launch, the reference) names a change of `spec`'s contents: "new image for `src`" or
// "contents of `x` changed".
std::string contents_changed(const BufferSpec& spec);

}  // namespace cp
