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

#include <cmath>
#include <cstdlib>
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
  --against FILE  compare the machine code with FILE's (two versions, two lessons): registers, spills, stack,
                  shared memory and instruction counts side by side, the opcodes whose counts differ most,
                  and (with --json) the two SASS listings aligned instruction by instruction
  --against-arch sm_XY
                  the same against this file compiled for another architecture
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
    nlohmann::json local_per_line = nlohmann::json::object();
    for (const auto& [line, count] : listing.local_per_line) local_per_line[std::to_string(line)] = count;
    return {{"instructions", listing.instructions}, {"functions", listing.functions}, {"per_line", per_line},
            {"local_per_line", local_per_line}, {"lines", lines}};
}

// The listing two machine codes are compared by: SASS where both have it, else PTX.
const CodeListing& compared(const MachineCode& c, bool sass) { return sass ? c.sass : c.ptx; }
bool compare_sass(const MachineCode& a, const MachineCode& b) { return a.sass.instructions > 0 && b.sass.instructions > 0; }

nlohmann::json against_json(const MachineCode& a, const MachineCode& b, const std::string& name) {
    nlohmann::json j{{"name", name}, {"ok", b.ok}};
    if (!b.ok) return j;
    const bool sass = compare_sass(a, b);
    const ListingDiff d = diff_listings(compared(a, sass), compared(b, sass));
    nlohmann::json opcodes = nlohmann::json::object();
    for (const auto& [op, counts] : d.opcodes) opcodes[op] = {counts.first, counts.second};
    nlohmann::json rows = nlohmann::json::array();
    for (const ListingDiff::Pair& p : d.rows) {
        static const char* kinds[] = {"same", "only_this", "only_that"};
        rows.push_back({{"kind", kinds[int(p.row)]}, {"this", p.a}, {"that", p.b}, {"text_differs", p.text_differs}});
    }
    j.update({{"listing", sass ? "sass" : "ptx"},
              {"resources", usage_json(b.compile.usage)},
              {"instructions", {compared(a, sass).instructions, compared(b, sass).instructions}},
              {"opcodes", opcodes},
              {"same", d.same},
              {"only_this", d.only_a},
              {"only_that", d.only_b},
              {"aligned", d.aligned},
              {"rows", rows}});
    if (sass) j["sass"] = listing_json(b.sass);
    else j["ptx"] = listing_json(b.ptx);
    return j;
}

void print_against(const MachineCode& a, const MachineCode& b, const std::string& a_name, const std::string& b_name) {
    const bool sass = compare_sass(a, b);
    const ListingDiff d = diff_listings(compared(a, sass), compared(b, sass));
    const ResourceUsage &ua = a.compile.usage, &ub = b.compile.usage;
    const auto num = [](int v) { return v < 0 ? std::string("?") : std::to_string(v); };
    char row[160];
    std::cout << "\ncompared (" << (sass ? "SASS" : "PTX") << "): this = " << a_name << ", that = " << b_name << "\n";
    std::snprintf(row, sizeof row, "  %-22s %14s %14s\n", "", "this", "that");
    std::cout << row;
    const auto line = [&](const char* what, const std::string& x, const std::string& y) {
        std::snprintf(row, sizeof row, "  %-22s %14s %14s%s\n", what, x.c_str(), y.c_str(), x == y ? "" : "   *");
        std::cout << row;
    };
    line("registers", num(ua.registers), num(ub.registers));
    line("spill stores (B)", num(ua.spill_store_bytes), num(ub.spill_store_bytes));
    line("spill loads (B)", num(ua.spill_load_bytes), num(ub.spill_load_bytes));
    line("stack (B)", num(ua.local_bytes), num(ub.local_bytes));
    line("static shared (B)", num(ua.static_shared_bytes), num(ub.static_shared_bytes));
    line("instructions", std::to_string(compared(a, sass).instructions), std::to_string(compared(b, sass).instructions));
    // The opcodes whose counts differ most.
    std::vector<std::pair<std::string, std::pair<int, int>>> ops(d.opcodes.begin(), d.opcodes.end());
    std::stable_sort(ops.begin(), ops.end(), [](const auto& x, const auto& y) {
        return std::abs(x.second.first - x.second.second) > std::abs(y.second.first - y.second.second);
    });
    std::cout << "  opcodes whose counts differ most:\n";
    int shown = 0;
    for (const auto& [op, c] : ops) {
        if (c.first == c.second || shown++ == 12) break;
        line(("  " + op).c_str(), std::to_string(c.first), std::to_string(c.second));
    }
    if (shown == 0) std::cout << "    none: the same opcodes the same number of times\n";
    if (d.aligned)
        std::cout << "  aligned by opcode: " << d.same << " instructions in both, " << d.only_a << " only in this, "
                  << d.only_b << " only in that\n";
    else
        std::cout << "  too long to align here: the counts above compare them\n";
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
    auto args = parse_args(argv, {{"--arch", true}, {"--option", true, true}, {"--json"}, {"--memory"}, {"--ptx"}, {"--sass"}, {"--cubin", true}, {"--against", true},
                                      {"--against-arch", true}});
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
    // --against: the other side's request (another file, or this one for another architecture).
    std::optional<MachineCodeRequest> against;
    std::string against_name;
    if (args->has("--against") && args->has("--against-arch"))
        return user_error("`--against` and `--against-arch` compare with one thing each; give one of them", "");
    if (args->has("--against")) {
        auto other = load_kernel_file(find_kernel_path(args->get("--against")));
        if (!other) return user_error(other.error());
        MachineCodeRequest r;
        r.compile.source = other->compile_source;
        r.compile.path = other->path.string();
        r.compile.kernel_name = other->signature ? other->signature->launch_name : std::string();
        r.compile.extra_options = request.extra_options;
        r.compile.load = false;
        r.arch = arch;
        against = r;
        against_name = other->path.filename().string() + " (" + arch + ")";
    } else if (args->has("--against-arch")) {
        const std::string other_arch = args->get("--against-arch");
        if (other_arch.rfind("sm_", 0) != 0)
            return user_error("`--against-arch " + other_arch + "` is not a real architecture", "use e.g. --against-arch sm_75");
        against = MachineCodeRequest{request, other_arch};
        against_name = file->path.filename().string() + " (" + other_arch + ")";
    }
    if (against && arch.rfind("sm_", 0) != 0)
        return user_error("`--against` needs a real architecture, not `" + arch + "`", "use e.g. --arch sm_90");
    std::optional<MachineCode> other_code;
    if (want_ptx || want_sass || !cubin_path.empty() || against) {
        code = machine_code(MachineCodeRequest{request, arch, want_ptx || against.has_value(), want_sass || against.has_value()});
        result = code->compile;
        if (against) other_code = machine_code(*against);
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
        if (code && code->ok && other_code) j["against"] = against_json(*code, *other_code, against_name);
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
    if (other_code) {
        if (!other_code->ok) {
            std::cerr << against_name << ": does not compile, so there is nothing to compare with\n";
            return 1;
        }
        print_against(*code, *other_code, file->path.filename().string(), against_name);
    }
    if (copy && !copy->result.ok) return 1;  // said above
    if (!ok) {
        std::cerr << "the kernel compiled, but its metadata header has errors (listed above)\n";
        return 1;
    }
    return 0;
}

}  // namespace cp::cli
