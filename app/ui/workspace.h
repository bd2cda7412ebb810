// The window's state and its wiring, in rooms that each hold only their own state: the files and edits
// (OpenFiles: the library, the open document and its parse, saving, outside changes), the remote link
// (ServerConnection: lost or not, the attempts to reach a server, Sanitize's link), the views (PanelLayout:
// the panels, the docked layout, presentation mode), and here the live runs: changes into jobs for the runner
// (LiveRunner), and finished jobs into the output views, the status, the console and the timing history. One UI
// frame at a time: take a finished run's results, draw, start the next run when something changed. Panels get
// references to the parts they need; nothing else sees this class except the app host and tests.
#pragma once

#include "core/remote/remote_backend.h"
#include "render/colormap_pass.h"
#include "render/device_copier.h"
#include "render/render_target.h"
#include "ui/app.h"
#include "ui/state/backend_attempt.h"
#include "ui/state/block_suggestion.h"
#include "ui/state/compare_state.h"
#include "ui/state/code_view.h"
#include "ui/state/console_log.h"
#include "ui/panels/code_panel.h"
#include "ui/panels/device_panel.h"
#include "ui/panels/editor_panel.h"
#include "ui/panels/memory_panel.h"
#include "ui/panels/debug_panel.h"
#include "ui/state/edit_marks.h"
#include "ui/state/kernel_document.h"
#include "ui/state/memory_view.h"
#include "ui/state/debug_view.h"
#include "ui/state/live_runner.h"
#include "ui/state/sweep_state.h"
#include "ui/state/class_results.h"
#include "ui/state/open_files.h"
#include "ui/state/program_run.h"
#include "ui/state/server_connection.h"
#include "ui/panel_layout.h"
#include "ui/panels/export_dialog.h"
#include "ui/panels/open_file_dialog.h"
#include "ui/panels/output_panel.h"
#include "ui/state/output_views.h"
#include "ui/state/remote_link.h"
#include "ui/panels/panel.h"
#include "ui/panels/presentation_view.h"
#include "ui/state/run_inputs.h"
#include "ui/state/sanitize_state.h"
#include "ui/state/settings.h"
#include "ui/theme.h"
#include "ui/state/timing_history.h"
#include "ui/panels/streams_panel.h"
#include "ui/panels/timing_panel.h"

#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace cp::ui {

inline constexpr double kCompilePause = 0.6;  // seconds of no typing before compiling on its own

// Makes the backend the engine runs on. The default is core's make_backend with the --backend choice (the
// registry); tests pass their own. When it fails, the window still compiles (a compile-only backend).
using BackendFactory = std::function<Result<std::unique_ptr<Backend>>()>;

// The status bar's left text cut to `max_width` (measured by `width`): its first line, shortened with "..." so
// that it stops before the frame-time readout on the right.
std::string status_bar_fit(const std::string& text, float max_width, const std::function<float(const std::string&)>& width);

class ClassPanel;

class Workspace {
public:
    // `persist`: save settings and the ImGui layout (false in headless runs).
    Workspace(render::RenderTarget& target, const AppOptions& options, std::filesystem::path settings_file, bool persist,
              const BackendFactory& backend_factory = {});
    ~Workspace();
    Workspace(const Workspace&) = delete;
    Workspace& operator=(const Workspace&) = delete;

    // Applies --set / --block / --grid; an Error names the first bad one.
    Result<bool> apply_command_line(const AppOptions& options);

    // One UI frame, between ImGui::NewFrame and ImGui::Render. `now`: seconds on a steady clock.
    void frame(double now);
    // How long the loop may sleep before the next frame is needed (0: draw again at once).
    double idle_timeout(double now) const;
    // Whether something (a finished run, a pending run, a file change) wants a frame now.
    bool needs_frame(double now);
    // A picture's screen check is on its way (OutputViews::probing): another frame looks at it.
    bool displays_checking() const;
    // The output views of the main kernel and of every compare column (what the screen check looks at).
    std::vector<OutputViews*> pictures() const;

    bool run_in_flight() const { return !runner_->idle() || program_.running(); }
    void wait_for_run() {
        runner_->wait_until_done();
        program_.wait_until_done();
    }
    // The whole program run from the window, when the document is one (issue 36).
    const ProgramRunState& program() const { return program_; }
    ProgramRunState& program_run() { return program_; }  // a launch re-run from the Program panel, or a test
    // The Memory switch's copy of the kernel run last is being compiled in the background (recording_prepare.h).
    bool preparing_recording() { return runner_->preparing_recording(); }

    // Presentation changes (font scale, theme) are applied by the host between frames.
    bool take_presentation_change(Presentation& out);

    // ---- for the host, tests and benchmarks ----
    void open_kernel(const std::filesystem::path& path);
    // File > Open: a `grade` results.json opens the Class panel's table, anything else as open_kernel.
    void open_path(const std::filesystem::path& path);
    // Student `index` of the open class: their submission in the editor with the case they failed first loaded and
    // its line marked; what the Class panel says under its table (what was loaded, or why nothing was).
    std::string open_student(size_t index);
    const ClassResults& class_results() const { return class_results_; }
    // Launch `index` of the last program run saved as a lesson (under launches_dir()) and opened after this frame;
    // why it could not be, or an empty string.
    std::string open_launch_as_lesson(size_t index);
    void record_memory_if_presented();
    void request_run() { run_requested_ = true; }
    void save_now() { files_.save_now(); }
    // An edited lesson back to the library's text (Revert, "Take the new one"): it runs at once and checked, as
    // when the lesson is opened (no typing pause, and the Output says the verdict, not "after an edit").
    void take_stock() {
        files_.take_stock(now_);
        run_requested_ = true;
    }
    void keep_my_edits() { files_.keep_my_edits(); }  // an edited lesson whose stock changed: keep the edits, the notice goes
    KernelDocument* document() { return files_.document() ? &*files_.document() : nullptr; }
    void set_source(std::string text, double now) { files_.set_source(std::move(text), now); }  // as if typed
    RunInputs& inputs() { return inputs_; }
    LiveOptions& live() { return live_; }
    OutputViews& outputs() { return *outputs_; }
    // The side-by-side comparison of a lesson with `compare:` (its toggle, and each variant's column).
    CompareState& compare() { return compare_; }
    SweepState& sweep() { return sweep_; }
    // The Memory panel's switch, the recording and the warp picture's choice (issue 23).
    MemoryViewState& memory() { return memory_; }
    DebugViewState& debug() { return debug_; }
    const DebugPanel* debug_panel() const { return debug_panel_; }
    // The last run's faulting block becomes the Debug panel's block, and the panel is shown.
    void debug_block_that_faulted();
    // The Program panel's "Step through a block": launch `index` of the last run in the Debug panel (its block that
    // faulted, else block 0).
    void debug_program_launch(size_t index);
    const OutputPanel& output_panel() const { return layout_.output(); }
    const EditorPanel& editor_panel() const { return layout_.editor(); }
    const CodePanel& code_panel() const { return *code_panel_; }
    CodeView& code_view() { return code_view_; }
    // File > Export as a program (the menu's item; tests call it too).
    void open_export_dialog();
    const ExportDialog& export_dialog() const { return export_dialog_; }
    // The Code panel is shown and its listing is being made (a headless screenshot waits for it).
    bool code_listing_busy() const {
        return code_panel_ && code_panel_->drawn_recently && doc() &&
               (code_view_.busy() || !code_view_.shown() || !code_view_.shown_is_latest());
    }
    const TimingPanel* timing_panel() const { return &layout_.timing(); }
    TimingPanel* timing_panel() { return &layout_.timing(); }
    const StreamsPanel* streams_panel() const { return &layout_.streams(); }
    const MemoryPanel* memory_panel() const { return &layout_.memory(); }
    const std::optional<RunOutcome>& latest() const { return latest_; }
    // The Launch panel's occupancy suggestion (its button sets `requested`).
    BlockSuggestionState& block_suggestion() { return block_suggestion_; }
    uint64_t runs_applied() const { return runs_applied_; }
    // The server link of a remote backend (--remote): lost or not, why, when it tries again; Reconnect.
    const RemoteLink& remote_link() const { return connection_.link(); }
    void reconnect_now() { connection_.link().reconnect_now(); }
    const std::string& drawn_banner() const { return drawn_banner_; }  // the link banner's text, as drawn last frame
    // The largest preview a live run asks a remote server for: the Output view's canvas in pixels (before it was
    // drawn, 1920 x 1080), never more than 1920 x 1080. {0, 0} for a local backend (every value, no preview).
    std::pair<uint32_t, uint32_t> preview_limit() const;
    // Sanitize (the Launch panel's button, Run > Sanitize, --sanitize): runs the kernel once under
    // compute-sanitizer with `tool`; false (and a console line saying why) when it cannot run here.
    bool request_sanitize(const std::string& tool);
    const SanitizeState& sanitize() const { return sanitize_; }
    // Tests: the backend sanitize runs use instead of the CUDA worker under compute-sanitizer.
    void set_sanitized_backend_factory(SanitizedBackendFactory factory) {
        connection_.set_test_sanitizer(factory);
        runner_->set_sanitized_backend_factory(std::move(factory));
    }
    ConsoleLog& console() { return console_; }
    const TimingHistory& timing() const { return timing_; }
    const CompileStatus& compile_status() const { return compile_status_; }
    const OutputStatus& output_status() const { return output_status_; }
    const DeviceStatus& device_status() const { return device_status_; }
    Settings& settings() { return settings_; }
    // Whether kernels can run here (false: only compiling works, and the banner says why).
    bool can_run() const { return runner_->capabilities().launches; }
    bool interop_active() const { return copier_ != nullptr; }
    void set_all_panels_visible(bool v) { layout_.set_all_visible(v); }
    // Shows a panel and brings it to the front of its tab group (from the next frame on).
    void show_panel(const std::string& title) { layout_.show(title); }
    // Closes a panel, as its tab's close button does.
    void hide_panel(const std::string& title) { layout_.hide(title); }
    // The default layout with every panel shown (View > Reset layout).
    void reset_layout();
    // Presentation mode (F11): the output fills the window (and the window the screen), the lesson beside it.
    void set_presenting(bool on);
    bool presenting() const { return layout_.presenting(); }
    const PresentationView& presentation_view() const { return layout_.presentation_view(); }
    // Shows or hides the panel with this title (benchmarks and screenshots); false when there is none.
    bool set_panel_visible(const std::string& title, bool v) { return layout_.set_visible(title, v); }
    // Ctrl +/- : steps of 0.1, clamped; 0 resets to 1. Saved with the settings.
    void adjust_font_scale(float delta);
    float font_scale() const { return presentation_.font_scale; }
    float frame_cpu_ms() const { return frame_cpu_ms_; }
    // Where the status bar's two texts were drawn last frame (screen pixels), for the layout tests.
    struct DrawnRect {
        float x0 = 0, y0 = 0, x1 = 0, y1 = 0;
    };
    DrawnRect status_left() const { return status_left_; }
    const std::string& status_text() const { return status_text_; }  // the status bar's left text, uncut
    DrawnRect status_right() const { return status_right_; }
    void set_frame_cpu_ms(float ms) { frame_cpu_ms_ = ms; }
    // The UI thread's part of the frame budget: applying the last outcome (its views' textures by interop or
    // upload, the display passes, the compare columns) and, of that, the output views alone; 0 on frames
    // that applied nothing.
    double apply_ms() const { return apply_ms_; }
    double views_ms() const { return views_ms_; }

private:
    // ---- live runs: changes into jobs for the runner, finished jobs into the views, status, console and timing ----
    void apply_outcome(RunOutcome outcome);
    // The exact values the inspector wants of a preview (OutputView::exact_wanted), asked of the runner when it
    // is idle and its session still holds the shown run's buffers; true when a job was submitted.
    bool submit_exact_fetch();
    void apply_fetched(std::vector<FetchedOutput> fetched);
    // The backend an attempt of the server connection made: a new runner on it, the Device panel's figures, and a
    // checked run.
    void use_connected_backend(AttemptedEngine made);
    // A check that followed the shown run (LiveRunner::take_check): its verdicts into the status and the columns.
    void apply_check(CheckOutcome checked);
    void show_verdict(const RunReport& r);
    void show_failure(const RunReport& r);  // precondition: r.error
    void show_column_verdict(VariantColumn& col, const RunReport& r);
    // The variants of a compare run, into their columns (workspace_compare.cpp); clears them after a plain run.
    void apply_variants(RunOutcome& outcome);
    // The occupancy suggestion (workspace_suggest.cpp): ask the session on the runner's thread, or estimate
    // here without a backend; then apply, show and log the answer.
    void submit_block_suggestion();
    TimingOptions live_timing(bool verify, bool source_changed, bool compare) const;
    // Why a re-run skips the check (RunOptions::skipped_check_why), and that in the window's words
    // (RunOptions::skipped_check_reason).
    NotCheckedWhy skipped_check_why(bool source_changed) const;
    static std::string skipped_check_reason(NotCheckedWhy why);
    RunJob job_from_inputs();  // a job for the runner with the current file, parameters, launch and images
    static void name_compiled_file(RunReport& r, const std::string& parsed_as, const std::string& saved_as);
    void apply_block_suggestion(RunOutcome outcome);
    void submit_sanitize();
    void apply_sanitized(Result<SanitizedRun> result);
    // compile_status_.diagnostics: the last run's, plus the sanitizer's findings while the text is the one
    // they were found in.
    void merge_sanitizer_marks();
    void submit_sweep();
    // With the Memory switch on and the runner idle: records the run shown when its figures are not yet of it
    // (workspace_memory.cpp); the answer comes back through apply_memory.
    void maybe_submit_memory(double now);
    void apply_memory(Result<MemoryRecording> recorded);
    // The debugger (workspace_debug.cpp): the shown Debug panel's recording of its block, and its answer.
    bool debug_shown() const;
    std::string debug_key() const;  // what a recording now would be of: the run shown and the block
    void maybe_submit_debug(double now);
    void maybe_submit_program_debug(double now);
    std::string submitted_program_path() const;
    const ProgramLaunch* debugged_launch() const;
    std::optional<Dim3> debug_grid() const;           // of the run shown, or of the program's launch
    std::optional<Dim3> debug_faulted_block() const;  // the same's block that faulted
    void apply_debug(Result<BlockDebugRun> recorded);
    void follow_debug_stop();  // a move in the Debug panel brings its line into the editor's view
    void use_block_suggestion(const AppliedSuggestion& suggestion);
    void maybe_submit(double now);
    // Whole programs (issue 36): a document with its own main() and no header runs as written, on its own thread,
    // and shows in the Program panel (ui/state/program_run.h).
    bool document_is_program();
    void maybe_submit_program(double now);
    void apply_program(ProgramRun run);
    // The open file's parse, current (files_), and the compare variants it lists.
    void reparse_if_changed();
    void apply_lesson_stage();  // the opened lesson's `show:`: its panels in front, with room
    std::optional<KernelDocument>& doc() { return files_.document(); }
    const std::optional<KernelDocument>& doc() const { return files_.document(); }

    // ---- drawing the window (workspace_frame.cpp) ----
    void handle_shortcuts();
    void draw_menu_bar();
    void draw_status_bar();
    void draw_banner();
    void draw_link_banner();  // the server cannot be reached: why, the next attempt, Reconnect
    void save_settings_if_persistent();
    // The Code panel (workspace_code.cpp): while it is drawn, asks for the open file's machine code once the typing
    // pauses, links its picked line with the editor's cursor, and gives the editor the instruction counts per line.
    void update_code_view(double now);

    render::RenderTarget& target_;
    std::filesystem::path settings_file_;
    bool persist_;
    Settings settings_;
    Presentation presentation_;
    bool presentation_dirty_ = true;
    ConsoleLog console_;
    ProgramRunState program_;
    std::optional<std::filesystem::path> open_after_frame_;  // a lesson saved from a launch, opened once drawn
    bool program_doc_ = false;           // the document is a whole program (as of program_doc_revision_)
    std::optional<uint64_t> program_doc_revision_;  // none: not yet looked at
    std::string program_doc_path_;

    // The rooms: files and edits, the remote link, the views (each with only its own state).
    OpenFiles files_;
    ServerConnection connection_;
    PanelLayout layout_;

    // The engine, the interop copier and the output views.
    std::unique_ptr<LiveRunner> runner_;
    std::unique_ptr<render::DeviceCopier> copier_;
    bool told_fault_ = false;  // "a kernel faulted: host memory from now on" is said once
    std::unique_ptr<render::ColormapPass> colormap_;
    std::unique_ptr<OutputViews> outputs_;

    // What the user chose and what the panels show of the runs.
    RunInputs inputs_;
    LiveOptions live_;
    TimingHistory timing_;
    std::optional<RunOutcome> latest_;
    BlockSuggestionState block_suggestion_;
    SweepState sweep_;
    SanitizeState sanitize_;
    MemoryViewState memory_;
    DebugViewState debug_;
    double debug_requested_at_ = 0;
    std::vector<Diagnostic> run_diagnostics_;      // the last run's, with its runtime error's line
    // The last sanitized run's findings with a line, or the grader's result of a student opened from the Class
    // panel: marks of this revision of the document that no run of it makes.
    std::vector<Diagnostic> sanitizer_marks_;
    uint64_t sanitizer_marks_revision_ = ~0ull;    // the document revision they were found in
    std::string sanitizer_marks_path_;
    CompileStatus compile_status_;
    std::string revealed_error_;  // the runtime error whose line the editor last brought into view
    OutputStatus output_status_;
    CompareState compare_;
    DeviceStatus device_status_;
    bool streams_shown_ = false;  // the Streams panel was brought to the front for this kernel

    // Run bookkeeping: what the last submitted job was made of, so changes trigger the next one.
    struct Submitted {
        uint64_t doc_revision = ~0ull, inputs_revision = ~0ull;
        std::string path;
        bool compare = false;
        std::optional<Dim3> block, grid;  // the launch chosen, to say why a re-run was not checked
    } submitted_;
    KernelFile inflight_file_;
    std::filesystem::path inflight_compiled_path_;  // the file the submitted text is saved as (its messages name it)
    bool inflight_new_source_ = false;
    uint64_t next_job_ = 1, runs_applied_ = 0;
    bool run_requested_ = false;
    bool verify_next_ = true;
    // Since the shown run, the session ran something else (a sweep, an occupancy query): its buffers are no
    // longer the shown run's, so no exact values are fetched for that run's previews.
    bool session_moved_on_ = false;
    uint64_t fetch_run_ = 0;     // the run whose exact values are being fetched
    double inflight_since_ = 0;  // when the job in flight was submitted (the status bar's wait)

    // The frame: its time, the status bar's texts and where they were drawn, the link banner's redraws.
    double now_ = 0;
    float frame_cpu_ms_ = 0;
    DrawnRect status_left_, status_right_;
    std::string status_text_;
    double apply_ms_ = 0, views_ms_ = 0;
    std::string drawn_banner_;
    double link_drawn_at_ = -1;  // when the link's wait or countdown was last drawn (redrawn each second)
    OpenFileDialog open_dialog_;
    ClassResults class_results_;
    ClassPanel* class_panel_ = nullptr;
    ExportDialog export_dialog_;
    // File > Export as a program: the current lesson, with the current values, written into `dir`.
    void export_program(const std::filesystem::path& dir);
    CodeView code_view_{[this] { target_.wake(); }};
    CodePanel* code_panel_ = nullptr;
    EditorPanel* editor_panel_ = nullptr;
    DebugPanel* debug_panel_ = nullptr;
    int debug_drawn_frames_ = 0;  // frames running the Debug panel was drawn
    uint64_t debug_moves_seen_ = 0;
    size_t debug_pending_launch_ = 0;  // --debug-launch N: made the Program panel's launch once the program has run
    int code_drawn_frames_ = 0;      // frames running the Code panel was drawn
    int code_cursor_seen_ = 0;       // the editor's cursor line the Code panel last followed
    uint64_t code_jump_serial_ = 0;  // the Code panel's last pick the editor followed
    uint64_t code_requested_revision_ = ~0ull;
    // The Code panel's "before this edit": the request whose listing last compiled, and the one before it.
    std::optional<MachineCodeRequest> code_current_, code_good_, code_before_;
    std::string code_against_key_;  // what the comparison's request was worked out from
};

}  // namespace cp::ui
