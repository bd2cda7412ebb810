// Memory panel (see memory_panel.h). The figures and the picture's cells come from ui/state/memory_view.h; this
// file lays them out for a projector: lane numbers at the text's full size (the banks wrap into bands of 16 or 8
// when 32 do not fit), the colliding banks red with an "N-way" label, sectors and lines outlined, a key.
//
// Sections: colours · draw (the panel) · the line table · the warp chooser · the warp picture: shared (banks), then
// global (sectors) · the key
#include "ui/panels/memory_panel.h"

#include "core/data/colormap.h"
#include "ui/widgets.h"

#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <string>

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
    const std::array<uint8_t, 3> c = hsv_to_rgb8(lane / 32.0 * 0.85, 0.45, 0.95);
    return IM_COL32(c[0], c[1], c[2], 255);
}

std::string access_label(const WarpSiteDetail& d) {
    return "line " + std::to_string(d.line) + ": " + memory_space_name(d.space) + (d.store ? " store" : " load");
}

// "recorded 4 of 4 blocks, 2000 accesses": the status in one line of a narrow panel.
std::string short_note(const MemoryRecording& r) {
    return "recorded " + std::to_string(r.blocks_recorded) + " of " + std::to_string(r.blocks_total) + " blocks, " +
           std::to_string(r.accesses) + " accesses (hover: more)";
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
    if (!s.error.empty()) {
        ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1.0f, 0.45f, 0.4f, 1));
        ImGui::TextWrapped("%s", drawn_.status.c_str());
        ImGui::PopStyleColor();
    } else if (s.result && !s.recording) {
        // One short line (the picture needs the height); the whole note on hover.
        text_disabled_wrapped("%s", short_note(*s.result).c_str());
        if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", drawn_.status.c_str());
    } else
        text_disabled_wrapped("%s", drawn_.status.c_str());
    if (!s.result) return;
    // The figures are in the editor's gutter too: folded by default, so that the picture gets the height.
    if (ImGui::CollapsingHeader("Figures per line")) draw_table();
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
    // The warp: any of the launch's (the next recording keeps it), or the one that wrote an element of the output.
    int block = int(s.warp.block), warp = int(s.warp.warp);
    ImGui::SetNextItemWidth(ImGui::CalcTextSize("0000000").x + ImGui::GetFrameHeight() * 2);
    bool changed = ImGui::InputInt("block", &block);
    ImGui::SameLine();
    ImGui::SetNextItemWidth(ImGui::CalcTextSize("00000").x + ImGui::GetFrameHeight() * 2);
    changed |= ImGui::InputInt("warp", &warp);
    if (changed) {
        const uint64_t blocks = s.result->blocks_total ? s.result->blocks_total : 1;
        s.choose_warp(
            WarpId{uint64_t(std::clamp<int64_t>(block, 0, int64_t(blocks) - 1)), uint32_t(std::clamp(warp, 0, 31))});
    }
    if (s.pick_note.empty())
        text_disabled_wrapped("or click an element of the output to show the warp that wrote it");
    else {
        ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(0.55f, 0.8f, 1.0f, 1));
        ImGui::TextWrapped("%s", s.pick_note.c_str());
        ImGui::PopStyleColor();
    }
    const auto kept = s.accesses_of(s.warp);
    if (kept.empty()) {
        drawn_.missing = s.missing_warp_reason();
        ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1.0f, 0.75f, 0.3f, 1));
        ImGui::TextWrapped("No picture: %s", drawn_.missing.c_str());
        ImGui::PopStyleColor();
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
    same_line_if_fits(button_width("Large picture"));
    if (ImGui::Button(s.large ? "Close the large picture" : "Large picture")) s.large = !s.large;
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("The picture in a window over most of the screen (a projector)");
    const WarpRequest& request = d.requests[size_t(s.request)];
    draw_picture(request, d, false);
    if (!s.large) return;
    // Over most of the screen, with its own close box: the same picture, cells as large as that allows.
    const ImGuiViewport* vp = ImGui::GetMainViewport();
    const ImVec2 margin(vp->WorkSize.x * 0.04f, vp->WorkSize.y * 0.04f);
    ImGui::SetNextWindowPos(ImVec2(vp->WorkPos.x + margin.x, vp->WorkPos.y + margin.y), ImGuiCond_Always);
    ImGui::SetNextWindowSize(ImVec2(vp->WorkSize.x - 2 * margin.x, vp->WorkSize.y - 2 * margin.y), ImGuiCond_Always);
    const std::string title = "Warp picture: block " + std::to_string(s.warp.block) + ", warp " +
                              std::to_string(s.warp.warp) + ", " + access_label(d) + ", request " +
                              std::to_string(s.request + 1) + "###memory_large";
    if (ImGui::Begin(title.c_str(), &s.large,
                     ImGuiWindowFlags_NoDocking | ImGuiWindowFlags_NoCollapse | ImGuiWindowFlags_NoSavedSettings)) {
        if (ImGui::Button("< Prev") && s.request > 0) --s.request;
        ImGui::SameLine();
        if (ImGui::Button("Next >") && s.request + 1 < int(d.requests.size())) ++s.request;
        ImGui::SameLine();
        ImGui::Text("request %d of %llu", s.request + 1, static_cast<unsigned long long>(d.requests_total));
        draw_picture(d.requests[size_t(s.request)], d, true);
    }
    ImGui::End();
}

void MemoryPanel::draw_picture(const WarpRequest& request, const WarpSiteDetail& access, bool large) {
    const WarpPicture p = warp_picture(request, access.space);
    Drawn fresh;  // a second picture (the large one) replaces the first's geometry
    fresh.status = drawn_.status;
    drawn_ = std::move(fresh);
    drawn_.legend = p.legend;
    drawn_.picture = p;
    drawn_.large = large;
    ImGui::PushTextWrapPos(0.0f);
    ImGui::TextUnformatted(p.legend.c_str());
    ImGui::PopTextWrapPos();
    ImGui::BeginChild(large ? "##picture_large" : "##picture", ImVec2(0, 0), ImGuiChildFlags_None);
    if (p.space == MemorySpace::Global)
        draw_global(p);
    else
        draw_shared(p);
    draw_key(p.space == MemorySpace::Global, drawn_.numbered);
    ImGui::EndChild();
}

namespace {

const ImU32 kTextDark = IM_COL32(20, 20, 20, 255), kGrid = IM_COL32(110, 110, 110, 255);
const ImU32 kHot = IM_COL32(255, 170, 40, 255), kLine = IM_COL32(235, 235, 235, 255);
const ImU32 kEmpty = IM_COL32(45, 48, 55, 255), kConflict = IM_COL32(215, 55, 45, 255);
const ImU32 kExtraRow = IM_COL32(215, 55, 45, 60), kWarn = IM_COL32(255, 110, 95, 255);

// The width the picture may take: the scrollbar's room kept back before the picture is tall enough to need one, so
// that the frame it appears in does not make the picture wider than the panel.
float picture_width() {
    return ImGui::GetContentRegionAvail().x - (ImGui::GetScrollMaxY() > 0 ? 0.0f : ImGui::GetStyle().ScrollbarSize);
}

// `t` centred in [x0, x1] x [y0, y1] at `size` (the font's size: full text size).
void centred_text(ImDrawList* dl, float size, float x0, float y0, float x1, float y1, ImU32 colour, const char* t) {
    const float w = ImGui::CalcTextSize(t).x * size / ImGui::GetFontSize();
    dl->AddText(ImGui::GetFont(), size, ImVec2(x0 + std::max(0.0f, (x1 - x0 - w) * 0.5f), y0 + (y1 - y0 - size) * 0.5f),
                colour, t);
}

}  // namespace

// Shared: the 32 banks as columns, a bank's n-th distinct word in row n (rows past the first are extra wavefronts,
// tinted red); the banks wrap into bands of 16 or 8 when 32 columns leave no room for a two-digit lane number at
// full size. Under each band, every colliding bank's "N-way" in red.
void MemoryPanel::draw_shared(const WarpPicture& p) {
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const float font = ImGui::GetFontSize(), line_h = ImGui::GetTextLineHeight();
    const float digits = ImGui::CalcTextSize("00").x;
    const float label_w = digits + 12;
    const float avail = picture_width() - label_w;
    int per_band = 32;
    while (per_band > 8 && avail / float(per_band) < digits + 10) per_band /= 2;
    const float cell_w = std::floor(std::min(avail / float(per_band), line_h * 3.5f));
    float number_size = std::min(font, font * (cell_w - 4) / digits);

    std::vector<int> depth(32, 0);
    for (const WarpCell& c : p.cells) depth[size_t(c.column)] = std::max(depth[size_t(c.column)], c.row + 1);
    // Rows a little taller than the text where the height allows, down to the numbers' own height (a 32-way
    // conflict has 32 rows); past that the picture scrolls.
    float rows_total = 0, labels_total = 0;
    for (int b0 = 0; b0 < 32; b0 += per_band) {
        const int deepest = *std::max_element(depth.begin() + b0, depth.begin() + b0 + per_band);
        rows_total += 1 + float(std::max(1, deepest));
        labels_total += deepest > 1 ? 2.5f : 0.5f;
    }
    const float gap = 2.0f;
    const float fit_h = (ImGui::GetContentRegionAvail().y - (labels_total + 2.5f) * line_h) / rows_total - gap;
    // The large picture may grow its rows to twice the text's height, and its lane numbers with them (up to 1.6
    // times the text, as the cells allow): the back row reads them.
    const float cell_h = std::floor(std::clamp(fit_h, number_size + 2, line_h * (drawn_.large ? 2.0f : 1.3f)));
    if (drawn_.large)
        number_size = std::max(number_size, std::min({font * 1.6f, font * (cell_w - 8) / digits, cell_h * 0.75f}));
    drawn_.area_w = avail + label_w;
    drawn_.cell_w = cell_w;
    drawn_.cell_h = cell_h;
    drawn_.columns = per_band;
    drawn_.font_size = font;
    drawn_.number_size = number_size;

    const ImVec2 o = ImGui::GetCursorScreenPos();
    const ImU32 text = ImGui::GetColorU32(ImGuiCol_Text);
    float y = o.y;
    for (int band = 0; band < 32 / per_band; ++band) {
        const int b0 = band * per_band;
        const float x_left = o.x + label_w;
        // "N-way" over each colliding bank at full size (above the band: in view however many rows it has), on a
        // second line where it would run into the first line's.
        {
            float line_end[2] = {-1e9f, -1e9f};
            struct Label {
                std::string text;
                float x0, cx;
                int line;
            };
            std::vector<Label> labels;
            for (int k = 0; k < per_band; ++k) {
                const int b = b0 + k;
                if (depth[size_t(b)] < 2) continue;
                const std::string t = std::to_string(depth[size_t(b)]) + "-way";
                const float w = ImGui::CalcTextSize(t.c_str()).x;
                const float cx = x_left + (float(k) + 0.5f) * cell_w;
                const float x0 = std::clamp(cx - w * 0.5f, o.x, x_left + float(per_band) * cell_w - w);
                for (int l = 0; l < 2; ++l)
                    if (x0 >= line_end[l] + 6) {
                        labels.push_back({t, x0, cx, l});
                        line_end[l] = x0 + w;
                        break;
                    }
            }
            int lines_used = 0;
            for (const Label& l : labels) lines_used = std::max(lines_used, l.line + 1);
            for (const Label& l : labels) {
                // The first line sits nearest the band; a leader runs from the second line's past it.
                const float ly = y + float(lines_used - 1 - l.line) * line_h;
                dl->AddText(ImVec2(l.x0, ly), kWarn, l.text.c_str());
                if (l.line > 0)
                    dl->AddLine(ImVec2(l.cx, ly + line_h), ImVec2(l.cx, y + float(lines_used) * line_h), kWarn, 2.0f);
                drawn_.way_labels.push_back(l.text);
            }
            y += float(lines_used) * line_h;
        }
        // Header: every bank's number, on red where it collides.
        for (int k = 0; k < per_band; ++k) {
            const int b = b0 + k;
            const float x = x_left + float(k) * cell_w;
            const bool hot = p.bank_conflicted.size() == 32 && p.bank_conflicted[size_t(b)];
            if (hot) dl->AddRectFilled(ImVec2(x + 1, y), ImVec2(x + cell_w - 1, y + cell_h), kConflict, 3.0f);
            centred_text(dl, number_size, x, y, x + cell_w, y + cell_h, text, std::to_string(b).c_str());
        }
        if (band == 0)
            centred_text(dl, std::min(font, font * (label_w - 2) / ImGui::CalcTextSize("bank").x), o.x, y, x_left - 2,
                         y + cell_h, ImGui::GetColorU32(ImGuiCol_TextDisabled), "bank");
        y += cell_h + gap;
        const int rows = std::max(1, *std::max_element(depth.begin() + b0, depth.begin() + b0 + per_band));
        const float top = y;
        for (int r = 0; r < rows; ++r) {
            const float ry = top + float(r) * (cell_h + gap);
            if (r > 0)
                dl->AddRectFilled(ImVec2(o.x, ry - 1), ImVec2(x_left + per_band * cell_w, ry + cell_h + 1), kExtraRow);
            centred_text(dl, font, o.x, ry, x_left - 4, ry + cell_h, r > 0 ? kWarn : text,
                         std::to_string(r + 1).c_str());
            for (int k = 0; k < per_band; ++k) {
                const float x = x_left + float(k) * cell_w;
                dl->AddRectFilled(ImVec2(x + 1, ry + 1), ImVec2(x + cell_w - 1, ry + cell_h - 1), kEmpty);
            }
        }
        for (const WarpCell& c : p.cells) {
            if (c.column < b0 || c.column >= b0 + per_band) continue;
            const float x = x_left + float(c.column - b0) * cell_w, ry = top + float(c.row) * (cell_h + gap);
            dl->AddRectFilled(ImVec2(x + 1, ry + 1), ImVec2(x + cell_w - 1, ry + cell_h - 1),
                              lane_colour(c.lanes.front()));
            centred_text(dl, number_size, x, ry, x + cell_w, ry + cell_h, kTextDark,
                         std::to_string(c.lanes.front()).c_str());
            if (c.lanes.size() > 1) {  // a broadcast: a white corner, the key says so
                const float t = std::min(cell_w, cell_h) * 0.35f;
                dl->AddTriangleFilled(ImVec2(x + cell_w - 1 - t, ry + 1), ImVec2(x + cell_w - 1, ry + 1),
                                      ImVec2(x + cell_w - 1, ry + 1 + t), IM_COL32(255, 255, 255, 255));
            }
        }
        const float bottom = top + float(rows) * (cell_h + gap);
        for (int k = 0; k <= per_band; ++k) {
            const float x = x_left + float(k) * cell_w;
            dl->AddLine(ImVec2(x, top - gap), ImVec2(x, bottom - gap), kGrid, 1.0f);
        }
        y = bottom + line_h * 0.5f;
    }
    drawn_.x0 = o.x;
    drawn_.y0 = o.y;
    drawn_.x1 = o.x + label_w + float(per_band) * cell_w;
    drawn_.y1 = y;
    ImGui::Dummy(ImVec2(label_w + float(per_band) * cell_w, y - o.y));
}

// Global: one row per 128-byte line touched, 32 cells of 4 bytes in four 32-byte sectors; each cell numbered by its
// lane where a two-digit number fits at full size, else each touched sector names its lanes ("0-7") at full size.
void MemoryPanel::draw_global(const WarpPicture& p) {
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const float font = ImGui::GetFontSize(), line_h = ImGui::GetTextLineHeight();
    const float digits = ImGui::CalcTextSize("00").x;
    float label_w = ImGui::CalcTextSize("+000 B").x;
    for (uint64_t off : p.row_offsets)
        label_w = std::max(label_w, ImGui::CalcTextSize(("+" + std::to_string(off) + " B").c_str()).x);
    label_w += 10;
    const float avail = picture_width() - label_w;
    const float cell_w = std::floor(std::max(6.0f, std::min(avail / 32.0f, line_h * 3.0f)));
    const bool per_cell = cell_w >= digits + 8;
    drawn_.numbered = per_cell;
    // Rows a little taller than the text where the height allows, down to the text's own height; then it scrolls.
    const float gap = 5.0f;
    const float fit_h =
        (ImGui::GetContentRegionAvail().y - 3.5f * line_h) / float(std::max<size_t>(1, p.row_offsets.size())) - gap;
    const float cell_h = std::floor(std::clamp(fit_h, font + 2, line_h * (drawn_.large ? 2.0f : 1.3f)));
    drawn_.area_w = avail + label_w;
    drawn_.cell_w = cell_w;
    drawn_.cell_h = cell_h;
    drawn_.columns = 32;
    drawn_.font_size = font;
    drawn_.number_size = font;
    const ImVec2 o = ImGui::GetCursorScreenPos();
    const ImU32 text = ImGui::GetColorU32(ImGuiCol_Text);
    const float x_left = o.x + label_w, sector_w = 8 * cell_w;
    float y = o.y;
    for (int s = 0; s < 4; ++s) {
        char t[32];
        std::snprintf(t, sizeof t, "sector %d (32 B)", s);
        if (ImGui::CalcTextSize(t).x > sector_w - 4) std::snprintf(t, sizeof t, "sector %d", s);
        if (ImGui::CalcTextSize(t).x > sector_w - 4) std::snprintf(t, sizeof t, "s%d", s);
        centred_text(dl, font, x_left + s * sector_w, y, x_left + (s + 1) * sector_w, y + line_h, text, t);
    }
    y += line_h + 4;
    const float top = y;
    const int rows = int(p.row_offsets.size());
    const auto row_y = [&](int r) { return top + float(r) * (cell_h + gap); };
    std::vector<uint32_t> sector_lanes(size_t(rows) * 4, 0);
    for (int r = 0; r < rows; ++r) {
        const std::string t = "+" + std::to_string(p.row_offsets[size_t(r)]) + " B";
        dl->AddText(ImVec2(o.x, row_y(r) + (cell_h - line_h) * 0.5f), text, t.c_str());
        for (int c = 0; c < 32; ++c) {
            const float x = x_left + float(c) * cell_w;
            dl->AddRectFilled(ImVec2(x + 1, row_y(r) + 1), ImVec2(x + cell_w - 1, row_y(r) + cell_h - 1), kEmpty);
        }
    }
    for (const WarpCell& c : p.cells) {
        const float x = x_left + float(c.column) * cell_w, ry = row_y(c.row);
        dl->AddRectFilled(ImVec2(x + 1, ry + 1), ImVec2(x + cell_w - 1, ry + cell_h - 1), lane_colour(c.lanes.front()));
        for (int lane : c.lanes) sector_lanes[size_t(c.row) * 4 + size_t(c.column / 8)] |= 1u << lane;
        if (per_cell)
            centred_text(dl, font, x, ry, x + cell_w, ry + cell_h, kTextDark, std::to_string(c.lanes.front()).c_str());
    }
    if (!per_cell) {
        drawn_.number_size = 0;
        for (int r = 0; r < rows; ++r)
            for (int s = 0; s < 4; ++s) {
                const uint32_t mask = sector_lanes[size_t(r) * 4 + size_t(s)];
                if (!mask) continue;
                // The lanes alone ("0-7", "12"): the key says the numbers are lanes; shrunk only past the sector.
                const std::string t = lane_ranges(mask);
                const float tw = ImGui::CalcTextSize(t.c_str()).x;
                const float size = font * std::min(1.0f, (sector_w - 10) / std::max(tw, 1.0f));
                const float w = tw * size / font;
                const float tx = x_left + s * sector_w + std::max(5.0f, (sector_w - w) * 0.5f);
                const float ty = row_y(r) + (cell_h - size) * 0.5f;
                dl->AddRectFilled(ImVec2(tx - 4, ty), ImVec2(tx + w + 4, ty + size), IM_COL32(245, 245, 245, 235),
                                  3.0f);
                dl->AddText(ImGui::GetFont(), size, ImVec2(tx, ty), kTextDark, t.c_str());
                drawn_.number_size = drawn_.number_size == 0 ? size : std::min(drawn_.number_size, size);
            }
    }
    // Outlines: every sector thin, the fetched ones thick orange, each 128-byte line white.
    for (int r = 0; r < rows; ++r) {
        const float ry = row_y(r);
        for (int s = 0; s < 4; ++s) {
            const float x = x_left + s * sector_w;
            const bool touched = p.row_sectors[size_t(r)] >> s & 1u;
            dl->AddRect(ImVec2(x + 1, ry), ImVec2(x + sector_w - 1, ry + cell_h), touched ? kHot : kGrid, 0.0f,
                        touched ? 3.0f : 1.0f);
        }
        dl->AddRect(ImVec2(x_left - 2, ry - 2), ImVec2(x_left + 32 * cell_w + 2, ry + cell_h + 2), kLine, 0.0f, 1.5f);
    }
    const float bottom = row_y(rows);
    drawn_.x0 = o.x;
    drawn_.y0 = o.y;
    drawn_.x1 = x_left + 32 * cell_w;
    drawn_.y1 = bottom;
    ImGui::Dummy(ImVec2(label_w + 32 * cell_w, bottom - o.y));
}

// The key under the picture: a swatch and a few words each, wrapping as the width allows.
void MemoryPanel::draw_key(bool global, bool numbered) {
    const float sw = ImGui::GetTextLineHeight();
    const auto item = [&](const char* words, const std::function<void(ImDrawList*, ImVec2, float)>& swatch) {
        const float w = sw + ImGui::GetStyle().ItemInnerSpacing.x + ImGui::CalcTextSize(words).x;
        same_line_if_fits(w);
        const ImVec2 at = ImGui::GetCursorScreenPos();
        ImGui::Dummy(ImVec2(sw, sw));
        swatch(ImGui::GetWindowDrawList(), at, sw);
        ImGui::SameLine(0, ImGui::GetStyle().ItemInnerSpacing.x);
        ImGui::TextUnformatted(words);
    };
    ImGui::Dummy(ImVec2(1, 2));
    if (global) {
        item(numbered ? "a cell: 4 bytes, numbered by its lane" : "a cell: 4 bytes; a sector's label: its lanes",
             [](ImDrawList* dl, ImVec2 a, float s) { dl->AddRectFilled(a, ImVec2(a.x + s, a.y + s), lane_colour(5)); });
        item("a sector this request fetches", [](ImDrawList* dl, ImVec2 a, float s) {
            dl->AddRect(ImVec2(a.x + 1, a.y + 1), ImVec2(a.x + s - 1, a.y + s - 1), kHot, 0.0f, 3.0f);
        });
        item("a 128-byte line", [](ImDrawList* dl, ImVec2 a, float s) {
            dl->AddRect(ImVec2(a.x + 1, a.y + 1), ImVec2(a.x + s - 1, a.y + s - 1), kLine, 0.0f, 1.5f);
        });
    } else {
        item("a word, the lane reading it",
             [](ImDrawList* dl, ImVec2 a, float s) { dl->AddRectFilled(a, ImVec2(a.x + s, a.y + s), lane_colour(5)); });
        item("a bank with a conflict", [](ImDrawList* dl, ImVec2 a, float s) {
            dl->AddRectFilled(a, ImVec2(a.x + s, a.y + s), kConflict, 3.0f);
        });
        item("rows 2 and on: extra wavefronts", [](ImDrawList* dl, ImVec2 a, float s) {
            dl->AddRectFilled(a, ImVec2(a.x + s, a.y + s), kExtraRow);
            dl->AddRect(a, ImVec2(a.x + s, a.y + s), kWarn);
        });
        item("several lanes, one word (broadcast)", [](ImDrawList* dl, ImVec2 a, float s) {
            dl->AddRectFilled(a, ImVec2(a.x + s, a.y + s), lane_colour(20));
            dl->AddTriangleFilled(ImVec2(a.x + s * 0.6f, a.y), ImVec2(a.x + s, a.y), ImVec2(a.x + s, a.y + s * 0.4f),
                                  IM_COL32(255, 255, 255, 255));
        });
    }
}

}  // namespace cp::ui
