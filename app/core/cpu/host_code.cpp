// HostCodeRunner: compile_host_library + a CPU worker (one thread: host code runs on the worker's own
// thread) + buffers in shared memory + source lines for what went wrong.
#include "core/cpu/host_code.h"
#include "core/clock.h"

#include "core/cpu/cpu_worker.h"
#include "core/cpu/fault_report.h"
#include "core/cpu/guarded_memory.h"

#include <chrono>
#include <map>

namespace cp {
namespace {

class SandboxedHostCode final : public HostCodeRunner {
public:
    SandboxedHostCode(HostCompiler compiler, ShimLocation shim, std::filesystem::path cache, bool in_process)
        : compiler_(std::move(compiler)), shim_(std::move(shim)), cache_(std::move(cache)) {
        ExecutorOptions one;  // host code runs on the worker's request thread; no pool is needed
        runner_ = in_process ? make_cpu_executor(one) : make_cpu_worker(one);
    }
    ~SandboxedHostCode() override {
        runner_.reset();
        std::error_code ec;
        for (auto& [id, m] : modules_)
            if (!m.temporary_dir.empty()) std::filesystem::remove_all(m.temporary_dir, ec);
    }

    CompileResult compile(const HostLibraryRequest& request) override {
        const auto start = std::chrono::steady_clock::now();
        runner_->prepare();
        CompileResult out;
        CpuCompileOutput built = compile_host_library(request, compiler_, shim_, cache_);
        out.diagnostics = std::move(built.diagnostics);
        out.log = std::move(built.log);
        out.options = std::move(built.options);
        out.cache_hit = built.cache_hit;
        out.ok = built.ok && !has_errors(out.diagnostics);
        if (out.ok) {
            const ModuleId id = next_id_++;
            const std::string path = request.path.empty() ? "reference.cu" : request.path;
            auto facts = runner_->load_module(id, built.library.string(), "", "the host code of " + path);
            if (!facts) {
                out.ok = false;
                out.error = to_engine_error(facts.error(), "MODULE_LOAD_FAILED", ErrorKind::Compile);
            } else {
                modules_[id] = Module{built.library, built.temporary_dir, path};
                out.module = id;
                built.temporary_dir.clear();
            }
        }
        std::error_code ec;
        if (!built.temporary_dir.empty()) std::filesystem::remove_all(built.temporary_dir, ec);
        out.compile_ms = ms_since(start);
        return out;
    }

    Result<BufferId> allocate(const std::string& name, uint64_t bytes) override {
        runner_->prepare();
        auto memory = SharedMemoryFile::create(name, bytes);
        if (!memory) return memory.error();
        const BufferId id = next_id_++;
        if (auto e = runner_->map_buffer(id, name, memory->fd(), bytes)) return to_error(*e);
        buffers_[id] = std::move(*memory);
        return id;
    }

    std::byte* data(BufferId buffer) override {
        auto it = buffers_.find(buffer);
        return it == buffers_.end() ? nullptr : it->second.data();
    }

    HostCallResult call(ModuleId module, const std::string& symbol, const std::vector<KernelArg>& args) override {
        HostCallResult r = runner_->call_host(HostCallRequest{module, symbol, args});
        if (r.error) {
            std::string location;
            if (r.site) {
                auto m = modules_.find(r.site->module);
                if (m != modules_.end())
                    location = code_site_text(*r.site, m->second.library.string(), m->second.source_path);
            }
            place_code_site(*r.error, location);
        }
        return r;
    }

    void release(const ReleaseRequest& request) override {
        for (BufferId b : request.buffers)
            if (buffers_.erase(b)) runner_->unmap_buffer(b);
        for (ModuleId m : request.modules) {
            auto it = modules_.find(m);
            if (it == modules_.end()) continue;
            runner_->unload_module(m);
            std::error_code ec;
            if (!it->second.temporary_dir.empty()) std::filesystem::remove_all(it->second.temporary_dir, ec);
            modules_.erase(it);
        }
    }

private:
    struct Module {
        std::filesystem::path library, temporary_dir;
        std::string source_path;
    };
    HostCompiler compiler_;
    ShimLocation shim_;
    std::filesystem::path cache_;
    std::unique_ptr<KernelRunner> runner_;
    std::map<ModuleId, Module> modules_;
    std::map<BufferId, SharedMemoryFile> buffers_;
    uint64_t next_id_ = 1;
};

}  // namespace

Result<std::unique_ptr<HostCodeRunner>> make_host_code_runner(const CpuBackendOptions& options) {
    auto compiler = find_host_compiler(options.compiler);
    if (!compiler) return compiler.error();
    auto shim = find_shim();
    if (!shim) return shim.error();
    std::filesystem::path cache = cpu_cache_dir_for(options.cache_dir);
    return std::unique_ptr<HostCodeRunner>(
        new SandboxedHostCode(std::move(*compiler), std::move(*shim), std::move(cache), options.in_process));
}

}  // namespace cp
