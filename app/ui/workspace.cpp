// Workspace state: creating the engine and interop, opening kernels, turning changes into runs and
// finished runs into textures, logs, timing samples and panel status. Drawing is in workspace_frame.cpp.
//
// Sections: making the engine and interop · the command line · opening a kernel and its lesson stage · saving and
// edits · turning changes into runs (maybe_submit, fetches) · the remote link · what a run is checked against ·
// applying a finished run (outcome, failure, check, verdict) · presentation, fonts, settings · idling
#include "ui/workspace.h"
#include "core/kernel_file/program_file.h"
#include "core/clock.h"


#include "core/kernel_file/describe.h"

#include "core/cuda/cuda_backend_factory.h"
#include "core/engine/backend.h"
#include "core/kernel_file/kernel_file.h"
#include "core/remote/remote_backend.h"
#include "core/session/backend_setup.h"
#include "core/session/lesson_export.h"
#include "core/session/report_text.h"
#include "core/session/script_host.h"
#include "core/text_util.h"
#include "core/toolkit/nvrtc_compiler.h"
#include "ui/panels/memory_panel.h"
#include "ui/panels/launch_panel.h"
#include "ui/panels/launch_view_panel.h"
#include "ui/panels/occupancy_panel.h"
#include "ui/panels/sweep_panel.h"
#include "ui/panels/library_panel.h"
#include "ui/panels/class_panel.h"
#include "ui/panels/console_panel.h"
#include "ui/panels/program_panel.h"
#include "ui/panels/parameters_panel.h"
#include "ui/state/user_dirs.h"
#include "core/toolkit/compile_only_backend.h"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdlib>
#include <ctime>
#include <sstream>
#include <tuple>

namespace cp::ui {

namespace fs = std::filesystem;

namespace {

constexpr double kWatchInterval = 0.5;  // how often the open file is checked for outside changes

std::string params_summary(const std::map<std::string, double>& params) {
    std::ostringstream s;
    for (const auto& [k, v] : params) s << (s.tellp() ? " " : "") << k << "=" << v;
    return s.str();
}

// "06:55" (today) or "2026-11-25 06:55", in local time.
std::string local_time_text(int64_t seconds) {
    const std::time_t t = std::time_t(seconds), now = std::time(nullptr);
    std::tm at{}, today{};
    localtime_r(&t, &at);
    localtime_r(&now, &today);
    char text[32];
    if (at.tm_year == today.tm_year && at.tm_yday == today.tm_yday)
        std::strftime(text, sizeof text, "%H:%M", &at);
    else
        std::strftime(text, sizeof text, "%Y-%m-%d %H:%M", &at);
    return text;
}

}  // namespace

Workspace::Workspace(render::RenderTarget& target, const AppOptions& options, fs::path settings_file, bool persist,
                     const BackendFactory& backend_factory)
    : target_(target),
      settings_file_(std::move(settings_file)),
      persist_(persist),
      files_(console_, kernels_dir(), edits_dir()),
      connection_(console_) {
    settings_ = load_settings(settings_file_);
    presentation_ = {options.text_size.value_or(settings_.font_scale), target_.content_scale(), settings_.high_contrast};
    inputs_.timing.repeats = settings_.timing_repeats;

    // The backend: the one asked for (or the registry's first that works); when none can run kernels, a
    // compile-only one, so the editor still gets the compiler's diagnostics.
    // A `devices:` file runs on every device of this backend, each opened as this one was (a backend given by
    // the caller, e.g. a test's, runs the split alone): core/session/backend_setup.h, as the command line.
    // --remote: a server that cannot be reached now is tried again (ServerConnection::poll), as one lost later
    // is; meanwhile the window compiles only. The connection keeps the factory for those attempts.
    const MakeBackendFn make = connection_.keep_factory(backend_factory);
    auto wanted = set_up_backend(options.backend, make);
    // Whole programs run here, not on a --remote server: on the backend the window was asked for.
    program_.set_backend(options.remote.empty() && !options.backend.empty() ? options.backend : "auto");
    std::optional<Error> unreached;
    if (!wanted && backend_factory && !options.remote.empty() && wanted.error().kind == ErrorKind::WorkerLost)
        unreached = wanted.error();
    BackendSetup setup;
    if (wanted) setup = std::move(*wanted);
    else setup.engine = std::make_unique<Engine>(make_compile_only_backend(wanted.error().message));
    const BackendCapabilities caps = setup.engine->capabilities();
    const std::string passed_over = setup.passed_over_text();
    render::RenderTarget* wake_target = &target_;
    runner_ = std::make_unique<LiveRunner>(std::move(setup.engine), [wake_target] { wake_target->wake(); });
    if (setup.open_device) runner_->use_devices(setup.device_count, setup.open_device);
    sanitize_.unavailable = sanitize_unavailable_reason(runner_->device());
    if (auto sanitized = connection_.sanitized_factory()) runner_->set_sanitized_backend_factory(std::move(sanitized));
    connection_.begin(unreached ? options.remote : remote_prefix_of(runner_->device().where), unreached);

    std::string output_path = "host upload (the backend's buffers are in host memory)";
    // CUDA_PLAYGROUND_INTEROP=off: outputs always through host memory; =on: interop even after a remembered
    // fault (once the GPU was reset).
    const char* interop_choice = std::getenv("CUDA_PLAYGROUND_INTEROP");
    const std::string interop = interop_choice ? interop_choice : "";
    const std::optional<int64_t> faulted = caps.device_buffers && interop != "on" ? remembered_gpu_fault() : std::nullopt;
    if (caps.device_buffers && interop == "off") {
        output_path = "host upload (CUDA_PLAYGROUND_INTEROP=off)";
    } else if (faulted) {
        const std::string when = local_time_text(*faulted);
        output_path = "host upload (a kernel faulted on this GPU at " + when + ")";
        console_.add(LogKind::Info,
                     "A kernel faulted on this GPU at " + when +
                         ", so outputs go through host memory: after a fault the NVIDIA driver leaves CUDA-GL interop's "
                         "textures stale, or stalls it, until the GPU is reset. After a reset, "
                         "CUDA_PLAYGROUND_INTEROP=on uses interop again; a reboot forgets the fault.");
    } else if (caps.device_buffers) {
        if (auto copier = render::make_cuda_gl_copier(0); copier) {
            copier_ = std::move(*copier);
            output_path = copier_->describe();
        } else {
            output_path = "host upload (interop unavailable: " + copier.error().message + ")";
            console_.add(LogKind::Warning, "CUDA-GL interop unavailable, outputs go through host memory: " + copier.error().full());
        }
    }
    if (auto pass = render::ColormapPass::create(); pass) colormap_ = std::move(*pass);
    else console_.add(LogKind::Error, pass.error().full());
    // A backend in another process (the CUDA worker) hands its buffers over as IPC handles; its addresses
    // mean nothing here.
    outputs_ = std::make_unique<OutputViews>(copier_.get(), colormap_.get(), caps.buffers_by_ipc);

    device_status_.can_run = caps.launches;
    device_status_.device = runner_->device();
    device_status_.passed_over = caps.launches ? passed_over : std::string();
    device_status_.why_nothing_runs = caps.launches ? std::string() : runner_->device().notes;
    device_status_.renderer = target_.describe();
    device_status_.output_path = output_path;
    if (!caps.launches) console_.add(LogKind::Warning, "No backend can run kernels here: " + device_status_.why_nothing_runs);
    else console_.add(LogKind::Info, "Backend: " + runner_->device().backend + " on " + runner_->device().name);
    console_.add(LogKind::Info, "Renderer: " + device_status_.renderer);

    // Panels, each with only what it needs.
    layout_.add(std::make_unique<LibraryPanel>(
        files_.library(), LibraryActions{[this](const fs::path& p) { open_kernel(p); },
                                         [this] { return doc() ? doc()->original_path() : fs::path(); },
                                         [this](const fs::path& p) { return files_.mark_label(p); }}));
    EditorPanel& editor = layout_.add(std::make_unique<EditorPanel>(
        doc(), compile_status_, settings_.auto_compile,
        EditorActions{[this] { request_run(); }, [this] { save_now(); },
                      [this] { take_stock(); },
                      [this] { return now_; },
                      [this] {
                          if (!doc()) return;
                          const KernelFile file = parse_kernel_source(doc()->text(), doc()->original_path());
                          auto header = propose_header(file);
                          if (!header) {
                              console_.add(LogKind::Error, header.error().full());
                              return;
                          }
                          doc()->set_text(with_header(doc()->text(), *header), now_);
                          console_.add(LogKind::Info, "Added a header proposed from the kernel's signature and body; "
                                                      "its `# guess:` lines say what it guessed. Check them and run (F5).");
                          request_run();
                      },
                      [this] { keep_my_edits(); },
                      [this] { return document_is_program(); }}));
    layout_.add(std::make_unique<ParametersPanel>(inputs_, files_.parsed(), latest_));
    LaunchPanel& launch =
        layout_.add(std::make_unique<LaunchPanel>(inputs_, device_status_.device, files_.parsed(), latest_, block_suggestion_, sanitize_));
    OutputPanel& output = layout_.add(std::make_unique<OutputPanel>(*outputs_, output_status_, compare_));
    TimingPanel& timing = layout_.add(std::make_unique<TimingPanel>(timing_, inputs_, live_, device_status_.device, compare_));
    layout_.add(std::make_unique<LaunchViewPanel>(*outputs_, latest_, inputs_, device_status_.device));
    StreamsPanel& streams = layout_.add(std::make_unique<StreamsPanel>(latest_));
    layout_.add(std::make_unique<OccupancyPanel>(latest_, inputs_, device_status_.device));
    layout_.add(std::make_unique<SweepPanel>(sweep_, inputs_));
    MemoryPanel& memory = layout_.add(std::make_unique<MemoryPanel>(memory_));
    editor.set_memory_marks(&memory_.marks);
    DebugPanelActions debug_actions;
    debug_actions.grid = [this] { return debug_grid(); };
    debug_actions.faulted_block = [this] { return debug_faulted_block(); };
    debug_actions.debug_faulted = [this] { debug_block_that_faulted(); };
    debug_panel_ = &layout_.add(std::make_unique<DebugPanel>(debug_, std::move(debug_actions)));
    editor.set_debug_marks(&debug_.marks, [this](int line) { debug_.toggle_breakpoint(line); });
    output.set_memory(&memory_);  // a click on the output picks the warp of the picture
    layout_.add(std::make_unique<ConsolePanel>(console_));
    ProgramPanel& program_panel =
        layout_.add(std::make_unique<ProgramPanel>(program_, now_, [this] { target_.wake(); },
                                                   [this](size_t index) { return open_launch_as_lesson(index); },
                                                   [this](size_t index) { debug_program_launch(index); }));
    layout_.add(std::make_unique<DevicePanel>(device_status_));
    class_panel_ = &layout_.add(std::make_unique<ClassPanel>(class_results_, [this](size_t i) { return open_student(i); }));
    code_panel_ = &layout_.add(std::make_unique<CodePanel>(
        code_view_, CodePanelInputs{&device_status_.device,
                                    [this] { return latest_ && latest_->report.resolved ? int(latest_->report.resolved->block.count()) : 0; },
                                    [this](int line) {
                                        if (!doc()) return std::string();
                                        const std::string& t = doc()->text();
                                        size_t start = 0;
                                        for (int l = 1; l < line && start != std::string::npos; ++l) {
                                            start = t.find('\n', start);
                                            if (start != std::string::npos) ++start;
                                        }
                                        if (start == std::string::npos) return std::string();
                                        const size_t end = t.find('\n', start);
                                        return trim(t.substr(start, end == std::string::npos ? std::string::npos : end - start));
                                    },
                                    nvrtc_supported_archs(),
                                    [this] { return files_.parsed().spec.compare; }}));
    editor_panel_ = &editor;
    layout_.set_named(editor, output, timing, streams, memory);
    layout_.set_presentation_view(std::make_unique<PresentationView>(output, editor, launch, timing, files_.parsed(),
                                                                     PresentationActions{[this] {
                                                                                             save_now();
                                                                                             request_run();
                                                                                         },
                                                                                         [this] { set_presenting(false); },
                                                                                         [this] { return document_is_program(); },
                                                                                         &program_panel}));
    layout_.restore_visibility(settings_.panels);

    // Start-up kernel: the one asked for, else the last one, else the default demo (an image filter).
    fs::path start;
    // A class's results open beside a kernel: the one the window would open without them.
    std::optional<fs::path> results;
    if (options.open_file && is_grade_results_file(*options.open_file)) results = *options.open_file;
    if (options.open_file && !results) start = *options.open_file;
    else if (!settings_.last_kernel.empty() && fs::exists(settings_.last_kernel)) start = settings_.last_kernel;
    else if (fs::exists(kernels_dir() / "image" / "box_blur.cu")) start = kernels_dir() / "image" / "box_blur.cu";
    else if (!files_.library().empty()) start = files_.library().front().path;
    if (options.coverage) inputs_.measure_coverage = true;
    if (options.memory) {
        memory_.enabled = true;
        layout_.set_memory_stage(true);
    }
    if (!start.empty()) open_kernel(start);
    if (results) open_path(*results);
    if (options.line > 0) editor_panel_->jump_to_line(options.line);
    if (options.present) set_presenting(true);
    if (!options.sanitize.empty()) request_sanitize(options.sanitize);
}

Workspace::~Workspace() {
    // A server that stopped answering must not hold the window open for a request's time limit (minutes): the
    // links end now, and the runner's (or an attempt's) blocked request returns at once.
    connection_.close();
    if (doc() && doc()->unsaved()) save_now();
    save_settings_if_persistent();
    compare_.columns.clear();
    outputs_.reset();  // textures unregister from interop before the copier goes
    copier_.reset();
    runner_.reset();
}

Result<bool> Workspace::apply_command_line(const AppOptions& options) {
    // The same checks and messages as `run` (core/session/run_choices.h); what only a run can tell (an
    // image that does not load, a launch the device refuses) comes back with the first run, as in `run`.
    RunChoices choices = inputs_.choices;
    for (const auto& [name, value] : options.sets)
        if (auto ok = apply_set(files_.parsed(), choices, name, value); !ok) return ok.error();
    if (options.block) choices.block = options.block;
    if (options.grid) choices.grid = options.grid;
    if (options.thread_order) {
        if (!runner_->capabilities().thread_order) {
            const Error e = thread_order_unavailable(runner_->device());
            return Error{"--thread-order: " + e.message, e.hint, e.kind};
        }
        choices.thread_order = options.thread_order;
    }
    inputs_.choices = std::move(choices);
    inputs_.touch();
    for (int line : options.breakpoints) debug_.marks.breakpoints.insert(line);
    if (options.debug_block) debug_.block = *options.debug_block;
    if (options.debug_barrier > 0) debug_.pending_barrier = options.debug_barrier;
    for (const std::string& w : options.watches) debug_.add_watch(w);
    if (options.debug_warp >= 0) {
        debug_.warp = options.debug_warp;
        debug_.warp_alone = true;
    }
    debug_pending_launch_ = options.debug_launch;
    if (!options.breakpoints.empty() || options.debug_block || options.debug_barrier > 0 || !options.watches.empty() ||
        options.debug_warp >= 0 || options.debug_launch)
        layout_.show_when_settled("Debug");
    for (const std::string& title : options.show) {
        if (layout_.has(title)) {
            layout_.show_when_settled(title);
        } else {
            const std::vector<std::string> titles = layout_.titles();
            const std::string guess = closest_name(title, titles);
            std::string all;
            for (const std::string& t : titles) all += (all.empty() ? "" : ", ") + t;
            return make_error(ErrorKind::UserInput, "`--show " + title + "`: there is no panel of that name",
                              (guess.empty() ? "" : "did you mean `" + guess + "`? ") + "The panels: " + all + ".");
        }
    }
    return true;
}

void Workspace::export_program(const fs::path& dir) {
    // The edit as it is now, with the values the sliders hold (what the Output shows).
    auto exported = export_lesson(files_.parsed(), inputs_.choices);
    Result<fs::path> written = exported ? write_lesson_export(*exported, dir) : Result<fs::path>(exported.error());
    if (!written) {
        export_dialog_.show_result(written.error().full(), false);
        console_.add(LogKind::Error, "Export as a program: " + written.error().full());
        return;
    }
    std::string text = "Wrote " + written->string() + " and " + std::to_string(exported->files.size() - 1) +
                       " more file" + (exported->files.size() == 2 ? "" : "s") + ". Build and run it:\n  cd " +
                       dir.string() + " && cmake -B build && cmake --build build && ./build/" + exported->program +
                       "\nor in the playground: cuda-playground run " + written->string();
    for (const std::string& l : exported->left_out) text += "\nNot in the program: " + l + ".";
    export_dialog_.show_result(text, true);
    console_.add(LogKind::Info, text);
}

void Workspace::open_kernel(const fs::path& path) {
    if (!files_.open(path)) return;
    inputs_.reset_for_new_kernel();
    streams_shown_ = false;
    outputs_->clear();
    latest_.reset();
    output_status_ = OutputStatus();
    compare_.columns.clear();
    compare_.listed = files_.parsed().spec.compare;
    // The editor scrolls when the serial changes: it counts on across files, or the new file's first fault would
    // carry the serial the editor already saw and stay out of view.
    const uint64_t serial = compile_status_.reveal_serial;
    compile_status_ = CompileStatus();
    compile_status_.reveal_serial = serial;
    run_diagnostics_.clear();
    sanitizer_marks_.clear();
    sanitize_.summary.clear();
    sanitize_.findings.clear();
    memory_.result.reset();  // another kernel's lines
    memory_.marks.clear();
    memory_.error.clear();
    memory_.forget_choice();  // another launch: its first warp, not one picked in the last
    debug_.forget();          // another kernel: its lines, its blocks
    debug_.marks.breakpoints.clear();
    debug_.block = {0, 0, 0};
    verify_next_ = true;
    apply_lesson_stage();
    settings_.last_kernel = fs::absolute(path).string();
    save_settings_if_persistent();
}

void Workspace::open_path(const fs::path& path) {
    if (!is_grade_results_file(path)) {
        open_kernel(path);
        return;
    }
    if (auto loaded = class_results_.load(path); !loaded) {
        console_.add(LogKind::Error, loaded.error().message);
        return;
    }
    const GradeReport& r = class_results_.report();
    console_.add(LogKind::Info, "Opened the results of " + fs::path(r.assignment).filename().string() + ": " +
                                    std::to_string(r.students.size()) + " students on " + std::to_string(r.case_names.size()) +
                                    " cases (the Class panel). Click a student to open their submission.");
    class_panel_->set_note("");
    layout_.show("Class");
}

std::string Workspace::open_student(size_t index) {
    auto s = class_results_.open(index);
    if (!s) {
        console_.add(LogKind::Error, s.error().message);
        return s.error().message;
    }
    open_kernel(s->file);
    if (!doc() || fs::absolute(doc()->original_path()) != fs::absolute(s->file)) return "could not open " + s->file.string();
    // The case's settings, as far as the student's file takes them (their header may differ from the handout).
    RunChoices choices = s->choices;
    choices.thread_order = inputs_.choices.thread_order;
    choices.keep_only_those_of(files_.parsed());
    inputs_.choices = choices;
    inputs_.touch();
    const std::string student = class_results_.report().students[index].student;
    std::string said = s->case_name.empty() ? student + " passed every case; the first case is loaded"
                                            : student + ", case `" + s->case_name + "`: " + case_status_name(s->status);
    if (s->line > 0) said += " on line " + std::to_string(s->line);
    if (!s->message.empty()) said += ": " + s->message;
    if (s->line > 0) {
        // The grader's result on its line, for this text of the file (an edit moves lines: the mark goes).
        sanitizer_marks_ = {Diagnostic{files_.parsed_path(), s->line, 0, Severity::Error, "graded: " + said, DiagnosticOrigin::Run}};
        sanitizer_marks_revision_ = doc()->revision();
        sanitizer_marks_path_ = files_.parsed_path();
        merge_sanitizer_marks();
        compile_status_.reveal_line = s->line;
        ++compile_status_.reveal_serial;
    }
    console_.add(s->case_name.empty() ? LogKind::Info : LogKind::Warning, said);
    layout_.show("Editor");
    request_run();
    return said;
}

std::string Workspace::open_launch_as_lesson(size_t index) {
    const std::string stem = fs::path(program_.last_path()).stem().string();
    const fs::path dir = launches_dir() / (stem + "-launch" + std::to_string(index + 1));
    auto written = program_.save_launch_as_lesson(index, dir);
    if (!written) {
        console_.add(LogKind::Error, written.error().full());
        return written.error().message;
    }
    console_.add(LogKind::Info, "Launch " + std::to_string(index + 1) + " of " + fs::path(program_.last_path()).filename().string() +
                                    " saved as a lesson with its captured data (" + dir.string() +
                                    "): the views show that launch, and its outputs are checked against what the "
                                    "program computed. The program itself is still " + program_.last_path() + ".");
    open_after_frame_ = *written;
    return "";
}

// The lesson's `show:`: a comparison lesson opens on its side-by-side columns unless `show:` leaves `Compare`
// out (the default demo opens on its one big picture, the columns a tick away); the panels it names are shown
// and get their own column beside the output (the layout is rebuilt when they differ from the last lesson's).
// A lesson whose point is its memory figures (`show: Memory`), projected: the recording starts at once, where the
// class saw an empty switch (presentation mode has no room to turn it on).
void Workspace::record_memory_if_presented() {
    const std::vector<std::string>& asked = files_.parsed().spec.show;
    if (layout_.presenting() && std::find(asked.begin(), asked.end(), "Memory") != asked.end()) memory_.enabled = true;
}

void Workspace::apply_lesson_stage() {
    const std::vector<std::string>& asked = files_.parsed().spec.show;
    record_memory_if_presented();
    compare_.enabled = asked.empty() || std::find(asked.begin(), asked.end(), "Compare") != asked.end();
    layout_.set_stage(asked);
}

void Workspace::reparse_if_changed() {
    if (files_.reparse_if_changed()) compare_.listed = files_.parsed().spec.compare;
}

bool Workspace::document_is_program() {
    if (!doc()) return false;
    const std::string path = doc()->original_path().string();
    if (doc()->revision() != program_doc_revision_ || path != program_doc_path_) {
        program_doc_revision_ = doc()->revision();
        program_doc_path_ = path;
        // A Python script is one too: it runs as written, and its launches are a program's (core/session/script_host).
        program_doc_ = is_script_file(path) ||
                       (!files_.parsed().spec.has_metadata && main_function_line(doc()->text()) > 0);
    }
    return program_doc_;
}

void Workspace::maybe_submit_program(double now) {
    if (program_.running()) return;
    const std::string path = doc()->original_path().string();
    const bool new_program = path != program_.started_path();
    const bool source_changed = doc()->revision() != program_.started_revision();
    bool go = new_program || run_requested_;
    if (source_changed && settings_.auto_compile && now - doc()->last_edit_time() >= kCompilePause) go = true;
    if (!go) return;
    run_requested_ = false;
    if (new_program) {
        layout_.show("Program");
        console_.add(LogKind::Info, doc()->original_path().filename().string() +
                                        (is_script_file(path)
                                             ? " is a Python script: it runs as written in the system's Python, its "
                                               "output and its launches are in the Program panel"
                                             : " is a whole program (it has a main()): it runs as written, its output "
                                               "and its launches are in the Program panel"));
    }
    output_status_ = OutputStatus();
    output_status_.failure = is_script_file(path) ? "a Python script: its output and its launches are in the Program panel"
                                                  : "a whole program: its output and its launches are in the Program panel";
    program_.started_at = now;
    render::RenderTarget* wake_target = &target_;
    program_.start(doc()->text(), path, doc()->revision(), [wake_target] { wake_target->wake(); });
}

void Workspace::apply_program(ProgramRun run) {
    const std::string name = std::filesystem::path(program_.last_path()).filename().string();
    // The editor marks the lines: the compiler's messages, and each launch that failed on a kernel line (a script's
    // kernel lines are the script's own).
    run_diagnostics_ = run.diagnostics;
    for (const ProgramLaunch& l : run.launches)
        if (l.error && l.error->line > 0)
            run_diagnostics_.push_back(Diagnostic{program_.last_path(), l.error->line, 0, Severity::Error,
                                                  "launch of `" + l.kernel + "` (" + launch_site_text(l) +
                                                      "): " + l.error->message,
                                                  DiagnosticOrigin::Run});
    merge_sanitizer_marks();
    for (const Diagnostic& d : run_diagnostics_)
        if (d.severity == Severity::Error && d.line > 0 && doc() && doc()->revision() == program_.last_revision()) {
            compile_status_.reveal_line = d.line;  // the first error's line scrolled into view
            ++compile_status_.reveal_serial;
            break;
        }
    if (!run.compiled) {
        for (const Diagnostic& d : run.diagnostics) console_.add(LogKind::Compile, d.str());
        console_.add(LogKind::Error, name + " did not compile" + (run.error ? ": " + run.error->message : std::string()));
        return;
    }
    for (const Diagnostic& d : run.diagnostics)  // a script's kernels compile as it runs (its own CompileError too)
        console_.add(LogKind::Compile, d.str());
    if (!run.stdout_text.empty()) console_.add(LogKind::Printf, run.stdout_text);
    if (!run.stderr_text.empty()) console_.add(LogKind::Warning, run.stderr_text);
    for (const std::string& attempt : run.refused)
        console_.add(LogKind::Warning, name + " tried to " + attempt +
                                           ": refused (a program here may read the files of its own folder and write "
                                           "none; the call failed in the program, which went on)");
    for (const ProgramLaunch& l : run.launches)
        if (l.error)
            console_.add(LogKind::Error, "launch of `" + l.kernel + "` at " + launch_site_text(l) + ": " +
                                             l.error->message);
    if (run.error) console_.add(LogKind::Error, run.error->message);
    if (debug_pending_launch_) {  // --debug-launch N
        if (debug_pending_launch_ <= run.launches.size()) program_.selected = debug_pending_launch_ - 1;
        else console_.add(LogKind::Error, "--debug-launch " + std::to_string(debug_pending_launch_) + ": " + name +
                                              " made " + count_text(run.launches.size(), "launch", "launches"));
        debug_pending_launch_ = 0;
    }
    const bool script = is_script_file(program_.last_path());
    console_.add(LogKind::Info, name + ": " +
                                    (script && run.end == ProgramRun::End::Returned ? std::string("exited")
                                                                                    : program_end_name(run.end)) +
                                    " with status " +
                                    std::to_string(run.exit_status) + " after " +
                                    count_text(run.launches.size(), "launch", "launches"));
}

void Workspace::maybe_submit(double now) {
    if (document_is_program()) {
        maybe_submit_program(now);
        maybe_submit_debug(now);  // a launch of its last run, stepped through
        return;
    }
    if (connection_.never_connected() || !doc() || !runner_->idle()) return;
    // The text may have changed while panels drew (Describe's header, a revert): the job is made of this text,
    // never of the parse before it (a run of the old text marked as the new one stayed until F5).
    reparse_if_changed();
    // The server cannot be reached: nothing is sent until an attempt is due (by itself, or Reconnect), and then
    // the attempt is a run of the current text. Edits stay in the editor (and are saved here) meanwhile.
    const bool attempt = connection_.link().lost() && connection_.link().attempt_due(now);
    if (connection_.link().lost() && !attempt) return;
    if (attempt) {
        connection_.link().attempt_started();
        run_requested_ = true;
    } else {
        if (submit_exact_fetch()) return;
        if (sweep_.requested) {
            session_moved_on_ = true;
            submit_sweep();
            return;
        }
        if (block_suggestion_.requested) {
            submit_block_suggestion();
            if (!runner_->idle()) {
                session_moved_on_ = true;
                return;  // the query went to the runner; runs wait for its answer
            }
        }
        if (sanitize_.requested) {
            submit_sanitize();
            if (!runner_->idle()) return;  // on a backend of its own: the session's buffers stay
        }
    }
    const bool new_kernel = files_.parsed_path() != submitted_.path;
    const bool source_changed = doc()->revision() != submitted_.doc_revision;
    const bool inputs_changed = inputs_.revision != submitted_.inputs_revision || compare_.active() != submitted_.compare;
    compile_status_.pending = source_changed && !new_kernel;
    bool go = new_kernel || run_requested_ || inputs_changed || (live_.every_frame && can_run());
    if (source_changed && settings_.auto_compile && now - doc()->last_edit_time() >= kCompilePause) go = true;
    if (!go) {
        maybe_submit_memory(now);
        maybe_submit_debug(now);
        return;
    }

    // Verification (a read-back and the CPU reference) on opening a kernel, on F5, or on every run when asked:
    // edits and drags stay fast on big images.
    const bool verify = verify_next_ || run_requested_ || new_kernel || inputs_.verify;
    RunJob job = job_from_inputs();
    job.options.timing = live_timing(verify, source_changed, compare_.active());
    job.options.verify = verify && !live_.every_frame;
    job.options.skipped_check_why = skipped_check_why(source_changed);
    job.options.skipped_check_reason = skipped_check_reason(job.options.skipped_check_why);
    job.options.pinned_host = inputs_.pinned_host;
    job.options.upload_chunk_bytes = uint64_t(std::max(inputs_.upload_chunk_kib, 0)) * 1024;
    job.options.read_back = job.options.verify || outputs_->needs_host_data(files_.parsed());
    // Pictures are uploaded in apply_outcome, before the next job starts: the CPU backend's need no copy.
    job.options.read_back_in_place = true;
    job.options.coverage = inputs_.measure_coverage;
    job.options.trace = inputs_.trace;
    job.compare = compare_.active();
    // Over a remote link, a picture only shown comes as a preview the size of the view (the session decides
    // which outputs qualify: no check, no plot or table). Compare columns get every value (their inspectors
    // have no session of the window's to fetch from).
    if (!job.compare) std::tie(job.options.preview_max_width, job.options.preview_max_height) = preview_limit();
    job.host_data_for = [views = outputs_.get()](const KernelFile& f) { return views->needs_host_data(f); };
    inflight_file_ = files_.parsed();
    inflight_new_source_ = source_changed || new_kernel;
    submitted_ = {doc()->revision(), inputs_.revision, files_.parsed_path(), job.compare, inputs_.choices.block, inputs_.choices.grid};
    inflight_compiled_path_ = doc()->compiled_path();
    run_requested_ = false;
    verify_next_ = false;
    compile_status_.pending = false;
    inflight_since_ = now;
    runner_->submit(std::move(job));
}

std::pair<uint32_t, uint32_t> Workspace::preview_limit() const {
    if (!connection_.link().remote()) return {0, 0};
    constexpr uint32_t kMaxW = 1920, kMaxH = 1080;
    const auto [w, h] = layout_.output().canvas_pixels();
    if (w <= 0 || h <= 0) return {kMaxW, kMaxH};
    return {std::clamp(uint32_t(w), 64u, kMaxW), std::clamp(uint32_t(h), 64u, kMaxH)};
}

bool Workspace::submit_exact_fetch() {
    std::vector<std::string> names;
    for (OutputView& v : outputs_->views()) {
        if (v.exact_wanted && v.is_preview() && !v.exact && v.exact_problem.empty() && v.run == runs_applied_ &&
            !session_moved_on_ && latest_ && !latest_->report.error)
            names.push_back(v.spec.buffer);
        v.exact_wanted = false;  // the inspector asks again on the next frame it hovers
    }
    if (names.empty()) return false;
    RunJob job = job_from_inputs();
    job.read_outputs = std::move(names);
    fetch_run_ = runs_applied_;
    inflight_since_ = now_;
    return runner_->submit(std::move(job));
}

void Workspace::apply_fetched(std::vector<FetchedOutput> fetched) {
    for (FetchedOutput& f : fetched) {
        if (!f.values && f.values.error().kind == ErrorKind::WorkerLost && connection_.link().remote()) {
            RunReport lost;
            lost.error = f.values.error();
            connection_.note(lost, now_);
        }
        for (OutputView& v : outputs_->views()) {
            if (v.spec.buffer != f.name || v.run != fetch_run_ || !v.is_preview()) continue;
            if (f.values) v.exact = f.values.value();
            else v.exact_problem = f.values.error().message;
        }
    }
}

void Workspace::use_connected_backend(AttemptedEngine made) {
    render::RenderTarget* wake_target = &target_;
    runner_ = std::make_unique<LiveRunner>(std::move(made.engine), [wake_target] { wake_target->wake(); });
    if (auto sanitized = connection_.sanitized_factory()) runner_->set_sanitized_backend_factory(std::move(sanitized));
    sanitize_.unavailable = sanitize_unavailable_reason(runner_->device());
    device_status_.can_run = true;
    device_status_.device = runner_->device();
    device_status_.passed_over.clear();
    device_status_.why_nothing_runs.clear();
    console_.add(LogKind::Info, "Connected to the server `" + connection_.link().prefix() + "`: " + runner_->device().where +
                                    ". The kernel runs there now.");
    // As if the kernel were just opened: it runs, and is checked, on the new backend.
    submitted_ = {};
    run_requested_ = true;
}

// How a run is timed. F5, opening a kernel and checked runs time the Timing panel's repeats after a warm-up;
// live re-runs (a slider, the launch, every frame) launch once: the picture needs one launch, and the
// warm-up and repeats cost (1 + repeats) kernels and synchronises a frame (on the CPU backend at 4K,
// 6 x 82 ms instead of 82 ms with the default 5 repeats). An edit warms up first (the new module's first
// launch loads it). Compare runs keep their repeats: their verdict needs the spread.
TimingOptions Workspace::live_timing(bool verify, bool source_changed, bool compare) const {
    if (verify || compare) return inputs_.timing;
    TimingOptions t = inputs_.timing;
    t.warmup = source_changed ? 1 : 0;
    t.repeats = 1;
    return t;
}

// Why a re-run is not checked, as the Output panel says it (and what to do): a check costs a read-back and the
// CPU reference, so only F5, opening a kernel and "Verify every run" check.
NotCheckedWhy Workspace::skipped_check_why(bool source_changed) const {
    if (live_.every_frame) return NotCheckedWhy::EveryFrame;
    if (source_changed) return NotCheckedWhy::AfterEdit;
    if (inputs_.choices.block != submitted_.block || inputs_.choices.grid != submitted_.grid)
        return NotCheckedWhy::AfterLaunchChange;
    return NotCheckedWhy::AfterInputsChange;
}

std::string Workspace::skipped_check_reason(NotCheckedWhy why) {
    switch (why) {
        case NotCheckedWhy::EveryFrame:
            return "re-run every frame, which skips the check: press F5 to check";
        case NotCheckedWhy::AfterEdit:
            return "re-run after an edit: press F5 to check";
        case NotCheckedWhy::AfterLaunchChange:
            return "re-run after a launch change: press F5 to check";
        case NotCheckedWhy::AfterInputsChange:
            return "re-run after a change of the inputs: press F5 to check";
        default:
            return "";  // the session's own sentence
    }
}

RunJob Workspace::job_from_inputs() {
    RunJob job;
    job.id = next_job_++;
    job.file = files_.parsed();
    job.choices = inputs_.choices;
    return job;
}

void Workspace::apply_outcome(RunOutcome outcome) {
    // A kernel faulted in this window's CUDA worker: no interop from here on (render::interop_distrusted).
    if (copier_ && !told_fault_ && gpu_faults_in_this_process() > 0) {
        told_fault_ = true;
        console_.add(LogKind::Info,
                     "A kernel faulted on the GPU: from now on this window shows every output from host memory, since "
                     "the NVIDIA driver leaves CUDA-GL interop's textures stale, or stalls it, until the GPU is reset "
                     "(see the README, \"After a kernel faults on the GPU\")");
    }
    if (outcome.suggestion) {
        apply_block_suggestion(std::move(outcome));
        return;
    }
    if (outcome.sanitized) {
        apply_sanitized(std::move(*outcome.sanitized));
        return;
    }
    if (outcome.memory) {
        apply_memory(std::move(*outcome.memory));
        return;
    }
    if (outcome.debug) {
        apply_debug(std::move(*outcome.debug));
        return;
    }
    if (outcome.fetched) {
        apply_fetched(std::move(*outcome.fetched));
        return;
    }
    if (outcome.sweep) {
        sweep_.running = false;
        if (!outcome.sweep->ok()) console_.add(LogKind::Error, "Sweep: " + outcome.sweep->error().full());
        else if (outcome.sweep->value().best >= 0)
            console_.add(LogKind::Info, "Sweep: fastest block " +
                                            outcome.sweep->value().configs[size_t(outcome.sweep->value().best)].block.str());
        sweep_.result = std::move(outcome.sweep);
        return;
    }
    ++runs_applied_;
    session_moved_on_ = false;
    RunReport& r = outcome.report;
    connection_.note(r, now_);
    // A lesson with `streams:`: its timeline comes to the front with the first streamed run of the kernel.
    if (r.streams && !streams_shown_) {
        streams_shown_ = true;
        show_panel("Streams");
    }
    // The first refusal is the run's error (logged below); any others are logged here.
    for (size_t i = 1; i < r.input_problems.size(); ++i) console_.add(LogKind::Error, "Refused: " + r.input_problems[i].error.full());

    name_compiled_file(r, inflight_file_.path.string(), inflight_compiled_path_.string());
    // Compile status for the editor.
    compile_status_.diagnostics = r.diagnostics;
    // A runtime error with a line (a fault, an out-of-bounds access on the CPU backend) is marked there too.
    if (r.error && r.error_line > 0 && doc()) {
        compile_status_.diagnostics.push_back(Diagnostic{inflight_compiled_path_.string(), r.error_line, 0,
                                                         Severity::Error, "at run time: " + r.error->message,
                                                         DiagnosticOrigin::Run});
        // A fault on a line scrolled out of sight is brought into view once (the cursor stays where it is).
        if (r.error_line != compile_status_.reveal_line || r.error->message != revealed_error_) {
            compile_status_.reveal_line = r.error_line;
            ++compile_status_.reveal_serial;
            revealed_error_ = r.error->message;
        }
    }
    run_diagnostics_ = compile_status_.diagnostics;
    merge_sanitizer_marks();
    size_t errors = 0, warnings = 0;
    for (const Diagnostic& d : r.diagnostics) (d.severity == Severity::Error ? errors : warnings) += d.severity != Severity::Note;
    char summary[160];
    if (r.failed_stage == RunStage::Compile || r.failed_stage == RunStage::Metadata)
        std::snprintf(summary, sizeof summary, "%zu error%s, %zu warning%s", errors, errors == 1 ? "" : "s", warnings,
                      warnings == 1 ? "" : "s");
    else if (r.usage.registers >= 0)
        std::snprintf(summary, sizeof summary, "compiled%s in %.0f ms, %d registers%s", r.cache_hit ? " (cached)" : "",
                      r.compile_ms, r.usage.registers, warnings ? ", warnings" : "");
    else if (!r.compiled)
        std::snprintf(summary, sizeof summary, "not compiled: the run stopped before");
    else if (r.failed_stage == RunStage::None || r.failed_stage > RunStage::Compile)
        std::snprintf(summary, sizeof summary, "compiled%s in %.0f ms%s", r.cache_hit ? " (cached)" : "", r.compile_ms,
                      warnings ? ", warnings" : "");
    else
        std::snprintf(summary, sizeof summary, "%s", errors ? "errors" : "");
    compile_status_.summary = summary;
    // Diagnostics once per new text (re-runs of the same source would repeat them).
    if (inflight_new_source_) {
        for (const Diagnostic& d : r.diagnostics)
            console_.add(d.severity == Severity::Error ? LogKind::Error : LogKind::Compile, d.str());
        if (r.failed_stage != RunStage::Compile && r.failed_stage != RunStage::Metadata && r.compile_ms > 0)
            console_.add(LogKind::Compile, r.title + ": " + compile_status_.summary);
    }
    if (!r.printf_output.empty()) console_.add(LogKind::Printf, r.printf_output);
    for (const LaunchIssue& issue : r.launch_issues)
        if (issue.severity == Severity::Warning) console_.add(LogKind::Warning, issue.message);

    // Something to look at even when nothing ran: the input image the run resolved.
    if (!r.launched && r.resolved && outputs_->views().empty()) outputs_->show_input_image(inflight_file_, *r.resolved);
    if (!r.launched && !r.error)  // a compile-only backend: compiling was all it could do
        output_status_.failure = "Compiled, not run: " + (r.backend.empty() ? std::string("this backend") : "the " + r.backend + " backend") +
                                 " cannot launch kernels (see the Device panel)";
    if (r.launched && r.resolved) {
        const auto views_started = std::chrono::steady_clock::now();
        outputs_->update(inflight_file_, r, runs_applied_, console_);
        views_ms_ += ms_since(views_started);
        TimingSample sample;
        sample.run = runs_applied_;
        sample.kernel = r.title;
        sample.grid = r.resolved->grid;
        sample.block = r.resolved->block;
        sample.dynamic_shared_bytes = r.resolved->dynamic_shared_bytes;
        sample.params = params_summary(r.resolved->params);
        sample.stats = r.timing;
        sample.bandwidth_gbps = r.bandwidth_gbps;
        sample.bandwidth_fraction = r.bandwidth_fraction;
        sample.transfers = r.transfers;
        sample.backend = r.backend;
        sample.devices = r.device_split;
        sample.stages = r.stages;
        sample.stage_runs = r.stage_runs;
        timing_.add(std::move(sample));
        output_status_.run = runs_applied_;
        output_status_.failure.clear();
        // A `devices:` run: where each device's part starts, for the 1D views to mark.
        output_status_.parts.clear();
        if (r.device_split && r.device_split->parts.size() > 1)
            for (const DevicePart& p : r.device_split->parts)
                output_status_.parts.push_back({p.begin, r.device_split->unit() + " " + std::to_string(p.ordinal)});
    }
    show_verdict(r);
    if (r.error) show_failure(r);
    apply_variants(outcome);
    if (copier_) {
        // The worker's buffers that no view of this run shows (the main kernel's or a variant's) are closed; the
        // others stay open, so a live re-run copies from them without opening them again.
        std::vector<std::vector<uint8_t>> in_use;
        for (const auto& [name, handle] : r.ipc_handles) in_use.push_back(handle);
        for (const VariantOutcome& v : outcome.variants)
            if (v.report)
                for (const auto& [name, handle] : v.report->ipc_handles) in_use.push_back(handle);
        copier_->keep_only(in_use);
    }
    // Outputs read in place are the session's buffers, which its next run writes: the views have their copies.
    r.outputs_in_place.clear();
    for (VariantOutcome& v : outcome.variants)
        if (v.report) v.report->outputs_in_place.clear();
    latest_ = std::move(outcome);
}

// Messages name the file that was compiled: an edited lesson's copy, not the stock file it came from (the
// session compiles the text under the stock path so that files beside it are found).
void Workspace::name_compiled_file(RunReport& r, const std::string& parsed_as, const std::string& saved_as) {
    if (parsed_as == saved_as || parsed_as.empty()) return;
    auto rename = [&](std::string& text) {
        for (size_t at = text.find(parsed_as); at != std::string::npos; at = text.find(parsed_as, at + saved_as.size()))
            text.replace(at, parsed_as.size(), saved_as);
    };
    for (Diagnostic& d : r.diagnostics) {
        if (d.file == parsed_as) d.file = saved_as;
        rename(d.message);
    }
    if (r.error) {
        rename(r.error->message);
        rename(r.error->hint);
    }
}

// A run's failure in the console and under the output; live re-running stops after one.
void Workspace::show_failure(const RunReport& r) {
    const std::string what = run_failure_text(r);
    console_.add(LogKind::Error, r.error->hint.empty() ? what : what + "\n  hint: " + r.error->hint);
    output_status_.failure = what;
    if (live_.every_frame) {
        live_.every_frame = false;
        console_.add(LogKind::Info, "Stopped re-running every frame after the failure.");
    }
}

void Workspace::apply_check(CheckOutcome checked) {
    if (!latest_ || latest_->job_id != checked.job_id) return;  // a newer run replaced it
    if (checked.main) {
        RunReport& r = latest_->report;
        const bool had_error = r.error.has_value();
        take_check(r, *checked.main);
        show_verdict(r);
        if (r.error && !had_error) show_failure(r);  // the reference itself failed
    }
    for (size_t i = 0; i < checked.variants.size() && i < latest_->variants.size(); ++i) {
        VariantOutcome& v = latest_->variants[i];
        if (!checked.variants[i] || !v.report || i >= compare_.columns.size()) continue;
        take_check(*v.report, *checked.variants[i]);
        show_column_verdict(compare_.columns[i], *v.report);
    }
}

// The verdict under the output: checked and matching, checked and wrong, checking, or not checked and why.
void Workspace::show_verdict(const RunReport& r) {
    if (r.launched && r.resolved) {
        output_status_.verified = r.verified;
        output_status_.verification = verdict_text(r);
        output_status_.short_verdict = short_verdict_text(r);
        if (r.verified == false) console_.add(LogKind::Warning, output_status_.verification);
    }
    output_status_.on_purpose.clear();
    output_status_.as_expected = r.as_expected;
    if (!r.expect.empty()) {
        std::string note = expected_outcome_text(r);
        if (!r.learn.empty()) note += "\nLearn: " + r.learn;
        output_status_.on_purpose = note;
        if (r.as_expected) console_.add(*r.as_expected ? LogKind::Info : LogKind::Warning, note);
    }
}

bool Workspace::take_presentation_change(Presentation& out) {
    // The display scale changes when the window moves to another monitor.
    if (const float scale = target_.content_scale(); scale != presentation_.content_scale) {
        presentation_.content_scale = scale;
        presentation_dirty_ = true;
    }
    if (!presentation_dirty_) return false;
    presentation_dirty_ = false;
    out = presentation_;
    return true;
}

void Workspace::adjust_font_scale(float delta) {
    const float s = delta == 0 ? 1.0f : std::clamp(presentation_.font_scale + delta, Settings::kMinFontScale, Settings::kMaxFontScale);
    if (s == presentation_.font_scale) return;
    presentation_.font_scale = settings_.font_scale = s;
    presentation_dirty_ = true;
    save_settings_if_persistent();
}

void Workspace::save_settings_if_persistent() {
    if (!persist_) return;
    settings_.timing_repeats = inputs_.timing.repeats;
    layout_.save_visibility(settings_.panels);
    if (auto r = save_settings(settings_file_, settings_); !r) console_.add(LogKind::Warning, r.error().full());
}

double Workspace::idle_timeout(double now) const {
    if ((live_.every_frame && can_run()) || layout_.settling()) return 0;
    double t = kWatchInterval;
    // The link's countdown and a long wait for the server are redrawn each second; an attempt starts on time.
    // (Not while an attempt is in flight: its answer wakes the loop, and a zero timeout would spin.)
    if (connection_.link().lost() && !connection_.link().attempting() && !run_in_flight()) t = std::min(t, std::max(0.0, connection_.link().retry_in(now)));
    if (doc() && doc()->revision() != submitted_.doc_revision && settings_.auto_compile)
        t = std::min(t, std::max(0.0, doc()->last_edit_time() + kCompilePause - now));
    if (doc() && doc()->unsaved()) t = std::min(t, 0.3);
    for (const OutputViews* v : pictures()) t = std::min(t, v->next_probe_due_s());  // a picture's owed screen check
    return t;
}

std::vector<OutputViews*> Workspace::pictures() const {
    std::vector<OutputViews*> all{outputs_.get()};
    for (const VariantColumn& c : compare_.columns)
        if (c.views) all.push_back(c.views.get());
    return all;
}

bool Workspace::displays_checking() const {
    // A check on its way, or an owed one whose time has come (idle_timeout woke the window for it).
    const std::vector<OutputViews*> all = pictures();
    return std::any_of(all.begin(), all.end(),
                       [](const OutputViews* v) { return v->probing() || v->next_probe_due_s() <= 0.0; });
}

bool Workspace::needs_frame(double now) {
    // A listing the Code panel (drawn now) asked for is ready.
    if (code_panel_ && code_panel_->drawn_recently && code_view_.has_finished()) return true;
    if (code_panel_ && code_panel_->drawn_recently && doc() && doc()->revision() != code_requested_revision_ &&
        now - doc()->last_edit_time() >= kCompilePause)
        return true;
    if (runner_->has_outcome() || layout_.settling() || displays_checking()) return true;
    if (debug_shown() && !debug_.recording && debug_key() != debug_.recorded_key) return true;  // a recording is due
    if (layout_.presenting() && layout_.presentation_view().fitting()) return true;  // a few frames to fit its type
    if (connection_.link().lost() && connection_.link().attempt_due(now)) return true;
    if (connection_.attempt_done()) return true;
    const bool waiting_long = connection_.link().remote() && run_in_flight() && now - inflight_since_ >= 2;
    if ((connection_.link().lost() || waiting_long) && now - link_drawn_at_ >= 1.0) return true;
    // A whole program: the Program panel's state runs it (its end wakes the window); the lesson runner's inputs and
    // revisions are not its, and compared with them the window drew frames forever.
    if (doc() && document_is_program()) {
        if (run_requested_ || doc()->unsaved() || files_.reload_if_changed_on_disk(now)) return true;
        if (doc()->revision() != program_.started_revision() &&
            (!settings_.auto_compile || now - doc()->last_edit_time() >= kCompilePause))
            return settings_.auto_compile;
        return false;
    }
    if (live_.every_frame && can_run()) return true;
    if (run_requested_ || block_suggestion_.requested || sanitize_.requested || inputs_.revision != submitted_.inputs_revision) return true;
    if (sweep_.requested || sweep_.running) return true;  // the progress bar moves
    if (doc()) {
        if (doc()->unsaved()) return true;  // autosave is due soon
        if (doc()->revision() != submitted_.doc_revision &&
            (!settings_.auto_compile || now - doc()->last_edit_time() >= kCompilePause))
            return settings_.auto_compile;
        if (files_.reload_if_changed_on_disk(now)) return true;
    }
    return false;
}

}  // namespace cp::ui
