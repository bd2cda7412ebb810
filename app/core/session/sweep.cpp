// Block-size sweeps (sweep.h): KernelSession::sweep and the sweep's files.
#include "core/session/sweep.h"
#include "core/clock.h"

#include "core/session/json_schema_versions.h"
#include "core/session/session.h"

#include <nlohmann/json.hpp>

#include <chrono>
#include <sstream>

namespace cp {

std::vector<Dim3> default_sweep_blocks(int problem_dims, const DeviceInfo& d) {
    std::vector<Dim3> out;
    const int warp = std::max(d.warp_size, 1);
    auto fits = [&](Dim3 b) {
        return b.count() <= uint64_t(d.max_threads_per_block) && b.x <= d.max_block.x && b.y <= d.max_block.y &&
               b.z <= d.max_block.z;
    };
    if (problem_dims <= 1) {
        for (int t = warp; t <= d.max_threads_per_block; t += warp) out.push_back(Dim3{uint32_t(t), 1, 1});
        return out;
    }
    if (problem_dims == 2) {
        for (uint32_t x : {4u, 8u, 16u, 32u, 64u, 128u, 256u, 512u, 1024u})
            for (uint32_t y : {1u, 2u, 4u, 8u, 16u, 32u, 64u}) {
                const Dim3 b{x, y, 1};
                if (b.count() >= 64 && fits(b)) out.push_back(b);
            }
        return out;
    }
    for (uint32_t x : {8u, 16u, 32u, 64u})
        for (uint32_t y : {2u, 4u, 8u, 16u})
            for (uint32_t z : {2u, 4u, 8u}) {
                const Dim3 b{x, y, z};
                if (b.count() >= 64 && fits(b)) out.push_back(b);
            }
    return out;
}

Result<SweepResult> KernelSession::sweep(const SweepOptions& options) {
    if (!kernel_.step_signatures.empty())
        return make_error(
            ErrorKind::UserInput,
            "a sweep times one kernel over block shapes, and this file runs " +
                std::to_string(kernel_.step_signatures.size()) + " steps",
            "sweep one of its kernels alone: copy the file and replace its `step:` lines by `kernel: NAME`");
    const auto started = std::chrono::steady_clock::now();
    if (!kernel_.signature)
        return make_error(ErrorKind::Metadata, "no __global__ function found in " + kernel_.path.string());
    if (!engine_.capabilities().launches)
        return make_error(ErrorKind::Unsupported, "no backend can run kernels here: " + device().notes);
    const RunChoices saved = choices_;
    auto first = resolve();
    if (!first) return first.error();
    const CompileResult& compiled = compile();
    if (!compiled.ok || compiled.module == 0) {
        if (compiled.error) return to_error(*compiled.error);
        return make_error(ErrorKind::Compile, "the kernel does not compile",
                          "fix the compile errors first (`cuda-playground compile FILE`)");
    }
    int dims = 0;
    for (uint64_t e : first->problem) dims += e > 1;
    if (first->problem.empty()) dims = (first->grid.y > 1 || first->block.y > 1) + 1 + (first->grid.z > 1 || first->block.z > 1);
    const std::vector<Dim3> blocks = options.blocks.empty() ? default_sweep_blocks(std::max(dims, 1), device()) : options.blocks;

    SweepResult out;
    out.kernel = kernel_.signature->launch_name;
    out.backend = device().backend;
    out.device = device().name;
    out.repeats = options.repeats;
    bool buffers_ready = false;
    for (size_t i = 0; i < blocks.size(); ++i) {
        if (options.cancel && options.cancel->load()) {
            out.cancelled = true;
            break;
        }
        SweepConfig config;
        config.block = blocks[i];
        RunChoices choices = saved;
        choices.block = blocks[i];
        choices.grid.reset();  // the file's grid expression, evaluated for this block
        choices_ = choices;
        auto resolved = resolve();
        if (!resolved) {
            config.skipped = resolved.error().message;
        } else {
            config.grid = resolved->grid;
            config.predicted = occupancy_for_block(device(), compiled.usage, resolved->dynamic_shared_bytes,
                                                   int(blocks[i].count()));
            LaunchCheck check{resolved->grid, resolved->block, resolved->dynamic_shared_bytes, compiled.usage, resolved->problem};
            for (const auto& issue : validate_launch(device(), check))
                if (issue.severity == Severity::Error && config.skipped.empty()) config.skipped = "refused: " + issue.message;
        }
        if (config.skipped.empty() && !buffers_ready) {
            if (auto prepared = prepare_buffers(*resolved); !prepared) {
                choices_ = saved;
                return prepared.error();
            }
            buffers_ready = true;
        }
        if (config.skipped.empty()) {
            auto launch = launch_request(*resolved, compiled.module, TimingOptions{options.warmup, options.repeats, false});
            if (!launch) {
                config.skipped = launch.error().message;
            } else {
                const LaunchOutcome r = launch_kernel(std::move(*launch), {LaunchPurpose::SweepPoint, int(i)});
                if (const std::optional<LaunchFailure>& err = r.failure) {
                    config.skipped = "failed: " + err->message;
                    if (err->context_was_reset) {  // launch_kernel forgot the buffers and modules
                        choices_ = saved;
                        return make_error(err->kind,
                                          "the sweep stopped at block " + blocks[i].str() + ": " + err->message,
                                          err->hint);
                    }
                } else {
                    config.median_ms = r.timing.median_ms;
                    config.min_ms = r.timing.min_ms;
                    config.max_ms = r.timing.max_ms;
                }
            }
        }
        out.configs.push_back(config);
        if (config.timed() && (out.best < 0 || config.median_ms < out.configs[size_t(out.best)].median_ms))
            out.best = int(out.configs.size() - 1);
        if (options.progress) options.progress(i + 1, blocks.size());
    }
    choices_ = saved;
    out.wall_ms = ms_since(started);
    return out;
}

std::string sweep_csv(const SweepResult& r) {
    std::ostringstream s;
    s << "block,grid,threads,median_ms,min_ms,max_ms,blocks_per_sm,occupancy,limited_by,best,skipped\n";
    for (size_t i = 0; i < r.configs.size(); ++i) {
        const SweepConfig& c = r.configs[i];
        s << c.block.str() << ',' << c.grid.str() << ',' << c.block.count() << ',';
        if (c.timed()) s << c.median_ms << ',' << c.min_ms << ',' << c.max_ms;
        else s << ",,";
        s << ',' << c.predicted.blocks_per_sm << ',' << c.predicted.occupancy << ",\"" << c.predicted.limited_by << "\","
          << (int(i) == r.best ? 1 : 0) << ",\"" << c.skipped << "\"\n";
    }
    return s.str();
}

std::string sweep_json(const SweepResult& r) {
    using nlohmann::json;
    json configs = json::array();
    for (size_t i = 0; i < r.configs.size(); ++i) {
        const SweepConfig& c = r.configs[i];
        configs.push_back({{"block", {c.block.x, c.block.y, c.block.z}},
                           {"grid", {c.grid.x, c.grid.y, c.grid.z}},
                           {"threads", c.block.count()},
                           {"median_ms", c.timed() ? json(c.median_ms) : json(nullptr)},
                           {"min_ms", c.timed() ? json(c.min_ms) : json(nullptr)},
                           {"max_ms", c.timed() ? json(c.max_ms) : json(nullptr)},
                           {"predicted", {{"blocks_per_sm", c.predicted.blocks_per_sm},
                                          {"warps_per_sm", c.predicted.warps_per_sm},
                                          {"occupancy", c.predicted.occupancy},
                                          {"limited_by", c.predicted.limited_by}}},
                           {"best", int(i) == r.best},
                           {"skipped", c.skipped.empty() ? json(nullptr) : json(c.skipped)}});
    }
    return json{{"schema_version", kSweepSchemaVersion},
                {"kernel", r.kernel},
                {"backend", r.backend},
                {"device", r.device},
                {"repeats", r.repeats},
                {"best", r.best},
                {"cancelled", r.cancelled},
                {"wall_ms", r.wall_ms},
                {"configs", configs}}
        .dump(2);
}

}  // namespace cp
