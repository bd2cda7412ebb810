// The `devices: all over n` line of a metadata header (split the run along the size parameter `n`, one part per
// device), and its checks against the params, buffers and steps once every line is read.
#include "core/kernel_file/kernel_file_parts.h"
#include "core/kernel_file/kernel_header_parser.h"
#include "core/text_util.h"

#include <algorithm>
#include <cctype>

namespace cp {

namespace {

constexpr int kMostDevices = 64;
const char* const kDevicesExample = "`devices: all over n` (or `devices: 2 over n` for at most 2)";

bool all_digits(const std::string& s) {
    return !s.empty() && s.size() <= 3 && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

}  // namespace

std::string DeviceSplitSpec::str() const {
    return (max_devices == 0 ? std::string("all") : std::to_string(max_devices)) + " over " + param;
}

void header::HeaderEntryParser::parse_devices(const Line& l) {
    const std::vector<Word> words = split_words(l.value);
    auto at = [&](size_t i) { return l.column + static_cast<int>(i < words.size() ? words[i].pos : l.value.size()); };
    const std::string& how_many = words[0].text;  // the value is not empty (checked by the caller)
    DeviceSplitSpec d;
    d.line = l.line;
    d.column = l.column;
    if (how_many == "all") {
        d.max_devices = 0;
    } else if (all_digits(how_many) && std::stoi(how_many) >= 1 && std::stoi(how_many) <= kMostDevices) {
        d.max_devices = std::stoi(how_many);
    } else {
        error(l.line, at(0),
              "`devices:` starts with `all` or a number of devices from 1 to " + std::to_string(kMostDevices) +
                  ", not `" + how_many + "`." + did_you_mean(how_many, {"all"}) + " Write " + kDevicesExample + ".");
        return;
    }
    if (words.size() < 3) {
        error(l.line, at(words.size()),
              "`devices:` needs the size parameter to split after `over`: which param counts the elements, e.g. " +
                  std::string(kDevicesExample) + ".");
        return;
    }
    if (words[1].text != "over") {
        error(l.line, at(1),
              "expected `over` after `" + how_many + "`, not `" + words[1].text + "`. Write `devices: " + how_many +
                  " over " + words.back().text + "`.");
        return;
    }
    if (words.size() > 3) {
        error(l.line, at(3),
              "`devices:` takes one size parameter after `over`; remove `" + words[3].text + "`. Write e.g. " +
                  kDevicesExample + ".");
        return;
    }
    d.param = words[2].text;
    d.column = at(2);
    if (!is_identifier(d.param)) {
        error(l.line, d.column,
              "`" + d.param +
                  "` is not a param name; write the param that counts the elements, "
                  "e.g. " +
                  kDevicesExample + ".");
        return;
    }
    state_.used_names.insert(d.param);
    spec_.devices = d;
}

void check_devices(const std::string& file, const KernelSpec& spec, std::vector<Diagnostic>& diags) {
    const DeviceSplitSpec& d = spec.devices;
    auto error = [&](int line, int column, std::string message) {
        diags.push_back(make_diagnostic(file, line, column, Severity::Error, std::move(message)));
    };
    const std::string line_text = "`devices: " + d.str() + "`";
    const ParamSpec* param = nullptr;
    std::vector<std::string> names;
    for (const ParamSpec& p : spec.params) {
        names.push_back(p.name);
        if (p.name == d.param) param = &p;
    }
    if (!param) {
        error(d.line, d.column,
              line_text + " splits param `" + d.param + "`, and there is no such param." +
                  did_you_mean(d.param, names) +
                  (names.empty() ? " Declare it, e.g. `param n: int = 1000003`."
                                 : " Params are: " + join(names, ", ") + "."));
        return;
    }
    if (param->type != ScalarType::Int && param->type != ScalarType::UInt) {
        error(d.line, d.column,
              line_text + ": param `" + d.param + "` is " + scalar_type_name(param->type) +
                  ", and a count of elements is a whole number; declare it `int` or `uint`.");
        return;
    }
    if (param->derived) {
        error(d.line, d.column,
              line_text + ": param `" + d.param +
                  "` comes from an image's size, and an image is "
                  "not cut into parts here; split a param of a 1D array instead.");
        return;
    }
    if (!spec.steps.empty()) {
        error(d.line, d.column,
              line_text + " splits one kernel's launch, and this file runs " + std::to_string(spec.steps.size()) +
                  " steps (line " + std::to_string(spec.steps.front().line) +
                  "); remove `devices:` or the `step:` lines.");
        return;
    }
    bool any_cut = false;
    for (const BufferSpec& b : spec.buffers) {
        const bool cut = trim(b.count_expr) == d.param;
        any_cut = any_cut || cut;
        if (!cut && b.direction != Direction::In)
            error(b.line, 0,
                  "buffer `" + b.name + "` holds [" + b.count_expr + "] elements, and with " + line_text +
                      " every `out` or `inout` buffer must hold [" + d.param +
                      "], so that each device "
                      "writes its own part (devices would overwrite each other's results). Make it `" +
                      b.name + ": " + elem_info(b.type).name + "[" + d.param + "]`, or make it `in`.");
    }
    if (!any_cut)
        error(d.line, d.column,
              line_text + ": no buffer holds [" + d.param +
                  "] elements, so there is nothing to split; "
                  "give the arrays to divide the count `[" +
                  d.param + "]`.");
}

}  // namespace cp
