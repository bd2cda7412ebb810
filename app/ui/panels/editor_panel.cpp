// Editor panel drawing: the toolbar, the code editor widget (ImGuiColorTextEdit) kept in step with the
// KernelDocument, markers on the lines with errors, and the list of messages.
#include "ui/panels/editor_panel.h"

#include "core/session/script_host.h"

#include "ui/state/line_diff.h"
#include "ui/theme.h"
#include "ui/widgets.h"

#include <TextEditor.h>
#include <imgui.h>
#include <imgui_internal.h>  // the focused window: the widget's child has the keyboard

#include <cmath>
#include <cstring>

#include <algorithm>
#include <cstdio>
#include <map>
#include <set>

namespace cp::ui {
namespace {

// "line 18:1  error: message", as the list under the source shows it.
std::string diagnostic_label(const Diagnostic& d) {
    char where[48];
    if (d.line > 0) std::snprintf(where, sizeof where, "line %d:%d", d.line, std::max(d.column, 1));
    else std::snprintf(where, sizeof where, "(no line)");
    return std::string(where) + "  " + severity_name(d.severity) + ": " + d.message;
}

const ImVec4 kErrorColor(1.0f, 0.35f, 0.3f, 1.0f);
const ImVec4 kWarningColor(1.0f, 0.8f, 0.2f, 1.0f);

ImVec4 severity_color(Severity s) {
    return s == Severity::Error ? kErrorColor : s == Severity::Warning ? kWarningColor : ImVec4(0.6f, 0.8f, 1.0f, 1.0f);
}

// C++ highlighting plus CUDA's qualifiers, built-in variables, vector types and common intrinsics.
const TextEditor::Language* cuda_language() {
    static const TextEditor::Language language = [] {
        TextEditor::Language l = *TextEditor::Language::Cpp();
        l.name = "CUDA";
        for (const char* d : {"__global__", "__device__", "__host__", "__shared__", "__constant__", "__restrict__",
                              "__managed__", "__forceinline__", "__noinline__", "__launch_bounds__", "uchar", "uchar4",
                              "uchar3", "uchar2", "char4", "int2", "int3", "int4", "uint", "uint2", "uint3", "uint4",
                              "float2", "float3", "float4", "double2", "half", "dim3", "size_t", "int64_t", "uint64_t",
                              "int32_t", "uint32_t", "uint8_t"})
            l.declarations.insert(d);
        for (const char* i : {"threadIdx", "blockIdx", "blockDim", "gridDim", "warpSize", "__syncthreads",
                              "__syncwarp", "__shfl_down_sync", "__shfl_up_sync", "__shfl_xor_sync", "__shfl_sync",
                              "atomicAdd", "atomicSub", "atomicMax", "atomicMin", "atomicExch", "atomicCAS",
                              "__ldg", "printf", "make_float4", "make_uchar4", "make_int2", "min", "max", "fminf",
                              "fmaxf", "sqrtf", "expf", "__expf", "__float2int_rn"})
            l.identifiers.insert(i);
        return l;
    }();
    return &language;
}

// A modal that asks before `act` discards something: `ask` (set by a button) opens it once; the confirming
// button runs `act`, Cancel closes it.
void confirm_modal(bool& ask, const char* title, const char* question, const char* confirm,
                   const std::function<void()>& act) {
    if (ask) {
        ImGui::OpenPopup(title);
        ask = false;
    }
    if (!ImGui::BeginPopupModal(title, nullptr, ImGuiWindowFlags_AlwaysAutoResize)) return;
    ImGui::TextUnformatted(question);
    if (ImGui::Button(confirm) && act) {
        act();
        ImGui::CloseCurrentPopup();
    }
    ImGui::SameLine();
    if (ImGui::Button("Cancel")) ImGui::CloseCurrentPopup();
    ImGui::EndPopup();
}

}  // namespace

EditorPanel::EditorPanel(std::optional<KernelDocument>& doc, const CompileStatus& status, bool& auto_compile,
                         EditorActions actions)
    : doc_(doc), status_(status), auto_compile_(auto_compile), actions_(std::move(actions)),
      editor_(std::make_unique<TextEditor>()) {
    editor_->SetLanguage(cuda_language());
    editor_->SetTabSize(4);
    editor_->SetInsertSpacesOnTabs(true);
    editor_->SetShowMatchingBrackets(true);
    editor_->SetChangeCallback([this] { edited_ = true; }, 0);
}

EditorPanel::~EditorPanel() = default;

bool EditorPanel::line_number_rect(int line, float& x0, float& y0, float& x1, float& y1) const {
    const int row = line - 1;
    if (line_h_ <= 0 || row < first_row_ || row > last_row_) return false;
    x0 = number_x0_;
    x1 = number_x1_;
    y0 = text_y0_ + float(row) * line_h_;
    y1 = y0 + line_h_;
    return true;
}

void EditorPanel::draw() {
    if (!doc_) {
        ImGui::TextDisabled("No kernel open. Pick one in the Library, or File > Open (Ctrl+O).");
        return;
    }
    draw_toolbar();
    const float width = ImGui::GetContentRegionAvail().x;
    code_size_ = code_font_size(width);
    fitted_width_ = width;
    // PushFont takes the size before the style's scales (text size, DPI) multiply it.
    const ImGuiStyle& style = ImGui::GetStyle();
    ImGui::PushFont(mono_font(), code_size_ / std::max(1e-3f, style.FontScaleMain * style.FontScaleDpi));
    draw_source();
    ImGui::PopFont();
    draw_diagnostics();
}

float EditorPanel::code_font_size(float width) const {
    const float ui = ImGui::GetFontSize();
    ImFont* mono = mono_font();
    if (!mono || ui <= 0) return ui;
    const ImGuiStyle& style = ImGui::GetStyle();
    const float smallest = std::min(ui, std::max(kBaseFontPixels * style.FontScaleDpi, kSmallestCode * ui));
    // The code box's width: the last frame's, else the panel's less the widget's scrollbar and the figures' column.
    const float box = code_box_width_ > 0 && std::abs(width - fitted_width_) < 0.5f
                          ? code_box_width_
                          : width - memory_column_width() - style.ScrollbarSize - style.WindowPadding.x;
    // Type is drawn at whole pixels with whole-pixel advances: the largest whole size that shows the columns.
    for (float size = std::floor(ui); size >= smallest; size -= 1.0f) {
        // (drawn advances are whole pixels: the measured one is rounded up to what is drawn)
        const float advance = std::ceil(mono->CalcTextSizeA(size, FLT_MAX, 0.0f, "0").x);
        if (advance > 0 && box / advance - gutter_columns_ >= kCodeColumns) return size;
    }
    return smallest;
}

void EditorPanel::note_button(const std::string& name) {
    const ImVec2 a = ImGui::GetItemRectMin(), b = ImGui::GetItemRectMax();
    buttons_[name] = ButtonRect{a.x, a.y, b.x, b.y};
}

bool EditorPanel::button_rect(const std::string& name, ButtonRect& out) const {
    const auto it = buttons_.find(name);
    if (it == buttons_.end()) return false;
    out = it->second;
    return true;
}

void EditorPanel::draw_toolbar() {
    KernelDocument& doc = *doc_;
    buttons_.clear();
    if (ImGui::Button("Run (F5)") && actions_.run) actions_.run();
    same_line_if_fits(button_width("Save (Ctrl+S)"));
    if (ImGui::Button("Save (Ctrl+S)") && actions_.save) actions_.save();
    same_line_if_fits(button_width("Revert to stock"));
    const bool edited = doc.from_library() && (doc.has_user_copy() || doc.unsaved());
    ImGui::BeginDisabled(!edited);
    if (ImGui::Button("Revert to stock")) confirm_revert_ = true;
    ImGui::EndDisabled();
    same_line_if_fits(checkbox_width("Compile while typing"));
    ImGui::Checkbox("Compile while typing", &auto_compile_);
    const bool program = actions_.is_program && actions_.is_program();
    if (program) {
        // A whole program runs as its main() says: no header to guess (issue 36).
        text_disabled_wrapped(is_script_file(doc.original_path())
                                  ? "A Python script (PyCUDA or CuPy): Run (F5) runs it as written; its output and "
                                    "its launches are in the Program panel. Its kernels' lines are the script's."
                                  : "A whole program (it has a main()): Run (F5) runs it as written; its output and "
                                    "its launches are in the Program panel.");
    }
    if (!program && doc.text().find("/*@playground") == std::string::npos && actions_.describe) {
        // A pasted kernel without a header cannot run yet: one click writes a header from its signature and body.
        if (ImGui::Button("Describe: add a header from the kernel")) actions_.describe();
        note_button("Describe");
        if (ImGui::IsItemHovered())
            ImGui::SetTooltip("Reads the kernel: buffers read are inputs (a photo for pixel kernels, random values "
                              "otherwise), buffers written are outputs, sizes and a 1D or 2D launch from its "
                              "indexing, the block from its __shared__ tiles. Each guess is a `# guess:` line. Same "
                              "as `cuda-playground describe FILE`.");
    }

    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
    // A library kernel is "stock" until edited (edits go to a copy); a file of the user's own is saved in place.
    const std::string where = doc.has_user_copy() ? "edited copy: " + doc.user_copy_path().string()
                              : doc.from_library() ? "stock: " + doc.original_path().string()
                                                   : "your file (saved in place): " + doc.original_path().string();
    ImGui::TextWrapped("%s", where.c_str());
    ImGui::PopStyleColor();
    char position[48];
    std::snprintf(position, sizeof position, "Ln %d, Col %d", cursor_line_, cursor_column_);
    ImGui::TextUnformatted(position);
    const std::string state = status_.pending ? "| changed, not compiled yet" : status_.summary.empty() ? "" : "| " + status_.summary;
    if (!state.empty()) {
        same_line_if_fits(ImGui::CalcTextSize(state.c_str()).x);
        const bool errors = !status_.pending && compile_failed(status_);
        ImGui::TextColored(errors ? kErrorColor : status_.pending ? ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled)
                                                                  : ImGui::GetStyleColorVec4(ImGuiCol_Text),
                           "%s", state.c_str());
    }

    draw_stock_changed();

    confirm_modal(confirm_revert_, "Revert to stock?",
                  "Discard your edits and go back to the bundled version of this kernel?", "Revert", actions_.revert);
}

bool compile_failed(const CompileStatus& status) {
    return std::any_of(status.diagnostics.begin(), status.diagnostics.end(), [](const Diagnostic& d) {
        return d.severity == Severity::Error && d.origin == DiagnosticOrigin::Compile;
    });
}

void EditorPanel::draw_stock_changed() {
    KernelDocument& doc = *doc_;
    if (!doc.stock_changed()) {
        comparing_ = false;
        return;
    }
    ImGui::PushStyleColor(ImGuiCol_Text, kWarningColor);
    ImGui::TextWrapped("The library's version of this lesson changed since you edited it. Your edits are kept; "
                       "compare them with the new version, keep yours, or take the new one.");
    ImGui::PopStyleColor();
    if (ImGui::Button(comparing_ ? "Hide the comparison" : "Compare")) comparing_ = !comparing_;
    note_button("Compare");
    same_line_if_fits(button_width("Keep mine"));
    if (ImGui::Button("Keep mine") && actions_.keep_mine) actions_.keep_mine();
    note_button("Keep mine");
    same_line_if_fits(button_width("Take the new one"));
    if (ImGui::Button("Take the new one")) confirm_take_ = true;
    note_button("Take the new one");
    confirm_modal(confirm_take_, "Take the library's new version?",
                  "Discard your edits and take the library's new version of this lesson?", "Take the new one",
                  actions_.revert);
    if (!comparing_) return;
    // "-" lines are the library's new version only, "+" lines yours only (the diff is rebuilt when either changes).
    if (doc.revision() != diff_revision_ || doc.stock_text() != diff_stock_) {
        diff_ = line_diff(doc.stock_text(), doc.text());
        diff_revision_ = doc.revision();
        diff_stock_ = doc.stock_text();
    }
    ImGui::TextDisabled("- the library's new version only   + yours only");
    ImGui::BeginChild("##stock_diff", ImVec2(0, ImGui::GetTextLineHeightWithSpacing() * 12), ImGuiChildFlags_Borders);
    ImGui::PushFont(mono_font(), 0.0f);
    for (const DiffLine& l : diff_) {
        if (l.kind == DiffLine::Kind::Same) ImGui::TextDisabled("  %s", l.text.c_str());
        else if (l.kind == DiffLine::Kind::OnlyInFirst) ImGui::TextColored(ImVec4(1, 0.5f, 0.45f, 1), "- %s", l.text.c_str());
        else ImGui::TextColored(ImVec4(0.45f, 0.9f, 0.45f, 1), "+ %s", l.text.c_str());
    }
    ImGui::PopFont();
    ImGui::EndChild();
}

void EditorPanel::update_markers() {
    // The most severe message per line is its marker; every message on the line is in its tooltip.
    std::string key;
    for (const Diagnostic& d : status_.diagnostics)
        key += std::to_string(d.line) + char('0' + int(d.severity)) + char('0' + int(d.origin)) + d.message + '\n';
    if (key == markers_key_) return;
    markers_key_ = key;
    std::map<int, Marker> by_line;
    for (const Diagnostic& d : status_.diagnostics) {
        if (d.line <= 0) continue;
        Marker& m = by_line[d.line];
        if (m.line == 0 || int(d.severity) < int(m.severity)) m.severity = d.severity;
        m.line = d.line;
        if (!m.message.empty()) m.message += "\n";
        m.message += std::string(severity_name(d.severity)) + ": " + d.message;
        m.origins.push_back(d.origin);
    }
    markers_.clear();
    editor_->ClearMarkers();
    const size_t lines = editor_->GetLineCount();
    for (auto& [line, m] : by_line) {
        if (size_t(line) > lines) continue;
        ImVec4 c = severity_color(m.severity);
        const ImU32 number = ImGui::GetColorU32(ImVec4(c.x * 0.65f, c.y * 0.65f, c.z * 0.65f, 1.0f));
        const ImU32 band = ImGui::GetColorU32(ImVec4(c.x, c.y, c.z, 0.22f));
        // The line number's tooltip is the widget's (drawn on the marker colour); the text's is ours, on the
        // normal tooltip background, where a long message reads better.
        editor_->AddMarker(size_t(line - 1), number, band, m.message, "");
        markers_.push_back(std::move(m));
    }
}

void EditorPanel::draw_source() {
    KernelDocument& doc = *doc_;
    // Text changed outside the widget (revert, reload from disk, another kernel): the widget takes it.
    if (doc.revision() != buffer_revision_ || doc.original_path().string() != buffer_path_) {
        if (editor_->GetText() != doc.text()) {
            editor_->SetText(doc.text());
            markers_key_.clear();  // SetText dropped the markers
        }
        buffer_revision_ = doc.revision();
        buffer_path_ = doc.original_path().string();
    }
    update_markers();
    if (pending_jump_ > 0) {
        editor_->SetCursor(TextEditor::DocPos(size_t(pending_jump_ - 1), 0));
        editor_->ScrollToLine(size_t(pending_jump_ - 1), TextEditor::Scroll::alignMiddle);
        editor_->SetFocus();
        pending_jump_ = 0;
    }

    // A line to bring into view: checked against the rows drawn this frame (below), since the last frame's may be
    // another file's, or taller than this frame's once the message list below the source appears.
    if (status_.reveal_serial != revealed_serial_ && status_.reveal_line > 0) {
        revealed_serial_ = status_.reveal_serial;
        pending_reveal_ = status_.reveal_line;
    }

    // The list below the source: up to five messages, wrapped, at most 40% of the panel's height.
    const ImVec2 avail = ImGui::GetContentRegionAvail();
    float diag_height = 0;
    if (!status_.diagnostics.empty()) {
        const ImGuiStyle& style = ImGui::GetStyle();
        const float wrap = avail.x - style.WindowPadding.x * 2 - style.ScrollbarSize;
        for (size_t i = 0; i < std::min<size_t>(status_.diagnostics.size(), 5); ++i)
            diag_height += ImGui::CalcTextSize(diagnostic_label(status_.diagnostics[i]).c_str(), nullptr, false, wrap).y +
                           style.ItemSpacing.y;
        diag_height = std::min(diag_height + style.WindowPadding.y * 2 + style.ItemSpacing.y, avail.y * 0.4f);
    }
    const float height = std::max(avail.y - diag_height, ImGui::GetTextLineHeight() * 4);
    // The memory figures' column is taken from the editor's width: the code never runs under it.
    const float column_w = memory_column_width();
    editor_->Render("##source", ImVec2(std::max(avail.x - column_w, ImGui::GetTextLineHeight() * 4), height));
    const ImVec2 box0 = ImGui::GetItemRectMin(), box1 = ImGui::GetItemRectMax();
    if (edited_) {
        edited_ = false;
        doc.set_text(editor_->GetText(), actions_.now ? actions_.now() : 0.0);
        buffer_revision_ = doc.revision();
    }
    const ImGuiWindow* nav = ImGui::GetCurrentContext()->NavWindow;
    active_ = nav && std::strstr(nav->Name, "##source") != nullptr;
    const TextEditor::DocPos cursor = editor_->GetMainCursorPosition();
    cursor_line_ = int(cursor.line) + 1;
    cursor_column_ = int(cursor.index) + 1;

    // The geometry the tests and the hover need: line numbers sit left of the text's first column.
    line_h_ = editor_->GetLineHeight();
    first_row_ = int(editor_->GetFirstVisibleRow());
    last_row_ = int(editor_->GetLastVisibleRow());
    if (pending_reveal_ > 0) {
        const int row = pending_reveal_ - 1;
        if (row < first_row_ || row > last_row_) editor_->ScrollToLine(size_t(row), TextEditor::Scroll::alignMiddle);
        pending_reveal_ = 0;
    }
    const ImVec2 first = editor_->DocPos2ScreenPos(TextEditor::DocPos(0, 0));
    text_x0_ = first.x;
    text_y0_ = first.y;
    number_x0_ = box0.x;
    number_x1_ = first.x;
    if (const float advance = ImGui::CalcTextSize("0").x; advance > 0) {
        gutter_columns_ = std::max(1.0f, (first.x - box0.x) / advance);
        visible_columns_ = int((box1.x - ImGui::GetStyle().ScrollbarSize - first.x) / advance);
        code_box_width_ = box1.x - ImGui::GetStyle().ScrollbarSize - box0.x;
    }
    draw_memory_gutter(box1.x - ImGui::GetStyle().ScrollbarSize, box0.y, box1.y, box1.x, box1.x + column_w);
    draw_debug_marks(box1.x - ImGui::GetStyle().ScrollbarSize, box0.y, box1.y);
    hovered_marker_.clear();
    const ImVec2 mouse = ImGui::GetIO().MousePos;
    if (!markers_.empty() && ImGui::IsWindowHovered(ImGuiHoveredFlags_ChildWindows) && mouse.x >= box0.x && mouse.x < box1.x &&
        mouse.y >= box0.y && mouse.y < box1.y && line_h_ > 0) {
        const int line = int((mouse.y - text_y0_) / line_h_) + 1;
        for (const Marker& m : markers_)
            if (m.line == line) {
                hovered_marker_ = m.message;
                if (mouse.x >= number_x1_) ImGui::SetTooltip("%s", m.message.c_str());  // the widget's own over the number
            }
    }
}

// The debugger's marks over the text's rows, and a click on a line number setting or clearing a breakpoint.
void EditorPanel::draw_debug_marks(float box_x1, float box_y0, float box_y1) {
    debug_drawn_.clear();
    if (!debug_marks_ || line_h_ <= 0) return;
    const ImGuiWindow* panel = ImGui::GetCurrentWindow();
    ImDrawList* dl =
        panel->DC.ChildWindows.empty() ? ImGui::GetWindowDrawList() : panel->DC.ChildWindows.back()->DrawList;
    dl->PushClipRect(ImVec2(number_x0_, box_y0), ImVec2(box_x1, box_y1 - ImGui::GetStyle().ScrollbarSize), false);
    const int lines = int(editor_->GetLineCount());
    auto row_y = [&](int line) { return editor_->DocPos2ScreenPos(TextEditor::DocPos(size_t(line - 1), 0)).y; };
    auto on_screen = [&](int line) { return line >= 1 && line <= lines && line - 1 >= first_row_ && line - 1 <= last_row_; };
    for (const auto& [line, n] : debug_marks_->threads_at) {
        if (!on_screen(line)) continue;
        const float y = row_y(line);
        dl->AddRectFilled(ImVec2(number_x1_, y), ImVec2(box_x1, y + line_h_), IM_COL32(230, 190, 40, 60));
        // An arrow at the line numbers' right edge: the watched threads stand here.
        const float h = line_h_ * 0.35f, x = number_x1_ - h * 1.2f, cy = y + line_h_ * 0.5f;
        dl->AddTriangleFilled(ImVec2(x - h, cy - h), ImVec2(x - h, cy + h), ImVec2(x + h * 0.6f, cy), IM_COL32(240, 200, 50, 255));
        debug_drawn_.emplace(line, "stop");
    }
    if (const int f = debug_marks_->fault_line; on_screen(f)) {
        const float y = row_y(f);
        dl->AddRectFilled(ImVec2(number_x1_, y), ImVec2(box_x1, y + line_h_), IM_COL32(230, 70, 60, 70));
        debug_drawn_.emplace(f, "fault");
    }
    for (int line : debug_marks_->breakpoints) {
        if (!on_screen(line)) continue;
        const float y = row_y(line), r = line_h_ * 0.32f;
        dl->AddCircleFilled(ImVec2(number_x0_ + r + 2, y + line_h_ * 0.5f), r, IM_COL32(225, 60, 55, 255));
        debug_drawn_.emplace(line, "breakpoint");
    }
    dl->PopClipRect();
    const ImVec2 mouse = ImGui::GetIO().MousePos;
    if (toggle_breakpoint_ && ImGui::IsMouseClicked(ImGuiMouseButton_Left) &&
        ImGui::IsWindowHovered(ImGuiHoveredFlags_ChildWindows) && mouse.x >= number_x0_ && mouse.x < number_x1_ &&
        mouse.y >= box_y0 && mouse.y < box_y1) {
        const int line = int((mouse.y - text_y0_) / line_h_) + 1;
        if (line >= 1 && line <= lines) toggle_breakpoint_(line);
    }
}

float EditorPanel::memory_column_width() const {
    if ((!memory_marks_ || memory_marks_->empty()) && instruction_counts_ && !instruction_counts_->empty()) {
        const bool local = local_counts_ && !local_counts_->empty();
        return ImGui::CalcTextSize(local ? "9999 spill" : "9999").x + 2 * 5.0f + ImGui::GetStyle().ItemSpacing.x;
    }
    if (!memory_marks_ || memory_marks_->empty()) return 0.0f;
    float w = 0;
    for (const MemoryLineMark& m : *memory_marks_) w = std::max(w, ImGui::CalcTextSize(m.badge.c_str()).x);
    return w + 2 * 5.0f + ImGui::GetStyle().ItemSpacing.x;
}

// The memory figures: each access line's badge in the reserved column right of the editor, and its whole text (or
// its worst figure) after the code when the line has room at full size, on a dark plate, in green (ideal), yellow
// or red (how far from it). Where the line has no room the text is not drawn over the code: the badge's hover
// says it in full.
void EditorPanel::draw_memory_gutter(float box_x1, float box_y0, float box_y1, float column_x0, float column_x1) {
    gutter_.clear();
    if ((!memory_marks_ || memory_marks_->empty()) && instruction_counts_ && line_h_ > 0) {
        draw_instruction_counts(box_y0, box_y1, column_x0, column_x1);
        return;
    }
    if (!memory_marks_ || memory_marks_->empty() || line_h_ <= 0) return;
    // The inline texts go into the text's own child window (just ended): the panel's list is drawn under it.
    const ImGuiWindow* panel = ImGui::GetCurrentWindow();
    ImDrawList* dl =
        panel->DC.ChildWindows.empty() ? ImGui::GetWindowDrawList() : panel->DC.ChildWindows.back()->DrawList;
    ImDrawList* column = ImGui::GetWindowDrawList();
    dl->PushClipRect(ImVec2(number_x1_, box_y0), ImVec2(box_x1, box_y1), false);
    // The column stops where the text's horizontal scrollbar starts: a badge of a line hidden under it stays hidden.
    const float clip_y1 = box_y1 - ImGui::GetStyle().ScrollbarSize;
    column->PushClipRect(ImVec2(column_x0, box_y0), ImVec2(column_x1, clip_y1), false);
    const size_t lines = editor_->GetLineCount();
    std::set<int> marked;
    for (const MemoryLineMark& m : *memory_marks_) marked.insert(m.line);
    const std::string& text = doc_->text();
    // Where a line's code ends on screen (its length in characters; the widget places them).
    const auto code_end = [&](int line) {
        size_t start = 0;
        for (int l = 1; l < line && start != std::string::npos; ++l) start = text.find('\n', start) + 1;
        if (start == std::string::npos || (start == 0 && line > 1)) return box_x1;
        const size_t end = std::min(text.find('\n', start), text.size());
        size_t trimmed = end;
        while (trimmed > start && (text[trimmed - 1] == ' ' || text[trimmed - 1] == '\r')) --trimmed;
        return editor_->DocPos2ScreenPos(TextEditor::DocPos(size_t(line - 1), trimmed - start)).x;
    };
    const float pad = 5, gap = ImGui::CalcTextSize("  ").x;
    const auto plate_width = [&](const std::string& label) { return ImGui::CalcTextSize(label.c_str()).x + 2 * pad; };
    const ImVec2 mouse = ImGui::GetIO().MousePos;
    const bool hovered = ImGui::IsWindowHovered(ImGuiHoveredFlags_ChildWindows);
    for (const MemoryLineMark& m : *memory_marks_) {
        if (m.line <= 0 || size_t(m.line) > lines || m.line - 1 < first_row_ || m.line - 1 > last_row_) continue;
        const ImVec4 c = m.grade == MemoryGrade::Ideal  ? ImVec4(0.40f, 0.90f, 0.45f, 1)
                         : m.grade == MemoryGrade::Near ? ImVec4(1.00f, 0.85f, 0.30f, 1)
                                                        : ImVec4(1.00f, 0.45f, 0.40f, 1);
        const auto plate = [&](ImDrawList* into, float x0, float y, float x1, const std::string& label) {
            into->AddRectFilled(ImVec2(x0, y), ImVec2(x1, y + line_h_), IM_COL32(20, 22, 28, 235), 3.0f);
            into->AddRect(ImVec2(x0, y), ImVec2(x1, y + line_h_), ImGui::GetColorU32(ImVec4(c.x, c.y, c.z, 0.8f)),
                          3.0f);
            into->AddText(ImVec2(x0 + pad, y + (line_h_ - ImGui::GetFontSize()) * 0.5f), ImGui::GetColorU32(c),
                          label.c_str());
        };
        const float line_y = editor_->DocPos2ScreenPos(TextEditor::DocPos(size_t(m.line - 1), 0)).y;
        // The badge, always: in the column, right-aligned.
        const float bx1 = column_x1 - 2, bx0 = bx1 - plate_width(m.badge);
        plate(column, bx0, line_y, bx1, m.badge);
        gutter_.push_back(GutterText{m.line, m.line, m.badge, m.grade, true, bx0, line_y, bx1, line_y + line_h_,
                                     text_x0_, code_end(m.line), box_x1});
        if (hovered && mouse.x >= column_x0 && mouse.x < column_x1 && mouse.y >= line_y && mouse.y < line_y + line_h_)
            ImGui::SetTooltip("line %d: %s", m.line, m.text.c_str());
        // The whole text where the line (or a free line under it) has room after its code.
        const bool next_free = size_t(m.line) < lines && !marked.count(m.line + 1) && m.line <= last_row_;
        const auto span = place_gutter_text(m, code_end, plate_width, box_x1, gap, next_free);
        if (!span) continue;
        const float y = editor_->DocPos2ScreenPos(TextEditor::DocPos(size_t(span->row - 1), 0)).y;
        plate(dl, span->x0, y, span->x1, span->label);
        gutter_.push_back(GutterText{m.line, span->row, span->label, m.grade, false, span->x0, y, span->x1, y + line_h_,
                                     text_x0_, code_end(span->row), box_x1});
    }
    column->PopClipRect();
    dl->PopClipRect();
}

void EditorPanel::draw_diagnostics() {
    if (status_.diagnostics.empty()) return;
    ImGui::BeginChild("##diagnostics", ImVec2(0, 0), ImGuiChildFlags_Borders);
    for (size_t i = 0; i < status_.diagnostics.size(); ++i) {
        const Diagnostic& d = status_.diagnostics[i];
        ImGui::PushID(int(i));
        ImGui::PushStyleColor(ImGuiCol_Text, severity_color(d.severity));
        // A selectable as tall as the wrapped message, the message drawn over it: nothing runs off the edge.
        const std::string label = diagnostic_label(d);
        const ImVec2 at = ImGui::GetCursorPos();
        const float height = ImGui::CalcTextSize(label.c_str(), nullptr, false, ImGui::GetContentRegionAvail().x).y;
        if (ImGui::Selectable("##diagnostic", false, ImGuiSelectableFlags_None, ImVec2(0, height)) && d.line > 0)
            jump_to_line(d.line);
        ImGui::SetCursorPos(at);
        ImGui::PushTextWrapPos(0.0f);
        ImGui::TextUnformatted(label.c_str());
        ImGui::PopTextWrapPos();
        ImGui::PopStyleColor();
        ImGui::PopID();
    }
    ImGui::EndChild();
}

}  // namespace cp::ui

namespace cp::ui {

// The Code panel's count of instructions per line, right-aligned in the column, dimmed (no judgement in it).
void EditorPanel::draw_instruction_counts(float box_y0, float box_y1, float column_x0, float column_x1) {
    ImDrawList* column = ImGui::GetWindowDrawList();
    const float clip_y1 = box_y1 - ImGui::GetStyle().ScrollbarSize;
    column->PushClipRect(ImVec2(column_x0, box_y0), ImVec2(column_x1, clip_y1), false);
    const ImVec2 mouse = ImGui::GetIO().MousePos;
    const bool hovered = ImGui::IsWindowHovered(ImGuiHoveredFlags_ChildWindows);
    const int lines = int(editor_->GetLineCount());
    for (const auto& [line, count] : *instruction_counts_) {
        if (line <= 0 || line > lines || line - 1 < first_row_ || line - 1 > last_row_) continue;
        // A line with local-memory instructions: "12 L" in the warning colour (a spill when ptxas reports one).
        const int local = local_counts_ && local_counts_->count(line) ? local_counts_->at(line) : 0;
        const std::string label = std::to_string(count) + (local ? (spill_bytes_ > 0 ? " spill" : " local") : "");
        const float y = editor_->DocPos2ScreenPos(TextEditor::DocPos(size_t(line - 1), 0)).y;
        if (y + line_h_ > clip_y1 || y < box_y0) continue;  // a row the clip would cut: not drawn, not listed
        const float x1 = column_x1 - 2 - 5.0f, x0 = x1 - ImGui::CalcTextSize(label.c_str()).x;
        column->AddText(ImVec2(x0, y + (line_h_ - ImGui::GetFontSize()) * 0.5f),
                        local ? ImGui::GetColorU32(ImVec4(1.00f, 0.70f, 0.25f, 1)) : ImGui::GetColorU32(ImGuiCol_TextDisabled),
                        label.c_str());
        gutter_.push_back(GutterText{line, line, label, local ? MemoryGrade::Near : MemoryGrade::Ideal, true, x0, y, x1,
                                     y + line_h_, text_x0_, 0, 0});
        if (hovered && mouse.x >= column_x0 && mouse.x < column_x1 && mouse.y >= y && mouse.y < y + line_h_) {
            if (!local)
                ImGui::SetTooltip("line %d: %d %s instruction%s for %s (the Code panel lists them)", line, count,
                                  counts_what_.c_str(), count == 1 ? "" : "s", counts_arch_.c_str());
            else if (spill_bytes_ > 0)
                ImGui::SetTooltip("line %d: %d %s instruction%s for %s, %d of them to local memory: ptxas spills %d "
                                  "bytes of registers for this kernel, and this line stores or reloads them (fewer "
                                  "live values, a smaller unroll or a larger register budget removes them)",
                                  line, count, counts_what_.c_str(), count == 1 ? "" : "s", counts_arch_.c_str(), local,
                                  spill_bytes_);
            else
                ImGui::SetTooltip("line %d: %d %s instruction%s for %s, %d of them to local memory (a local array "
                                  "indexed at run time or the stack frame; ptxas reports no spills)",
                                  line, count, counts_what_.c_str(), count == 1 ? "" : "s", counts_arch_.c_str(), local);
        }
    }
    column->PopClipRect();
}

}  // namespace cp::ui
