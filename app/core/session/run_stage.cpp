// Fingerprints of a run's stages (run_stage.h): named parts, compared whole, explained by the first that differs.
#include "core/session/run_stage.h"

#include <charconv>

namespace cp {

Fingerprint& Fingerprint::add(std::string name, std::string value, std::string why) {
    parts_.push_back({std::move(name), std::move(value), std::move(why)});
    return *this;
}

namespace {
// The shortest text that reads back as `value` (no stream: this runs for every part of every run).
void append_number(std::string& out, double value) {
    char text[32];
    const auto end = std::to_chars(text, text + sizeof text, value).ptr;
    out.append(text, end);
}
}  // namespace

Fingerprint& Fingerprint::add(std::string name, double value, std::string why) {
    std::string text;
    append_number(text, value);
    return add(std::move(name), std::move(text), std::move(why));
}

bool Fingerprint::operator==(const Fingerprint& other) const {
    if (parts_.size() != other.parts_.size()) return false;
    for (size_t i = 0; i < parts_.size(); ++i)
        if (parts_[i].name != other.parts_[i].name || parts_[i].value != other.parts_[i].value) return false;
    return true;
}

std::string Fingerprint::changed_since(const Fingerprint& before) const {
    const auto said = [](const Part& p) { return p.why.empty() ? p.name + " changed" : p.why; };
    for (const Part& p : parts_) {
        const Part* was = nullptr;
        for (const Part& b : before.parts_)
            if (b.name == p.name) was = &b;
        if (!was || was->value != p.value) return said(p);
    }
    for (const Part& b : before.parts_) {
        bool still = false;
        for (const Part& p : parts_) still = still || p.name == b.name;
        if (!still) return said(b);
    }
    return *this == before ? std::string() : "order changed";
}

std::string Fingerprint::key() const {
    std::string k;
    for (const Part& p : parts_) {
        k += std::to_string(p.name.size()) + ':' + p.name + std::to_string(p.value.size()) + ':' + p.value;
    }
    return k;
}

Fingerprint compile_fingerprint(const CompileRequest& r, const std::string& device) {
    Fingerprint f;
    f.add("source", r.source, "source changed");
    f.add("path", r.path, "another file");
    f.add("kernel", r.kernel_name, "another kernel");
    std::string also, options;
    for (const auto& k : r.also_kernels) also += k + '\n';
    for (const auto& o : r.extra_options) options += o + '\n';
    f.add("also kernels", also, "compare variants changed");
    f.add("options", options, "compiler options changed");
    f.add("instrumentation",
          std::string(r.load ? "load" : "compile only") + (r.instrument_trace ? " trace" : "") +
              (r.instrument_memory ? " memory" : "") + (r.instrument_debug ? " debug" : ""),
          "instrumentation changed");
    f.add("device", device, "another device");
    return f;
}

Fingerprint input_fingerprint(const BufferSpec& spec, uint64_t count, const std::string& image) {
    const BufferInit& i = spec.init;
    std::string init = std::to_string(int(i.kind)) + ' ' + std::to_string(i.seed);
    for (const double v : {i.constant, i.min, i.max, i.start, i.step}) {
        init += ' ';
        append_number(init, v);
    }
    Fingerprint f;
    f.add("size", std::string(elem_info(spec.type).name) + '[' + std::to_string(count) + ']',
          "size of `" + spec.name + "` changed");
    f.add("init", std::move(init), "initial values of `" + spec.name + "` changed");
    f.add("image", image, "new image for `" + spec.name + "`");
    return f;
}

std::string contents_changed(const BufferSpec& spec) {
    return spec.init.kind == BufferInit::Kind::Image ? "new image for `" + spec.name + "`"
                                                     : "contents of `" + spec.name + "` changed";
}

}  // namespace cp
