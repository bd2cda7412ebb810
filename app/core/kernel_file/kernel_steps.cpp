// Checking a file's `step:` sequence against its source: every step names a `__global__` function of the file,
// the steps agree on the type of each buffer and param they share, and the header describes every parameter
// of every step's kernel (the header's checks against one signature, run on the steps' parameters together).
#include "core/kernel_file/kernel_file.h"
#include "core/kernel_file/kernel_file_parts.h"
#include "core/text_util.h"

#include <algorithm>

namespace cp {

void check_steps(KernelFile& f, const HeaderState& state) {
    const std::string file = f.path.string();
    std::vector<KernelSignature> sigs;
    bool all_found = true;
    for (const StepSpec& step : f.spec.steps) {
        const size_t before = f.diagnostics.size();
        auto sig = parse_signature(f.source, file, f.diagnostics, step.kernel, step.line);
        // The lookup's messages speak of `kernel:`; here the name came from a `step:` line.
        for (size_t k = before; k < f.diagnostics.size(); ++k) {
            std::string& m = f.diagnostics[k].message;
            for (size_t at = m.find("`kernel: " + step.kernel); at != std::string::npos; at = m.find("`kernel: " + step.kernel, at))
                m.replace(at, 9, "`step: ");
        }
        if (!sig) {
            all_found = false;
            continue;
        }
        sigs.push_back(std::move(*sig));
    }
    if (!all_found) return;

    // One parameter list for the header's checks: each name once, as the first step that takes it declares it,
    // except that a buffer some step writes (not `const`) is taken from that step.
    KernelSignature merged;
    std::vector<std::string> names;
    for (const auto& s : sigs)
        if (std::find(names.begin(), names.end(), s.name) == names.end()) names.push_back(s.name);
    merged.name = join(names, "`, `");  // messages read "`a`, `b` (line N)"
    merged.launch_name = sigs.front().launch_name;
    merged.line = sigs.front().line;
    bool consistent = true;
    for (size_t i = 0; i < sigs.size(); ++i) {
        for (const SignatureParam& p : sigs[i].params) {
            auto it = std::find_if(merged.params.begin(), merged.params.end(),
                                   [&](const SignatureParam& q) { return q.name == p.name; });
            if (it == merged.params.end()) {
                merged.params.push_back(p);
                continue;
            }
            if (it->is_pointer != p.is_pointer || it->base_type != p.base_type) {
                f.diagnostics.push_back(make_diagnostic(
                    file, p.line, 0, Severity::Error,
                    "`" + p.type_text + " " + p.name + "` of `" + sigs[i].name + "` (step " + std::to_string(i + 1) +
                        ") is not the type another step's kernel gives it (`" + it->type_text + " " + it->name +
                        "`, line " + std::to_string(it->line) + "). The steps share the file's buffers and params, so "
                        "declare it the same way in both kernels."));
                consistent = false;
                continue;
            }
            const bool writes = p.is_pointer && p.type_text.substr(0, p.type_text.find('*')).find("const") == std::string::npos;
            if (writes) *it = p;
        }
    }
    if (!consistent) return;
    cross_check(f.spec, merged, state, file, f.diagnostics);
    f.step_signatures = std::move(sigs);
    f.signature = f.step_signatures.front();
}

}  // namespace cp
