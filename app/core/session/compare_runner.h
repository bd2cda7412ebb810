// A comparison's variants run beside the main kernel (the window's side-by-side columns, `run --compare`): each
// in a session of its own that keeps its buffers for showing, and borrows the main session's compile and
// inputs where they serve (KernelSession::borrow_from). The window and the command line both use this.
#pragma once

#include "core/session/session.h"

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace cp {

// One variant's run: what ran and its report, or why it could not be read.
struct VariantRun {
    std::string name;                // as `compare:` or --compare gives it
    std::optional<KernelFile> file;  // what ran (nullopt: it could not be read; `problem` says why)
    std::optional<RunReport> report;
    Error problem;
};

// What a caller sees of each variant as it runs (the command line prints as it goes).
struct VariantHooks {
    std::function<void(const std::string& name)> starting;
    std::function<void(const std::string& name, const Error& problem)> unreadable;
    std::function<void(const RunReport&)> before_launch, after;
};

class CompareRunner {
public:
    explicit CompareRunner(Engine& engine) : engine_(engine) {}

    // Before the main kernel's run: loads the variants `names` of `main` (once per text of `main`; a listed name's
    // errors name its `compare:` line, another its --compare) and returns the kernels of main's own file among
    // them, for main's session to load with the same compile (KernelSession::set_also_kernels).
    std::vector<std::string> prepare(const KernelFile& main, const std::vector<std::string>& names);

    // After it: each variant with main's choices (variant_choices) and `options` (coverage and traces are the
    // main kernel's alone). `read_back_for`, when given, says whether a variant's views need its outputs on the host
    // beyond what `options` reads back.
    std::vector<VariantRun> run(const KernelSession& main, const RunReport& main_report, const RunOptions& options,
                                const VariantHooks& hooks = {},
                                const std::function<bool(const KernelFile&)>& read_back_for = {});

    // The session variant i ran in (its buffers, for a check that was left pending); nullptr if it did not run.
    KernelSession* session(size_t i) { return i < sessions_.size() ? sessions_[i].get() : nullptr; }
    // Forgets the variants and their sessions (their buffers are released).
    void clear();

private:
    Engine& engine_;
    std::vector<std::string> names_;
    std::filesystem::path main_path_;
    std::string main_source_;
    std::vector<Result<KernelFile>> loaded_;
    std::vector<std::unique_ptr<KernelSession>> sessions_;
};

}  // namespace cp
