// Memory panel (see memory_panel.h). The figures and the picture's cells come from ui/state/memory_view.h; this
// file lays them out: big cells with lane numbers, sectors and lines outlined, a legend in words.
#include "ui/panels/memory_panel.h"

#include "ui/widgets.h"

#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace cp::ui {
namespace {

ImVec4 grade_colour(MemoryGrade g) {
    switch (g) {
        case MemoryGrade::Ideal:
            return ImVec4(0.35f, 0.85f, 0.40f, 1);
        case MemoryGrade::Near:
            return ImVec4(0.95f, 0.80f, 0.25f, 1);
        case MemoryGrade::Far:
            break;
    }
    return ImVec4(1.0f, 0.40f, 0.35f, 1);
}

// One colour per lane, around the hue circle: neighbouring lanes differ, a pattern across lanes shows.
ImU32 lane_colour(int lane) {
    return ImColor::HSV(float(lane) / 32.0f * 0.85f, 0.45f, 0.95f);
}

std::string access_label(const WarpSiteDetail& d) {
    return "line " + std::to_string(d.line) + ": " + memory_space_name(d.space) + (d.store ? " store" : " load");
}

}  // namespace

void MemoryPanel::draw() {
    drawn_ = Drawn();
    MemoryViewState& s = state_;
    ImGui::Checkbox("Record memory accesses", &s.enabled);
    ImGui::SameLine();
    ImGui::TextDisabled("(?)");
    if (ImGui::IsItemHovered())
        ImGui::SetTooltip(
            "After each run, runs the kernel once more recording every global and shared load and store\n"
            "(CPU backend): sectors per request, bank conflicts and active lanes per line, and each\n"
            "request of a warp lane by lane. Off: nothing is recorded.");
    if (!s.enabled) {
        text_disabled_wrapped(
            "Turn it on to see, per line, how many 32-byte sectors each warp request touches and which "
            "shared-memory banks collide, and to step through a warp's requests.");
        return;
    }
    if (s.recording)
        drawn_.status = "recording...";
    else if (!s.error.empty())
        drawn_.status = "could not record: " + s.error;
    else if (s.result) {
        char ms[64];
        std::snprintf(ms, sizeof ms, " (on screen %.0f ms after asking)", s.took_ms);
        drawn_.status = memory_recording_note(*s.result) + ms;
    } else
        drawn_.status = "waiting for the run to finish...";
    if (!s.error.empty()) ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1.0f, 0.45f, 0.4f, 1));
    ImGui::TextWrapped("%s", drawn_.status.c_str());
    if (!s.error.empty()) ImGui::PopStyleColor();
    if (!s.result) return;
    draw_table();
    ImGui::Separator();
    draw_choice();
}

void MemoryPanel::draw_table() {
    const MemoryRecording& r = *state_.result;
    if (r.figures.empty()) {
        ImGui::TextWrapped("No global or shared load or store was recorded.");
        return;
    }
    const float rows = float(std::min<size_t>(r.figures.size(), 6) + 1);
    if (!ImGui::BeginTable("##figures", 5,
                           ImGuiTableFlags_Borders | ImGuiTableFlags_RowBg | ImGuiTableFlags_ScrollY |
                               ImGuiTableFlags_ScrollX | ImGuiTableFlags_SizingFixedFit,
                           ImVec2(0, rows * (ImGui::GetTextLineHeight() + 2 * ImGui::GetStyle().CellPadding.y + 1) +
                                         ImGui::GetStyle().ScrollbarSize + 4)))
        return;
    ImGui::TableSetupScrollFreeze(0, 1);
    for (const char* c : {"line", "access", "requests", "per request", "lanes"}) ImGui::TableSetupColumn(c);
    ImGui::TableHeadersRow();
    for (const MemoryFigures& f : r.figures) {
        ImGui::TableNextRow();
        ImGui::TableNextColumn();
        ImGui::Text("%d", f.line);
        ImGui::TableNextColumn();
        ImGui::Text("%s %s", memory_space_name(f.space), f.store ? "store" : "load");
        ImGui::TableNextColumn();
        ImGui::Text("%llu", static_cast<unsigned long long>(f.requests));
        ImGui::TableNextColumn();
        ImGui::PushStyleColor(ImGuiCol_Text, grade_colour(memory_figure_grade(f)));
        ImGui::TextUnformatted(memory_figure_text(f, false).c_str());
        ImGui::PopStyleColor();
        ImGui::TableNextColumn();
        ImGui::Text("%.1f", f.active_lanes_mean());
    }
    ImGui::EndTable();
}

void MemoryPanel::draw_choice() {
    MemoryViewState& s = state_;
    ImGui::TextUnformatted("Warp picture");
    // The warp: any of the launch's (the next recording keeps it), warp 0 of block 0 always kept.
    int block = int(s.warp.block), warp = int(s.warp.warp);
    ImGui::SetNextItemWidth(ImGui::CalcTextSize("0000000").x + ImGui::GetFrameHeight() * 2);
    bool changed = ImGui::InputInt("block", &block);
    ImGui::SameLine();
    ImGui::SetNextItemWidth(ImGui::CalcTextSize("00000").x + ImGui::GetFrameHeight() * 2);
    changed |= ImGui::InputInt("warp", &warp);
    if (changed) {
        const uint64_t blocks = s.result->blocks_total ? s.result->blocks_total : 1;
        s.warp =
            WarpId{uint64_t(std::clamp<int64_t>(block, 0, int64_t(blocks) - 1)), uint32_t(std::clamp(warp, 0, 31))};
        s.access = 0;
        s.request = 0;
    }
    const auto kept = s.accesses_of(s.warp);
    if (kept.empty()) {
        text_disabled_wrapped(s.recording ? "recording this warp..."
                                          : "This warp made no recorded access (past the grid's threads, or not yet "
                                            "recorded).");
        return;
    }
    s.access = std::clamp(s.access, 0, int(kept.size()) - 1);
    ImGui::SetNextItemWidth(std::max(ImGui::CalcTextSize("line 000: global store").x + ImGui::GetFrameHeight() * 2,
                                     ImGui::GetContentRegionAvail().x * 0.4f));
    if (ImGui::BeginCombo("access", access_label(*kept[size_t(s.access)]).c_str())) {
        for (size_t i = 0; i < kept.size(); ++i)
            if (ImGui::Selectable(access_label(*kept[i]).c_str(), int(i) == s.access)) {
                s.access = int(i);
                s.request = 0;
            }
        ImGui::EndCombo();
    }
    const WarpSiteDetail& d = *kept[size_t(s.access)];
    if (d.requests.empty()) return;
    s.request = std::clamp(s.request, 0, int(d.requests.size()) - 1);
    if (ImGui::Button("< Prev") && s.request > 0) --s.request;
    ImGui::SameLine();
    if (ImGui::Button("Next >") && s.request + 1 < int(d.requests.size())) ++s.request;
    ImGui::SameLine();
    ImGui::Text("request %d of %llu", s.request + 1, static_cast<unsigned long long>(d.requests_total));
    if (d.requests_total > d.requests.size()) {
        ImGui::SameLine();
        ImGui::TextDisabled("(the first %zu are kept)", d.requests.size());
    }
    draw_picture(d.requests[size_t(s.request)], d);
}

void MemoryPanel::draw_picture(const WarpRequest& request, const WarpSiteDetail& access) {
    const WarpPicture p = warp_picture(request, access.space);
    drawn_.legend = p.legend;
    drawn_.picture = p;
    ImGui::PushTextWrapPos(0.0f);
    ImGui::TextUnformatted(p.legend.c_str());
    ImGui::PopTextWrapPos();

    const bool global = p.space == MemorySpace::Global;
    const float line_h = ImGui::GetTextLineHeight();
    const float label_w = ImGui::CalcTextSize(global ? "+00000 B" : "wave 00").x + 8;
    ImGui::BeginChild("##picture", ImVec2(0, 0), ImGuiChildFlags_None, ImGuiWindowFlags_HorizontalScrollbar);
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const float avail = ImGui::GetContentRegionAvail().x - label_w;
    // Cells as wide as a two-digit lane number needs, wider when there is room (a projector's back row).
    // 32 cells across the panel; the lane numbers' type shrinks to fit a narrow column (cells at least 12 px).
    const float cell_w = std::max(12.0f, std::floor(avail / 32.0f));
    const float digits_w = ImGui::CalcTextSize("00").x;
    const float lane_size = std::min(line_h * 0.8f, ImGui::GetFontSize() * std::min(1.0f, (cell_w - 3) / digits_w));
    // Rows as tall as the text when they fit the panel, squeezed down to 80% of it (lane numbers still
    // readable); more rows (a 32-way conflict, a stride of 32 lines) scroll.
    const int row_count = std::max<int>(1, int(p.row_offsets.size()));
    const float fit_h = (ImGui::GetContentRegionAvail().y - line_h * 3.5f) / float(row_count + 1);
    const float row_gap = 4.0f;
    const float cell_h = std::clamp(fit_h - row_gap, line_h * 0.8f, line_h * 1.35f);
    const bool labels = true;
    const ImVec2 o = ImGui::GetCursorScreenPos();
    const ImU32 text_dark = IM_COL32(20, 20, 20, 255), grid = IM_COL32(110, 110, 110, 255);
    const ImU32 hot = IM_COL32(255, 170, 40, 255), line_col = IM_COL32(235, 235, 235, 255);
    const ImU32 empty = IM_COL32(45, 48, 55, 255), conflict = IM_COL32(200, 60, 50, 255);

    // Header: sector numbers (global) or bank numbers (shared, every 4th, red where they collide).
    float y = o.y;
    if (global) {
        for (int s = 0; s < 4; ++s) {
            char t[32];
            std::snprintf(t, sizeof t, "sector %d (32 B)", s);
            const float x = o.x + label_w + s * 8 * cell_w;
            if (ImGui::CalcTextSize(t).x > 8 * cell_w) std::snprintf(t, sizeof t, "sector %d", s);
            if (ImGui::CalcTextSize(t).x > 8 * cell_w) std::snprintf(t, sizeof t, "s%d", s);
            dl->AddText(ImVec2(x + 2, y), ImGui::GetColorU32(ImGuiCol_Text), t);
        }
    } else {
        for (int b = 0; b < 32; ++b) {
            const float x = o.x + label_w + b * cell_w;
            if (p.bank_conflicted[size_t(b)]) dl->AddRectFilled(ImVec2(x, y), ImVec2(x + cell_w, y + line_h), conflict);
            if (b % 4 == 0 || p.bank_conflicted[size_t(b)]) {
                const std::string t = std::to_string(b);
                dl->AddText(ImVec2(x + (cell_w - ImGui::CalcTextSize(t.c_str()).x) * 0.5f, y),
                            ImGui::GetColorU32(ImGuiCol_Text), t.c_str());
            }
        }
        dl->AddText(ImVec2(o.x, y), ImGui::GetColorU32(ImGuiCol_Text), "bank");
    }
    y += line_h + 4;
    const float top = y;
    const int rows = int(p.row_offsets.size());
    for (int r = 0; r < rows; ++r) {
        char t[32];
        if (global)
            std::snprintf(t, sizeof t, "+%llu B", static_cast<unsigned long long>(p.row_offsets[size_t(r)]));
        else
            std::snprintf(t, sizeof t, "wave %d", r + 1);
        const float ry = top + r * (cell_h + row_gap);
        // Squeezed rows: a label every few rows, where it has room.
        const int every = labels ? 1 : std::max(1, int(std::ceil(line_h / (cell_h + row_gap))));
        if (r % every == 0)
            dl->AddText(ImVec2(o.x, ry + (cell_h - line_h) * 0.5f), ImGui::GetColorU32(ImGuiCol_Text), t);
        for (int c = 0; c < 32; ++c) {
            const float x = o.x + label_w + c * cell_w;
            dl->AddRectFilled(ImVec2(x + 1, ry + 1), ImVec2(x + cell_w - 1, ry + cell_h - 1), empty);
        }
    }
    // Global: the 4-byte cells are coloured by lane and each sector says in full-size type which lanes touch it
    // (cells are too narrow for numbers on a projector); shared: each word's lane in its cell.
    if (global) {
        std::vector<uint32_t> sector_lanes(size_t(rows) * 4, 0);
        for (const WarpCell& c : p.cells) {
            const float x = o.x + label_w + c.column * cell_w, ry = top + c.row * (cell_h + row_gap);
            dl->AddRectFilled(ImVec2(x + 1, ry + 1), ImVec2(x + cell_w - 1, ry + cell_h - 1),
                              lane_colour(c.lanes.front()));
            for (int lane : c.lanes) sector_lanes[size_t(c.row) * 4 + size_t(c.column / 8)] |= 1u << lane;
        }
        for (int r = 0; r < rows; ++r)
            for (int s = 0; s < 4; ++s) {
                const uint32_t mask = sector_lanes[size_t(r) * 4 + size_t(s)];
                if (!mask || !labels) continue;
                const std::string t = (__builtin_popcount(mask) == 1 ? "lane " : "lanes ") + lane_ranges(mask);
                const float x = o.x + label_w + s * 8 * cell_w, ry = top + r * (cell_h + row_gap);
                const float tw = ImGui::CalcTextSize(t.c_str()).x;
                const float size =
                    std::min(cell_h, ImGui::GetFontSize() * std::min(1.0f, (8 * cell_w - 8) / std::max(tw, 1.0f)));
                const float w = tw * size / ImGui::GetFontSize();
                const float tx = x + std::max(4.0f, (8 * cell_w - w) * 0.5f), ty = ry + (cell_h - size) * 0.5f;
                dl->AddRectFilled(ImVec2(tx - 3, ty), ImVec2(tx + w + 3, ty + size), IM_COL32(245, 245, 245, 230),
                                  3.0f);
                dl->AddText(ImGui::GetFont(), size, ImVec2(tx, ty), text_dark, t.c_str());
            }
    }
    for (const WarpCell& c : p.cells) {
        if (global) break;
        const float x = o.x + label_w + c.column * cell_w, ry = top + c.row * (cell_h + row_gap);
        dl->AddRectFilled(ImVec2(x + 1, ry + 1), ImVec2(x + cell_w - 1, ry + cell_h - 1), lane_colour(c.lanes.front()));
        if (!labels) continue;
        const std::string t = std::to_string(c.lanes.front()) + (c.lanes.size() > 1 ? "+" : "");
        const float scale = lane_size / ImGui::GetFontSize();
        const ImVec2 ts(ImGui::CalcTextSize(t.c_str()).x * scale, lane_size);
        dl->AddText(ImGui::GetFont(), lane_size,
                    ImVec2(x + std::max(1.0f, (cell_w - ts.x) * 0.5f), ry + (cell_h - ts.y) * 0.5f), text_dark,
                    t.c_str());
    }
    // Outlines: every sector thin, the touched ones thick orange, each 128-byte line white (global); the banks'
    // columns (shared).
    for (int r = 0; r < rows; ++r) {
        const float ry = top + r * (cell_h + row_gap);
        if (global) {
            for (int s = 0; s < 4; ++s) {
                const float x = o.x + label_w + s * 8 * cell_w;
                const bool touched = p.row_sectors[size_t(r)] >> s & 1u;
                dl->AddRect(ImVec2(x + 1, ry), ImVec2(x + 8 * cell_w - 1, ry + cell_h), touched ? hot : grid, 0.0f,
                            touched ? 3.0f : 1.0f);
            }
            dl->AddRect(ImVec2(o.x + label_w - 2, ry - 2), ImVec2(o.x + label_w + 32 * cell_w + 2, ry + cell_h + 2),
                        line_col, 0.0f, 1.5f);
        }
    }
    const float bottom = top + rows * (cell_h + row_gap);
    if (!global)
        for (int b = 0; b <= 32; ++b) {
            const float x = o.x + label_w + b * cell_w;
            dl->AddLine(ImVec2(x, top - 2), ImVec2(x, bottom), grid, 1.0f);
        }
    drawn_.x0 = o.x;
    drawn_.y0 = o.y;
    drawn_.x1 = o.x + label_w + 32 * cell_w;
    drawn_.y1 = bottom;
    ImGui::Dummy(ImVec2(label_w + 32 * cell_w, bottom - o.y + 4));
    // Key, in words.
    if (global)
        text_disabled_wrapped(
            "Each row is one 128-byte line, cut into four 32-byte sectors; a cell is 4 bytes, numbered by "
            "the lane that touches it. Orange outline: a sector this request fetches.");
    else
        text_disabled_wrapped(
            "Each column is one of the 32 banks (4 bytes wide); a cell is a word, numbered by the lane "
            "that reads it (+: several lanes, one broadcast). Rows beyond the first are extra "
            "wavefronts; red banks collide.");
    ImGui::EndChild();
}

}  // namespace cp::ui
