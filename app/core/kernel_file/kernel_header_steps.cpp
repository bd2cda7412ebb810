// Reading a `step:` line of a metadata header: a kernel of the file (a name or a template's instantiation) and
// its own `block=`, `grid=`, `shared=` and `repeat=` settings, each mistake named with its column and the fix;
// and the `streams: S over PARAM [chunks=C]` line (the launch split into chunks on several streams).
#include "core/kernel_file/kernel_header_parser.h"
#include "core/text_util.h"

#include "core/kernel_file/expr.h"

#include <algorithm>
#include <cctype>
#include <cmath>

namespace cp::header {

namespace {

const std::vector<std::string> kStepSettings = {"block", "grid", "shared", "repeat"};
const char* const kStepExample = "`step: reduce_partials block=256 grid=ceil(n / block.x) shared=block.x * 4 repeat=1`";


// Where each `name=` setting starts (at parenthesis depth 0, after a space); expressions hold no `=`.
struct Setting {
    std::string name, value;
    size_t name_pos = 0, value_pos = 0;
};

std::vector<Setting> find_settings(const std::string& s, size_t from, size_t& first_setting) {
    std::vector<Setting> out;
    first_setting = s.size();
    int depth = 0;
    for (size_t i = from; i < s.size(); ++i) {
        if (s[i] == '(') ++depth;
        if (s[i] == ')' && depth > 0) --depth;
        if (depth != 0 || !is_ident_start(s[i]) || (i > from && !std::isspace(static_cast<unsigned char>(s[i - 1]))))
            continue;
        size_t j = i;
        while (j < s.size() && is_ident_char(s[j])) ++j;
        size_t k = j;
        while (k < s.size() && s[k] == ' ') ++k;
        if (k >= s.size() || s[k] != '=') continue;
        if (out.empty()) first_setting = i;
        if (!out.empty()) out.back().value = s.substr(out.back().value_pos, i - out.back().value_pos);
        Setting st;
        st.name = s.substr(i, j - i);
        st.name_pos = i;
        st.value_pos = k + 1;
        while (st.value_pos < s.size() && s[st.value_pos] == ' ') ++st.value_pos;
        out.push_back(st);
        i = k;
    }
    if (!out.empty()) out.back().value = s.substr(std::min(out.back().value_pos, s.size()));
    for (auto& st : out) st.value = trim(st.value);
    return out;
}

}  // namespace

void HeaderEntryParser::parse_step(const Line& l) {
    const std::string& v = l.value;
    const int index = int(spec_.steps.size()) + 1;
    const std::string which = "step " + std::to_string(index) + " (line " + std::to_string(l.line) + ")";
    // The kernel: up to the first space outside `<...>`, so `reduce<float, 256>` stays whole.
    size_t end = 0;
    int angle = 0;
    while (end < v.size() && !(angle == 0 && std::isspace(static_cast<unsigned char>(v[end])))) {
        if (v[end] == '<') ++angle;
        if (v[end] == '>' && angle > 0) --angle;
        ++end;
    }
    StepSpec step;
    step.line = l.line;
    step.column = l.column;
    step.kernel = v.substr(0, end);
    const std::string name = step.kernel.substr(0, step.kernel.find('<'));
    const bool name_ok = !name.empty() && is_ident_start(name[0]) && std::all_of(name.begin(), name.end(), is_ident_char);
    if (!name_ok || (name.size() != step.kernel.size() && (angle != 0 || step.kernel.back() != '>')) ||
        step.kernel.find('=') != std::string::npos) {
        error(l.line, l.column,
              "`step:` starts with the `__global__` function to run (a name such as `reduce_partials`, or an "
              "instantiation such as `reduce<float, 256>`), not `" + step.kernel + "`. Write e.g. " + kStepExample + ".");
        return;
    }
    size_t first_setting = 0;
    const std::vector<Setting> settings = find_settings(v, end, first_setting);
    const std::string stray = trim(v.substr(end, first_setting - end));
    if (!stray.empty()) {
        error(l.line, l.column + int(v.find(stray, end)),
              "after the kernel, a step takes settings written `name=value` (" + join(kStepSettings, "=, ") +
                  "=), not `" + stray + "`. Write e.g. " + kStepExample + ".");
        return;
    }
    std::vector<std::string> seen;
    bool ok = true;
    for (const Setting& st : settings) {
        const int name_column = l.column + int(st.name_pos);
        const int value_column = l.column + int(st.value_pos);
        if (!contains(kStepSettings, st.name)) {
            error(l.line, name_column,
                  "unknown step setting `" + st.name + "=`." + did_you_mean(st.name, kStepSettings) +
                      " A step takes " + join(kStepSettings, "=, ") + "= (each optional; block, grid and shared "
                      "default to the file's `block:`, `grid:` and `shared:` lines, repeat to 1).");
            ok = false;
            continue;
        }
        if (contains(seen, st.name)) {
            error(l.line, name_column, "`" + st.name + "=` is given twice in " + which + "; keep one.");
            ok = false;
            continue;
        }
        seen.push_back(st.name);
        if (st.value.empty()) {
            error(l.line, value_column,
                  "`" + st.name + "=` has no value in " + which + "; write e.g. `" +
                      (st.name == "block"    ? "block=256"
                       : st.name == "grid"   ? "grid=ceil(n / block.x)"
                       : st.name == "shared" ? "shared=block.x * 4"
                                             : "repeat=5") +
                      "`.");
            ok = false;
            continue;
        }
        if (st.name == "shared" || st.name == "repeat") {
            (st.name == "shared" ? step.shared_expr : step.repeat_expr) = st.value;
            remember(st.name == "shared" ? HeaderExpr::Context::Shared : HeaderExpr::Context::Repeat, st.value,
                     "the " + st.name + " of " + which, l.line, value_column);
            continue;
        }
        const bool is_block = st.name == "block";
        const std::vector<Word> parts = split_dims(st.value);
        if (parts.size() > 3) {
            error(l.line, value_column,
                  "`" + st.name + "=` takes 1 to 3 sizes separated by ` x `, e.g. `" +
                      (is_block ? "block=16 x 16" : "grid=ceil(width / block.x) x ceil(height / block.y)") + "`.");
            ok = false;
            continue;
        }
        std::string(&out)[3] = is_block ? step.block_expr : step.grid_expr;
        const char* axis = "xyz";
        for (size_t d = 0; d < 3; ++d) out[d] = d < parts.size() ? trim(parts[d].text) : "1";
        for (size_t d = 0; d < parts.size(); ++d) {
            if (out[d].empty()) {
                error(l.line, value_column + int(parts[d].pos),
                      "`" + st.name + "=` has an empty size in " + which + "; write e.g. `block=16 x 16`.");
                ok = false;
                break;
            }
            remember(is_block ? HeaderExpr::Context::Block : HeaderExpr::Context::Grid, out[d],
                     "the " + st.name + " size in " + axis[d] + " of " + which, l.line,
                     value_column + int(parts[d].pos));
        }
    }
    if (ok) spec_.steps.push_back(std::move(step));
}

namespace {
const char* const kStreamsExample = "`streams: 4 over n` (or `streams: 4 over n chunks=16`)";
}  // namespace

void HeaderEntryParser::parse_streams(const Line& l) {
    const std::string& v = l.value;
    // `over` standing alone outside parentheses splits the stream count from the size parameter.
    size_t over = std::string::npos;
    int depth = 0;
    for (size_t i = 0; i + 4 <= v.size(); ++i) {
        if (v[i] == '(') ++depth;
        if (v[i] == ')' && depth > 0) --depth;
        if (depth == 0 && v.compare(i, 4, "over") == 0 && (i == 0 || std::isspace(static_cast<unsigned char>(v[i - 1]))) &&
            (i + 4 == v.size() || std::isspace(static_cast<unsigned char>(v[i + 4])))) {
            over = i;
            break;
        }
    }
    if (over == std::string::npos) {
        error(l.line, l.column, "`streams:` takes the number of streams and the size parameter the chunks split, "
                                "`streams: S over PARAM`; `over PARAM` is missing. Write e.g. " + std::string(kStreamsExample) + ".");
        return;
    }
    StreamsSpec st;
    st.line = l.line;
    st.column = l.column;
    st.streams_expr = trim(v.substr(0, over));
    if (st.streams_expr.empty()) {
        error(l.line, l.column, "`streams:` needs the number of streams (1 to " + std::to_string(kMaxStreams) +
                                    ") before `over`. Write e.g. " + kStreamsExample + ".");
        return;
    }
    size_t p = over + 4;
    while (p < v.size() && std::isspace(static_cast<unsigned char>(v[p]))) ++p;
    size_t e = p;
    while (e < v.size() && is_ident_char(v[e])) ++e;
    st.param = v.substr(p, e - p);
    if (st.param.empty() || !is_ident_start(st.param[0])) {
        error(l.line, l.column + int(p), "after `over`, `streams:` takes the name of the size parameter the chunks "
                                         "split (the param that counts the elements). Write e.g. " + std::string(kStreamsExample) + ".");
        return;
    }
    size_t first_setting = 0;
    const std::vector<Setting> settings = find_settings(v, e, first_setting);
    const std::string stray = trim(v.substr(e, first_setting - e));
    if (!stray.empty()) {
        error(l.line, l.column + int(v.find(stray, e)),
              "after the size parameter, `streams:` takes only `chunks=C`, not `" + stray + "`. Write e.g. " +
                  kStreamsExample + ".");
        return;
    }
    for (const Setting& s : settings) {
        const int name_column = l.column + int(s.name_pos), value_column = l.column + int(s.value_pos);
        if (s.name != "chunks") {
            error(l.line, name_column, "unknown setting `" + s.name + "=` on `streams:`." + did_you_mean(s.name, {"chunks"}) +
                                           " It takes only `chunks=C` (C at least the number of streams; 4 per stream when left out).");
            return;
        }
        if (!st.chunks_expr.empty()) {
            error(l.line, name_column, "`chunks=` is given twice on `streams:`; keep one.");
            return;
        }
        if (s.value.empty()) {
            error(l.line, value_column, "`chunks=` has no value; write e.g. `chunks=16`.");
            return;
        }
        st.chunks_expr = s.value;
    }
    // Constants are checked here, with their column; expressions of params when the run is resolved.
    double streams = 0, chunks = 0;
    const bool streams_constant = expr_names(st.streams_expr).empty();
    if (streams_constant) {
        if (!constant(st.streams_expr, l.line, l.column, "the number of streams", streams)) return;
        if (streams < 1 || streams > kMaxStreams || streams != std::floor(streams)) {
            error(l.line, l.column, "`streams: " + st.streams_expr + "`: the number of streams must be a whole number from 1 to " +
                                        std::to_string(kMaxStreams) + ". Write e.g. " + kStreamsExample + ".");
            return;
        }
    } else {
        remember(HeaderExpr::Context::Streams, st.streams_expr, "the number of streams", l.line, l.column);
    }
    if (!st.chunks_expr.empty()) {
        const int column = l.column + int(v.rfind(st.chunks_expr));
        if (expr_names(st.chunks_expr).empty()) {
            if (!constant(st.chunks_expr, l.line, column, "the number of chunks", chunks)) return;
            if (chunks < 1 || chunks > kMaxStreamChunks || chunks != std::floor(chunks)) {
                error(l.line, column, "`chunks=" + st.chunks_expr + "`: the number of chunks must be a whole number from 1 to " +
                                          std::to_string(kMaxStreamChunks) + ".");
                return;
            }
            if (streams_constant && chunks < streams) {
                error(l.line, column, "`chunks=" + st.chunks_expr + "` is fewer than the " + st.streams_expr +
                                          " streams: some streams would get no chunk. Use at least `chunks=" +
                                          st.streams_expr + "`, or leave it out (4 chunks per stream).");
                return;
            }
        } else {
            remember(HeaderExpr::Context::Streams, st.chunks_expr, "the number of chunks", l.line, column);
        }
    }
    spec_.streams = std::move(st);
}

}  // namespace cp::header
