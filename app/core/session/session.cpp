// KernelSession: the kernel and the user's choices, the images they name, compiling, the occupancy question.
#include "core/session/session.h"
#include "core/kernel_file/constant_fill.h"
#include "core/session/run_stage.h"

#include <cctype>

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

std::string run_failure_text(const RunReport& r) {
    if (!r.error) return "";
    std::string headline;
    switch (r.failed_stage) {
        case RunStage::Metadata: headline = "Error in the kernel file"; break;
        case RunStage::Resolve: headline = "Not run"; break;
        case RunStage::Compile: headline = "Compile error"; break;
        case RunStage::Validate: headline = "Launch refused"; break;
        case RunStage::Prepare: headline = "Could not set up the buffers"; break;
        case RunStage::Launch: headline = "The kernel failed"; break;
        case RunStage::Verify: headline = "Could not check the output"; break;
        case RunStage::None: headline = "Failed"; break;
    }
    std::string message = r.error->message;
    // Messages that already start with the headline's words ("launch refused: ...", "the kernel file has an
    // error: ...") are not repeated after it.
    std::string lower = headline;
    for (char& c : lower) c = char(std::tolower(static_cast<unsigned char>(c)));
    if (message.rfind(lower + ": ", 0) == 0) message = message.substr(lower.size() + 2);
    if (r.failed_stage == RunStage::Metadata && message.rfind("the kernel file has an error: ", 0) == 0)
        message = message.substr(30);
    return headline + ": " + message;
}

KernelSession::KernelSession(Engine& engine) : engine_(engine), stages_(std::make_unique<RunStages>()) {}

KernelSession::~KernelSession() {
    release_buffers();
    modules_.drop(engine_, "");  // every module of its own (a borrowed one stays with its lender)
}

void KernelSession::set_kernel(KernelFile file) {
    kernel_ = std::move(file);
    std::vector<BufferId> unused;  // buffers the new kernel no longer has
    for (auto it = buffers_.begin(); it != buffers_.end();) {
        if (kernel_.buffer(it->first)) {
            ++it;
        } else {
            if (!it->second.borrowed) unused.push_back(it->second.id);
            stages_->uploads.erase(it->first);
            it = buffers_.erase(it);
        }
    }
    if (!unused.empty()) engine_.release({unused, {}});
    for (auto it = host_inputs_.begin(); it != host_inputs_.end();)
        it = kernel_.buffer(it->first) ? std::next(it) : host_inputs_.erase(it);
    choices_.keep_only_those_of(kernel_);
}

void KernelSession::set_choices(RunChoices choices) { choices_ = std::move(choices); }

Result<bool> KernelSession::set_param(const std::string& name, const std::string& value) {
    return apply_set(kernel_, choices_, name, value);
}

// Images named in metadata or chosen by the user: next to the kernel file, then in assets/, then as given
// (relative to the working folder).
std::filesystem::path KernelSession::image_path(const BufferSpec& buffer) const {
    auto over = choices_.images.find(buffer.name);
    const std::string& written = over != choices_.images.end() ? over->second : buffer.init.image;
    std::filesystem::path path(written);
    if (path.is_relative()) {
        const auto beside = kernel_.path.parent_path() / path;
        const auto in_assets = assets_dir() / path;
        std::error_code ec;
        if (!kernel_.path.empty() && std::filesystem::exists(beside, ec)) return beside;
        if (std::filesystem::exists(in_assets, ec)) return in_assets;
        if (std::filesystem::exists(path, ec)) return std::filesystem::absolute(path, ec);
        return in_assets;  // for the error message
    }
    return path;
}

Result<std::shared_ptr<const Image>> KernelSession::image_for(const BufferSpec& buffer) {
    const std::filesystem::path path = image_path(buffer);
    const std::string key = path.string();
    auto it = image_cache_.find(key);
    if (it != image_cache_.end()) return it->second;
    auto loaded = load_image(path);
    if (!loaded) {
        Error e = loaded.error();
        e.message = "buffer `" + buffer.name + "`: " + e.message;
        return e;
    }
    auto image = std::make_shared<const Image>(std::move(*loaded));
    image_cache_.emplace(key, image);
    return image;
}

Result<DataFile> KernelSession::data_file(const std::string& written) {
    const std::filesystem::path path = kernel_.path.parent_path() / written;
    std::error_code ec;
    const auto time = std::filesystem::last_write_time(path, ec);
    const uint64_t size = ec ? 0 : std::filesystem::file_size(path, ec);
    if (!ec) {
        auto it = data_cache_.find(path.string());
        if (it != data_cache_.end() && it->second.size == size && it->second.time == time) return it->second.file;
    }
    auto loaded = load_data_file(kernel_.path, written);
    if (!loaded) return loaded.error();
    if (!ec) data_cache_[path.string()] = CachedData{size, time, *loaded};
    return loaded;
}

CompileRequest kernel_compile_request(const KernelFile& file) {
    CompileRequest request;
    request.source = text_to_compile(file);
    request.path = file.path.string();
    request.kernel_name = file.signature ? file.signature->launch_name : std::string();
    return request;
}

CompileRequest KernelSession::plain_request() const {
    CompileRequest request = kernel_compile_request(kernel_);
    request.also_kernels = also_kernels_;
    request.load = engine_.capabilities().launches;
    return request;
}

const CompileResult& KernelSession::compile() {
    CompileRequest request = plain_request();
    const std::string& name = request.kernel_name;
    Stage<ModuleId>& stage = stages_->compile;
    // A variant of the same file: the lender's compile loaded this kernel too (asked again each time: the lender
    // may have compiled again, or lost its module to a reset).
    if (lender_ && !name.empty()) {
        const CompileResult* lent = lender_->modules_.find("plain");
        const std::string* lent_source = lender_->modules_.source_of("plain");
        const auto usage = lent ? lent->also_usage.find(name) : std::map<std::string, ResourceUsage>::const_iterator();
        if (lent && lent->ok && lent->module != 0 && usage != lent->also_usage.end() &&
            lender_->kernel_.path == kernel_.path && lent_source && *lent_source == request.source) {
            stages_->compile_run = stage.reused("the main kernel's compile");
            const CompileResult* mine = modules_.find("plain");
            if (mine && modules_.borrowed("plain") && mine->module == lent->module) return *mine;
            stage.drop("no longer the main kernel's compile");  // ours, if we had one, is released now
            CompileResult borrowed = *lent;
            borrowed.usage = usage->second;
            borrowed.also_usage.clear();
            borrowed.cache_hit = true;  // nothing compiled for it
            borrowed.compile_ms = 0;
            return modules_.lend(engine_, "plain", request.source, std::move(borrowed));
        }
    }
    // The same text compiles to the same result: keep a loaded module, and don't re-report a failure twice.
    // The cache decides (its key is the request whole); the stage's fingerprint says what changed.
    bool compiled = false;
    const CompileResult& result = modules_.get(engine_, "plain", std::move(request), &compiled);
    if (compiled) {
        // Made only when a compile ran: a live re-run does not copy and compare the source a second time.
        Fingerprint fingerprint = compile_fingerprint(plain_request(), device().name);
        std::string why = stage.why(fingerprint);
        stages_->compile_run = stage.ran(why.empty() ? "the main kernel's compile no longer serves it" : why);
        stage.keep(std::move(fingerprint), result.module);
        ++stages_->compiles;
    } else {
        stages_->compile_run = stage.reused();
    }
    return result;
}

const CompileResult& KernelSession::compile_extra(const std::string& slot, const std::string& name,
                                                  CompileRequest request) {
    Fingerprint fingerprint = compile_fingerprint(request, device().name);
    Stage<ModuleId>& stage = stages_->extra_compile(name);
    bool compiled = false;
    const CompileResult& result = modules_.get(engine_, slot, std::move(request), &compiled);
    if (compiled) {
        // The cache compiled again for the same fingerprint only when its module was dropped (a reset device).
        const std::string why = stage.why(fingerprint);
        stages_->extra_runs.push_back(stage.ran(why.empty() ? "its module was released" : why));
        stage.keep(std::move(fingerprint), result.module);  // a failure too: the same text fails the same way
    } else {
        stages_->extra_runs.push_back(stage.reused());
    }
    return result;
}

void KernelSession::forget_device_state() {
    stages_->device_lost();
    buffers_.clear();
    modules_.forget();
}

Result<OccupancyResult> KernelSession::suggest_block(std::vector<int> block_sizes) {
    if (!kernel_.signature)
        return make_error(ErrorKind::Metadata, "no __global__ function found in " + kernel_.path.string());
    auto resolved = resolve();
    if (!resolved) return resolved.error();
    const CompileResult& compiled = compile();
    if (!compiled.ok || compiled.module == 0) {
        if (compiled.error) return to_error(*compiled.error);
        if (!engine_.capabilities().launches)
            return make_error(
                ErrorKind::Unsupported,
                "no backend can run kernels here, so there is no occupancy API to ask: " + device().notes);
        return make_error(ErrorKind::Compile,
                          "the kernel does not compile, so there is no code to ask the occupancy API about",
                          "fix the compile errors first");
    }
    OccupancyRequest request;
    request.module = compiled.module;
    request.kernel_name = kernel_.signature->launch_name;
    request.dynamic_shared_bytes = resolved->dynamic_shared_bytes;
    request.block_sizes = std::move(block_sizes);
    OccupancyResult answer = engine_.occupancy(std::move(request));
    if (answer.error) {
        if (answer.error->context_was_reset) forget_device_state();
        return to_error(*answer.error);
    }
    return answer;
}

}  // namespace cp
