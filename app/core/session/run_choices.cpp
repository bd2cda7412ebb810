// Checking the user's choices against a kernel file: --set values, enum labels, ranges, derived parameters.
#include "core/session/run_choices.h"

#include "core/kernel_file/scalar_range.h"
#include "core/text_util.h"

#include <cmath>
#include <sstream>

namespace cp {

std::string format_number(double v) {
    std::ostringstream s;
    s.precision(15);
    s << v;
    return s.str();
}

namespace {

std::string names_of(const KernelFile& file) {
    std::vector<std::string> names;
    for (const auto& p : file.spec.params)
        if (!p.derived) names.push_back(p.name);
    for (const auto& b : file.spec.buffers)
        if (is_image_buffer(&b)) names.push_back(b.name + " (an image)");
    return join(names, ", ");
}

}  // namespace

void RunChoices::keep_only_those_of(const KernelFile& file) {
    for (auto it = params.begin(); it != params.end();) {
        const ParamSpec* p = file.param(it->first);
        it = p && !p->derived ? std::next(it) : params.erase(it);
    }
    for (auto it = images.begin(); it != images.end();)
        it = is_image_buffer(file.buffer(it->first)) ? std::next(it) : images.erase(it);
    if (until_step && (*until_step < 1 || size_t(*until_step) >= file.spec.steps.size())) until_step.reset();
}

std::optional<Error> check_param_value(const ParamSpec& p, double value) {
    const std::string& name = p.name;
    if (p.derived) {
        return make_error(ErrorKind::UserInput,
                          "parameter `" + name + "` is derived (`" + p.default_expr + "`) and cannot be set",
                          "it follows the image; choose another image instead, e.g. --set <image buffer>=photo.png");
    }
    if (!std::isfinite(value))
        return make_error(ErrorKind::UserInput, "parameter `" + name + "` must be a finite number");
    const bool integer = p.type == ScalarType::Int || p.type == ScalarType::UInt;
    if (integer && std::floor(value) != value) {
        return make_error(ErrorKind::UserInput,
                          "parameter `" + name + "` is an integer; " + format_number(value) + " is not",
                          "use a whole number");
    }
    if (p.type == ScalarType::UInt && value < 0) {
        return make_error(ErrorKind::UserInput,
                          "parameter `" + name + "` is unsigned; " + format_number(value) + " is negative",
                          "use 0 or a positive whole number");
    }
    // The kernel receives a 32-bit value: refuse what would wrap around rather than pass another number.
    const auto [lo, hi] = scalar_range(p.type);
    if (integer && (value < lo || value > hi)) {
        return make_error(ErrorKind::UserInput,
                          "parameter `" + name + "` = " + format_number(value) + " does not fit the kernel's `" +
                              scalar_type_name(p.type) + "` (" + format_number(lo) + ".." + format_number(hi) + ")",
                          "use a smaller value, or make the parameter `long long` in the kernel and the header");
    }
    if (p.type == ScalarType::Float && std::abs(value) > hi) {
        return make_error(ErrorKind::UserInput,
                          "parameter `" + name + "` = " + format_number(value) + " does not fit a float",
                          "use a value below 3.4e38 in magnitude");
    }
    if ((p.min && value < *p.min) || (p.max && value > *p.max)) {
        return make_error(
            ErrorKind::UserInput,
            "parameter `" + name + "` = " + format_number(value) + " is out of range " +
                (p.min ? format_number(*p.min) : "-inf") + ".." + (p.max ? format_number(*p.max) : "inf"),
            "pick a value inside the range given in the kernel file (line " + std::to_string(p.line) + ")");
    }
    return std::nullopt;
}

Result<bool> apply_set(const KernelFile& file, RunChoices& choices, const std::string& name, const std::string& value) {
    const BufferSpec* buffer = file.buffer(name);
    if (is_image_buffer(buffer)) {
        if (trim(value).empty()) {
            return make_error(ErrorKind::UserInput, "`" + name + "` needs an image file",
                              "e.g. --set " + name + "=assets/astronaut.png");
        }
        choices.images[name] = value;
        return true;
    }
    if (buffer) {
        return make_error(ErrorKind::UserInput,
                          "`" + name + "` is a buffer, not a parameter; only image buffers can be set (to a file)",
                          "its contents come from its metadata line `buffer " + name + ": ...`");
    }
    const ParamSpec* p = file.param(name);
    if (!p) {
        std::vector<std::string> candidates;
        for (const auto& q : file.spec.params) candidates.push_back(q.name);
        for (const auto& b : file.spec.buffers) candidates.push_back(b.name);
        const std::string known = names_of(file);
        const std::string guess = closest_name(name, candidates);
        const std::string list = known.empty() ? "this kernel has no parameters" : "its parameters are: " + known;
        return make_error(ErrorKind::UserInput, "unknown parameter `" + name + "` for kernel `" + file.spec.title + "`",
                          guess.empty() ? list : "did you mean `" + guess + "`? (" + list + ")");
    }
    std::optional<double> number;
    for (const auto& [label, v] : p->choices)
        if (label == value) number = double(v);
    if (double parsed = 0; !number && parse_number(trim(value), parsed)) number = parsed;
    if (!number) {
        std::string hint = "give a number, e.g. --set " + name + "=" + (p->min ? format_number(*p->min) : "1");
        if (!p->choices.empty()) {
            hint = "choose one of:";
            for (const auto& [label, cv] : p->choices) hint += " " + label;
        }
        return make_error(ErrorKind::UserInput, "`" + value + "` is not a valid value for parameter `" + name + "`",
                          hint);
    }
    if (auto refused = check_param_value(*p, *number)) return *refused;
    choices.params[name] = *number;
    return true;
}

Error thread_order_unavailable(const DeviceInfo& device) {
    return make_error(ErrorKind::UserInput,
                      "the thread order can be chosen on the CPU backend only: the " +
                          (device.backend.empty() ? std::string("current") : device.backend) +
                          " backend runs a block's threads in an order it picks itself",
                      "drop the thread order, or run on the CPU backend (--backend cpu)");
}

}  // namespace cp
