// Debug panel (see debug_panel.h). The rows, columns and shared arrays come from ui/state/debug_view.h; this file
// lays them out for a projector: the grid's first columns (thread, threadIdx, line) stay put while the variables
// scroll, a changed value has a yellow cell, a waiting thread's row is dimmed and a returned one greyed out.
//
// Sections: colours · draw · the controls (block, warp, moves, slider) · the warp-watch grid · shared memory
#include "ui/panels/debug_panel.h"

#include "ui/widgets.h"

#include <imgui.h>

#include <algorithm>
#include <cstdio>
#include <string>

namespace cp::ui {
namespace {

const ImVec4 kChanged(0.95f, 0.80f, 0.25f, 1);  // a value the last step changed: on a dark yellow cell
const ImU32 kChangedCell = IM_COL32(110, 90, 20, 255);
const ImU32 kSelectedRow = IM_COL32(40, 70, 120, 255);
const ImVec4 kFault(1.0f, 0.45f, 0.40f, 1);

const char* state_text(DebugThreadState s) {
    switch (s) {
        case DebugThreadState::NotStarted: return "not started";
        case DebugThreadState::Stepped: return "stepped";
        case DebugThreadState::Waiting: return "waiting";
        case DebugThreadState::Returned: return "returned";
    }
    return "";
}

std::string dim3_text(const Dim3& d) {
    return "(" + std::to_string(d.x) + "," + std::to_string(d.y) + "," + std::to_string(d.z) + ")";
}

}  // namespace

void DebugPanel::note_button(const std::string& name) {
    const ImVec2 a = ImGui::GetItemRectMin(), b = ImGui::GetItemRectMax();
    drawn_.buttons[name] = Cell{a.x, a.y, b.x, b.y, name, false};
}

void DebugPanel::draw() {
    drawn_recently = true;
    drawn_ = Drawn();
    draw_controls();
    DebugViewState& s = state_;
    if (!s.has()) {
        if (s.recording) {
            drawn_.status = "Recording block " + dim3_text(s.block) + " on the CPU backend...";
            ImGui::TextUnformatted(drawn_.status.c_str());
        } else if (!s.error.empty()) {
            drawn_.status = s.error;
            ImGui::PushStyleColor(ImGuiCol_Text, kFault);
            ImGui::TextWrapped("%s", s.error.c_str());
            ImGui::PopStyleColor();
        } else {
            drawn_.status = "The block is recorded after the kernel's next run.";
            text_disabled_wrapped("%s", drawn_.status.c_str());
        }
        return;
    }
    draw_grid();
    draw_shared();
}

// The block, the warp, the moves and the slider; the stop's place and the recording's state under them.
void DebugPanel::draw_controls() {
    DebugViewState& s = state_;
    const std::optional<Dim3> grid = actions_.grid ? actions_.grid() : std::nullopt;
    ImGui::AlignTextToFramePadding();
    ImGui::TextUnformatted("Block");
    ImGui::SameLine();
    int b[3] = {int(s.block.x), int(s.block.y), int(s.block.z)};
    ImGui::SetNextItemWidth(ImGui::CalcTextSize("0000000000").x * 1.6f);
    if (ImGui::InputInt3("##block", b, ImGuiInputTextFlags_EnterReturnsTrue)) {
        for (int& v : b) v = std::max(v, 0);
        s.block = {uint32_t(b[0]), uint32_t(b[1]), uint32_t(b[2])};
    }
    if (ImGui::IsItemHovered() && grid)
        ImGui::SetTooltip("the block to step through: x, y, z below the grid's %s (Enter)", grid->str().c_str());
    if (actions_.faulted_block)
        if (const std::optional<Dim3> f = actions_.faulted_block(); f && !(*f == s.block)) {
            const std::string label = "Block that faulted " + dim3_text(*f);
            same_line_if_fits(button_width(label.c_str()));
            if (ImGui::Button(label.c_str()) && actions_.debug_faulted) actions_.debug_faulted();
        }
    if (s.has()) {
        const std::string warp_label =
            s.warp < 0 ? std::string("All threads")
                       : "Warp " + std::to_string(s.warp) + " (threads " + std::to_string(s.warp * 32) + "-" +
                             std::to_string(std::min<uint32_t>(s.recording_data()->threads, uint32_t(s.warp) * 32 + 32) - 1) +
                             ")";
        same_line_if_fits(ImGui::CalcTextSize("Warp 00 (threads 000-000)").x + ImGui::GetFrameHeight() * 2);
        ImGui::SetNextItemWidth(ImGui::CalcTextSize("Warp 00 (threads 000-000)").x + ImGui::GetFrameHeight());
        if (ImGui::BeginCombo("##warp", warp_label.c_str())) {
            if (ImGui::Selectable("All threads", s.warp < 0)) s.set_warp(-1);
            for (uint32_t w = 0; w < s.warps(); ++w) {
                const std::string label = "Warp " + std::to_string(w);
                if (ImGui::Selectable(label.c_str(), s.warp == int(w))) s.set_warp(int(w));
            }
            ImGui::EndCombo();
        }
        if (s.warp >= 0) {
            same_line_if_fits(ImGui::CalcTextSize("alone").x + ImGui::GetFrameHeight() * 2);
            ImGui::Checkbox("alone", &s.warp_alone);
            note_button("Alone");
            if (ImGui::IsItemHovered())
                ImGui::SetTooltip("this warp steps alone: each step runs only its threads, the other warps wait at "
                                  "their line until it reaches a __syncthreads() or returns, then they go on (recorded "
                                  "again)");
        }
    }
    const bool has = s.has() && s.rounds() > 0;
    // Watches: an expression per column after the variables (Enter adds it; a click on one removes it).
    {
        const char* hint = "watch: in[i] * 2";
        same_line_if_fits(ImGui::CalcTextSize(hint).x + ImGui::GetFrameHeight());
        ImGui::SetNextItemWidth(ImGui::CalcTextSize(hint).x + ImGui::GetFrameHeight());
        if (ImGui::InputTextWithHint("##watch_expr", hint, watch_text_, sizeof watch_text_,
                                     ImGuiInputTextFlags_EnterReturnsTrue)) {
            s.add_watch(watch_text_);
            watch_text_[0] = '\0';
        }
        if (ImGui::IsItemHovered())
            ImGui::SetTooltip("an expression for each thread: its variables, threadIdx.x, blockIdx.x, blockDim.x, "
                              "__shared__ elements (partial[tid + stride], tile[ty][tx]) and, through a pointer, the value "
                              "the block last loaded or stored there (in[i] * 2); Enter adds it");
        for (size_t w = 0; w < s.watches().size(); ++w) {
            const std::string label = s.watches()[w] + "  x##w" + std::to_string(w);
            same_line_if_fits(button_width(label.c_str()));
            if (ImGui::SmallButton(label.c_str())) {
                s.remove_watch(w);
                break;
            }
            if (ImGui::IsItemHovered()) ImGui::SetTooltip("remove this watch");
        }
    }
    ImGui::BeginDisabled(!has);
    auto move = [&](const char* label, const char* name, const char* tip, auto&& act) {
        same_line_if_fits(button_width(label));
        if (ImGui::Button(label)) act();
        note_button(name);
        if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled)) ImGui::SetTooltip("%s", tip);
    };
    ImGui::NewLine();
    ImGui::SameLine(0, 0);
    move("|<", "Start", "back to the block's first statement", [&] { s.set_round(0); });
    move("< Back", "Back", "one step back (Shift+F10)", [&] { s.step_back(); });
    move("Step >", "Step", "the watched threads run one statement each (F10)", [&] { s.step_forward(); });
    move("Continue", "Continue", "on to the next breakpoint: click a line number in the Editor, or F9 (F8)",
         [&] { s.continue_to_breakpoint(); });
    move("Next __syncthreads()", "Barrier", "on to the next barrier, where every thread waits (F7)",
         [&] { s.next_barrier(); });
    move(">|", "End", "the block's end", [&] { s.set_round(s.rounds() ? s.rounds() - 1 : 0); });
    ImGui::EndDisabled();
    if (has) {
        int r = int(s.round()) + 1;
        ImGui::SetNextItemWidth(-1);
        if (ImGui::SliderInt("##round", &r, 1, int(s.rounds()), "round %d")) s.set_round(uint32_t(std::max(r, 1) - 1));
        if (ImGui::IsItemHovered())
            ImGui::SetTooltip("every step of the block, recorded once: drag back and forth (a round: every thread that "
                              "can run executes one statement)");
        const DebugRecording& rec = *s.recording_data();
        if (!s.subject.empty()) text_disabled_wrapped("%s", s.subject.c_str());
        drawn_.status = "Block " + dim3_text(rec.block_index) + ", " + std::to_string(rec.threads) + " threads: " +
                        s.where_text();
        if (rec.focus_warp >= 0)
            drawn_.status += " \xc2\xb7 warp " + std::to_string(rec.focus_warp) + " steps alone, the others wait";
        if (!s.marks.threads_at.empty()) {
            drawn_.status += std::string(" \xc2\xb7 ") + (s.warp < 0 ? "threads: " : "warp " + std::to_string(s.warp) + ": ");
            bool first = true;
            for (const auto& [line, n] : s.marks.threads_at) {
                drawn_.status += (first ? "" : ", ") + std::to_string(n) + " at line " + std::to_string(line);
                first = false;
            }
        }
        ImGui::TextWrapped("%s", drawn_.status.c_str());
        text_disabled_wrapped("yellow: changed since the last stop \xc2\xb7 `=`: waiting (a barrier, a warp operation) "
                              "\xc2\xb7 click a value for the step that set it");
        if (const std::optional<LaunchFailure>* f = s.failure(); f && *f) {
            ImGui::PushStyleColor(ImGuiCol_Text, kFault);
            ImGui::TextWrapped("The block stopped%s: %s",
                               (*f)->line ? (" at line " + std::to_string((*f)->line)).c_str() : "",
                               (*f)->named_message().c_str());
            ImGui::PopStyleColor();
        }
        if (s.recording) text_disabled_wrapped("recording again after the edit...");
        else if (s.stale()) text_disabled_wrapped("the text or the choices changed: recorded again once typing pauses");
        if (rec.truncated)
            text_disabled_wrapped("the recording reached its %llu MiB cap after %u rounds: the rest of the block ran "
                                  "unrecorded",
                                  static_cast<unsigned long long>(rec.cap_bytes >> 20), rec.rounds);
    }
}

// The warp-watch grid: a row per watched thread, the variables in scope at the stop as columns.
void DebugPanel::draw_grid() {
    DebugViewState& s = state_;
    const std::vector<std::string>& columns = s.columns();
    const std::vector<DebugRow>& rows = s.rows();
    drawn_.header = {"thread", "threadIdx", "line"};
    for (const std::string& c : columns) drawn_.header.push_back(c);
    const int ncol = int(drawn_.header.size());
    // Half the room for the grid when there is shared memory to show under it (a header and at least 5 rows).
    const float avail = ImGui::GetContentRegionAvail().y;
    const float height = std::max(ImGui::GetTextLineHeightWithSpacing() * 6,
                                  s.shared().empty() ? avail : avail * 0.45f);
    const ImGuiTableFlags flags = ImGuiTableFlags_ScrollX | ImGuiTableFlags_ScrollY | ImGuiTableFlags_RowBg |
                                  ImGuiTableFlags_BordersInnerV | ImGuiTableFlags_SizingFixedFit;
    if (!ImGui::BeginTable("##watch", std::min(ncol, 64), flags, ImVec2(0, height))) return;
    ImGui::TableSetupScrollFreeze(3, 1);
    for (int c = 0; c < std::min(ncol, 64); ++c) ImGui::TableSetupColumn(drawn_.header[size_t(c)].c_str());
    ImGui::TableHeadersRow();
    ImGuiListClipper clipper;
    clipper.Begin(int(rows.size()));
    while (clipper.Step()) {
        for (int i = clipper.DisplayStart; i < clipper.DisplayEnd; ++i) {
            const DebugRow& row = rows[size_t(i)];
            ImGui::TableNextRow();
            const bool dim = row.state == DebugThreadState::Waiting || row.state == DebugThreadState::NotStarted;
            const bool gone = row.state == DebugThreadState::Returned;
            if (s.selected_thread && *s.selected_thread == row.thread)
                ImGui::TableSetBgColor(ImGuiTableBgTarget_RowBg0, kSelectedRow);
            std::vector<Cell> cells;
            auto cell = [&](const std::string& text, bool changed, const char* tip) {
                const ImVec2 a = ImGui::GetCursorScreenPos();
                if (changed) ImGui::TableSetBgColor(ImGuiTableBgTarget_CellBg, kChangedCell);
                if (gone) ImGui::TextDisabled("%s", text.c_str());
                else if (changed) ImGui::TextColored(kChanged, "%s", text.c_str());
                else if (dim) ImGui::TextColored(ImVec4(0.70f, 0.70f, 0.72f, 1), "%s", text.c_str());
                else ImGui::TextUnformatted(text.c_str());
                if (tip && ImGui::IsItemHovered()) ImGui::SetTooltip("%s", tip);
                const ImVec2 b = ImGui::GetItemRectMax();
                cells.push_back({a.x, a.y, b.x, b.y, text, changed});
            };
            ImGui::TableSetColumnIndex(0);
            cell(std::to_string(row.thread), false, nullptr);
            ImGui::TableSetColumnIndex(1);
            cell(dim3_text(row.index), false, nullptr);
            ImGui::TableSetColumnIndex(2);
            const std::string line = row.line ? std::to_string(row.line) : std::string("-");
            const std::string where =
                row.state == DebugThreadState::Returned ? "returned" : line + (row.state == DebugThreadState::Waiting ? " =" : "");
            cell(where, false, state_text(row.state));
            for (size_t c = 0; c < columns.size() && int(c) + 3 < 64; ++c) {
                ImGui::TableSetColumnIndex(int(c) + 3);
                cell(row.values[c], row.changed[c], nullptr);
                const bool is_watch = c >= columns.size() - s.watches().size();
                if (is_watch) {
                    const auto why = s.watch_notes().find({row.thread, c});
                    if (why != s.watch_notes().end() && ImGui::IsItemHovered()) ImGui::SetTooltip("%s", why->second.c_str());
                    continue;
                }
                if (!row.values[c].empty() && ImGui::IsItemHovered())
                    ImGui::SetTooltip("%s = %s in thread %u: click to go to the step that set it", columns[c].c_str(),
                                      row.values[c].c_str(), row.thread);
                if (!row.values[c].empty() && ImGui::IsItemClicked()) s.jump_to_writer(row.thread, columns[c]);
            }
            drawn_.rows.push_back(std::move(cells));
        }
    }
    ImGui::EndTable();
}

// Each shared array at the stop, by index; 2-D arrays as rows. A cell's hover names its last writer; a click goes
// to that store.
void DebugPanel::draw_shared() {
    DebugViewState& s = state_;
    const DebugRecording& rec = *s.recording_data();
    const std::vector<DebugSharedView>& arrays = s.shared();
    const std::string touched = s.touched_text();
    drawn_.touched = touched;
    if (arrays.empty() && touched.empty()) return;
    if (!touched.empty()) {
        ImGui::TextDisabled("Global memory touched so far:");
        ImGui::SameLine();
        ImGui::TextWrapped("%s", touched.c_str());
    }
    if (arrays.empty()) return;
    ImGui::BeginChild("##shared", ImVec2(0, 0), ImGuiChildFlags_None, ImGuiWindowFlags_HorizontalScrollbar);
    if (rec.accesses_recorded) ImGui::Checkbox("Show who wrote each element", &show_writers_);
    for (size_t a = 0; a < arrays.size(); ++a) {
        const DebugSharedView& v = arrays[a];
        std::string dims;
        for (uint64_t e : v.extents) dims += "[" + std::to_string(e) + "]";
        ImGui::Text("__shared__ %s%s", v.name.c_str(), dims.c_str());
        const uint64_t n = v.values.size();
        float cell_w = ImGui::CalcTextSize("-0000").x;
        for (uint64_t i = 0; i < n && i < 4096; ++i)
            cell_w = std::max(cell_w, ImGui::CalcTextSize(v.values[size_t(i)].c_str()).x);
        cell_w += ImGui::GetStyle().ItemSpacing.x;
        const float label_w = ImGui::CalcTextSize("[0000]").x + ImGui::GetStyle().ItemSpacing.x;
        // A 2-D array row by row; a flat one in rows of as many elements as fit, a multiple of 4 (at least 8).
        const uint64_t fit = uint64_t(std::max(1.0f, (ImGui::GetContentRegionAvail().x - label_w) / cell_w));
        const uint64_t per_row = v.extents.size() >= 2 ? v.extents.back()
                                                       : std::min<uint64_t>(n, std::max<uint64_t>(8, fit / 4 * 4));
        if (per_row == 0) continue;
        std::vector<Cell>& cells = drawn_.shared[v.name];
        ImDrawList* dl = ImGui::GetWindowDrawList();
        const float lh = ImGui::GetTextLineHeightWithSpacing();
        for (uint64_t i = 0; i < n && i < 4096; i += per_row) {
            const ImVec2 origin = ImGui::GetCursorScreenPos();
            const std::string label = v.extents.size() >= 2 ? "[" + std::to_string(i / per_row) + "]" : "[" + std::to_string(i) + "]";
            dl->AddText(origin, ImGui::GetColorU32(ImGuiCol_TextDisabled), label.c_str());
            for (uint64_t k = i; k < std::min(n, i + per_row); ++k) {
                const float x = origin.x + label_w + float(k - i) * cell_w;
                const ImVec2 c0(x, origin.y), c1(x + cell_w - 2, origin.y + lh - 1);
                const bool changed = v.changed[size_t(k)];
                if (changed) dl->AddRectFilled(c0, c1, kChangedCell);
                const std::string text = show_writers_ ? (v.writers[size_t(k)] < 0 ? std::string("-")
                                                                                   : "t" + std::to_string(v.writers[size_t(k)]))
                                                       : v.values[size_t(k)];
                dl->AddText(ImVec2(x + 1, origin.y), ImGui::GetColorU32(changed ? kChanged : ImGui::GetStyleColorVec4(ImGuiCol_Text)),
                            text.c_str());
                cells.push_back({c0.x, c0.y, c1.x, c1.y, text, changed});
                ImGui::SetCursorScreenPos(c0);
                ImGui::PushID(int(a * 100000 + k));
                ImGui::InvisibleButton("##e", ImVec2(cell_w - 2, lh - 1));
                if (ImGui::IsItemHovered()) {
                    const std::string index = v.extents.size() >= 2
                                                  ? "[" + std::to_string(k / per_row) + "][" + std::to_string(k % per_row) + "]"
                                                  : "[" + std::to_string(k) + "]";
                    if (v.writers[size_t(k)] >= 0)
                        ImGui::SetTooltip("%s%s = %s, written last by thread %lld (line %d, round %u): click to go there",
                                          v.name.c_str(), index.c_str(), v.values[size_t(k)].c_str(),
                                          static_cast<long long>(v.writers[size_t(k)]), v.writer_lines[size_t(k)], v.writer_rounds[size_t(k)] + 1);
                    else
                        ImGui::SetTooltip("%s%s = %s, not written by this block yet", v.name.c_str(), index.c_str(),
                                          v.values[size_t(k)].c_str());
                }
                if (ImGui::IsItemClicked()) s.jump_to_shared_writer(a, k);
                ImGui::PopID();
            }
            ImGui::SetCursorScreenPos(ImVec2(origin.x, origin.y + lh));
            ImGui::Dummy(ImVec2(label_w + float(std::min(n - i, per_row)) * cell_w, 0));
        }
        if (n > 4096) ImGui::TextDisabled("... %llu more elements", static_cast<unsigned long long>(n - 4096));
    }
    ImGui::EndChild();
}

}  // namespace cp::ui
