// Test support: a backend that runs kernels as host lambdas over the raw bytes of the buffers it holds, and counts
// every request it is sent (compiles, allocations, uploads, launches, read-backs), so tests can prove what a
// session reuses. Independent of CUDA and the CPU backend.
#pragma once

#include "core/engine/backend.h"

#include <algorithm>
#include <cstring>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace cp::test {

// Executes kernels by name with host lambdas over the raw bytes of the buffers it holds.
class ScriptedBackend : public Backend {
public:
    using KernelFn = std::function<void(const LaunchRequest&, std::map<BufferId, std::vector<std::byte>>&)>;
    std::map<std::string, KernelFn> kernels;
    std::map<BufferId, std::vector<std::byte>> memory;
    int allocations = 0, uploads = 0, pattern_uploads = 0, compiles = 0, launches = 0, read_backs = 0;
    CompileRequest last_compile;
    bool fail_next_launch_sticky = false;
    LaunchRequest last_launch;
    // What each launch answers as its worker's time and its phases (LaunchResult::backend_ms, ::phases).
    double launch_backend_ms = 0;
    LaunchPhases launch_phases;

    InfoResult info() override {
        InfoResult r;
        r.device.backend = "cpu";
        r.device.name = "scripted";
        r.device.total_memory = 1ull << 30;
        r.device.copy_bandwidth_gbps = 100;
        return r;
    }
    CompileResult compile(const CompileRequest& req) override {
        ++compiles;
        last_compile = req;
        CompileResult r;
        r.ok = kernels.count(req.kernel_name) != 0;
        if (!r.ok) r.diagnostics.push_back({req.path, 1, 1, Severity::Error, "no such kernel"});
        r.module = r.ok ? next_module_++ : 0;
        r.usage.registers = 8;
        if (r.ok)  // one module holds the other kernels asked for, as the CUDA backend's does
            for (const std::string& k : req.also_kernels)
                if (kernels.count(k)) r.also_usage[k].registers = 16;
        return r;
    }
    AllocateResult allocate(const AllocateRequest& req) override {
        ++allocations;
        const BufferId id = next_id_++;
        memory[id].assign(req.bytes, std::byte{0});
        return {id, 0x1000 * id, std::nullopt, {}};
    }
    UploadResult upload(const UploadRequest& req) override {
        ++uploads;
        auto& m = memory.at(req.buffer);
        if (req.repeat) {
            ++pattern_uploads;
            fill_with_pattern(m.data(), m.size(), req.data);
        } else {
            std::copy(req.data.begin(), req.data.end(), m.begin());
        }
        return {};
    }
    LaunchResult launch(const LaunchRequest& req) override {
        ++launches;
        last_launch = req;
        LaunchResult r;
        if (fail_next_launch_sticky) {
            fail_next_launch_sticky = false;
            memory.clear();
            r.error = engine_error(ErrorKind::Fault, "CUDA_ERROR_ILLEGAL_ADDRESS", "illegal address");
            r.error->context_was_reset = true;
            return r;
        }
        kernels.at(req.kernel_name)(req, memory);
        r.ok = true;
        r.timing = TimingStats::from_samples({2.0, 1.0, 3.0}, true);
        r.backend_ms = launch_backend_ms;
        r.phases = launch_phases;
        return r;
    }
    ReadBackResult read_back(const ReadBackRequest& req) override {
        ++read_backs;
        auto it = memory.find(req.buffer);
        if (it == memory.end()) return {{}, EngineError{"", "buffer gone", "", false}};
        return {it->second, std::nullopt};
    }
    std::vector<ModuleId> released_modules;
    ReleaseResult release(const ReleaseRequest& req) override {
        for (auto id : req.buffers) memory.erase(id);
        released_modules.insert(released_modules.end(), req.modules.begin(), req.modules.end());
        return {};
    }
    // Off: answers as a backend without an occupancy API does (the base class's default).
    bool has_occupancy_api = true;
    std::optional<OccupancyRequest> last_occupancy;
    OccupancyResult occupancy(const OccupancyRequest& req) override {
        if (!has_occupancy_api) return Backend::occupancy(req);
        last_occupancy = req;
        OccupancyResult r;
        r.block_size = 640;
        r.active_blocks_per_sm = 3;
        r.min_grid_size = 396;
        r.occupancy = 0.9375;
        r.method = "scripted";
        return r;
    }

private:
    BufferId next_id_ = 1;
    ModuleId next_module_ = 1;
};

template <class T>
T scalar(const KernelArg& a) {
    T v{};
    std::memcpy(&v, a.scalar.data(), sizeof(T));
    return v;
}

// vector_add over the buffers, honouring the grid (so a short grid leaves elements unwritten).
inline void vector_add(const LaunchRequest& req, std::map<BufferId, std::vector<std::byte>>& mem) {
    auto* a = reinterpret_cast<const float*>(mem.at(req.args[0].buffer).data());
    auto* b = reinterpret_cast<const float*>(mem.at(req.args[1].buffer).data());
    auto* c = reinterpret_cast<float*>(mem.at(req.args[2].buffer).data());
    const int n = scalar<int>(req.args[3]);
    const uint64_t threads = req.grid.count() * req.block.count();
    for (uint64_t i = 0; i < threads && i < uint64_t(n); ++i) c[i] = a[i] + b[i];
}

}  // namespace cp::test
