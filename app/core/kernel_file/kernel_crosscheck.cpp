// Checking a kernel file's metadata header against its __global__ signature: every parameter described
// once, buffers are pointers of the same element type, params are scalars of the same type.
#include "core/kernel_file/kernel_file_parts.h"
#include "core/text_util.h"

#include <algorithm>
#include <set>

namespace cp {

namespace {

const SignatureParam* find_param(const KernelSignature& sig, const std::string& name) {
    for (const auto& p : sig.params)
        if (p.name == name) return &p;
    return nullptr;
}

std::string line_ref(int line) { return "line " + std::to_string(line); }

std::string suggested_line(const SignatureParam& p) {
    if (p.is_pointer) {
        auto elem = parse_elem_type(p.base_type);
        const bool read_only = p.type_text.rfind("const", 0) == 0 || p.type_text.find(" const") != std::string::npos;
        return "buffer " + p.name + ": " + (elem ? elem_info(*elem).name : "float") + "[n] " +
               (read_only ? "in" : "out zeros");
    }
    auto scalar = parse_scalar_type(p.base_type);
    const bool is_float = scalar == ScalarType::Float || scalar == ScalarType::Double;
    return "param " + p.name + ": " + (scalar ? scalar_type_name(*scalar) : "int") + " = " + (is_float ? "1.0" : "1");
}

// A pointer whose pointee is const cannot be written by the kernel.
}  // namespace

void cross_check(const KernelSpec& spec, const KernelSignature& sig, const HeaderState& state, const std::string& file,
                 std::vector<Diagnostic>& diags) {
    if (!spec.has_metadata || state.unterminated) return;
    auto error = [&](int line, std::string message) {
        diags.push_back(make_diagnostic(file, line, 0, Severity::Error, std::move(message)));
    };
    std::vector<std::string> sig_names;
    for (const auto& p : sig.params) sig_names.push_back(p.name);
    const std::string kernel = "`" + sig.name + "` (" + line_ref(sig.line) + ")";
    const std::string its_params =
        sig_names.empty() ? "; it has no parameters." : "; its parameters are: " + join(sig_names, ", ") + ".";

    for (const auto& b : spec.buffers) {
        const SignatureParam* p = find_param(sig, b.name);
        const std::string type = elem_info(b.type).name;
        if (!p) {
            error(b.line, "metadata buffer `" + b.name + "` (" + line_ref(b.line) + ") is not a parameter of " + kernel +
                              its_params + did_you_mean(b.name, sig_names));
            continue;
        }
        if (!p->is_pointer) {
            error(b.line, "`" + b.name + "` is a buffer in the metadata (" + line_ref(b.line) + ") but the scalar `" +
                              p->type_text + " " + p->name + "` in " + kernel + ". A buffer must be a pointer such as `" +
                              type + "* " + b.name + "`; for a single value use `param " + b.name + ": ...`.");
            continue;
        }
        auto elem = parse_elem_type(p->base_type);
        if (!elem) {
            error(p->line, "parameter `" + p->name + "` of " + kernel + " points to `" + p->base_type +
                               "`, which the playground cannot fill; use one of: " + join(elem_type_names(), ", ") + ".");
            continue;
        }
        if (*elem != b.type) {
            error(b.line, "buffer `" + b.name + "` holds " + type + " in the metadata (" + line_ref(b.line) + ") but " +
                              kernel + " declares `" + p->type_text + " " + p->name + "` (" + line_ref(p->line) +
                              "); make them the same element type.");
            continue;
        }
        if (b.direction != Direction::In && points_to_const(*p)) {
            error(b.line, "buffer `" + b.name + "` is `" + direction_name(b.direction) + "` but " + kernel +
                              " declares it `" + p->type_text + "`, so the kernel cannot write it. Remove `const`, or "
                              "make the buffer `in`.");
        }
    }

    std::set<std::string> checked;  // a name declared twice is reported once, by the header checks
    for (const auto& b : spec.buffers) checked.insert(b.name);
    for (const auto& m : spec.params) {
        if (!checked.insert(m.name).second) continue;
        const SignatureParam* p = find_param(sig, m.name);
        if (!p) {
            // A param used only for sizes or the launch (e.g. a tile size) need not be a kernel argument.
            if (!state.used_names.count(m.name)) {
                diags.push_back(make_diagnostic(file, m.line, 0, Severity::Warning,
                                                "param `" + m.name + "` is neither a parameter of " + kernel +
                                                    " nor used in any size or launch expression" + its_params +
                                                    did_you_mean(m.name, sig_names)));
            }
            continue;
        }
        if (p->is_pointer) {
            error(m.line, "`" + m.name + "` is a param in the metadata (" + line_ref(m.line) + ") but the pointer `" +
                              p->type_text + " " + p->name + "` in " + kernel + "; describe it as a buffer, e.g. `" +
                              suggested_line(*p) + "`.");
            continue;
        }
        auto scalar = parse_scalar_type(p->base_type);
        if (!scalar && (p->base_type == "cudaTextureObject_t" || p->base_type == "cudaSurfaceObject_t")) {
            error(m.line, "`" + m.name + "` is a `" + p->base_type + "` in " + kernel + ": texture objects cannot be "
                          "set from a param (the playground creates no CUDA arrays or texture objects). Read the data "
                          "through a buffer instead, e.g. `const float* " + m.name + "` with `buffer " + m.name +
                          ": float[width * height] in`.");
            continue;
        }
        if (!scalar) {
            error(p->line, "parameter `" + p->name + "` of " + kernel + " has type `" + p->base_type +
                               "`; scalar parameters may be int, unsigned int, float or double.");
            continue;
        }
        if (*scalar != m.type) {
            error(m.line, std::string("param `") + m.name + "` is " + scalar_type_name(m.type) + " in the metadata (" +
                              line_ref(m.line) + ") but `" + p->type_text + " " + p->name + "` in " + kernel +
                              "; make them the same type.");
        }
    }

    for (const auto& p : sig.params) {
        if (spec.buffers.end() != std::find_if(spec.buffers.begin(), spec.buffers.end(),
                                               [&](const BufferSpec& b) { return b.name == p.name; }))
            continue;
        if (spec.params.end() != std::find_if(spec.params.begin(), spec.params.end(),
                                              [&](const ParamSpec& m) { return m.name == p.name; }))
            continue;
        if (state.broken_names.count(p.name)) continue;  // its line already has an error
        if (p.base_type == "cudaTextureObject_t" || p.base_type == "cudaSurfaceObject_t") {
            error(p.line, "parameter `" + p.name + "` of " + kernel + " is a `" + p.base_type +
                              "`, which the playground cannot pass: it fills and passes buffers as plain pointers and "
                              "creates no CUDA arrays or texture objects. Read the data through a buffer instead, "
                              "e.g. `const float* " + p.name + "` described by `buffer " + p.name +
                              ": float[width * height] in`, with `" + p.name + "[y * width + x]` in place of tex2D and "
                              "x, y clamped to the image as the texture's address mode did.");
            continue;
        }
        error(p.line, "parameter `" + p.name + "` of " + kernel + " is not described in the metadata header; add a "
                      "line such as `" + suggested_line(p) + "`.");
    }
}

}  // namespace cp
