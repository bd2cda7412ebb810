// plan_chunks: one run cut into parts along a size parameter, each part with its byte ranges and its own grid
// (the file's `grid:` expression evaluated with the part's length, as session_resolve.cpp evaluates it).
#include "core/session/chunk_plan.h"

#include "core/kernel_file/expr.h"
#include "core/session/run_choices.h"

#include <cmath>

namespace cp {
namespace {

// The scope the file's expressions see for one part: parameters, image sizes and the block.
Scope part_scope(const ResolvedRun& run, const std::string& param, uint64_t length) {
    Scope scope(run.params.begin(), run.params.end());
    for (const auto& [name, image] : run.images) {
        if (!image.image) continue;
        scope[name + ".width"] = image.image->width;
        scope[name + ".height"] = image.image->height;
    }
    scope[param] = double(length);
    scope["block.x"] = run.block.x;
    scope["block.y"] = run.block.y;
    scope["block.z"] = run.block.z;
    return scope;
}

Result<Dim3> part_grid(const LaunchSpec& launch, const Scope& scope, const std::string& param, uint64_t length) {
    static const char* axis[3] = {"x", "y", "z"};
    Dim3 grid;
    uint32_t* dst[3] = {&grid.x, &grid.y, &grid.z};
    for (int i = 0; i < 3; ++i) {
        auto v = eval_expr(launch.grid_expr[i], scope);
        const std::string where = "grid." + std::string(axis[i]) + " = `" + launch.grid_expr[i] + "` (line " +
                                  std::to_string(launch.line) + ") for a part of " + std::to_string(length) + " (" +
                                  param + " = " + std::to_string(length) + ")";
        if (!v) return make_error(v.error().kind, where + ": " + v.error().message, v.error().hint);
        if (!std::isfinite(*v) || *v < 1 || *v > 4294967295.0 || std::floor(*v) != *v)
            return make_error(ErrorKind::UserInput,
                              where + " evaluates to " + format_number(*v) + ", which is not a positive whole number",
                              "write the grid from the size parameter, e.g. `grid: div_up(" + param + ", block.x)`");
        *dst[i] = uint32_t(*v);
    }
    return grid;
}

}  // namespace

Result<ChunkPlan> plan_chunks(const ResolvedRun& run, const std::vector<BufferSpec>& buffers, const LaunchSpec& launch,
                              const std::string& param, int parts) {
    auto p = run.params.find(param);
    if (p == run.params.end())
        return make_error(ErrorKind::UserInput,
                          "cannot split over `" + param + "`: the file has no parameter of that name",
                          "name the parameter that holds the number of elements, e.g. `over n`");
    const double value = p->second;
    if (!std::isfinite(value) || value < 1 || value > 1e15 || std::floor(value) != value)
        return make_error(ErrorKind::UserInput,
                          "cannot split over `" + param + "` = " + format_number(value) +
                              ": it must be a positive whole number of elements",
                          "split over the parameter that counts the elements");
    const uint64_t n = uint64_t(value);
    if (parts < 1)
        return make_error(ErrorKind::UserInput, "cannot split into " + std::to_string(parts) + " parts",
                          "use at least 1 part");
    if (uint64_t(parts) > n)
        return make_error(ErrorKind::UserInput,
                          "cannot split " + param + " = " + std::to_string(n) + " elements into " +
                              std::to_string(parts) + " parts: some parts would be empty",
                          "use at most " + std::to_string(n) + " parts, or a larger " + param);

    bool any_split = false;
    for (const BufferSpec& b : buffers) {
        auto c = run.buffer_counts.find(b.name);
        if (c == run.buffer_counts.end())
            return make_error(ErrorKind::Internal, "buffer `" + b.name + "` has no resolved size",
                              "resolve the run before splitting it");
        any_split = any_split || c->second == n;
    }
    if (!any_split)
        return make_error(
            ErrorKind::UserInput,
            "no buffer has " + param + " = " + std::to_string(n) + " elements, so there is nothing to split",
            "split over the parameter that sizes the buffers (e.g. `buffer x: float[n]` and `over n`)");
    for (const BufferSpec& b : buffers) {
        const uint64_t count = run.buffer_counts.at(b.name);
        if (count != n && b.direction != Direction::In)
            return make_error(ErrorKind::UserInput,
                              "buffer `" + b.name + "` (line " + std::to_string(b.line) + ") is `" +
                                  direction_name(b.direction) + "` with " + std::to_string(count) + " elements, not " +
                                  param + " = " + std::to_string(n) +
                                  ", so every part would write all of it at once (a race)",
                              "only `in` buffers may have another size than `" + param + "`; size `" + b.name +
                                  "` by " + param + ", or run the kernel without splitting it");
    }

    ChunkPlan plan;
    plan.param = param;
    plan.total = n;
    for (int i = 0; i < parts; ++i) {
        ChunkPart part;
        part.index = i;
        // Both products fit: n <= 1e15 and parts <= n, but n * parts may not; divide in 128 bits.
        part.begin = uint64_t(static_cast<unsigned __int128>(n) * uint64_t(i) / uint64_t(parts));
        part.end = uint64_t(static_cast<unsigned __int128>(n) * uint64_t(i + 1) / uint64_t(parts));
        const Scope scope = part_scope(run, param, part.length());
        part.params = run.params;
        part.params[param] = double(part.length());
        auto grid = part_grid(launch, scope, param, part.length());
        if (!grid) return grid.error();
        part.grid = *grid;
        for (const BufferSpec& b : buffers) {
            const uint64_t count = run.buffer_counts.at(b.name);
            const uint64_t elem = elem_info(b.type).size;
            ChunkBuffer cb;
            cb.name = b.name;
            cb.direction = b.direction;
            if (count == n) {
                cb.byte_offset = part.begin * elem;
                cb.bytes = part.length() * elem;
            } else {
                cb.whole = true;
                cb.bytes = count * elem;
            }
            part.buffers.push_back(std::move(cb));
        }
        plan.parts.push_back(std::move(part));
    }
    return plan;
}

}  // namespace cp
