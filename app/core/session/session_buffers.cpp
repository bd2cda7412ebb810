// KernelSession's buffers: each one's initial contents kept on the host, device buffers allocated once and
// re-filled only when needed (a const input keeps its contents between live re-runs).
#include "core/session/run_stage.h"
#include "core/session/session.h"

#include "core/data/buffer_init.h"

namespace cp {

void KernelSession::release_buffers() {
    for (auto& [name, stage] : stages_->uploads) stage.drop("the buffers were released");
    std::vector<BufferId> ids;
    for (const auto& [name, b] : buffers_)
        if (!b.borrowed) ids.push_back(b.id);
    buffers_.clear();
    if (!ids.empty()) engine_.release({ids, {}});
}

namespace {

bool is_uniform(const BufferInit& init) {
    return init.kind == BufferInit::Kind::Zeros || init.kind == BufferInit::Kind::Constant;
}

// What a buffer is filled from beyond its header line: the image's path, or the data file's key (path, size and
// a hash of its contents); empty for the other initialisers. Part of the buffer's input fingerprint.
std::string input_source(const BufferSpec& spec, const ResolvedRun& resolved) {
    if (spec.init.kind == BufferInit::Kind::Image) return resolved.images.at(spec.name).path;
    if (spec.init.kind == BufferInit::Kind::Data) return resolved.data.at(spec.name).key;
    return "";
}

// The buffer as this run fills it: a random one with the run's seed (RunChoices::seed) mixed into its own, so
// that its contents and its fingerprint follow the seed; any other as written.
const BufferSpec& seeded(const BufferSpec& spec, const ResolvedRun& resolved, BufferSpec& scratch) {
    if (!resolved.seed || spec.init.kind != BufferInit::Kind::Random) return spec;
    scratch = spec;
    uint64_t z = *resolved.seed * 0x9E3779B97F4A7C15ull + spec.init.seed;  // SplitMix64's finaliser
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    scratch.init.seed = z ^ (z >> 31);
    return scratch;
}

}  // namespace

Result<const HostBuffer*> KernelSession::host_input(const BufferSpec& written, const ResolvedRun& resolved) {
    BufferSpec scratch;
    const BufferSpec& spec = seeded(written, resolved, scratch);
    const uint64_t count = resolved.buffer_counts.at(spec.name);
    const Image* image =
        spec.init.kind == BufferInit::Kind::Image ? resolved.images.at(spec.name).image.get() : nullptr;
    const DataFile* data = spec.init.kind == BufferInit::Kind::Data ? &resolved.data.at(spec.name) : nullptr;
    // What determines its contents (run_stage.h): the same key decides the host copy and the device copy.
    const std::string key = input_fingerprint(spec, count, input_source(spec, resolved)).key();
    HostInput& input = host_inputs_[spec.name];
    if (input.key != key) {
        input.key.clear();
        input.host = HostBuffer{spec.name, spec.type, std::vector<std::byte>(count * elem_info(spec.type).size)};
        if (auto filled = fill_buffer(spec, input.host, image, data); !filled) return filled.error();
        input.key = key;
    }
    return &input.host;
}

bool buffer_is_uniform(const BufferSpec& spec) { return is_uniform(spec.init); }

const KernelSession::DeviceBuffer* KernelSession::lent_input(const std::string& name, const std::string& content_key,
                                                             uint64_t bytes) const {
    if (!lender_) return nullptr;
    auto it = lender_->buffers_.find(name);
    // The lender keeps a content key only for an input its kernel cannot write (see prepare_buffers).
    if (it == lender_->buffers_.end() || it->second.id == 0 || it->second.bytes != bytes ||
        it->second.content_key != content_key)
        return nullptr;
    return &it->second;
}

Result<bool> KernelSession::prepare_buffers(const ResolvedRun& resolved, const RunOptions& options, TransferTimes& times) {
    std::vector<StageRun>& said = stages_->upload_runs;
    said.clear();
    for (const auto& spec : kernel_.spec.buffers) {
        auto filled = host_input(spec, resolved);
        if (!filled) return filled.error();
        const HostBuffer& host = **filled;
        const std::string& key = host_inputs_.at(spec.name).key;
        BufferSpec scratch;
        Fingerprint fingerprint = input_fingerprint(seeded(spec, resolved, scratch), resolved.buffer_counts.at(spec.name),
                                                    input_source(spec, resolved));
        Stage<BufferId>& stage = stages_->upload(spec.name);

        // A buffer the kernel cannot write (a const input) keeps its contents between runs; every other
        // buffer starts each run from its initial contents again.
        const SignatureParam* param = nullptr;
        for (const auto& p : kernel_.signature->params) {
            if (p.name == spec.name) param = &p;
        }
        const bool read_only = spec.direction == Direction::In && param && param->type_text.find("const") != std::string::npos;

        DeviceBuffer& dev = buffers_[spec.name];
        // A compare variant reads the main kernel's copy of an input that neither kernel writes: no upload of its own.
        if (const DeviceBuffer* lent = read_only ? lent_input(spec.name, key, host.bytes.size()) : nullptr) {
            if (dev.id != 0 && !dev.borrowed && dev.id != lent->id) engine_.release({{dev.id}, {}});
            dev = *lent;
            dev.borrowed = true;
            said.push_back(stage.reused("the main kernel's copy"));
            stage.drop("no longer the main kernel's copy");  // its own, next time one is needed
            continue;
        }
        if (dev.borrowed) dev = {};  // the lender's copy changed: one of its own from here
        if (dev.id == 0 || dev.bytes != host.bytes.size()) {
            if (dev.id != 0) engine_.release({{dev.id}, {}});
            dev = {};
            AllocateResult a = engine_.allocate({spec.name, host.bytes.size(), uint32_t(elem_info(spec.type).size)});
            if (a.error) {
                buffers_.erase(spec.name);
                // A lost remote worker (or a reset context) took every buffer with it: the next run starts over.
                if (a.error->context_was_reset) forget_device_state();
                return make_error(a.error->kind,
                                  "could not allocate buffer `" + spec.name + "` (" +
                                      std::to_string(host.bytes.size()) + " bytes): " + a.error->message,
                                  a.error->hint.empty() ? "use smaller sizes" : a.error->hint);
            }
            dev = {a.buffer, host.bytes.size(), a.device_address, a.ipc_handle, a.ipc_offset, {}, false};
            times.allocate_ms += a.elapsed_ms;
            times.allocations++;
            times.allocated_bytes += host.bytes.size();
        }
        if (dev.content_key == key && read_only) {
            said.push_back(stage.reused());
            continue;
        }
        // Why it is sent: what changed since the copy there was made, else that the kernel may have written it.
        std::string why = stage.why(fingerprint);
        if (why.empty()) why = read_only ? "not on the device" : "reset: the kernel can write `" + spec.name + "`";
        said.push_back(stage.ran(std::move(why)));
        stage.drop("its upload failed");  // until the copies below are all done
        // One request per copy: the whole buffer, a fill pattern, or (when asked) chunks of upload_chunk_bytes.
        std::vector<UploadRequest> copies;
        if (is_uniform(spec.init) && !host.bytes.empty()) {
            const size_t element = elem_info(spec.type).size;
            copies.push_back({dev.id, {host.bytes.begin(), host.bytes.begin() + long(element)}, true, options.pinned_host});
        } else if (options.upload_chunk_bytes > 0 && host.bytes.size() > options.upload_chunk_bytes) {
            for (uint64_t at = 0; at < host.bytes.size(); at += options.upload_chunk_bytes) {
                const uint64_t end = std::min<uint64_t>(host.bytes.size(), at + options.upload_chunk_bytes);
                copies.push_back({dev.id, {host.bytes.begin() + long(at), host.bytes.begin() + long(end)}, false,
                                  options.pinned_host, at});
            }
        } else {
            copies.push_back({dev.id, host.bytes, false, options.pinned_host});
        }
        for (UploadRequest& copy : copies) {
            UploadResult u = engine_.upload(std::move(copy));
            if (u.error) {
                dev.content_key.clear();
                Error e = make_error(u.error->kind, "could not upload buffer `" + spec.name + "`: " + u.error->message,
                                     u.error->hint);
                if (u.error->context_was_reset) forget_device_state();  // as above (`dev` goes with it)
                return e;
            }
            times.upload_ms += u.elapsed_ms;
            times.uploads++;
        }
        times.upload_bytes += host.bytes.size();
        dev.content_key = read_only ? key : std::string();
        stage.keep(std::move(fingerprint), dev.id);
    }
    return true;
}

}  // namespace cp
