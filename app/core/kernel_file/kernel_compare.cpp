// Checking a header's `compare:` list against the source: a variant that is a kernel of this file must exist
// (else its line, a did-you-mean and the fix), must not be the kernel the file runs, and must take the parameters
// the header describes, since it runs with the same header. Variants that name files are read when they run.
#include "core/kernel_file/kernel_file.h"
#include "core/kernel_file/kernel_file_parts.h"

namespace cp {

void check_compare(KernelFile& f, const HeaderState& state) {
    const std::string file = f.path.string();
    const int line = f.spec.compare_line;
    const std::string main_name = f.signature ? f.signature->name : f.spec.kernel.substr(0, f.spec.kernel.find('<'));
    const std::string fix =
        " List kernels of this file or files (`compare: matrix/matmul_tiled`, `compare: tiled.cu`), "
        "separated by spaces.";
    for (const std::string& variant : f.spec.compare) {
        if (variant_names_a_file(variant)) continue;
        const std::string base = variant.substr(0, variant.find('<'));
        if (f.spec.steps.empty() && !main_name.empty() &&
            variant == (f.signature ? f.signature->launch_name : f.spec.kernel)) {
            f.diagnostics.push_back(make_diagnostic(file, line, 0, Severity::Error,
                                                    "`compare: " + variant +
                                                        "` names the kernel this file runs (`kernel: " + main_name +
                                                        "`); list the other versions to compare it with."));
            continue;
        }
        std::vector<Diagnostic> found;
        auto sig = parse_signature(f.source, file, found, variant, line);
        for (Diagnostic& d : found) {
            // The lookup speaks of `kernel:`; here the name came from `compare:`.
            for (size_t at = d.message.find("`kernel: "); at != std::string::npos; at = d.message.find("`kernel: ", at))
                d.message.replace(at, 9, "`compare: ");
            if (!sig && d.severity == Severity::Error) d.message += fix;
        }
        if (!sig) {
            for (Diagnostic& d : found)
                if (d.severity == Severity::Error) f.diagnostics.push_back(std::move(d));
            continue;
        }
        std::vector<Diagnostic> mismatches;
        cross_check(f.spec, *sig, state, file, mismatches);
        for (const Diagnostic& d : mismatches) {
            if (d.severity != Severity::Error) continue;
            f.diagnostics.push_back(make_diagnostic(file, line, 0, Severity::Error,
                                                    "`compare: " + variant + "` runs with this file's header, but `" +
                                                        base + "` (line " + std::to_string(sig->line) +
                                                        ") does not fit it: " + d.message +
                                                        " Give it the same parameters as the main kernel, or move it "
                                                        "to a file of its own with its own header."));
            break;
        }
    }
}

}  // namespace cp
