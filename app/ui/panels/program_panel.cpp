// Program panel drawing.
#include "ui/panels/program_panel.h"

#include "core/kernel_file/kernel_scan.h"
#include "core/session/script_host.h"
#include "core/text_util.h"
#include "ui/state/array_picture.h"
#include "ui/theme.h"
#include "ui/widgets.h"

#include <imgui.h>
#include <implot.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <filesystem>

namespace cp::ui {
namespace {

const ImVec4 kGood{0.45f, 0.85f, 0.45f, 1}, kBad{1.0f, 0.4f, 0.35f, 1}, kWarn{1.0f, 0.8f, 0.2f, 1};

// "120" for 120x1x1, "16x8" for 16x8x1: a launch's shape as the program wrote it.
std::string shape(const Dim3& d) {
    if (d.y == 1 && d.z == 1) return std::to_string(d.x);
    if (d.z == 1) return std::to_string(d.x) + "x" + std::to_string(d.y);
    return d.str();
}

std::string end_words(const ProgramRun& r, bool script) {
    if (script) {
        if (r.end == ProgramRun::End::Returned) return "the script exited with status " + std::to_string(r.exit_status);
        if (r.end == ProgramRun::End::Crashed) return "its Python crashed";
        if (r.end == ProgramRun::End::NotRun) return "it could not start";
    }
    switch (r.end) {
        case ProgramRun::End::Returned: return "main() returned " + std::to_string(r.exit_status);
        case ProgramRun::End::Exited: return "it called exit(" + std::to_string(r.exit_status) + ")";
        case ProgramRun::End::Aborted: return "it aborted (exit status 134)";
        case ProgramRun::End::Crashed: return "its host code crashed";
        case ProgramRun::End::Stopped: return "the time limit stopped it";
        case ProgramRun::End::NotRun: return r.compiled ? "it could not start" : "it did not compile";
    }
    return "";
}

// Each parameter of the kernel `instance` names (`axpy<float>` -> axpy's) as written: its type ("T", "const float*")
// and its name; empty when the kernel is not found in `source`.
struct Param {
    std::string type, name;
};
std::vector<Param> kernel_params(const std::string& source, const std::string& instance) {
    std::string base = instance.substr(0, instance.find('<'));
    if (const size_t colon = base.rfind("::"); colon != std::string::npos) base = base.substr(colon + 2);
    for (const ScannedKernel& k : defined_kernels(scan_kernels(source))) {
        if (k.name != base) continue;
        std::vector<Param> types;
        std::string part;
        int depth = 0;
        auto finish = [&] {
            // The type: the part without its last identifier (the parameter's name).
            size_t end = part.find_last_not_of(" \t\n");
            if (end == std::string::npos) return;
            size_t start = end + 1;
            while (start > 0 && (std::isalnum(static_cast<unsigned char>(part[start - 1])) || part[start - 1] == '_'))
                --start;
            std::string type = part.substr(0, start);
            const size_t first = type.find_first_not_of(" \t\n"), last = type.find_last_not_of(" \t\n");
            const std::string name = part.substr(start, end + 1 - start);
            if (first == std::string::npos) types.push_back({name, ""});  // unnamed: the type alone
            else types.push_back({type.substr(first, last - first + 1), name});
            part.clear();
        };
        for (char c : k.params_text) {
            if (c == '<' || c == '(' || c == '[') ++depth;
            if (c == '>' || c == ')' || c == ']') --depth;
            if (c == ',' && depth == 0) {
                finish();
                continue;
            }
            part += c;
        }
        finish();
        return types;
    }
    return {};
}

// How a value of `type` (`bytes` bytes) is shown and edited.
enum class ValueKind { Float, Double, Signed, Unsigned, Raw };
ValueKind kind_of(std::string type, size_t bytes) {
    if (const size_t star = type.find('*'); star != std::string::npos) type = type.substr(0, star);  // a pointee
    auto has = [&](const char* w) { return type.find(w) != std::string::npos; };
    if (has("double") && bytes == 8) return ValueKind::Double;
    if (has("float") && bytes == 4) return ValueKind::Float;
    if ((has("unsigned") || has("size_t") || has("uint")) && (bytes == 4 || bytes == 8 || bytes == 1 || bytes == 2))
        return ValueKind::Unsigned;
    if ((has("int") || has("long") || has("short") || has("char")) && (bytes == 4 || bytes == 8 || bytes == 1 || bytes == 2))
        return ValueKind::Signed;
    return ValueKind::Raw;
}

// One element of `kind` and `size` bytes at `p`, as a double (for the plots).
double element(const std::byte* p, ValueKind kind, size_t size) {
    switch (kind) {
        case ValueKind::Float: { float v; std::memcpy(&v, p, 4); return v; }
        case ValueKind::Double: { double v; std::memcpy(&v, p, 8); return v; }
        case ValueKind::Signed:
            if (size == 8) { int64_t v; std::memcpy(&v, p, 8); return double(v); }
            if (size == 2) { int16_t v; std::memcpy(&v, p, 2); return v; }
            if (size == 1) return double(int8_t(p[0]));
            { int32_t v; std::memcpy(&v, p, 4); return v; }
        case ValueKind::Unsigned:
            if (size == 8) { uint64_t v; std::memcpy(&v, p, 8); return double(v); }
            if (size == 2) { uint16_t v; std::memcpy(&v, p, 2); return v; }
            if (size == 1) return double(uint8_t(p[0]));
            { uint32_t v; std::memcpy(&v, p, 4); return v; }
        case ValueKind::Raw: return double(uint8_t(p[0]));
    }
    return 0;
}

size_t element_size(const std::string& pointee) {
    const ValueKind k = kind_of(pointee, 4);
    if (pointee.find("double") != std::string::npos || pointee.find("long") != std::string::npos ||
        pointee.find("size_t") != std::string::npos)
        return 8;
    if (pointee.find("char") != std::string::npos) return 1;
    if (pointee.find("short") != std::string::npos) return 2;
    return k == ValueKind::Raw ? 1 : 4;
}

}  // namespace

void ProgramPanel::start_replay(size_t index) { state_.start_replay(index, change_of(index), wake_); }

ProgramLaunchChange ProgramPanel::change_of(size_t index) const {
    ReplayChanges changes;
    const ProgramLaunch& l = state_.last()->launches[index];
    const Dim3 grid{uint32_t(grid_[0]), uint32_t(grid_[1]), uint32_t(grid_[2])};
    const Dim3 block{uint32_t(block_[0]), uint32_t(block_[1]), uint32_t(block_[2])};
    if (!(grid == l.grid)) changes.grid = grid;
    if (!(block == l.block)) changes.block = block;
    for (size_t i = 0; i < scalars_.size() && i < l.args.size(); ++i)
        if (!l.args[i].pointer && scalars_[i] != bytes_of_hex(l.args[i].bytes_hex)) changes.scalars[i] = scalars_[i];
    return changes;
}

const ProgramPanel::Picture* ProgramPanel::picture(const std::string& key, const std::vector<std::byte>& bytes,
                                                   const ProgramBuffer& pb) {
    for (const Picture& p : pictures_)
        if (p.key == key) return &p;
    auto made = array_picture(bytes, pb.dtype, pb.shape);
    if (!made) return nullptr;
    // At most 12 kept: the oldest of another launch goes (the row being drawn holds pointers to this launch's).
    const std::string launch = key.substr(0, key.find(':', key.find(':') + 1) + 1);
    if (pictures_.size() >= 12)
        for (auto it = pictures_.begin(); it != pictures_.end(); ++it)
            if (it->key.rfind(launch, 0) != 0) {
                pictures_.erase(it);
                break;
            }
    Picture p;
    p.key = key;
    p.texture = render::texture_from_rgba8(made->rgba.data(), made->width, made->height);
    p.width = made->width;
    p.height = made->height;
    p.colour = made->colour;
    p.lo = made->lo;
    p.hi = made->hi;
    pictures_.push_back(std::move(p));
    return &pictures_.back();
}

bool ProgramPanel::add_pictures(const ReplayBuffer& b, const ProgramBuffer& pb, size_t index, bool written,
                                std::vector<ShownPicture>& row) {
    if (pb.dtype.empty()) return false;
    const std::string base = std::to_string(state_.runs_taken()) + ":" + std::to_string(state_.selected) + ":" +
                             std::to_string(index) + ":";
    const Picture* before = picture(base + "before", b.before, pb);
    if (!before) return false;  // not a picture (1D, or its size): plotted instead
    std::string dims;
    for (uint64_t n : pb.shape) dims += (dims.empty() ? "" : "x") + std::to_string(n);
    const std::string what = pb.name + " (" + pb.dtype + " " + dims + ")";
    row.push_back({what + (written ? ", before" : ", as read"), before});
    if (!written) return true;
    if (!b.program_after.empty())
        if (const Picture* p = picture(base + "after", b.program_after, pb)) row.push_back({pb.name + ", after", p});
    if (!b.replayed.empty())
        if (const Picture* p = picture(base + "replay" + std::to_string(state_.replays_taken()), b.replayed, pb))
            row.push_back({pb.name + ", after the re-run", p});
    return true;
}

void ProgramPanel::draw_picture_row(const std::vector<ShownPicture>& row) {
    if (row.empty()) return;
    // Side by side, as wide as the panel allows and 6 to 11 lines high, each keeping the array's proportions;
    // a grey one says its range under it.
    const float gap = ImGui::GetStyle().ItemSpacing.x;
    const float width = (ImGui::GetContentRegionAvail().x - gap * float(row.size() - 1)) / float(row.size());
    const float line = ImGui::GetTextLineHeightWithSpacing();  // within what is left of the panel, 6 to 11 lines
    const float max_height = std::clamp(ImGui::GetContentRegionAvail().y - 3 * line, 6 * line, 11 * line);
    for (size_t k = 0; k < row.size(); ++k) {
        const Picture* p = row[k].picture;
        if (k) ImGui::SameLine();
        ImGui::BeginGroup();
        ImGui::PushTextWrapPos(ImGui::GetCursorPosX() + width);
        ImGui::TextUnformatted(row[k].label.c_str());
        ImGui::PopTextWrapPos();
        const float scale = std::min(width / float(p->width), max_height / float(p->height));
        ImGui::Image(texture_id(p->texture), ImVec2(float(p->width) * scale, float(p->height) * scale));
        if (ImGui::IsItemHovered()) {  // the element under the pointer
            const ImVec2 at = ImGui::GetItemRectMin(), mouse = ImGui::GetMousePos();
            const int x = std::clamp(int((mouse.x - at.x) / scale), 0, p->width - 1);
            const int y = std::clamp(int((mouse.y - at.y) / scale), 0, p->height - 1);
            ImGui::SetTooltip("row %d, column %d", y, x);
        }
        if (!p->colour && !(p->lo == 0 && p->hi == 255)) ImGui::TextDisabled("grey: %g to %g", p->lo, p->hi);
        ImGui::EndGroup();
    }
}

void ProgramPanel::draw_buffer(const ReplayBuffer& b, const std::string& type, size_t index) {
    std::string pointee = type;
    if (const size_t star = pointee.find('*'); star != std::string::npos) pointee = pointee.substr(0, star);
    const size_t size = element_size(pointee);
    const ValueKind kind = kind_of(pointee, size);
    const size_t count = b.before.size() / size;
    ImGui::PushID(int(index));
    ImGui::Text("%s: %s elements of %s", b.name.c_str(), std::to_string(uint64_t(count)).c_str(),
                kind == ValueKind::Raw ? "bytes" : (pointee.empty() ? "?" : pointee.c_str()));
    // At most 2048 points per line: every k-th element.
    const size_t step = std::max<size_t>(1, (count + 2047) / 2048);
    std::vector<double> xs, before, after, again;
    for (size_t i = 0; i < count; i += step) {
        xs.push_back(double(i));
        before.push_back(element(b.before.data() + i * size, kind, size));
        if (b.program_after.size() >= (i + 1) * size) after.push_back(element(b.program_after.data() + i * size, kind, size));
        if (b.replayed.size() >= (i + 1) * size) again.push_back(element(b.replayed.data() + i * size, kind, size));
    }
    const float height = 7 * ImGui::GetTextLineHeightWithSpacing();
    if (!xs.empty() && ImPlot::BeginPlot("##buffer", ImVec2(-1, height), ImPlotFlags_NoTitle)) {
        ImPlot::SetupAxes("element", nullptr, ImPlotAxisFlags_AutoFit, ImPlotAxisFlags_AutoFit);
        ImPlot::SetupLegend(ImPlotLocation_NorthEast);
        ImPlot::PlotLine("before", xs.data(), before.data(), int(xs.size()));
        if (after.size() == xs.size()) ImPlot::PlotLine("after (the program's launch)", xs.data(), after.data(), int(xs.size()));
        if (again.size() == xs.size()) {  // on top, thicker: where it differs from the program's it shows
            ImPlot::PlotLine("after the re-run", xs.data(), again.data(), int(xs.size()),
                             ImPlotSpec(ImPlotProp_LineColor, ImVec4(0.45f, 0.85f, 0.45f, 1.0f), ImPlotProp_LineWeight,
                                        2.5f));
        }
        ImPlot::EndPlot();
    }
    ImGui::PopID();
}

void ProgramPanel::draw_launch(const ProgramRun& run, size_t index) {
    const ProgramLaunch& l = run.launches[index];
    const std::string name = l.instance.empty() ? l.kernel : l.instance;
    ImGui::SeparatorText(("Launch " + std::to_string(index + 1) + ": " + name + " (" + launch_site_text(l) + ")").c_str());
    if (edited_run_ != state_.runs_taken() || edited_index_ != index) {  // another launch or run: its own values
        edited_run_ = state_.runs_taken();
        edited_index_ = index;
        lesson_refusal_.clear();
        const uint32_t g[3] = {l.grid.x, l.grid.y, l.grid.z}, b[3] = {l.block.x, l.block.y, l.block.z};
        for (int i = 0; i < 3; ++i) {
            grid_[i] = int(g[i]);
            block_[i] = int(b[i]);
        }
        scalars_.clear();
        for (const ProgramArg& a : l.args) scalars_.push_back(a.pointer ? std::vector<std::byte>() : bytes_of_hex(a.bytes_hex));
        // Its captured buffers, read out of the capture once, and which it wrote.
        shown_.clear();
        written_.clear();
        for (const ProgramBuffer& pb : l.buffers) {
            ReplayBuffer shown;
            shown.name = pb.name;
            if (pb.captured) shown.before = captured_bytes(state_.capture(), pb.before_at, pb.bytes);
            if (pb.captured && pb.has_after) shown.program_after = captured_bytes(state_.capture(), pb.after_at, pb.bytes);
            written_.push_back(!shown.program_after.empty() && shown.program_after != shown.before);
            shown_.push_back(std::move(shown));
        }
    }
    // A script's kernel is in its module (the script's text is Python around it).
    const std::vector<Param> params = kernel_params(l.module_source.empty() ? state_.last_request().source : l.module_source, name);
    const bool script = is_script_file(state_.last_request().path);
    const std::optional<std::string> refusal = replay_refusal(run, index);
    bool changed = false;
    ImGui::PushItemWidth(ImGui::GetFontSize() * 12);
    if (ImGui::InputInt3("grid", grid_)) changed = true;
    ImGui::SameLine();
    if (ImGui::InputInt3("block", block_)) changed = true;
    ImGui::PopItemWidth();
    for (int i = 0; i < 3; ++i) {
        grid_[i] = std::max(1, grid_[i]);
        block_[i] = std::max(1, block_[i]);
    }
    for (size_t i = 0; i < l.args.size(); ++i) {
        const ProgramArg& a = l.args[i];
        const std::string type = i < params.size() ? params[i].type : std::string();
        const std::string pname = i < params.size() && !params[i].name.empty() ? params[i].name
                                                                                : "argument " + std::to_string(i + 1);
        ImGui::PushID(int(i));
        if (a.pointer) {
            ImGui::Text("%s%s%s = %s%s", type.c_str(), type.empty() ? "" : " ", pname.c_str(),
                        a.buffer.empty() ? "a pointer into no allocation" : a.buffer.c_str(),
                        a.offset ? (" + " + std::to_string(a.offset) + " bytes").c_str() : "");
        } else {
            std::vector<std::byte>& v = scalars_[i];
            const ValueKind kind = kind_of(type, v.size());
            const std::string label = (type.empty() ? std::string("value") : type) + " " + pname;
            ImGui::SetNextItemWidth(ImGui::GetFontSize() * 8);
            ImGuiDataType t = ImGuiDataType_U8;
            if (kind == ValueKind::Float) t = ImGuiDataType_Float;
            else if (kind == ValueKind::Double) t = ImGuiDataType_Double;
            else if (kind == ValueKind::Signed) t = v.size() == 8 ? ImGuiDataType_S64 : v.size() == 2 ? ImGuiDataType_S16 : v.size() == 1 ? ImGuiDataType_S8 : ImGuiDataType_S32;
            else if (kind == ValueKind::Unsigned) t = v.size() == 8 ? ImGuiDataType_U64 : v.size() == 2 ? ImGuiDataType_U16 : v.size() == 1 ? ImGuiDataType_U8 : ImGuiDataType_U32;
            if (kind != ValueKind::Raw && !v.empty()) {
                if (ImGui::InputScalar(label.c_str(), t, v.data())) changed = true;
            } else {
                ImGui::Text("%s = %s (%u bytes)", label.c_str(), a.bytes_hex.c_str(), a.size);
            }
        }
        ImGui::PopID();
    }
    if (refusal) {
        ImGui::PushTextWrapPos(0.0f);
        ImGui::TextDisabled("Re-running it alone: %s.", refusal->c_str());
        ImGui::PopTextWrapPos();
    } else {
        const bool asked = ImGui::Button("Re-run this launch");
        ImGui::SameLine();
        ImGui::Checkbox("live: re-run as the values change", &live_);
        if (asked || (changed && live_)) start_replay(index);
    }
    // The launch as a lesson: its views (output, coverage, launch view, memory view, timing) on its captured data.
    if (open_as_lesson_) {
        if (!refusal) ImGui::SameLine();
        if (ImGui::Button("Open as a lesson")) lesson_refusal_ = open_as_lesson_(index);
        if (ImGui::IsItemHovered())
            ImGui::SetTooltip("Saves this launch with its captured inputs and outputs as a lesson and opens it: the "
                              "Output, coverage, Launch view, Memory and Timing panels show it, and any grid or block "
                              "is checked against what the program's launch computed.");
        if (debug_) {
            ImGui::SameLine();
            if (ImGui::Button("Step through a block")) debug_(index);
            if (ImGui::IsItemHovered())
                ImGui::SetTooltip("Opens the Debug panel on this launch: one block (the one that faulted, if one did) "
                                  "run on the CPU backend on the inputs the program gave it, every thread's line and "
                                  "variables and the shared memory at each step, back and forth.");
        }
        if (!lesson_refusal_.empty()) {
            ImGui::PushTextWrapPos(0.0f);
            ImGui::TextColored(kBad, "%s", lesson_refusal_.c_str());
            ImGui::PopTextWrapPos();
        }
    }
    // The whole program again with this launch changed: what its host code does with the result (its own check).
    ImGui::BeginDisabled(state_.running());
    if (ImGui::Button(script ? "Run the script with this change" : "Run the program with this change")) {
        const ProgramLaunchChange change = change_of(index);
        std::map<size_t, ProgramLaunchChange> changes;
        changes[index] = change;
        state_.start(state_.last_request().source, state_.last_request().path, state_.last_revision(), wake_,
                     std::move(changes));
    }
    ImGui::EndDisabled();
    if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled))
        ImGui::SetTooltip("Runs the whole %s again; when it reaches this launch it makes it with the grid, block "
                          "and values above, and its output shows what followed.", script ? "script" : "program");
    const auto& replay = state_.last_replay();
    const bool mine = replay && replay->index == index;
    if (state_.replaying()) {
        ImGui::TextColored(kWarn, "Re-running ...");
    } else if (mine) {
        const LaunchReplay& rr = replay->result;
        ImGui::PushTextWrapPos(0.0f);
        if (rr.error) {
            ImGui::TextColored(kBad, "The re-run failed: %s", rr.error->message.c_str());
        } else if (rr.same_as_program) {
            ImGui::TextColored(kGood, "Re-run on its captured inputs (grid %s, block %s): %.3f ms; it wrote exactly what "
                                      "the program's launch wrote.", rr.grid.str().c_str(), rr.block.str().c_str(), rr.ms);
        } else {
            if (counted_replay_ != state_.replays_taken()) {  // once per replay: elements, in each buffer's type
                counted_replay_ = state_.replays_taken();
                differing_.assign(rr.buffers.size(), 0);
                for (size_t k = 0; k < rr.buffers.size() && k < l.buffers.size(); ++k) {
                    std::string pointee;
                    for (size_t i = 0; i < l.args.size(); ++i)
                        if (l.args[i].pointer && l.args[i].buffer == l.buffers[k].name && i < params.size())
                            pointee = params[i].type.substr(0, params[i].type.find('*'));
                    const size_t size = element_size(pointee);
                    const ReplayBuffer& b = rr.buffers[k];
                    for (size_t e = 0; e + size <= b.replayed.size(); e += size)
                        if (e + size > b.program_after.size() ||
                            std::memcmp(b.replayed.data() + e, b.program_after.data() + e, size) != 0)
                            ++differing_[k];
                }
            }
            std::string differ;
            for (size_t k = 0; k < rr.buffers.size() && k < differing_.size(); ++k)
                if (differing_[k])
                    differ += (differ.empty() ? "" : ", ") + std::to_string(differing_[k]) + " elements of `" +
                              rr.buffers[k].name + "`";
            ImGui::TextColored(differ.empty() ? kGood : kWarn, "Re-run on its captured inputs (grid %s, block %s): %.3f ms; %s",
                               rr.grid.str().c_str(), rr.block.str().c_str(), rr.ms,
                               differ.empty() ? "it wrote what the program's launch wrote."
                                              : (differ + " differ from what the program's launch wrote.").c_str());
        }
        ImGui::PopTextWrapPos();
    }
    // The buffers it wrote, plotted: before, after the program's launch, and after the re-run; the others listed.
    // A script's 2D arrays are pictures instead, all of the launch's in one row (its input beside its output).
    std::string only_read, not_captured;
    std::vector<ShownPicture> pictures;
    for (size_t k = 0; k < l.buffers.size() && k < shown_.size(); ++k) {
        const ProgramBuffer& pb = l.buffers[k];
        std::string type;
        for (size_t i = 0; i < l.args.size(); ++i)
            if (l.args[i].pointer && l.args[i].buffer == pb.name && i < params.size()) type = params[i].type;
        const bool replayed = mine && !replay->result.error && k < replay->result.buffers.size();
        if (!pb.captured) {
            not_captured += (not_captured.empty() ? "" : ", ") + pb.name;
        } else if (written_[k] || (replayed && replay->result.buffers[k].replayed != shown_[k].before)) {
            const ReplayBuffer& b = replayed ? replay->result.buffers[k] : shown_[k];  // the re-run's has all three
            if (!add_pictures(b, pb, k, true, pictures)) draw_buffer(b, type, k);
        } else if (!add_pictures(shown_[k], pb, k, false, pictures)) {  // read only: a picture "as read", or listed
            only_read += (only_read.empty() ? "" : ", ") + pb.name;
        }
    }
    draw_picture_row(pictures);
    ImGui::PushTextWrapPos(0.0f);
    if (!only_read.empty()) ImGui::TextDisabled("Read, not written: %s", only_read.c_str());
    if (!not_captured.empty())
        ImGui::TextDisabled("Not captured (past the capture's size limit): %s", not_captured.c_str());
    ImGui::PopTextWrapPos();
}

void ProgramPanel::draw() {
    const bool running = state_.running();
    if (!state_.last() && !running) {
        text_disabled_wrapped("Open a file with its own main(), or a PyCUDA or CuPy script (.py), with File > Open to run "
                              "it as written: its output, its exit status and every launch it makes appear here.");
        return;
    }
    if (running) {
        ImGui::TextColored(kWarn, "Running %s ... (%.1f s)",
                           std::filesystem::path(state_.started_path()).filename().string().c_str(),
                           now_ - state_.started_at);
    }
    if (!state_.last()) return;
    const ProgramRun& r = *state_.last();
    const bool clean = (r.end == ProgramRun::End::Returned || r.end == ProgramRun::End::Exited) && r.exit_status == 0;
    size_t faulted = 0;
    for (const ProgramLaunch& l : r.launches) faulted += l.error.has_value();
    ImGui::PushTextWrapPos(0.0f);
    ImGui::TextColored(clean && !faulted ? kGood : kBad, "%s: %s; %s on %s%s",
                       std::filesystem::path(state_.last_path()).filename().string().c_str(),
                       end_words(r, is_script_file(state_.last_path())).c_str(),
                       count_text(r.launches.size(), "launch", "launches").c_str(), r.device.c_str(),
                       faulted ? (", " + std::to_string(faulted) + " with an error").c_str() : "");
    if (r.error) ImGui::TextColored(kBad, "%s", r.error->message.c_str());
    ImGui::PopTextWrapPos();

    // Its natural height: a wrapped message takes the lines it needs; the panel scrolls past many launches.
    if (!r.launches.empty() &&
        ImGui::BeginTable("##launches", 6,
                          ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV | ImGuiTableFlags_SizingFixedFit)) {
        ImGui::TableSetupColumn("#");
        ImGui::TableSetupColumn("Kernel");
        ImGui::TableSetupColumn("Line");
        ImGui::TableSetupColumn("Grid x block");
        ImGui::TableSetupColumn("Time");
        ImGui::TableSetupColumn("Result", ImGuiTableColumnFlags_WidthStretch);
        ImGui::TableHeadersRow();
        for (size_t i = 0; i < r.launches.size(); ++i) {
            const ProgramLaunch& l = r.launches[i];
            ImGui::TableNextRow();
            ImGui::TableNextColumn();
            if (ImGui::Selectable(std::to_string(i + 1).c_str(), state_.selected == i, ImGuiSelectableFlags_SpanAllColumns))
                state_.selected = i;
            ImGui::TableNextColumn();
            if (l.changed) ImGui::TextColored(kWarn, "%s (changed)", l.kernel.c_str());
            else ImGui::TextUnformatted(l.kernel.c_str());
            ImGui::TableNextColumn();
            if (l.file.empty()) ImGui::Text("%d", l.line);
            else ImGui::Text("%s:%d", l.file.c_str(), l.line);
            ImGui::TableNextColumn();
            ImGui::Text("%s x %s", shape(l.grid).c_str(), shape(l.block).c_str());
            ImGui::TableNextColumn();
            if (l.error && l.error->kind == ErrorKind::LaunchRefused) ImGui::TextDisabled("-");
            else ImGui::Text("%.2f ms", l.ms);
            ImGui::TableNextColumn();
            if (!l.error) {
                ImGui::TextColored(kGood, "ok");
            } else {
                ImGui::PushTextWrapPos(0.0f);
                ImGui::TextColored(kBad, "%s", l.error->message.c_str());
                ImGui::PopTextWrapPos();
                if (l.cuda_error) ImGui::TextDisabled("the program saw %s", cuda_error_name(l.cuda_error).c_str());
            }
        }
        ImGui::EndTable();
    }
    if (state_.selected < r.launches.size()) draw_launch(r, state_.selected);
    ImGui::SeparatorText("Its output");
    const float lines = ImGui::GetTextLineHeightWithSpacing();
    ImGui::BeginChild("##program_output", ImVec2(0, std::max(ImGui::GetContentRegionAvail().y, 6 * lines)),
                      ImGuiChildFlags_Borders);
    ImGui::PushFont(mono_font(), 0.0f);
    ImGui::PushTextWrapPos(0.0f);
    if (r.stdout_text.empty() && r.stderr_text.empty()) ImGui::TextDisabled("(it printed nothing)");
    ImGui::TextUnformatted(r.stdout_text.c_str());
    if (!r.stderr_text.empty()) ImGui::TextColored(kWarn, "%s", r.stderr_text.c_str());
    ImGui::PopTextWrapPos();
    ImGui::PopFont();
    ImGui::EndChild();
}

}  // namespace cp::ui
