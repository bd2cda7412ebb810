// `cuda-playground compile FILE`: NVRTC diagnostics and resource usage; works on any .cu file, GPU or not.
#include "cli/args.h"
#include "cli/commands.h"
#include "core/cuda/cuda_backend_factory.h"
#include "core/toolkit/machine_code.h"
#include "core/toolkit/nvrtc_compiler.h"
#include "core/toolkit/nvrtc_pch.h"
#include "core/cuda/recording_copy.h"
#include "core/kernel_file/kernel_file.h"
#include "core/session/report_json.h"
#include "core/session/report_text.h"
#include "core/session/session.h"

#include <nlohmann/json.hpp>

#include <fstream>
#include <iostream>

namespace cp::cli {

namespace {

std::string compile_usage() {
    return R"(usage: cuda-playground compile FILE [--arch sm_XY] [--option OPT]... [--ptx] [--sass] [--json]

Compiles FILE with NVRTC and prints the compiler's diagnostics (file:line:column: severity: message)
and the kernel's resource usage (registers, shared memory, stack, spills). Works with or without a
GPU, and on any .cu file: a metadata header is checked when present but not required.
Exit status: 0 compiled, 1 errors (in the source, the metadata header or the command), 3 an internal error
(a bug: please report it).

  --arch sm_XY    target architecture (default: the GPU's, or )" + std::string(kArchWithoutDevice) + R"( when there is none)
  --option OPT    an extra NVRTC option, e.g. --option=-DTILE=32 (repeatable)
  --json          print {schema_version, file, arch, ok, kernel, cache_hit, compile_ms, options, diagnostics,
                  resources} as JSON (docs/schema/compile.schema.json)
  --ptx           also print the PTX NVRTC makes, each run of instructions under the source line it came from
  --sass          also print the SASS of the cubin (the GPU's own instructions, disassembled by nvdisasm; no GPU
                  needed), the same way; with --json both come as listings (per instruction: text, opcode,
                  offset and the source lines, innermost first, with an inlined helper's line before its caller's)
  --cubin FILE    also write the cubin NVRTC made for the architecture to FILE (for cuobjdump, nvdisasm)
  --memory        also build the memory recording's copy of the kernel (what `run --memory` and the window's
                  Memory switch launch) as a cubin for the architecture, and keep it, so that the first
                  recording need not wait for it; says how many accesses it records and whether it was kept
                  already (the window does this in the background for a kernel it opens on a GPU)
)";
}

std::string bytes_text(int b) { return b < 0 ? "?" : std::to_string(b) + " B"; }

nlohmann::json listing_json(const CodeListing& listing) {
    nlohmann::json lines = nlohmann::json::array();
    for (const CodeLine& l : listing.lines) {
        static const char* kinds[] = {"instruction", "label", "function", "other"};
        nlohmann::json j{{"kind", kinds[int(l.kind)]}, {"text", l.text}};
        if (l.kind == CodeLine::Kind::Instruction) {
            j["opcode"] = l.opcode;
            j["lines"] = l.lines;
            if (l.offset >= 0) j["offset"] = l.offset;
        }
        if (!l.function.empty()) j["function"] = l.function;
        lines.push_back(std::move(j));
    }
    nlohmann::json per_line = nlohmann::json::object();
    for (const auto& [line, count] : listing.per_line) per_line[std::to_string(line)] = count;
    return {{"instructions", listing.instructions}, {"functions", listing.functions}, {"per_line", per_line},
            {"lines", lines}};
}

// The listing with each run of instructions under the source line it came from ("  12 | y[i] = v * v;").
void print_listing(const std::string& title, const CodeListing& listing, const std::vector<std::string>& source) {
    std::cout << "\n" << title << " (" << listing.instructions << " instructions)\n";
    int shown = -1;
    for (const CodeLine& l : listing.lines) {
        if (l.kind == CodeLine::Kind::Instruction) {
            const int line = l.lines.empty() ? 0 : l.lines.front();
            if (line != shown) {
                shown = line;
                if (line > 0 && line <= int(source.size())) {
                    std::cout << "  ---- line " << line;
                    if (l.lines.size() > 1) std::cout << " (inlined at line " << l.lines[1] << ")";
                    std::cout << ": " << trim(source[size_t(line - 1)]) << "\n";
                } else {
                    std::cout << "  ---- (no source line)\n";
                }
            }
            std::cout << "      ";
            if (l.offset >= 0) {
                char offset[16];
                std::snprintf(offset, sizeof offset, "/*%04x*/ ", l.offset);
                std::cout << offset;
            }
            std::cout << l.text << "\n";
        } else if (l.kind == CodeLine::Kind::Function || l.kind == CodeLine::Kind::Label) {
            std::cout << "  " << l.text << "\n";
            if (l.kind == CodeLine::Kind::Function) shown = -1;
        }
    }
}

}  // namespace

int cmd_compile(const std::vector<std::string>& argv) {
    auto args = parse_args(argv, {{"--arch", true}, {"--option", true, true}, {"--json"}, {"--memory"}, {"--ptx"}, {"--sass"}, {"--cubin", true}});
    if (!args) return user_error(args.error());
    if (args->has("--help")) {
        std::cout << compile_usage();
        return 0;
    }
    if (args->positional.size() != 1) {
        return user_error("`compile` needs exactly one FILE", "e.g. cuda-playground compile kernels/image/box_blur.cu");
    }
    auto file = load_kernel_file(find_kernel_path(args->positional[0]));
    if (!file) return user_error(file.error());

    std::string arch = args->get("--arch");
    if (arch.empty()) {
        arch = cuda_device_arch();
        if (arch.empty()) arch = kArchWithoutDevice;
    }
    if (arch.rfind("sm_", 0) != 0 && arch.rfind("compute_", 0) != 0) {
        return user_error("`--arch " + arch + "` is not an architecture name", "use e.g. --arch sm_80 or --arch sm_90");
    }

    std::vector<Diagnostic> diagnostics;
    if (file->spec.has_metadata) {
        diagnostics = file->diagnostics;
    } else {
        for (const Diagnostic& d : file->diagnostics)
            if (d.severity == Severity::Note) diagnostics.push_back(d);  // host code left out
    }
    if (!file->spec.has_metadata && !file->signature) {
        // No header: the file need not be runnable, but say why no kernel's resources can be reported
        // (a template without a chosen instantiation, several kernels).
        for (Diagnostic d : file->diagnostics) {
            if (d.severity == Severity::Note) continue;
            d.severity = Severity::Warning;
            diagnostics.push_back(d);
        }
    }
    set_pch_allowed(false);  // one compile, then exit: a precompiled header would serve no one (nvrtc_pch.h)
    CompileRequest request;
    request.source = file->compile_source;
    request.path = file->path.string();
    request.kernel_name = file->signature ? file->signature->launch_name : std::string();
    request.extra_options = args->all("--option");
    request.load = false;
    const bool want_ptx = args->has("--ptx"), want_sass = args->has("--sass");
    if ((want_ptx || want_sass || args->has("--cubin")) && arch.rfind("sm_", 0) != 0)
        return user_error("`--ptx`, `--sass` and `--cubin` need a real architecture, not `" + arch + "`",
                          "use e.g. --arch sm_90");
    CompileResult result;
    std::optional<MachineCode> code;
    const std::string cubin_path = args->get("--cubin");
    if (want_ptx || want_sass || !cubin_path.empty()) {
        code = machine_code(MachineCodeRequest{request, arch, want_ptx, want_sass});
        result = code->compile;
    } else {
        result = compile_with_nvrtc(request, arch, nullptr);
    }
    diagnostics.insert(diagnostics.end(), result.diagnostics.begin(), result.diagnostics.end());
    bool ok = result.ok && !has_errors(diagnostics);
    if (ok && code && !cubin_path.empty()) {
        std::ofstream out(cubin_path, std::ios::binary | std::ios::trunc);
        out.write(reinterpret_cast<const char*>(code->cubin.data()), std::streamsize(code->cubin.size()));
        if (!out) return user_error("could not write the cubin to `" + cubin_path + "`", "check the folder exists and is writable");
    }
    // The recording's copy, built as the session builds it (the session's request: text_to_compile, its path
    // and kernel), so the worker finds the cubin kept under the same key.
    std::optional<RecordingCopy> copy;
    if (ok && args->has("--memory")) {
        if (request.kernel_name.empty())
            return user_error("`--memory` needs a kernel to record, and this file chooses none",
                              "add a metadata header, or keep one kernel in the file");
        CompileRequest recording = kernel_compile_request(*file);
        recording.extra_options = request.extra_options;
        recording.load = false;
        copy = compile_recording_copy(recording, arch);
        ok = copy->result.ok;
    }
    const auto memory_text = [&]() -> std::string {
        if (!copy) return {};
        if (!copy->result.ok) return "recording copy: not built: " + compile_failure_text(copy->result);
        std::string text = "recording copy: " + std::to_string(copy->sites.size()) + " load and store site" +
                           (copy->sites.size() == 1 ? "" : "s") + " recorded; ";
        if (copy->cubin_kept) return text + "its cubin for " + arch + " was kept already";
        if (copy->cubin)
            return text + "cubin for " + arch + " compiled in " + std::to_string(int(copy->cubin_ms + 0.5)) +
                   " ms and kept";
        return text + "no cubin (" + copy->cubin_note + "): the driver compiles it at the first recording";
    };

    if (args->has("--json")) {
        nlohmann::json j{{"schema_version", kCompileSchemaVersion},
                         {"file", file->path.string()},
                         {"arch", arch},
                         {"ok", ok},
                         {"kernel", request.kernel_name},
                         {"cache_hit", result.cache_hit},
                         {"compile_ms", result.compile_ms},
                         {"options", result.options},
                         {"diagnostics", diagnostics_json(diagnostics)},
                         {"resources", result.ok ? usage_json(result.usage) : nlohmann::json()}};
        if (result.error) j["error"] = result.error->message;
        if (code && code->ok) {
            if (want_ptx) j["ptx"] = listing_json(code->ptx);
            if (want_sass) {
                if (code->sass_missing.empty()) j["sass"] = listing_json(code->sass);
                else j["sass_missing"] = code->sass_missing;
            }
        }
        if (copy)
            j["memory"] = {{"ok", copy->result.ok},
                           {"sites", copy->sites.size()},
                           {"cubin", copy->cubin},
                           {"cubin_kept", copy->cubin_kept},
                           {"cubin_ms", copy->cubin_ms},
                           {"text", memory_text()}};
        std::cout << json_text(j) << "\n";
        return ok && !(code && want_sass && !code->sass_missing.empty()) ? 0 : 1;
    }
    for (const auto& d : diagnostics) (d.severity == Severity::Error ? std::cerr : std::cout) << d.str() << "\n";
    if (result.error) std::cerr << "error: " << result.error->message << "\n";
    if (copy && !copy->result.ok) std::cerr << memory_text() << "\n";
    if (!result.ok) {
        size_t errors = 0;
        for (const auto& d : diagnostics) errors += d.severity == Severity::Error;
        std::cerr << file->path.filename().string() << ": compilation failed with " << errors << " error"
                  << (errors == 1 ? "" : "s") << " (" << arch << ")\n";
        return 1;
    }
    const ResourceUsage& u = result.usage;
    std::cout << file->path.filename().string() << ": compiled for " << arch << " in " << int(result.compile_ms + 0.5)
              << " ms" << (result.cache_hit ? " (cached)" : "") << "\n";
    if (request.kernel_name.empty()) {
        std::cout << "  kernel:          none chosen, so there is no resource usage to report (see the warning above)\n";
        return ok ? 0 : 1;
    }
    std::cout << "  kernel:          " << request.kernel_name << "\n";
    std::cout << "  registers:       " << (u.registers < 0 ? std::string("?") : std::to_string(u.registers))
              << " per thread\n"
              << "  static shared:   " << bytes_text(u.static_shared_bytes) << " per block\n"
              << "  stack (local):   " << bytes_text(u.local_bytes) << " per thread\n"
              << "  spills:          " << bytes_text(u.spill_store_bytes) << " stored, " << bytes_text(u.spill_load_bytes)
              << " loaded\n";
    if (u.barriers >= 0) std::cout << "  barriers:        " << u.barriers << "\n";
    if (copy && copy->result.ok) std::cout << "  " << memory_text() << "\n";
    if (code) {
        std::vector<std::string> source;
        for (size_t start = 0; start <= file->source.size();) {
            const size_t nl = file->source.find('\n', start);
            source.push_back(file->source.substr(start, nl == std::string::npos ? std::string::npos : nl - start));
            if (nl == std::string::npos) break;
            start = nl + 1;
        }
        if (want_ptx) print_listing("PTX for " + arch, code->ptx, source);
        if (want_sass) {
            if (code->sass_missing.empty()) print_listing("SASS for " + arch, code->sass, source);
            else std::cerr << "no SASS: " << code->sass_missing << "\n";
        }
        if (want_sass && !code->sass_missing.empty()) return 1;
    }
    if (copy && !copy->result.ok) return 1;  // said above
    if (!ok) {
        std::cerr << "the kernel compiled, but its metadata header has errors (listed above)\n";
        return 1;
    }
    return 0;
}

}  // namespace cp::cli
