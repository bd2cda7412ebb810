// Checking a launch configuration against the device's limits before launching. Each refusal names the
// limit, the value and a configuration that would work (same problem covered, matching grid).
#include "core/engine/launch_validation.h"

#include "core/text_util.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>

namespace cp {

namespace {

uint32_t& dim(Dim3& d, int i) { return i == 0 ? d.x : i == 1 ? d.y : d.z; }
uint32_t dim(const Dim3& d, int i) { return i == 0 ? d.x : i == 1 ? d.y : d.z; }
const char* axis_name(int i) { return i == 0 ? "x" : i == 1 ? "y" : "z"; }
uint64_t div_up(uint64_t a, uint64_t b) { return (a + b - 1) / b; }

std::string device_word(const DeviceInfo& device) {
    return device.caps.gpu ? "this GPU" : "this device";
}

// The extent the launch is meant to cover in dimension i: the problem when known (a dimension the problem
// does not have is 1), else what the launch covers now.
uint64_t coverage(const LaunchCheck& c, int i) {
    if (!c.problem.empty()) return i < static_cast<int>(c.problem.size()) && c.problem[i] > 0 ? c.problem[i] : 1;
    return uint64_t(dim(c.grid, i)) * dim(c.block, i);
}

// A conventional block (256, 16x16, 8x8x4) with the problem's dimensionality (the block's when the problem
// is unknown) that fits `max_threads` and the per-dimension limits.
Dim3 suggest_block(const LaunchCheck& c, const DeviceInfo& device, uint64_t max_threads) {
    bool uses[3] = {c.block.x > 1 || coverage(c, 0) > 1, c.block.y > 1, c.block.z > 1};
    if (!c.problem.empty()) {
        for (int i = 0; i < 3; ++i) uses[i] = i == 0 || coverage(c, i) > 1;
    }
    const int active = int(uses[0]) + int(uses[1]) + int(uses[2]);
    Dim3 b{1, 1, 1};
    const uint32_t sizes_1d[1] = {256}, sizes_2d[2] = {16, 16}, sizes_3d[3] = {8, 8, 4};
    const uint32_t* sizes = active <= 1 ? sizes_1d : active == 2 ? sizes_2d : sizes_3d;
    int next = 0;
    for (int i = 0; i < 3; ++i) {
        if (!uses[i] && !(active == 0 && i == 0)) continue;
        dim(b, i) = std::min(sizes[next++], dim(device.max_block, i));
    }
    // Halve the largest dimension until the block fits.
    while (b.count() > max_threads && b.count() > 1) {
        int largest = 0;
        for (int i = 1; i < 3; ++i)
            if (dim(b, i) > dim(b, largest)) largest = i;
        dim(b, largest) = std::max(1u, dim(b, largest) / 2);
    }
    return b;
}

Dim3 grid_for(const LaunchCheck& c, const Dim3& block) {
    Dim3 g;
    for (int i = 0; i < 3; ++i) dim(g, i) = static_cast<uint32_t>(std::max<uint64_t>(1, div_up(coverage(c, i), dim(block, i))));
    return g;
}

std::string try_text(const LaunchCheck& c, const Dim3& block) {
    return "Try " + block.str() + " and grid " + grid_for(c, block).str() + ".";
}

LaunchIssue refuse(LaunchSetting setting, std::string limit, std::string message, uint64_t value = 0,
                   uint64_t maximum = 0, std::optional<Dim3> try_block = std::nullopt,
                   std::optional<Dim3> try_grid = std::nullopt) {
    return LaunchIssue{Severity::Error, std::move(limit), std::move(message), value, maximum, try_block, try_grid,
                       setting};
}

void check_block(const DeviceInfo& device, const LaunchCheck& c, std::vector<LaunchIssue>& issues) {
    const uint64_t threads = c.block.count();
    const bool kernel_limited = c.usage.max_threads_per_block > 0 && c.usage.max_threads_per_block < device.max_threads_per_block;
    const uint64_t limit = kernel_limited ? c.usage.max_threads_per_block : device.max_threads_per_block;
    if (threads > limit) {
        const std::string who = kernel_limited ? "this kernel allows" : device_word(device) + " allows";
        const Dim3 fixed = suggest_block(c, device, limit);
        issues.push_back(refuse(LaunchSetting::Block, kernel_limited ? "max threads per block of this kernel" : "max threads per block",
                                "block " + c.block.str() + " has " + count_text(threads, "thread") + "; " + who +
                                    " at most " + std::to_string(limit) + " per block" +
                                    (kernel_limited ? " (set by its __launch_bounds__ or register use)" : "") + ". " +
                                    try_text(c, fixed),
                                threads, limit, fixed, grid_for(c, fixed)));
        return;  // the per-dimension limits would only repeat this
    }
    for (int i = 0; i < 3; ++i) {
        const uint32_t max = dim(device.max_block, i);
        if (dim(c.block, i) <= max) continue;
        // Shrink the dimension the launch needs (the problem extends along it); otherwise the block's shape
        // is the mistake (1x1x65 on a 1D problem) and the conventional block for the problem is the fix.
        Dim3 fixed = c.block;
        dim(fixed, i) = max;
        if (coverage(c, i) <= 1) fixed = suggest_block(c, device, device.max_threads_per_block);
        issues.push_back(refuse(LaunchSetting::Block, std::string("max block size in ") + axis_name(i),
                                "block " + c.block.str() + " is " + count_text(dim(c.block, i), "thread") + " in " +
                                    axis_name(i) + "; " + device_word(device) + " allows at most " + std::to_string(max) +
                                    " in " + axis_name(i) + ". " + try_text(c, fixed),
                                dim(c.block, i), max, fixed, grid_for(c, fixed)));
    }
}

void check_grid(const DeviceInfo& device, const LaunchCheck& c, std::vector<LaunchIssue>& issues) {
    for (int i = 0; i < 3; ++i) {
        const uint32_t max = dim(device.max_grid, i);
        if (dim(c.grid, i) <= max) continue;
        std::string fix = i == 0 ? "Use larger blocks, or let each thread handle several elements (a grid-stride loop)."
                                 : "Put the long dimension in x (up to " + std::to_string(device.max_grid.x) +
                                       " blocks), use larger blocks in " + axis_name(i) +
                                       ", or loop inside the kernel (a grid-stride loop).";
        issues.push_back(refuse(LaunchSetting::Grid, std::string("max grid size in ") + axis_name(i),
                                "grid " + c.grid.str() + " has " + std::to_string(dim(c.grid, i)) + " blocks in " +
                                    axis_name(i) + "; " + device_word(device) + " allows at most " + std::to_string(max) +
                                    " in " + axis_name(i) + ". " + fix,
                                dim(c.grid, i), max));
    }
}

void check_shared(const DeviceInfo& device, const LaunchCheck& c, std::vector<LaunchIssue>& issues) {
    const uint64_t static_bytes = std::max(0, c.usage.static_shared_bytes);
    const uint64_t total = static_bytes + c.dynamic_shared_bytes;
    const uint64_t limit = static_cast<uint64_t>(std::max(0, device.max_shared_per_block));
    if (total <= limit) return;
    const uint64_t optin = static_cast<uint64_t>(std::max(0, device.max_shared_per_block_optin));
    std::string message = "the kernel needs " + std::to_string(total) + " bytes of shared memory per block (" +
                          std::to_string(static_bytes) + " static + " + std::to_string(c.dynamic_shared_bytes) +
                          " dynamic); " + device_word(device) + " allows at most " + std::to_string(limit) + " per block";
    if (optin > limit && total <= optin) {
        message += " by default (up to " + std::to_string(optin) + " with opt-in, cuFuncSetAttribute("
                   "CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES), which applies to dynamic shared memory)";
    } else if (optin > limit) {
        message += ", and at most " + std::to_string(optin) + " even with opt-in";
    }
    message += ". Use smaller tiles or fewer threads per block so each block needs less shared memory.";
    issues.push_back(refuse(LaunchSetting::SharedMemory, "max shared memory per block", message, total, limit));
}

void check_registers(const DeviceInfo& device, const LaunchCheck& c, std::vector<LaunchIssue>& issues) {
    if (c.usage.registers <= 0 || device.regs_per_block <= 0) return;
    const uint64_t warp = std::max(1, device.warp_size);
    const uint64_t threads = div_up(c.block.count(), warp) * warp;  // registers are allocated per whole warp
    const uint64_t needed = threads * static_cast<uint64_t>(c.usage.registers);
    if (needed <= static_cast<uint64_t>(device.regs_per_block)) return;
    const uint64_t max_threads = std::max<uint64_t>(warp, device.regs_per_block / c.usage.registers / warp * warp);
    const Dim3 fixed = suggest_block(c, device, max_threads);
    issues.push_back(refuse(LaunchSetting::Block, "registers per block",
                            "the kernel uses " + std::to_string(c.usage.registers) + " registers per thread, so a block of " +
                                count_text(c.block.count(), "thread") + " needs " + std::to_string(needed) +
                                " registers; " + device_word(device) + " has " + std::to_string(device.regs_per_block) +
                                " per block. Use at most " + std::to_string(max_threads) + " threads per block (" +
                                try_text(c, fixed) + "), or cap registers with __launch_bounds__(" +
                                std::to_string(c.block.count()) + ").",
                            needed, uint64_t(device.regs_per_block), fixed, grid_for(c, fixed)));
}

// A guess from `problem:` (one thread per element); a run that measures coverage replaces it with what
// happened. Never suggests a grid the device refuses: past a grid limit it suggests a taller block or a
// grid-stride loop.
void warn_coverage(const DeviceInfo& device, const LaunchCheck& c, std::vector<LaunchIssue>& issues) {
    const bool one_d = c.block.y == 1 && c.block.z == 1 && c.grid.y == 1 && c.grid.z == 1 && c.problem.size() <= 1;
    auto grid_for = [&](const Dim3& block) {
        Dim3 g = c.grid;
        for (size_t i = 0; i < c.problem.size() && i < 3; ++i) {
            const int d = static_cast<int>(i);
            dim(g, d) = static_cast<uint32_t>(std::min<uint64_t>(
                0xFFFFFFFFull, std::max<uint64_t>(dim(c.grid, d), div_up(c.problem[i], dim(block, d)))));
        }
        return g;
    };
    auto fits = [&](const Dim3& g) {
        for (int d = 0; d < 3; ++d)
            if (dim(g, d) > dim(device.max_grid, d)) return false;
        return true;
    };
    const Dim3 full_grid = grid_for(c.block);
    // Past a grid limit: grow the block along that axis (taking threads from x when the block is full).
    Dim3 block = c.block;
    for (int d = 0; d < 3 && !fits(grid_for(block)); ++d) {
        if (d >= static_cast<int>(c.problem.size()) || dim(grid_for(block), d) <= dim(device.max_grid, d)) continue;
        const uint64_t factor = div_up(dim(grid_for(block), d), dim(device.max_grid, d));
        uint64_t p2 = 1;
        while (p2 < factor) p2 *= 2;
        dim(block, d) = static_cast<uint32_t>(dim(block, d) * p2);
        if (d > 0 && block.count() > static_cast<uint64_t>(device.max_threads_per_block) && block.x % p2 == 0)
            block.x = static_cast<uint32_t>(block.x / p2);
    }
    const bool block_ok = block.count() <= static_cast<uint64_t>(device.max_threads_per_block) &&
                          block.x <= device.max_block.x && block.y <= device.max_block.y && block.z <= device.max_block.z;
    for (size_t i = 0; i < c.problem.size() && i < 3; ++i) {
        const int d = static_cast<int>(i);
        const uint64_t covered = uint64_t(dim(c.grid, d)) * dim(c.block, d);
        if (covered >= c.problem[i]) continue;
        const std::string blocks = one_d ? std::to_string(c.block.x) + "-thread blocks" : c.block.str() + " blocks";
        LaunchIssue issue{Severity::Warning, kCoverageLimit, "", covered, c.problem[i], std::nullopt, std::nullopt,
                          LaunchSetting::Grid};
        std::string message = "grid " + c.grid.str() + " of " + blocks + " covers " + std::to_string(covered) + " of " +
                              std::to_string(c.problem[i]) + " elements in " + axis_name(d) +
                              " if each thread handles one element; ";
        if (fits(full_grid)) {
            const std::string formula = "ceil(" + std::to_string(c.problem[i]) + "/" + std::to_string(dim(c.block, d)) +
                                        ") = " + std::to_string(div_up(c.problem[i], dim(c.block, d)));
            message += "use ";
            message += one_d ? "grid " + formula : formula + " blocks in " + axis_name(d) + " (grid " + full_grid.str() + ")";
            issue.try_block = c.block;
            issue.try_grid = full_grid;
        } else if (block_ok && fits(grid_for(block)) && !(block == c.block)) {
            message += "one block per element would need grid " + full_grid.str() + ", past this device's grid limit " +
                       device.max_grid.str() + "; use block " + block.str() + " with grid " + grid_for(block).str() +
                       ", or a grid-stride loop";
            issue.try_block = block;
            issue.try_grid = grid_for(block);
        } else {
            message += "one block per element would need grid " + full_grid.str() + ", past this device's grid limit " +
                       device.max_grid.str() + "; let each thread handle several elements (a grid-stride loop)";
        }
        issue.message = std::move(message);
        issues.push_back(std::move(issue));
    }
}

void warn_warp_multiple(const DeviceInfo& device, const LaunchCheck& c, std::vector<LaunchIssue>& issues) {
    const uint64_t warp = std::max(1, device.warp_size);
    const uint64_t threads = c.block.count();
    if (threads % warp == 0) return;
    const uint64_t idle = warp - threads % warp;
    Dim3 better = c.block;
    if (c.block.y == 1 && c.block.z == 1) better.x = static_cast<uint32_t>(div_up(threads, warp) * warp);
    else better = suggest_block(c, device, device.max_threads_per_block);
    if (better.count() > static_cast<uint64_t>(device.max_threads_per_block)) better = suggest_block(c, device, device.max_threads_per_block);
    issues.push_back(LaunchIssue{Severity::Warning, "warp size",
                                 "block " + c.block.str() + " has " + count_text(threads, "thread") +
                                     ", not a multiple of the warp size (" + std::to_string(warp) +
                                     "): the last warp of every block runs with " + std::to_string(idle) + " of " +
                                     std::to_string(warp) + " lanes idle. " + try_text(c, better),
                                 threads, warp, better, grid_for(c, better)});
}

}  // namespace

std::vector<LaunchIssue> validate_launch(const DeviceInfo& device, const LaunchCheck& check) {
    std::vector<LaunchIssue> issues;
    bool zero = false;
    for (const auto& [setting, d] :
         {std::pair<LaunchSetting, Dim3>{LaunchSetting::Block, check.block}, {LaunchSetting::Grid, check.grid}}) {
        if (d.x && d.y && d.z) continue;
        zero = true;
        const char* what = launch_setting_name(setting);
        issues.push_back(refuse(setting, std::string("zero ") + what + " size",
                                std::string(what) + " " + d.str() + " has a zero dimension; every dimension must be at "
                                "least 1 (use 1 for the dimensions you do not need)."));
    }
    if (zero) return issues;  // the other checks divide by these
    check_block(device, check, issues);
    check_grid(device, check, issues);
    check_shared(device, check, issues);
    check_registers(device, check, issues);
    // A refused launch gets only its refusals: a warning would suggest another change next to the one that
    // is needed (a warp-size hint of 256x1x1 beside "at most 64 in z").
    if (!issues.empty()) return issues;
    warn_coverage(device, check, issues);
    warn_warp_multiple(device, check, issues);
    return issues;
}

LaunchFigures launch_figures(const DeviceInfo& device, const LaunchCheck& check) {
    LaunchFigures f;
    f.blocks = check.grid.count();
    f.total_threads = f.blocks * check.block.count();
    const uint64_t warp = std::max(1, device.warp_size);
    f.warps_per_block = static_cast<uint32_t>(div_up(check.block.count(), warp));
    if (!check.problem.empty()) {
        uint64_t inside = 1;
        for (int i = 0; i < 3; ++i) {
            const uint64_t launched = uint64_t(dim(check.grid, i)) * dim(check.block, i);
            const uint64_t extent = i < static_cast<int>(check.problem.size()) ? check.problem[i] : 1;
            inside *= std::min(launched, extent);
        }
        f.threads_beyond_problem = f.total_threads - inside;
    }
    return f;
}

Result<Dim3> parse_dim3(const std::string& text) {
    auto fail = [&](const std::string& why) -> Result<Dim3> {
        return make_error(ErrorKind::UserInput, "`" + text + "` is not a size: " + why,
                          "write 1 to 3 whole numbers separated by x, e.g. 256, 16x16 or 8x8x4");
    };
    // `16*16` reads as a product (256 threads in one dimension) as much as a shape (16x16): say so rather than
    // guess.
    if (text.find('*') != std::string::npos)
        return fail("`*` could mean a product (16*16: 256 threads along x) or a shape (a 16x16 block); write the "
                    "shape with x or the product as one number");
    std::vector<std::string> parts(1);
    for (char ch : text) {
        if (ch == 'x' || ch == 'X' || ch == ',') parts.emplace_back();
        else if (!std::isspace(static_cast<unsigned char>(ch))) parts.back() += ch;
    }
    if (parts.size() > 3) return fail("it has more than 3 dimensions");
    Dim3 d;
    for (size_t i = 0; i < parts.size(); ++i) {
        const std::string& p = parts[i];
        if (p.empty()) return fail("a dimension is missing");
        if (!std::all_of(p.begin(), p.end(), [](char ch) { return std::isdigit(static_cast<unsigned char>(ch)); }))
            return fail("`" + p + "` is not a whole number");
        if (p.size() > 10 || std::strtoull(p.c_str(), nullptr, 10) > 0xFFFFFFFFull) return fail("`" + p + "` is too large");
        const auto v = static_cast<uint32_t>(std::strtoull(p.c_str(), nullptr, 10));
        if (v == 0) return fail("dimensions must be at least 1");
        dim(d, static_cast<int>(i)) = v;
    }
    return d;
}

}  // namespace cp
