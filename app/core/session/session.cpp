// KernelSession: resolve parameters and launch, compile, validate, prepare buffers, launch, read back, verify.
//
// Sections: run_stage_name · construction and choices · resolve · compile · buffers · run
#include "core/session/session.h"

#include "core/data/buffer_init.h"
#include "core/kernel_file/expr.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <sstream>

namespace cp {

const char* run_stage_name(RunStage s) {
    switch (s) {
        case RunStage::None: return "none";
        case RunStage::Metadata: return "metadata";
        case RunStage::Resolve: return "resolve";
        case RunStage::Compile: return "compile";
        case RunStage::Validate: return "validate";
        case RunStage::Prepare: return "prepare";
        case RunStage::Launch: return "launch";
        case RunStage::Verify: return "verify";
    }
    return "?";
}

namespace {

std::string format_number(double v) {
    std::ostringstream s;
    s.precision(15);  // 67108864, not 6.71089e+07
    s << v;
    return s.str();
}

// Bytes of a scalar kernel argument as the signature declares it.
Result<std::vector<std::byte>> scalar_bytes(const std::string& base_type, double value) {
    auto pack = [](auto v) {
        std::vector<std::byte> b(sizeof(v));
        std::memcpy(b.data(), &v, sizeof(v));
        return b;
    };
    const std::string& t = base_type;
    if (t == "int" || t == "int32_t" || t == "signed" || t == "signed int") return pack(int32_t(std::llround(value)));
    if (t == "unsigned" || t == "unsigned int" || t == "uint" || t == "uint32_t")
        return pack(uint32_t(std::llround(value)));
    if (t == "float") return pack(float(value));
    if (t == "double") return pack(value);
    if (t == "long long" || t == "int64_t" || t == "long" || t == "ptrdiff_t") return pack(int64_t(std::llround(value)));
    if (t == "unsigned long long" || t == "uint64_t" || t == "size_t" || t == "unsigned long")
        return pack(uint64_t(std::llround(value)));
    if (t == "bool") return pack(bool(value != 0));
    if (t == "char" || t == "signed char") return pack(int8_t(std::llround(value)));
    if (t == "unsigned char" || t == "uchar" || t == "uint8_t") return pack(uint8_t(std::llround(value)));
    if (t == "short" || t == "int16_t") return pack(int16_t(std::llround(value)));
    if (t == "unsigned short" || t == "ushort" || t == "uint16_t") return pack(uint16_t(std::llround(value)));
    return make_error("kernel parameter type `" + t + "` cannot be set from the playground",
                      "use int, unsigned int, float, double, long long or size_t for scalar parameters");
}

bool is_image_buffer(const BufferSpec* b) { return b && b->init.kind == BufferInit::Kind::Image; }

// Positive whole number from an expression value, or an error naming what it was for.
Result<uint64_t> whole_positive(double v, const std::string& what, const std::string& expr, bool allow_zero = false) {
    if (!std::isfinite(v) || v < (allow_zero ? 0 : 1) || v > 1e15 || std::floor(v) != v) {
        return make_error(what + " = `" + expr + "` evaluates to " + format_number(v) + ", which is not a " +
                              (allow_zero ? "non-negative" : "positive") + " whole number",
                          "check the expression and the parameter values it uses");
    }
    return uint64_t(v);
}

}  // namespace

// ---- construction and choices ---------------------------------------------------------------------------

KernelSession::KernelSession(Engine& engine) : engine_(engine), device_(engine.info().device) {}

KernelSession::~KernelSession() { release_buffers(); }

void KernelSession::set_kernel(KernelFile file) {
    kernel_ = std::move(file);
    std::vector<BufferId> unused;  // buffers the new kernel no longer has
    for (auto it = buffers_.begin(); it != buffers_.end();) {
        if (kernel_.buffer(it->first)) {
            ++it;
        } else {
            unused.push_back(it->second.id);
            it = buffers_.erase(it);
        }
    }
    if (!unused.empty()) engine_.release({unused, {}});
    for (auto it = host_inputs_.begin(); it != host_inputs_.end();)
        it = kernel_.buffer(it->first) ? std::next(it) : host_inputs_.erase(it);
    for (auto it = param_overrides_.begin(); it != param_overrides_.end();) {
        const ParamSpec* p = kernel_.param(it->first);
        it = (p && !p->derived) ? std::next(it) : param_overrides_.erase(it);
    }
    for (auto it = image_overrides_.begin(); it != image_overrides_.end();)
        it = is_image_buffer(kernel_.buffer(it->first)) ? std::next(it) : image_overrides_.erase(it);
}

Result<bool> KernelSession::set_param(const std::string& name, const std::string& value) {
    const BufferSpec* buffer = kernel_.buffer(name);
    if (is_image_buffer(buffer)) {
        set_image_override(name, value);
        return true;
    }
    if (buffer) {
        return make_error("`" + name + "` is a buffer, not a parameter; only image buffers can be set (to a file)",
                          "its contents come from its metadata line `buffer " + name + ": ...`");
    }
    const ParamSpec* p = kernel_.param(name);
    if (!p) {
        std::string known;
        for (const auto& q : kernel_.spec.params) known += (known.empty() ? "" : ", ") + q.name;
        return make_error("unknown parameter `" + name + "` for kernel `" + kernel_.spec.title + "`",
                          known.empty() ? "this kernel has no parameters" : "its parameters are: " + known);
    }
    for (const auto& [label, v] : p->choices) {
        if (label == value) return set_param_value(name, double(v));
    }
    char* end = nullptr;
    const double v = std::strtod(value.c_str(), &end);
    if (value.empty() || end == nullptr || *end != '\0') {
        std::string hint = "give a number, e.g. --set " + name + "=" + (p->min ? format_number(*p->min) : "1");
        if (!p->choices.empty()) {
            hint = "choose one of:";
            for (const auto& [label, cv] : p->choices) hint += " " + label;
        }
        return make_error("`" + value + "` is not a valid value for parameter `" + name + "`", hint);
    }
    return set_param_value(name, v);
}

Result<bool> KernelSession::set_param_value(const std::string& name, double value) {
    const ParamSpec* p = kernel_.param(name);
    if (!p) return make_error("unknown parameter `" + name + "`");
    if (p->derived) {
        return make_error("parameter `" + name + "` is derived (`" + p->default_expr + "`) and cannot be set",
                          "choose another image instead, e.g. --set <image buffer>=photo.png");
    }
    if ((p->type == ScalarType::Int || p->type == ScalarType::UInt) && std::floor(value) != value) {
        return make_error("parameter `" + name + "` is an integer; " + format_number(value) + " is not",
                          "use a whole number");
    }
    if (p->type == ScalarType::UInt && value < 0) {
        return make_error("parameter `" + name + "` is unsigned; " + format_number(value) + " is negative");
    }
    if ((p->min && value < *p->min) || (p->max && value > *p->max)) {
        return make_error("parameter `" + name + "` = " + format_number(value) + " is out of range " +
                              (p->min ? format_number(*p->min) : "-inf") + ".." + (p->max ? format_number(*p->max) : "inf"),
                          "pick a value inside the range given in the kernel file (line " + std::to_string(p->line) + ")");
    }
    param_overrides_[name] = value;
    return true;
}

void KernelSession::set_image_override(const std::string& buffer, std::string path) {
    image_overrides_[buffer] = std::move(path);
}

std::filesystem::path KernelSession::image_path(const BufferSpec& buffer) const {
    auto over = image_overrides_.find(buffer.name);
    const std::string& written = over != image_overrides_.end() ? over->second : buffer.init.image;
    std::filesystem::path path(written);
    if (path.is_relative()) {
        const auto beside = kernel_.path.parent_path() / path;
        const auto in_assets = assets_dir() / path;
        std::error_code ec;
        if (std::filesystem::exists(beside, ec)) return beside;
        if (std::filesystem::exists(in_assets, ec)) return in_assets;
        if (std::filesystem::exists(path, ec)) return std::filesystem::absolute(path, ec);
        return in_assets;  // for the error message
    }
    return path;
}

Result<const Image*> KernelSession::image_for(const BufferSpec& buffer) {
    const std::filesystem::path path = image_path(buffer);
    const std::string key = path.string();
    auto it = image_cache_.find(key);
    if (it != image_cache_.end()) return &it->second;
    auto loaded = load_image(path);
    if (!loaded) {
        Error e = loaded.error();
        e.message = "buffer `" + buffer.name + "`: " + e.message;
        return e;
    }
    return &image_cache_.emplace(key, std::move(*loaded)).first->second;
}

// ---- resolve ------------------------------------------------------------------------------------------------

Result<ResolvedRun> KernelSession::resolve() {
    const KernelSpec& spec = kernel_.spec;
    if (!spec.has_metadata) {
        return make_error(kernel_.path.filename().string() +
                              " has no /*@playground ... */ metadata header, so its buffers, sizes and launch "
                              "configuration are unknown",
                          "add a header (see kernels/FORMAT.md), or use `cuda-playground compile` to compile it only");
    }
    ResolvedRun r;
    Scope scope;
    auto eval = [&](const std::string& expr, const std::string& what, int line) -> Result<double> {
        auto v = eval_expr(expr, scope);
        if (!v) {
            Error e = v.error();
            e.message = what + " (line " + std::to_string(line) + "): " + e.message;
            return e;
        }
        return *v;
    };

    for (const auto& b : spec.buffers) {
        if (b.init.kind != BufferInit::Kind::Image) continue;
        auto img = image_for(b);
        if (!img) return img.error();
        scope[b.name + ".width"] = (*img)->width;
        scope[b.name + ".height"] = (*img)->height;
    }
    for (const auto& p : spec.params) {
        auto over = param_overrides_.find(p.name);
        double v = 0;
        if (over != param_overrides_.end() && !p.derived) {
            v = over->second;
        } else {
            auto d = eval(p.default_expr, "default of parameter `" + p.name + "`", p.line);
            if (!d) return d.error();
            v = *d;
            if (p.type == ScalarType::Int || p.type == ScalarType::UInt) v = std::round(v);
        }
        scope[p.name] = v;
        r.params[p.name] = v;
    }
    for (const auto& b : spec.buffers) {
        auto c = eval(b.count_expr, "size of buffer `" + b.name + "`", b.line);
        if (!c) return c.error();
        auto n = whole_positive(*c, "size of buffer `" + b.name + "`", b.count_expr);
        if (!n) return n.error();
        const uint64_t bytes = *n * elem_info(b.type).size;
        if (bytes > device_.total_memory && device_.total_memory > 0) {
            return make_error("buffer `" + b.name + "` needs " + std::to_string(bytes >> 20) + " MiB but the device has " +
                                  std::to_string(device_.total_memory >> 20) + " MiB",
                              "use smaller sizes (parameters or a smaller image)");
        }
        r.buffer_counts[b.name] = *n;
    }

    static const char* axis[3] = {"x", "y", "z"};
    auto eval_dim3 = [&](const std::string (&exprs)[3], const char* what, Dim3& out) -> Result<bool> {
        uint32_t* dst[3] = {&out.x, &out.y, &out.z};
        for (int i = 0; i < 3; ++i) {
            auto v = eval(exprs[i], std::string(what) + "." + axis[i], spec.launch.line);
            if (!v) return v.error();
            auto n = whole_positive(*v, std::string(what) + "." + axis[i], exprs[i]);
            if (!n) return n.error();
            if (*n > 0xFFFFFFFFull) return make_error(std::string(what) + "." + axis[i] + " is too large");
            *dst[i] = uint32_t(*n);
        }
        return true;
    };
    if (block_override_) {
        r.block = *block_override_;
    } else if (auto ok = eval_dim3(spec.launch.block_expr, "block", r.block); !ok) {
        return ok.error();
    }
    scope["block.x"] = r.block.x;
    scope["block.y"] = r.block.y;
    scope["block.z"] = r.block.z;
    if (grid_override_) {
        r.grid = *grid_override_;
    } else if (auto ok = eval_dim3(spec.launch.grid_expr, "grid", r.grid); !ok) {
        return ok.error();
    }
    scope["grid.x"] = r.grid.x;
    scope["grid.y"] = r.grid.y;
    scope["grid.z"] = r.grid.z;

    auto shared = eval(spec.launch.shared_expr, "shared", spec.launch.line);
    if (!shared) return shared.error();
    auto shared_bytes = whole_positive(*shared, "shared", spec.launch.shared_expr, true);
    if (!shared_bytes) return shared_bytes.error();
    r.dynamic_shared_bytes = uint32_t(std::min<uint64_t>(*shared_bytes, 0xFFFFFFFFu));

    for (const auto& e : spec.launch.problem_expr) {
        auto v = eval(e, "problem", spec.launch.line);
        if (!v) return v.error();
        auto n = whole_positive(*v, "problem", e);
        if (!n) return n.error();
        r.problem.push_back(*n);
    }

    if (!spec.traffic_expr.empty()) {
        auto t = eval(spec.traffic_expr, "traffic", 0);
        if (!t) return t.error();
        r.traffic_bytes = uint64_t(std::max(0.0, *t));
    } else {
        for (const auto& b : spec.buffers) {
            const uint64_t bytes = r.buffer_counts[b.name] * elem_info(b.type).size;
            r.traffic_bytes += b.direction == Direction::InOut ? 2 * bytes : bytes;
        }
    }
    return r;
}

// ---- compile ------------------------------------------------------------------------------------------------

Result<OccupancyResult> KernelSession::suggest_block() {
    if (!kernel_.signature) return make_error("no __global__ function found in " + kernel_.path.string());
    auto resolved = resolve();
    if (!resolved) return resolved.error();
    const CompileResult& compiled = compile();
    if (!compiled.ok || compiled.module == 0) {
        if (compiled.error) return make_error(compiled.error->message, compiled.error->hint);
        return make_error("the kernel does not compile, so there is no code to ask the occupancy API about",
                          "fix the compile errors first");
    }
    OccupancyRequest request;
    request.module = compiled.module;
    request.kernel_name = kernel_.signature->name;
    request.dynamic_shared_bytes = resolved->dynamic_shared_bytes;
    OccupancyResult answer = engine_.occupancy(std::move(request));
    if (answer.error) {
        if (answer.error->context_was_reset) {
            buffers_.clear();  // as after a failed launch: the backend dropped everything with the context
            compile_result_ = {};
            compiled_source_.clear();
        }
        return make_error(answer.error->message, answer.error->hint);
    }
    return answer;
}

const CompileResult& KernelSession::compile() {
    // The same text compiles to the same result: keep a loaded module, and don't re-report a failure twice.
    const bool same_text = !compiled_source_.empty() && compiled_source_ == kernel_.source;
    if (same_text && (compile_result_.module != 0 || !compile_result_.ok)) return compile_result_;
    if (compile_result_.module != 0) engine_.release({{}, {compile_result_.module}});
    CompileRequest request;
    request.source = kernel_.source;
    request.path = kernel_.path.string();
    request.kernel_name = kernel_.signature ? kernel_.signature->name : std::string();
    compile_result_ = engine_.compile(std::move(request));
    compiled_source_ = kernel_.source;
    return compile_result_;
}

// ---- buffers ------------------------------------------------------------------------------------------------

void KernelSession::release_buffers() {
    std::vector<BufferId> ids;
    for (const auto& [name, b] : buffers_) ids.push_back(b.id);
    buffers_.clear();
    if (!ids.empty()) engine_.release({ids, {}});
}

namespace {

// What determines a buffer's initial contents: type, size, initialiser and (for images) the file.
std::string init_key(const BufferSpec& spec, uint64_t count, const std::string& image) {
    const BufferInit& i = spec.init;
    std::ostringstream k;
    k.precision(17);
    k << elem_info(spec.type).name << '[' << count << "] " << int(i.kind) << ' ' << i.constant << ' ' << i.seed << ' '
      << i.min << ' ' << i.max << ' ' << i.start << ' ' << i.step << ' ' << image;
    return k.str();
}

bool is_uniform(const BufferInit& init) {
    return init.kind == BufferInit::Kind::Zeros || init.kind == BufferInit::Kind::Constant;
}

}  // namespace

Result<bool> KernelSession::prepare_buffers(const ResolvedRun& resolved) {
    for (const auto& spec : kernel_.spec.buffers) {
        const uint64_t count = resolved.buffer_counts.at(spec.name);
        const Image* image = nullptr;
        std::string image_file;
        if (spec.init.kind == BufferInit::Kind::Image) {
            image_file = image_path(spec).string();
            auto img = image_for(spec);
            if (!img) return img.error();
            image = *img;
        }
        const std::string key = init_key(spec, count, image_file);
        HostInput& input = host_inputs_[spec.name];
        if (input.key != key) {
            input.key.clear();
            input.host = HostBuffer{spec.name, spec.type, std::vector<std::byte>(count * elem_info(spec.type).size)};
            if (auto filled = fill_buffer(spec, input.host, image); !filled) return filled.error();
            input.key = key;
        }
        const HostBuffer& host = input.host;

        DeviceBuffer& dev = buffers_[spec.name];
        if (dev.id == 0 || dev.bytes != host.bytes.size()) {
            if (dev.id != 0) engine_.release({{dev.id}, {}});
            dev = {};
            AllocateResult a = engine_.allocate({spec.name, host.bytes.size()});
            if (a.error) {
                buffers_.erase(spec.name);
                return make_error("could not allocate buffer `" + spec.name + "` (" +
                                      std::to_string(host.bytes.size()) + " bytes): " + a.error->message,
                                  a.error->hint.empty() ? "use smaller sizes" : a.error->hint);
            }
            dev = {a.buffer, host.bytes.size(), a.device_address, a.ipc_handle, {}};
        }
        // A buffer the kernel cannot write (a const input) keeps its contents between runs; every other
        // buffer starts each run from its initial contents again.
        const SignatureParam* param = nullptr;
        for (const auto& p : kernel_.signature->params) {
            if (p.name == spec.name) param = &p;
        }
        const bool read_only = spec.direction == Direction::In && param && param->type_text.find("const") != std::string::npos;
        if (dev.content_key == key && read_only) continue;
        UploadRequest upload{dev.id, {}, false};
        if (is_uniform(spec.init) && !host.bytes.empty()) {
            const size_t element = elem_info(spec.type).size;
            upload.data.assign(host.bytes.begin(), host.bytes.begin() + long(element));
            upload.repeat = true;
        } else {
            upload.data = host.bytes;
        }
        UploadResult u = engine_.upload(std::move(upload));
        if (u.error) {
            dev.content_key.clear();
            return make_error("could not upload buffer `" + spec.name + "`: " + u.error->message, u.error->hint);
        }
        dev.content_key = read_only ? key : std::string();
    }
    return true;
}

// ---- run ----------------------------------------------------------------------------------------------------

RunReport KernelSession::run(const RunOptions& options) {
    RunReport report;
    const KernelSpec& spec = kernel_.spec;
    report.kernel = kernel_.signature ? kernel_.signature->name : std::string();
    report.title = spec.title.empty() ? report.kernel : spec.title;
    report.backend = backend_name(device_.backend);
    report.device = device_.name;
    report.diagnostics = kernel_.diagnostics;
    auto fail = [&report](RunStage stage, Error e) {
        report.failed_stage = stage;
        report.error = std::move(e);
        return report;
    };

    for (const auto& d : kernel_.diagnostics) {
        if (d.severity == Severity::Error) {
            return fail(RunStage::Metadata, make_error("the kernel file has an error: " + d.str(),
                                                       "fix the metadata header or the signature as the message says"));
        }
    }
    if (!kernel_.signature) {
        return fail(RunStage::Metadata, make_error("no __global__ function found in " + kernel_.path.string(),
                                                   "a kernel file holds exactly one __global__ function"));
    }

    auto resolved = resolve();
    if (!resolved) return fail(RunStage::Resolve, resolved.error());
    report.params = resolved->params;
    report.grid = resolved->grid;
    report.block = resolved->block;
    report.dynamic_shared_bytes = resolved->dynamic_shared_bytes;

    const CompileResult& compiled = compile();
    report.diagnostics.insert(report.diagnostics.end(), compiled.diagnostics.begin(), compiled.diagnostics.end());
    report.usage = compiled.usage;
    report.cache_hit = compiled.cache_hit;
    report.compile_ms = compiled.compile_ms;
    if (!compiled.ok) {
        if (compiled.error) return fail(RunStage::Compile, make_error(compiled.error->message, compiled.error->hint));
        std::string first = "compilation failed";
        size_t errors = 0;
        for (const auto& d : compiled.diagnostics) {
            if (d.severity != Severity::Error) continue;
            if (errors++ == 0) first = d.str();
        }
        return fail(RunStage::Compile,
                    make_error(errors > 1 ? first + " (and " + std::to_string(errors - 1) + " more errors)" : first,
                               "fix the source at the line shown; nothing was launched"));
    }

    LaunchCheck check{resolved->grid, resolved->block, resolved->dynamic_shared_bytes, compiled.usage, resolved->problem};
    report.launch_issues = validate_launch(device_, check);
    for (const auto& issue : report.launch_issues) {
        if (issue.severity == Severity::Error) {
            return fail(RunStage::Validate, make_error("launch refused: " + issue.message,
                                                       "change the block/grid (--block, --grid) as suggested"));
        }
    }

    if (auto prepared = prepare_buffers(*resolved); !prepared) return fail(RunStage::Prepare, prepared.error());

    LaunchRequest launch;
    launch.module = compiled.module;
    launch.kernel_name = report.kernel;
    launch.grid = resolved->grid;
    launch.block = resolved->block;
    launch.dynamic_shared_bytes = resolved->dynamic_shared_bytes;
    launch.timing = options.timing;
    for (const auto& p : kernel_.signature->params) {
        KernelArg arg;
        arg.name = p.name;
        if (p.is_pointer) {
            arg.buffer = buffers_.at(p.name).id;
        } else {
            auto bytes = scalar_bytes(p.base_type, resolved->params.at(p.name));
            if (!bytes) return fail(RunStage::Prepare, bytes.error());
            arg.scalar = std::move(*bytes);
        }
        launch.args.push_back(std::move(arg));
    }
    if (options.before_launch) options.before_launch(report);
    LaunchResult launched = engine_.launch(std::move(launch));
    report.printf_output = launched.printf_output;
    if (!launched.ok) {
        const EngineError err = launched.error.value_or(EngineError{"", "the launch failed", "", false});
        if (err.context_was_reset) {
            buffers_.clear();  // the backend dropped every buffer and module with the context
            compile_result_ = {};
            compiled_source_.clear();
        }
        std::string message = err.message;
        if (!err.name.empty() && message.find(err.name) == std::string::npos) message += " (" + err.name + ")";
        return fail(RunStage::Launch, make_error(message, err.hint));
    }
    report.launched = true;
    report.timing = launched.timing;
    if (report.timing.median_ms > 0) {
        report.bandwidth_gbps = double(resolved->traffic_bytes) / (report.timing.median_ms * 1e-3) / 1e9;
        if (device_.copy_bandwidth_gbps > 0) report.bandwidth_fraction = report.bandwidth_gbps / device_.copy_bandwidth_gbps;
    }
    for (const auto& [name, b] : buffers_) {
        report.device_addresses[name] = b.device_address;
        if (!b.ipc_handle.empty()) report.ipc_handles[name] = b.ipc_handle;
    }

    if (!options.read_back) return report;
    for (const auto& b : spec.buffers) {
        if (b.direction == Direction::In) continue;
        ReadBackResult rb = engine_.read_back({buffers_.at(b.name).id});
        if (rb.error) return fail(RunStage::Launch, make_error("could not read back `" + b.name + "`: " + rb.error->message));
        report.outputs[b.name] = HostBuffer{b.name, b.type, std::move(rb.data)};
    }

    if (!options.verify || spec.reference.empty()) return report;
    const ReferenceFn* reference = find_reference(spec.reference);
    if (!reference) return fail(RunStage::Verify, make_error("unknown CPU reference `" + spec.reference + "`"));
    ReferenceInputs ref_inputs{resolved->params, {}};
    for (const auto& b : spec.buffers) ref_inputs.buffers.emplace(b.name, host_inputs_.at(b.name).host);
    std::map<std::string, HostBuffer> expected;
    if (std::string problem = (*reference)(ref_inputs, expected); !problem.empty()) {
        return fail(RunStage::Verify, make_error("reference `" + spec.reference + "`: " + problem));
    }
    bool all_ok = true;
    for (const auto& [name, want] : expected) {
        auto got = report.outputs.find(name);
        if (got == report.outputs.end()) continue;
        Comparison c = compare_buffers(got->second, want, spec.tolerance);
        report.max_abs_error = std::max(report.max_abs_error, c.max_abs_error);
        report.mismatches += c.mismatches;
        if (!c.ok && all_ok) report.mismatch_detail = c.detail;
        all_ok = all_ok && c.ok;
    }
    report.verified = all_ok;
    return report;
}

}  // namespace cp
