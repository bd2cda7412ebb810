// Output views: deciding the views of a kernel, filling their textures from a run (device copy when the
// engine is on CUDA, host upload otherwise) and keeping their display textures current.
#include "ui/state/output_views.h"

#include "core/kernel_file/kernel_file.h"
#include "render/host_colours.h"
#include "ui/state/console_log.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace cp::ui {

namespace fs = std::filesystem;

double element_value(const HostBuffer& b, size_t i, int c) {
    const ElemTypeInfo& info = elem_info(b.type);
    if (c < 0 || uint32_t(c) >= info.components || (i + 1) * info.size > b.bytes.size()) return 0;
    const std::byte* p = b.bytes.data() + i * info.size + size_t(c) * info.component_size;
    auto read = [p](auto tag) {
        decltype(tag) v;
        std::memcpy(&v, p, sizeof v);
        return double(v);
    };
    switch (b.type) {
        case ElemType::Char: return read(int8_t{});
        case ElemType::UChar: case ElemType::UChar2: case ElemType::UChar3: case ElemType::UChar4: return read(uint8_t{});
        case ElemType::Short: return read(int16_t{});
        case ElemType::UShort: return read(uint16_t{});
        case ElemType::Int: case ElemType::Int2: case ElemType::Int3: case ElemType::Int4: return read(int32_t{});
        case ElemType::UInt: case ElemType::UInt2: case ElemType::UInt3: case ElemType::UInt4: return read(uint32_t{});
        case ElemType::LongLong: return read(int64_t{});
        case ElemType::ULongLong: return read(uint64_t{});
        case ElemType::Float: case ElemType::Float2: case ElemType::Float3: case ElemType::Float4: return read(float{});
        case ElemType::Double: return read(double{});
    }
    return 0;
}

bool OutputViews::needs_host_data(const KernelFile& file) const {
    if (copier_ && render::interop_distrusted()) return true;
    for (const ViewSpec& v : shown_views(file.spec)) {
        if (v.kind != ViewSpec::Kind::Image || !copier_) return true;
        const BufferSpec* b = file.buffer(v.buffer);
        if (b && render::texel_format(b->type).host_conversion) return true;
    }
    return false;
}

void OutputViews::clear() {
    views_.clear();
    input_ = InputImage();
    kernel_path_.clear();
}

void OutputViews::refresh_display(OutputView& v, const std::byte* host) {
    if (!v.raw || v.run == 0) return;
    v.display_problem.clear();
    const render::DisplaySettings& d = v.state.display;
    if (render::display_pass_distrusted()) {
        // Coloured here from the values (or the texture read back whole), uploaded as the font atlas is.
        const int w = v.raw->width(), h = v.raw->height();
        if (host) {
            if (d.auto_range) v.range = render::host_value_range(v.type, host, size_t(w) * size_t(h), d.channel);
            render::upload_shaded(render::shade_on_host(v.type, host, w, h, d, v.range), w, h, v.display);
        } else {
            render::HostShaded shaded = render::shade_texture_on_host(*v.raw, d);
            if (d.auto_range) v.range = shaded.range;
            render::upload_shaded(shaded.pixels, w, h, v.display);
        }
        v.shading = OutputView::Shading::Host;
    } else {
        if (d.auto_range) v.range = colormap_->value_range(*v.raw, d.channel);
        colormap_->render(*v.raw, d, v.range, v.display);
        v.shading = OutputView::Shading::Gpu;
    }
    start_probe(v, host);
}

// ---- the screen checked ---------------------------------------------------------------------------------

namespace {

constexpr int kProbePoints = 16;          // texels of one row
constexpr int kProbesPerSecond = 4;       // per view, once its first check passed
constexpr int kShadeTolerance = 3;        // levels per channel: the table's interpolation, float rounding
constexpr double kProbeTimeoutS = 2.0;    // a GPU that has not done a few small reads by then does no work

// Whether the texture's texel holds the buffer's element (the components the type has).
bool same_texel(const std::array<double, 4>& got, const std::array<double, 4>& want, int components) {
    for (int c = 0; c < components && c < 4; ++c) {
        const double a = got[size_t(c)], b = want[size_t(c)];
        if (std::isnan(a) && std::isnan(b)) continue;
        if (std::abs(a - b) > 1e-5 * std::max(1.0, std::abs(b))) return false;
    }
    return true;
}

}  // namespace

void OutputViews::start_probe(OutputView& v, const std::byte* host) {
    if (!v.raw || !v.display) return;
    const auto now = std::chrono::steady_clock::now();
    // One in flight at a time, and after the first check at most kProbesPerSecond: a live picture that changes
    // every frame is looked at a few times a second, and the last picture of a burst is still checked (owed).
    const bool busy = v.probe && v.probe->age_s() < kProbeTimeoutS;
    const bool too_soon = v.checks_passed > 0 && now - v.probed_at < v.probe_interval;
    if (busy || too_soon) {
        v.probe_owed = true;
        return;
    }
    v.probe_owed = false;
    v.probed_at = now;
    std::vector<render::ProbePoint> points =
        render::probe_points(v.raw->width(), v.raw->height(), kProbePoints, ++probes_started_);
    v.probe_values.clear();
    if (host)
        for (const render::ProbePoint& q : points)
            v.probe_values.push_back(
                render::element_texel(v.type, host, size_t(q.y) * size_t(v.raw->width()) + size_t(q.x)));
    v.probe_settings = v.state.display;
    v.probe_limits = render::display_limits(v.state.display, v.range);
    v.probe = std::make_unique<render::DisplayProbe>(*v.raw, v.display, std::move(points));
    // Issuing the reads costs 0.01-0.05 ms where the GPU is idle; where it stalls the frame (an H200 took 0.3 ms
    // under live re-runs of a 4K picture) the checks space out, up to one every 2 s, so that they never cost the
    // picture its frame rate.
    const double issue_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - now).count();
    const auto base = std::chrono::milliseconds(1000 / kProbesPerSecond);
    v.probe_interval = issue_ms > 0.1 ? std::min<std::chrono::steady_clock::duration>(v.probe_interval * 2, std::chrono::seconds(2))
                                      : std::chrono::steady_clock::duration(base);
    if (v.probe_interval < base) v.probe_interval = base;
}

void OutputViews::check_displays(ConsoleLog& log) {
    for (OutputView& v : views_) {
        if (!v.probe && v.probe_owed) start_probe(v, nullptr);  // its time has come (or it stays owed)
        if (!v.probe) continue;
        std::optional<render::ProbeSamples> samples = v.probe->poll();
        if (!samples) {
            if (v.probe->age_s() < kProbeTimeoutS) continue;  // on its way (probing() asks for another frame)
            display_failed(v, "the GPU did not finish reading the picture back within 2 s", log);
            continue;
        }
        const std::vector<render::ProbePoint> points = v.probe->points();
        v.probe.reset();
        const render::TexelFormat& f = v.raw->format();
        std::string wrong;
        if (!v.probe_values.empty()) {
            // The texture holds the buffer's values...
            for (size_t i = 0; i < points.size() && wrong.empty(); ++i)
                if (!same_texel(samples->source[i], v.probe_values[i], f.data_components))
                    wrong = "its texture holds other values than the buffer at texel (" + std::to_string(points[i].x) +
                            "," + std::to_string(points[i].y) + ")";
        }
        const std::vector<std::array<double, 4>>& values = v.probe_values.empty() ? samples->source : v.probe_values;
        const render::DisplaySettings& d = v.probe_settings;
        const auto [lo, hi] = v.probe_limits;
        if (wrong.empty() && d.auto_range && v.range.valid) {
            // ...its range holds every value looked at...
            const int c = std::max(0, render::shown_channel(d.channel, f));
            for (size_t i = 0; i < values.size() && wrong.empty(); ++i) {
                const double x = values[i][size_t(c)];
                if (std::isfinite(x) && (float(x) < float(lo) || float(x) > float(hi)))
                    wrong = "its value range " + std::to_string(lo) + ".." + std::to_string(hi) +
                            " does not hold the value " + std::to_string(x) + " at texel (" +
                            std::to_string(points[i].x) + "," + std::to_string(points[i].y) + ")";
            }
        }
        if (wrong.empty()) {
            // ...and each texel looked at is shown in the colour its value makes.
            std::vector<std::array<uint8_t, 4>> expected;
            for (const auto& value : values) expected.push_back(render::shade_texel(value, f, d, lo, hi));
            wrong = render::first_display_mismatch(*samples, points, values, expected, kShadeTolerance);
        }
        if (wrong.empty()) {
            ++v.checks_passed;
            v.retried_fresh = false;
            continue;
        }
        display_failed(v, wrong, log);
    }
}

bool OutputViews::probing() const {
    return std::any_of(views_.begin(), views_.end(), [](const OutputView& v) { return v.probe != nullptr; });
}

double OutputViews::next_probe_due_s() const {
    double due = 1e9;
    const auto now = std::chrono::steady_clock::now();
    for (const OutputView& v : views_)
        if (v.probe_owed && !v.probe) {
            const auto at = v.probed_at + v.probe_interval;
            due = std::min(due, std::max(0.0, std::chrono::duration<double>(at - now).count()));
        }
    return due;
}

void OutputViews::display_failed(OutputView& v, const std::string& what, ConsoleLog& log) {
    v.probe.reset();
    v.probe_owed = false;
    if (v.shading == OutputView::Shading::Host && !v.retried_fresh) {
        // Once more into a texture of its own (after a GPU fault an old texture was seen to keep refusing uploads
        // that a new one takes).
        v.retried_fresh = true;
        v.display = render::Texture();
        refresh_display(v, nullptr);
        return;
    }
    if (v.shading == OutputView::Shading::Host) {
        // The host's colours did not arrive either: say so over the picture's place, never a blank or stale one.
        v.display_problem = "The display cannot show this picture, also when it is coloured on the CPU: " + what +
                            ". The kernel's values are not affected: the verdict above stands. Restart the window; "
                            "after a kernel faulted on the GPU, see the README, \"After a kernel faults on the GPU\".";
        log.add(LogKind::Error, "display: the picture of `" + v.spec.buffer + "` cannot be shown: " + what);
        return;
    }
    if (!render::display_pass_distrusted()) {
        render::distrust_display_pass();
        log.add(LogKind::Warning, "display: the picture of `" + v.spec.buffer + "` on screen was not its values (" +
                                      what +
                                      "); from now on this window colours its pictures on the CPU and uploads them");
    }
    refresh_display(v, nullptr);  // coloured on the host from the texture read back; checked again
    shade_input();
}

void OutputViews::shade_input() {
    if (!input_.raw || !input_.pixels) return;
    render::DisplaySettings settings;
    settings.auto_range = false;
    settings.range_min = 0;
    settings.range_max = 255;
    if (render::display_pass_distrusted()) {
        const Image& image = *input_.pixels;
        render::upload_shaded(render::shade_on_host(ElemType::UChar4,
                                                    reinterpret_cast<const std::byte*>(image.pixels.data()),
                                                    image.width, image.height, settings, {}),
                              image.width, image.height, input_.display);
    } else {
        colormap_->render(*input_.raw, settings, {}, input_.display);
    }
}

// Where the buffer lives on the device, as an address usable in this process: imported through its IPC
// handle when the backend is the CUDA worker process, else the backend's own pointer (in-process backend).
std::optional<uint64_t> OutputViews::device_address_of(const std::string& buffer, const RunReport& report, std::string& why) {
    if (auto h = report.ipc_handles.find(buffer); h != report.ipc_handles.end()) {
        auto imported = copier_->import_ipc(h->second);
        if (imported) {
            auto offset = report.ipc_offsets.find(buffer);  // the buffer starts after its guard zone
            return *imported + (offset != report.ipc_offsets.end() ? offset->second : 0);
        }
        why = imported.error().message;  // e.g. a handle of this very process: fall through to the address
    }
    if (auto a = report.device_addresses.find(buffer); a != report.device_addresses.end() && a->second && !uses_ipc_)
        return a->second;
    return std::nullopt;
}

namespace {

// The run's values of `buffer` in host memory (a copy read back, or the backend's own, in place), when it has
// at least `bytes` of them.
const std::byte* host_values(const RunReport& report, const std::string& buffer, uint64_t bytes) {
    if (auto it = report.outputs.find(buffer); it != report.outputs.end())
        return it->second.bytes.size() >= bytes ? it->second.bytes.data() : nullptr;
    if (auto it = report.outputs_in_place.find(buffer); it != report.outputs_in_place.end())
        return it->second.bytes >= bytes ? it->second.data : nullptr;
    return nullptr;
}

}  // namespace

bool OutputViews::fill_image(OutputView& v, RunReport& report, uint64_t bytes, ConsoleLog& log) {
    if (v.raw->can_copy_from_device() && !render::interop_distrusted()) {
        std::string why;
        if (auto address = device_address_of(v.spec.buffer, report, why)) {
            auto copied = v.raw->copy_from_device(*address, bytes);
            // When the run read the buffer back, the texture must agree with it at sampled texels: a copy the
            // driver reported as done but that left the texture stale (seen after a fault on the GPU) must
            // never sit under "Matches the CPU reference".
            std::string where;
            auto host = report.outputs.find(v.spec.buffer);
            if (copied && host != report.outputs.end() &&
                !v.raw->matches_host(host->second.bytes.data(), host->second.bytes.size(), 64, &where)) {
                render::distrust_interop();  // every later picture of this process comes through host memory
                log.add(LogKind::Warning,
                        "CUDA-GL interop: the texture of `" + v.spec.buffer + "` disagreed with the buffer read back at " +
                            where +
                            "; from now on this window shows every output from host memory. This happens after a "
                            "kernel faulted on this GPU (the NVIDIA driver logs Xid 109, CTX SWITCH TIMEOUT) until "
                            "the GPU is reset: see the README, \"After a kernel faults on the GPU\"");
            } else if (copied) {
                v.path = "device copy (CUDA-GL interop)";
                return true;
            } else {
                why = copied.error().full();
            }
        }
        if (!why.empty() && !reported_interop_failure_) {
            log.add(LogKind::Warning, "CUDA-GL interop: " + why + " (showing outputs through host memory)");
            reported_interop_failure_ = true;
        }
    }
    if (auto it = report.outputs.find(v.spec.buffer); it != report.outputs.end()) {
        auto uploaded = v.raw->upload_from_host(it->second.bytes.data(), it->second.bytes.size());
        if (uploaded) {
            v.path = "host upload";
            return true;
        }
        v.problem = uploaded.error().full();
        return false;
    }
    // Where the backend keeps it (RunOptions::read_back_in_place): read before the session runs again.
    if (auto it = report.outputs_in_place.find(v.spec.buffer); it != report.outputs_in_place.end()) {
        auto uploaded = v.raw->upload_from_host(it->second.data, it->second.bytes);
        if (uploaded) {
            v.path = "host upload (in place)";
            return true;
        }
        v.problem = uploaded.error().full();
        return false;
    }
    v.problem = "the run did not return buffer '" + v.spec.buffer + "'";
    return false;
}

void OutputViews::update(const KernelFile& file, RunReport& report, uint64_t run, ConsoleLog& log) {
    const ResolvedRun& resolved = *report.resolved;
    const std::string path = file.path.string();
    if (path != kernel_path_) {
        clear();
        kernel_path_ = path;
    }
    std::vector<OutputView> next;
    for (const ResolvedView& rv : resolved.views) {
        const ViewSpec& spec = rv.spec;
        OutputView v;
        // Keep the textures and the way the user looks at a view that still exists.
        for (OutputView& old : views_)
            if (old.spec.buffer == spec.buffer && old.spec.kind == spec.kind) {
                v = std::move(old);
                break;
            }
        const bool fresh = v.run == 0 && !v.raw;
        v.spec = spec;
        v.problem = rv.problem;
        const BufferSpec* buffer = file.buffer(spec.buffer);
        if (!buffer || !v.problem.empty()) {
            if (v.problem.empty()) v.problem = "the view names buffer '" + spec.buffer + "', which the kernel does not declare";
            next.push_back(std::move(v));
            continue;
        }
        v.type = buffer->type;
        v.grid = resolved.grid;
        v.block = resolved.block;
        const uint64_t count = resolved.buffer_counts.at(spec.buffer);
        uint64_t problem = resolved.problem.empty() ? 0 : 1;
        for (uint64_t e : resolved.problem) problem *= e;
        v.element_per_thread = problem == count;
        v.problem_known = !resolved.problem.empty();
        if (fresh) {
            v.state.display.colormap = render::colormap_from_name(spec.colormap);
            const bool bytes = elem_info(buffer->type).component_size == 1 && !elem_info(buffer->type).is_float;
            if (spec.range_min && spec.range_max) {
                v.state.display.auto_range = false;
                v.state.display.range_min = *spec.range_min;
                v.state.display.range_max = *spec.range_max;
            } else if (bytes) {  // 8-bit pixels: show them as they are
                v.state.display.auto_range = false;
                v.state.display.range_min = 0;
                v.state.display.range_max = 255;
            }
        }
        // Plots and tables draw from host memory (moved out of the report: series can be large); images only
        // from their textures. (The format allows one view per buffer, so the moved-from buffer is not needed again.)
        auto out_it = report.outputs.find(spec.buffer);
        if (!v.is_image() && out_it != report.outputs.end()) v.host = std::move(out_it->second);
        else v.host.reset();

        v.exact.reset();  // a new run: the values fetched for the last one are not this one's
        v.exact_problem.clear();
        v.exact_wanted = false;
        v.preview_width = v.preview_height = 0;
        if (v.is_image()) {
            // A preview (a remote link's live run) fills a texture of its own size, drawn over the full size.
            const auto preview = report.output_previews.find(spec.buffer);
            const bool previewed = preview != report.output_previews.end() && preview->second.type == buffer->type &&
                                   preview->second.full_width == rv.width && preview->second.full_height == rv.height &&
                                   preview->second.width > 0 && preview->second.height > 0;
            const int tw = previewed ? preview->second.width : rv.width;
            const int th = previewed ? preview->second.height : rv.height;
            if (!v.raw || v.raw->width() != tw || v.raw->height() != th || v.raw->type() != buffer->type)
                v.raw = std::make_unique<render::BufferTexture>(buffer->type, tw, th, copier_);
            v.width = rv.width;
            v.height = rv.height;
            if (previewed) {
                const std::vector<std::byte>& bytes = preview->second.bytes;
                if (auto uploaded = v.raw->upload_from_host(bytes.data(), bytes.size())) {
                    v.path = "preview through the remote link (box-filtered)";
                    v.preview_width = tw;
                    v.preview_height = th;
                    v.run = run;
                    refresh_display(v, bytes.size() >= v.raw->expected_bytes() ? bytes.data() : nullptr);
                } else {
                    v.problem = uploaded.error().full();
                }
            } else if (fill_image(v, report, count * elem_info(buffer->type).size, log)) {
                v.run = run;
                refresh_display(v, host_values(report, spec.buffer, v.raw->expected_bytes()));
            }
        } else if (v.host) {
            v.run = run;
            v.path = "host";
        } else {
            v.problem = "no data was read back for '" + spec.buffer + "'";
        }
        next.push_back(std::move(v));
    }
    views_ = std::move(next);
    update_input_image(file, resolved);
}

void OutputViews::update_input_image(const KernelFile& file, const ResolvedRun& resolved) {
    const BufferSpec* image_buffer = nullptr;
    for (const BufferSpec& b : file.spec.buffers)
        if (b.init.kind == BufferInit::Kind::Image && b.direction != Direction::Out) {
            image_buffer = &b;
            break;
        }
    const auto found = image_buffer ? resolved.images.find(image_buffer->name) : resolved.images.end();
    if (found == resolved.images.end()) {
        input_ = InputImage();
        return;
    }
    const ResolvedImage& image = found->second;
    if (input_.buffer == image_buffer->name && input_.path == image.path && input_.raw) return;
    input_ = InputImage();
    input_.buffer = image_buffer->name;
    input_.path = image.path;
    // The session decoded it already: upload its pixels, don't read the file again.
    input_.raw = std::make_unique<render::BufferTexture>(ElemType::UChar4, image.image->width, image.image->height, nullptr);
    input_.raw->upload_from_host(reinterpret_cast<const std::byte*>(image.image->pixels.data()), image.image->pixels.size());
    input_.pixels = image.image;
    shade_input();
}

}  // namespace cp::ui
