// Code panel drawing (code_panel.h).
#include "ui/panels/code_panel.h"

#include "core/engine/occupancy.h"
#include "core/toolkit/opcode_help.h"
#include "ui/theme.h"
#include "ui/widgets.h"

#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace cp::ui {

namespace {

std::string bytes_text(int b) { return b < 0 ? std::string("?") : std::to_string(b) + " B"; }

// Where an instruction came from, for its row's first column: "12", or "4<12" for a helper inlined at line 12.
std::string lines_text(const std::vector<int>& lines) {
    if (lines.empty()) return "";
    std::string s = std::to_string(lines.front());
    if (lines.size() > 1) s += "<" + std::to_string(lines[1]);
    return s;
}

// Opcodes by what they do, coloured alike in both listings: memory, arithmetic, control, the rest.
ImVec4 opcode_colour(const std::string& op) {
    const auto starts = [&](const char* p) { return op.rfind(p, 0) == 0; };
    if (starts("LD") || starts("ST") || starts("ld.") || starts("st.") || starts("ATOM") || starts("RED") ||
        starts("atom.") || starts("red.") || starts("cp.") || starts("LDS") || starts("LDG"))
        return ImVec4(0.45f, 0.75f, 1.0f, 1);
    if (starts("BRA") || starts("EXIT") || starts("BAR") || starts("bra") || starts("ret") || starts("bar.") ||
        starts("CALL") || starts("RET") || starts("call") || starts("WARPSYNC") || starts("BSSY") || starts("BSYNC"))
        return ImVec4(1.0f, 0.70f, 0.35f, 1);
    if (starts("F") || starts("H") || starts("fma") || starts("mul") || starts("add") || starts("sub") ||
        starts("mad") || starts("div") || starts("IMAD") || starts("IADD") || starts("I") || starts("MUFU"))
        return ImVec4(0.60f, 0.90f, 0.55f, 1);
    return ImGui::GetStyleColorVec4(ImGuiCol_Text);
}

}  // namespace

void CodePanel::draw() {
    drawn_recently = true;
    view_.poll();
    const auto& code = view_.shown();
    // The architecture: the device's by default, or any NVRTC compiles for.
    const std::string device_arch =
        in_.device && in_.device->arch.rfind("sm_", 0) == 0 ? in_.device->arch : std::string("sm_90");
    const std::string arch = view_.arch.empty() ? device_arch : view_.arch;
    ImGui::SetNextItemWidth(ImGui::CalcTextSize("sm_1200 (device)").x + ImGui::GetFrameHeight() * 1.5f);
    if (ImGui::BeginCombo("##arch", (arch + (arch == device_arch ? " (device)" : "")).c_str())) {
        for (int a : in_.archs) {
            const std::string name = "sm_" + std::to_string(a);
            const std::string label = name + (name == device_arch ? " (device)" : "");
            if (ImGui::Selectable(label.c_str(), name == arch)) view_.arch = name == device_arch ? "" : name;
        }
        ImGui::EndCombo();
    }
    ImGui::SameLine();
    draw_compare_choice(arch);
    ImGui::SameLine();
    if (!code) {
        text_disabled_wrapped(view_.busy() ? "compiling and disassembling..." : "Open a kernel to see its machine code.");
        return;
    }
    if (view_.busy() || !view_.shown_is_latest()) {
        ImGui::TextDisabled("updating...");
        ImGui::SameLine();
    }
    if (!code->ok) {
        ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1, 0.55f, 0.45f, 1));
        ImGui::TextWrapped("The kernel does not compile for %s: the Editor marks the errors.", code->arch.c_str());
        ImGui::PopStyleColor();
        return;
    }
    draw_facts(*code);
    if (!code->sass_missing.empty()) {
        ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1, 0.8f, 0.35f, 1));
        ImGui::TextWrapped("No SASS: %s", code->sass_missing.c_str());
        ImGui::PopStyleColor();
    }
    // The picked line: its source and how many instructions it made in each.
    if (view_.picked_line > 0) {
        const int l = view_.picked_line;
        const auto count = [&](const CodeListing& c) { return c.per_line.count(l) ? c.per_line.at(l) : 0; };
        const std::string text = in_.source_line ? in_.source_line(l) : std::string();
        ImGui::TextWrapped("line %d: %d PTX, %d SASS instructions   %s", l, count(code->ptx), count(code->sass),
                           text.c_str());
    } else {
        text_disabled_wrapped("Put the editor's cursor on a line, or click an instruction, to link the two.");
    }
    const float height = ImGui::GetContentRegionAvail().y;
    if (!view_.compare_with.empty()) {
        const auto& other = view_.against();
        if (!other) {
            text_disabled_wrapped(view_.compare_with == "before"
                                      ? "Nothing to compare with yet: the comparison starts from the next edit that compiles."
                                      : "compiling the other side...");
        } else if (!other->ok) {
            ImGui::TextWrapped("The other side (%s) does not compile.", view_.compare_with.c_str());
        } else {
            draw_against(*code, *other);
            return;
        }
    }
    const bool both = code->sass.instructions > 0 && code->ptx.instructions > 0;
    if (both && ImGui::BeginTable("##listings", 2, ImGuiTableFlags_Resizable | ImGuiTableFlags_BordersInnerV)) {
        ImGui::TableSetupColumn("PTX");
        ImGui::TableSetupColumn("SASS");
        ImGui::TableNextRow();
        ImGui::TableNextColumn();
        draw_listing(0, code->ptx, height);
        ImGui::TableNextColumn();
        draw_listing(1, code->sass, height);
        ImGui::EndTable();
    } else {
        rows_[0].clear();
        rows_[1].clear();
        highlighted_[0].clear();
        highlighted_[1].clear();
        lit_of_[0] = lit_of_[1] = nullptr;
        draw_listing(code->sass.instructions > 0 ? 1 : 0, code->sass.instructions > 0 ? code->sass : code->ptx, height);
    }
}

void CodePanel::draw_compare_choice(const std::string& arch) {
    const auto label_of = [&](const std::string& c) -> std::string {
        if (c.empty()) return "compare with...";
        if (c == "before") return "vs. before this edit";
        if (c.rfind("lesson:", 0) == 0) return "vs. " + c.substr(7);
        return "vs. " + c;
    };
    ImGui::SetNextItemWidth(ImGui::CalcTextSize("vs. before this edit").x + ImGui::GetFrameHeight() * 1.5f);
    if (!ImGui::BeginCombo("##compare", label_of(view_.compare_with).c_str())) return;
    if (ImGui::Selectable("nothing", view_.compare_with.empty())) view_.compare_with.clear();
    if (ImGui::Selectable("the version before this edit", view_.compare_with == "before")) view_.compare_with = "before";
    if (in_.compare_lessons)
        for (const std::string& lesson : in_.compare_lessons()) {
            const std::string key = "lesson:" + lesson;
            if (ImGui::Selectable(lesson.c_str(), view_.compare_with == key)) view_.compare_with = key;
        }
    for (int a : in_.archs) {
        const std::string name = "sm_" + std::to_string(a);
        if (name == arch) continue;
        if (ImGui::Selectable(("this file for " + name).c_str(), view_.compare_with == name)) view_.compare_with = name;
    }
    ImGui::EndCombo();
}

void CodePanel::draw_against(const MachineCode& code, const MachineCode& other) {
    const bool sass = code.sass.instructions > 0 && other.sass.instructions > 0;
    const CodeListing& a = sass ? code.sass : code.ptx;
    const CodeListing& b = sass ? other.sass : other.ptx;
    if (diffed_a_ != &code || diffed_b_ != &other) {
        diff_ = diff_listings(a, b);
        diffed_a_ = &code;
        diffed_b_ = &other;
    }
    const ResourceUsage& ub = other.compile.usage;
    ImGui::TextWrapped("that (%s): %d registers, spills %d / %d B, stack %d B, shared %d B; %d against %d %s instructions",
                       view_.compare_with.c_str(), ub.registers, ub.spill_store_bytes, ub.spill_load_bytes, ub.local_bytes,
                       ub.static_shared_bytes, a.instructions, b.instructions, sass ? "SASS" : "PTX");
    // The opcodes whose counts differ most, this : that.
    std::vector<std::pair<std::string, std::pair<int, int>>> ops(diff_.opcodes.begin(), diff_.opcodes.end());
    std::stable_sort(ops.begin(), ops.end(), [](const auto& x, const auto& y) {
        return std::abs(x.second.first - x.second.second) > std::abs(y.second.first - y.second.second);
    });
    std::string most;
    int shown = 0;
    for (const auto& [op, c] : ops) {
        if (c.first == c.second || shown++ == 6) break;
        most += (most.empty() ? "" : ",  ") + op + " " + std::to_string(c.first) + " : " + std::to_string(c.second);
    }
    ImGui::TextWrapped("differ most: %s", most.empty() ? "nothing (the same opcodes the same number of times)" : most.c_str());
    highlighted_[0].clear();
    highlighted_[1].clear();
    lit_of_[0] = lit_of_[1] = nullptr;
    rows_[0].clear();
    rows_[1].clear();
    if (!diff_.aligned) {
        text_disabled_wrapped("Too long to align here: the counts above compare them.");
        return;
    }
    if (!ImGui::BeginChild("##against", ImVec2(0, std::max(ImGui::GetContentRegionAvail().y, 50.0f)), 0,
                           ImGuiWindowFlags_HorizontalScrollbar))  {
        ImGui::EndChild();
        return;
    }
    ImFont* mono = mono_font();
    if (mono) ImGui::PushFont(mono, 0.0f);
    const float row_h = ImGui::GetTextLineHeightWithSpacing();
    const float half = std::max(ImGui::GetContentRegionAvail().x * 0.5f, ImGui::CalcTextSize("0").x * 40);
    ImGuiListClipper clipper;
    clipper.Begin(int(diff_.rows.size()), row_h);
    while (clipper.Step())
        for (int r = clipper.DisplayStart; r < clipper.DisplayEnd; ++r) {
            const ListingDiff::Pair& p = diff_.rows[size_t(r)];
            const ImVec2 at = ImGui::GetCursorScreenPos();
            const ImU32 tint = p.row == ListingDiff::Row::OnlyA   ? IM_COL32(140, 60, 60, 120)
                               : p.row == ListingDiff::Row::OnlyB ? IM_COL32(50, 120, 60, 120)
                               : p.text_differs                   ? IM_COL32(90, 90, 50, 90)
                                                                  : 0;
            if (tint) ImGui::GetWindowDrawList()->AddRectFilled(at, ImVec2(at.x + 2 * half, at.y + row_h), tint);
            const auto cell = [&](int index, const CodeListing& l) {
                if (index < 0) return;
                const CodeLine& c = l.lines[size_t(index)];
                ImGui::TextDisabled("%s", lines_text(c.lines).c_str());
                ImGui::SameLine(0, ImGui::CalcTextSize(" ").x);
                ImGui::PushStyleColor(ImGuiCol_Text, opcode_colour(c.opcode));
                ImGui::TextUnformatted(c.text.c_str());
                ImGui::PopStyleColor();
            };
            // Each side in its half: a long line of this side is cut where the other's begins.
            ImGui::PushClipRect(at, ImVec2(at.x + half - ImGui::CalcTextSize(" ").x, at.y + row_h), true);
            cell(p.a, a);
            ImGui::PopClipRect();
            ImGui::SetCursorScreenPos(ImVec2(at.x + half, at.y));
            cell(p.b, b);
            ImGui::SetCursorScreenPos(ImVec2(at.x, at.y + row_h));
            ImGui::Dummy(ImVec2(2 * half, 0));
        }
    if (mono) ImGui::PopFont();
    ImGui::EndChild();
}

void CodePanel::draw_facts(const MachineCode& code) {
    const ResourceUsage& u = code.compile.usage;
    const bool spills = u.spill_store_bytes > 0 || u.spill_load_bytes > 0;
    ImGui::Text("%d registers", u.registers);
    if (spills) ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1, 0.5f, 0.4f, 1));
    // Where: the source lines whose SASS stores or reloads them (the editor marks them "spill").
    std::string where;
    const CodeListing& listed = code.sass.instructions > 0 ? code.sass : code.ptx;
    if (spills) {
        int shown = 0;
        for (const auto& [line, count] : listed.local_per_line) {
            if (shown++ == 6) {
                where += ", ...";
                break;
            }
            where += (where.empty() ? " at line " : ", ") + std::to_string(line);
        }
        if (listed.local_per_line.size() > 1) where.insert(8, "s");
    }
    const std::string spill_text =
        "spills " + bytes_text(u.spill_store_bytes) + " / " + bytes_text(u.spill_load_bytes) + where;
    same_line_if_fits(std::max(ImGui::CalcTextSize(spill_text.c_str()).x, ImGui::CalcTextSize("spills 999 B / 999 B").x));
    ImGui::TextUnformatted(spill_text.c_str());
    if (spills) ImGui::PopStyleColor();
    if (ImGui::IsItemHovered())
        ImGui::SetTooltip("Register spills: bytes per thread stored to and loaded from local memory because the kernel "
                          "needed more registers than it was given (STL/LDL in the SASS). The lines named are those "
                          "whose instructions store or reload them; the editor marks them \"spill\".");
    same_line_if_fits(ImGui::CalcTextSize("stack 9999 B").x);
    ImGui::Text("stack %s", bytes_text(u.local_bytes).c_str());
    same_line_if_fits(ImGui::CalcTextSize("shared 99999 B").x);
    ImGui::Text("shared %s", bytes_text(u.static_shared_bytes).c_str());
    if (u.barriers >= 0) {
        same_line_if_fits(ImGui::CalcTextSize("barriers 99").x);
        ImGui::Text("barriers %d", u.barriers);
    }
    // The occupancy those allow, on the device in use at the current block (only for the device's architecture).
    const int threads = in_.block_threads ? in_.block_threads() : 0;
    if (in_.device && in_.device->regs_per_sm > 0 && threads > 0 && (code.arch == in_.device->arch)) {
        const OccupancyFigures f = occupancy_for_block(*in_.device, u, 0, threads);
        const std::string text = "occupancy " + std::to_string(int(f.occupancy * 100 + 0.5)) + "% at " +
                                 std::to_string(threads) + " threads, limited by " + f.limited_by;
        same_line_if_fits(ImGui::CalcTextSize(text.c_str()).x);
        ImGui::TextUnformatted(text.c_str());
    }
}

void CodePanel::draw_listing(int which, const CodeListing& listing, float height) {
    rows_[which].clear();
    const int picked = view_.picked_line;
    // The lit rows, worked out again only when the listing or the picked line changed.
    if (lit_of_[which] != &listing || lit_line_[which] != picked) {
        highlighted_[which] = picked > 0 ? listing.lines_of(picked) : std::vector<size_t>();
        lit_of_[which] = &listing;
        lit_line_[which] = picked;
    }
    ImGui::TextDisabled("%s: %d instructions", which == 0 ? "PTX" : "SASS", listing.instructions);
    const std::string id = which == 0 ? "##ptx" : "##sass";
    if (!ImGui::BeginChild(id.c_str(), ImVec2(0, std::max(height - ImGui::GetTextLineHeightWithSpacing(), 50.0f)), 0,
                           ImGuiWindowFlags_HorizontalScrollbar)) {
        ImGui::EndChild();
        return;
    }
    ImFont* mono = mono_font();
    if (mono) ImGui::PushFont(mono, 0.0f);
    const float row_h = ImGui::GetTextLineHeightWithSpacing();
    // A newly picked line scrolls its first instruction into view, once.
    if (picked > 0 && picked != scrolled_to_[which] && !highlighted_[which].empty()) {
        scrolled_to_[which] = picked;
        const float y = float(highlighted_[which].front()) * row_h;
        if (y < ImGui::GetScrollY() || y > ImGui::GetScrollY() + ImGui::GetWindowHeight() - 2 * row_h)
            ImGui::SetScrollY(std::max(0.0f, y - ImGui::GetWindowHeight() * 0.3f));
    }
    const float number_w = ImGui::CalcTextSize("999<999 ").x;
    ImGuiListClipper clipper;
    clipper.Begin(int(listing.lines.size()), row_h);
    while (clipper.Step()) {
        for (int i = clipper.DisplayStart; i < clipper.DisplayEnd; ++i) {
            const CodeLine& l = listing.lines[size_t(i)];
            const bool lit = std::binary_search(highlighted_[which].begin(), highlighted_[which].end(), size_t(i));
            ImGui::PushID(i);
            const ImVec2 p = ImGui::GetCursorScreenPos();
            if (lit)
                ImGui::GetWindowDrawList()->AddRectFilled(p, ImVec2(p.x + ImGui::GetWindowWidth() + ImGui::GetScrollMaxX(),
                                                                    p.y + row_h),
                                                          IM_COL32(70, 90, 140, 160));
            if (l.kind == CodeLine::Kind::Instruction) {
                ImGui::TextDisabled("%s", lines_text(l.lines).c_str());
                ImGui::SameLine(number_w);
                if (l.offset >= 0) {
                    char offset[16];
                    std::snprintf(offset, sizeof offset, "%04x ", l.offset);
                    ImGui::TextDisabled("%s", offset);
                    ImGui::SameLine(0, 0);
                }
                // The opcode coloured by kind, the operands plain.
                const size_t at = l.text.find(l.opcode);
                const std::string before = at == std::string::npos ? std::string() : l.text.substr(0, at);
                const std::string rest = at == std::string::npos ? l.text : l.text.substr(at + l.opcode.size());
                if (!before.empty()) {
                    ImGui::TextUnformatted(before.c_str());
                    ImGui::SameLine(0, 0);
                }
                ImGui::PushStyleColor(ImGuiCol_Text, opcode_colour(l.opcode));
                ImGui::TextUnformatted(l.opcode.c_str());
                ImGui::PopStyleColor();
                ImGui::SameLine(0, 0);
                ImGui::TextUnformatted(rest.c_str());
            } else {
                ImGui::TextDisabled("%s", l.text.c_str());
            }
            // The whole row picks its line.
            ImGui::SetCursorScreenPos(p);
            const ImVec2 clip_min = ImGui::GetWindowPos();
            if (p.y >= clip_min.y && p.y + row_h <= clip_min.y + ImGui::GetWindowHeight())
                rows_[which].push_back(DrawnRow{size_t(i), std::max(p.x, clip_min.x), p.y,
                                                std::min(p.x + ImGui::GetContentRegionAvail().x, clip_min.x + ImGui::GetWindowWidth()),
                                                p.y + row_h});
            if (ImGui::InvisibleButton("##row", ImVec2(std::max(ImGui::GetContentRegionAvail().x, 1.0f), row_h)) &&
                !l.lines.empty()) {
                view_.picked_line = l.lines.front();
                ++view_.picked_serial;
            }
            if (ImGui::IsItemHovered() && l.kind == CodeLine::Kind::Instruction) {
                std::string tip;
                if (const OpcodeHelp* h = which == 1 ? sass_opcode_help(l.opcode) : ptx_opcode_help(l.opcode)) {
                    tip = std::string(opcode_base(l.opcode)) + ": " + std::string(h->what);
                    if (!h->operands.empty()) tip += "\noperands: " + std::string(h->operands);
                    tip += "\n";
                }
                if (l.lines.empty()) {
                    tip += "from no line of this file";
                } else {
                    tip += "line " + std::to_string(l.lines.front());
                    for (size_t k = 1; k < l.lines.size(); ++k) tip += ", inlined at line " + std::to_string(l.lines[k]);
                    if (in_.source_line) tip += ":  " + in_.source_line(l.lines.front());
                }
                ImGui::SetTooltip("%s", tip.c_str());
            }
            ImGui::PopID();
        }
    }
    if (mono) ImGui::PopFont();
    ImGui::EndChild();
}

}  // namespace cp::ui
