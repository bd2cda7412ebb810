// CpuProgramRunner: compile_program_library + a CPU worker + the lines of what went wrong (program_runner.h).
#include "core/cpu/program_runner.h"

#include "core/clock.h"
#include "core/cpu/cpu_executor.h"
#include "core/cpu/cpu_worker.h"
#include "core/cpu/fault_report.h"
#include "core/cpu/host_compiler.h"
#include "core/kernel_file/kernel_scan.h"
#include "core/kernel_file/local_includes.h"
#include "core/text_util.h"
#include "core/toolkit/elf_symbols.h"
#include "core/toolkit/nvrtc_compiler.h"
#include "core/toolkit/program_device_compile.h"

#include <nlohmann/json.hpp>

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <mutex>
#include <thread>

namespace cp {
namespace {

class CpuProgramRunner final : public ProgramRunner {
public:
    CpuProgramRunner(const CpuBackendOptions& options, HostCompiler compiler, ShimLocation shim,
                     std::filesystem::path cache, std::string device)
        : options_(options), compiler_(std::move(compiler)), shim_(std::move(shim)), cache_(std::move(cache)) {
        executor_.device_name = std::move(device);
        executor_.workers = options.workers > 0 ? options.workers : int(std::max(1u, std::thread::hardware_concurrency()));
        executor_.order = options.order;
        executor_.seed = options.seed;
    }

    ProgramRun run(const ProgramRequest& request, const std::function<void(const ProgramLaunch&)>& on_launch) override {
        ProgramRun out;
        const bool gpu = !executor_.device_name.empty();
        out.device = "CPU emulation (" + count_text(uint64_t(executor_.workers), "thread") + ")";
        if (!runner_)
            runner_ = options_.in_process && !gpu ? make_cpu_executor(executor_) : make_cpu_worker(executor_);
        runner_->prepare();  // the worker starts while the compiler runs

        const auto compile_start = std::chrono::steady_clock::now();
        ProgramCompileRequest compile;
        compile.source = request.source;
        compile.path = request.path;
        compile.include_dirs = request.include_dirs;
        compile.kernels_elsewhere = gpu;
        CpuCompileOutput built = compile_program_library(compile, compiler_, shim_, cache_);
        out.compile_ms = ms_since(compile_start);
        out.diagnostics = std::move(built.diagnostics);
        out.compile_log = std::move(built.log);
        out.cache_hit = built.cache_hit;
        out.compiled = built.ok && !has_errors(out.diagnostics);
        auto cleanup = [&] {
            std::error_code ec;
            if (!built.temporary_dir.empty()) std::filesystem::remove_all(built.temporary_dir, ec);
        };
        if (!out.compiled) {
            cleanup();
            return out;
        }
        const std::string path = request.path.empty() ? "program.cu" : request.path;
        // The host library's symbols, read once: the instantiation each launch ran (by its entry's offset), and on a
        // GPU the device code's names.
        const Result<std::vector<ElfSymbol>> symbols = read_elf_symbols(built.library);
        // On a GPU: the device code for the device the worker opened, named after the host library's instantiations.
        std::shared_ptr<const ProgramDeviceImage> device_image;
        if (gpu && !symbols) {
            cleanup();
            out.compiled = false;
            out.error = to_engine_error(symbols.error(), "ELF_UNREADABLE", ErrorKind::Internal);
            return out;
        }
        if (gpu) {
            const auto device_start = std::chrono::steady_clock::now();
            nlohmann::json facts = nlohmann::json::parse(cpu_worker_device_facts(*runner_), nullptr, false);
            if (!facts.is_object() || !facts.contains("cc_major")) {
                cleanup();
                out.compiled = false;
                out.error = engine_error(ErrorKind::Unsupported, "NO_DEVICE", "the GPU program worker could not start",
                                         "run the program on the CPU backend (--backend cpu)");
                return out;
            }
            out.device = facts.value("name", std::string("GPU"));
            const std::string arch = nvrtc_arch_for_device(facts.at("cc_major").get<int>(), facts.at("cc_minor").get<int>());
            ProgramDeviceCompile device = compile_program_device_code(request.source, path, request.include_dirs,
                                                                      *symbols, arch.empty() ? "sm_90" : arch);
            out.compile_ms += ms_since(device_start);
            out.diagnostics.insert(out.diagnostics.end(), device.result.diagnostics.begin(),
                                   device.result.diagnostics.end());
            out.compile_log += device.result.log;
            if (!device.image || has_errors(out.diagnostics) || device.result.error) {
                cleanup();
                out.compiled = false;
                out.error = device.result.error;
                return out;
            }
            device_image = device.image;
        }
        const ModuleId id = next_module_++;
        auto facts = runner_->load_module(id, built.library.string(), "", "the program " + path);
        if (!facts) {
            cleanup();
            out.error = to_engine_error(facts.error(), "MODULE_LOAD_FAILED", ErrorKind::Compile);
            return out;
        }
        const std::string library = built.library.string();
        auto line_of = [&](std::optional<EngineError>& error, const std::optional<CodeSite>& site) {
            if (!error) return;
            int line = 0;
            const std::string location = site ? code_site_text(*site, library, path, &line) : std::string();
            place_code_site(*error, location, line);
        };

        // Where each kernel is defined (the file or one of its own headers) and which names are overloaded.
        std::map<std::string, std::string> kernel_header;
        std::map<std::string, int> definitions;
        for (const ScannedKernel& k : scan_kernels(request.source).kernels)
            if (k.definition && definitions[k.name]++ == 0) kernel_header[k.name] = "";
        for (const LocalHeader& h : resolve_local_includes(request.source, path, true, request.include_dirs).headers)
            for (const ScannedKernel& k : scan_kernels(h.contents).kernels)
                if (k.definition && definitions[k.name]++ == 0) kernel_header[k.name] = h.name;

        // Each launch's instantiation by its entry's offset in the library (ProgramLaunchRecord::entry).
        std::map<uint64_t, std::string> instances;
        if (symbols)
            for (const ElfSymbol& s : *symbols)
                if (s.function) {
                    const std::string d = demangled(s.name);
                    const std::string name = d == s.name ? s.name : symbol_name(d).qualified;
                    if (!name.empty()) instances.emplace(s.value, name);
                }

        ProgramRunRequest run;
        run.module = id;
        run.argv.push_back(std::filesystem::path(path).stem().string());
        run.argv.insert(run.argv.end(), request.args.begin(), request.args.end());
        run.buffer_align = built.buffer_align;
        run.time_limit_s = request.time_limit_s;
        run.device_image = device_image;
        run.changes = request.changes;
        // Its own folder (where `path` is): its host code may read the files there, as a course program reads its
        // input, and relative paths start there.
        if (!request.path.empty()) {
            std::error_code ec;
            const std::filesystem::path folder =
                std::filesystem::absolute(std::filesystem::path(request.path), ec).parent_path();
            if (!ec) run.read_folder = folder.string();
        }
        // The capture: a file in memory the worker appends the buffers' bytes to (cannot open files itself).
        int capture_fd = -1;
        if (request.capture_limit > 0) {
            capture_fd = ::memfd_create("cp-program-capture", MFD_CLOEXEC);
            run.capture_fd = capture_fd;
            run.capture_limit = request.capture_limit;
        }
        std::mutex launches_mutex;
        ProgramRunResult r = runner_->run_program(run, [&](const ProgramLaunchRecord& record) {
            if (record.running) return;
            ProgramLaunch l;
            l.kernel = record.kernel;
            if (auto it = instances.find(record.entry); record.entry && it != instances.end()) l.instance = it->second;
            l.line = record.line;
            l.file = record.file;
            l.grid = record.grid;
            l.block = record.block;
            l.shared_bytes = record.shared_bytes;
            l.stream = record.stream;
            l.ms = record.ms;
            l.cuda_error = record.cuda_error;
            l.changed = record.changed;
            {
                const std::string base = symbol_name(l.instance.empty() ? l.kernel : l.instance).base;
                if (auto it = kernel_header.find(base); it != kernel_header.end()) l.kernel_header = it->second;
                auto count = definitions.find(base);  // read only: launches may be told from the worker's threads
                l.kernel_overloaded = count != definitions.end() && count->second > 1;
            }
            l.error = record.error;
            l.args = record.args;
            l.buffers = record.buffers;
            line_of(l.error, record.site);
            {
                std::lock_guard<std::mutex> lock(launches_mutex);
                out.launches.push_back(l);
            }
            if (on_launch) on_launch(l);
        });
        if (capture_fd >= 0) {
            const off_t size = ::lseek(capture_fd, 0, SEEK_END);
            if (size > 0) {
                out.capture_data.resize(size_t(size));
                size_t done = 0;
                while (done < out.capture_data.size()) {
                    const ssize_t n = ::pread(capture_fd, out.capture_data.data() + done, out.capture_data.size() - done,
                                              off_t(done));
                    if (n <= 0) break;
                    done += size_t(n);
                }
                out.capture_data.resize(done);
            }
            ::close(capture_fd);
        }
        out.run_ms = r.ms;
        out.stdout_text = std::move(r.stdout_text);
        out.stderr_text = std::move(r.stderr_text);
        out.output_truncated = r.output_truncated;
        out.refused = std::move(r.refused);
        out.exit_status = r.exit_status;
        out.error = r.error;
        line_of(out.error, r.site);
        if (r.returned) out.end = ProgramRun::End::Returned;
        else if (r.exited) out.end = ProgramRun::End::Exited;
        else if (r.aborted) out.end = ProgramRun::End::Aborted;
        else if (out.error && out.error->kind == ErrorKind::Hang) out.end = ProgramRun::End::Stopped;
        else if (out.error) out.end = ProgramRun::End::Crashed;
        if (out.end == ProgramRun::End::Crashed || out.end == ProgramRun::End::Stopped) out.exit_status = 1;
        runner_->unload_module(id);
        cleanup();
        // A kernel that faulted on the GPU leaves the worker's context broken for every later run (the error is
        // sticky, and the sandboxed worker cannot open the device again): the next run gets a fresh worker.
        if (gpu && std::any_of(out.launches.begin(), out.launches.end(), [](const ProgramLaunch& l) {
                return l.cuda_error == 700 || (l.cuda_error >= 710 && l.cuda_error <= 719) || l.cuda_error == 999;
            }))
            runner_.reset();
        return out;
    }

private:
    CpuBackendOptions options_;
    HostCompiler compiler_;
    ShimLocation shim_;
    std::filesystem::path cache_;
    ExecutorOptions executor_;
    std::unique_ptr<KernelRunner> runner_;
    ModuleId next_module_ = 1;
};

}  // namespace

Result<std::unique_ptr<ProgramRunner>> make_cpu_program_runner(const CpuBackendOptions& options,
                                                               const std::string& device) {
    auto compiler = find_host_compiler(options.compiler);
    if (!compiler) return compiler.error();
    auto shim = find_shim();
    if (!shim) return shim.error();
    std::filesystem::path cache = cpu_cache_dir_for(options.cache_dir);
    return std::unique_ptr<ProgramRunner>(
        new CpuProgramRunner(options, std::move(*compiler), std::move(*shim), std::move(cache), device));
}

Result<std::unique_ptr<ProgramRunner>> make_cpu_program_runner_from_env(const std::string& device) {
    auto options = cpu_backend_options_from_env();
    if (!options) return options.error();
    return make_cpu_program_runner(*options, device);
}

}  // namespace cp
