// KernelSession::count_writers: one launch of the write-counting variant (core/engine/count_wrapper.h) over
// fresh buffers, giving per output element the threads that wrote it. It runs before the run's own launch,
// like the coverage launches; when the variant cannot be made, compiled or run, each map says why instead.
#include "core/engine/count_wrapper.h"
#include "core/kernel_file/constant_fill.h"
#include "core/session/coverage.h"
#include "core/session/report_text.h"
#include "core/session/run_stage.h"
#include "core/session/session.h"

#include <algorithm>
#include <cstring>

namespace cp {
namespace {

void not_measured(std::vector<CoverageMap>& maps, const std::string& why) {
    for (CoverageMap& m : maps) m.writers_not_measured = why;
}

}  // namespace

void KernelSession::count_writers(const ResolvedRun& resolved, std::vector<CoverageMap>& maps) {
    if (maps.empty() || !kernel_.signature) return;
    const KernelSignature& sig = *kernel_.signature;
    if (sig.launch_name != sig.name)
        return not_measured(maps, "`" + sig.launch_name + "` is a template instantiation, which the counting variant does not take");

    std::vector<CountedBuffer> counted;
    for (const auto& b : kernel_.spec.buffers) {
        if (b.direction == Direction::In) continue;
        const bool is_param = std::any_of(sig.params.begin(), sig.params.end(),
                                          [&](const SignatureParam& p) { return p.is_pointer && p.name == b.name; });
        // Per element: the kernel file makes the pointer's type the buffer's, and the variant has no member
        // access (`img[x].y = ...` does not compile), so every counted store covers whole elements and an
        // element's channels always have its count (as the never-written count is per element).
        if (is_param) counted.push_back({b.name, uint32_t(elem_info(b.type).size), resolved.buffer_counts.at(b.name)});
    }
    if (counted.empty()) return;
    auto source = make_count_wrapper(text_to_compile(kernel_), sig.name, counted);
    if (!source) return not_measured(maps, source.error().message);

    CompileRequest request;
    request.source = std::move(*source);
    request.path = kernel_.path.string();
    request.kernel_name = sig.launch_name;
    const CompileResult& counted_compile = compile_extra("counted", "compile counting", std::move(request));
    // Its text holds the outputs' sizes: with the kernel's own source the same, a changed text is a new size.
    StageRun& said = stages_->extra_runs.back();
    if (!said.reused && said.reason == "source changed" && stages_->compile_run && stages_->compile_run->reused)
        said.reason = "output sizes changed (the counting variant holds them)";
    if (!counted_compile.ok || counted_compile.module == 0) {
        const std::string why = compile_failure_text(counted_compile);
        return not_measured(maps, "the counting variant of the kernel does not compile (an output is used other "
                                  "than by indexing, e.g. cast or passed on as a plain pointer): " + why);
    }

    // Two zeroed uint32 arrays per output: the writer counts and each element's last writer.
    std::vector<BufferId> counters;
    const auto release_counters = [&] {
        if (!counters.empty()) engine_.release({counters, {}});
        counters.clear();
    };
    for (const CountedBuffer& c : counted)
        for (int which = 0; which < 2; ++which) {
            AllocateResult a = engine_.allocate({count_param_name(c.param, which), std::max<uint64_t>(1, c.units) * 4, 4});
            if (a.error) {
                release_counters();
                return not_measured(maps, "could not allocate the write counters: " + a.error->message);
            }
            counters.push_back(a.buffer);
            UploadResult u = engine_.upload({a.buffer, std::vector<std::byte>(4, std::byte(0)), true});
            if (u.error) {
                release_counters();
                return not_measured(maps, "could not clear the write counters: " + u.error->message);
            }
        }
    if (auto prepared = prepare_buffers(resolved); !prepared) {
        release_counters();
        return not_measured(maps, prepared.error().message);
    }
    auto launch = launch_request(resolved, counted_compile.module, TimingOptions{0, 1, false});
    if (!launch) {
        release_counters();
        return not_measured(maps, launch.error().message);
    }
    for (size_t i = 0; i < counters.size(); ++i) {
        KernelArg arg;
        arg.name = count_param_name(counted[i / 2].param, int(i % 2));
        arg.buffer = counters[i];
        launch->args.push_back(std::move(arg));
    }
    const LaunchOutcome launched = launch_kernel(std::move(*launch), {LaunchPurpose::CountWriters});
    if (const std::optional<LaunchFailure>& err = launched.failure) {
        if (err->context_was_reset) counters.clear();  // gone with the context (launch_kernel forgot the rest)
        release_counters();
        return not_measured(maps, "the counting launch failed: " + err->message);
    }
    for (size_t k = 0; k < counted.size(); ++k) {
        auto map = std::find_if(maps.begin(), maps.end(), [&](const CoverageMap& m) { return m.buffer == counted[k].param; });
        if (map == maps.end()) continue;
        ReadBackResult rb = engine_.read_back({counters[2 * k]});
        if (rb.error) {
            map->writers_not_measured = "could not read the write counters back: " + rb.error->message;
            continue;
        }
        map->writers.assign(map->elements, 0);
        std::memcpy(map->writers.data(), rb.data.data(), std::min<size_t>(rb.data.size(), map->writers.size() * 4));
        map->writers_counted = true;
        map->counting_launch_ms = launched.timing.median_ms;
        map->written_more_than_once = 0;
        map->max_writers = 0;
        for (uint32_t w : map->writers) {
            map->written_more_than_once += w > 1;
            map->max_writers = std::max(map->max_writers, w);
        }
    }
    release_counters();
}

}  // namespace cp
