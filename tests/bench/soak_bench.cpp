// cp_soak_bench: live use of the window for a long time, headless, to show that memory stays flat and nothing
// stalls: slider moves, source edits, lesson switches and a faulting kernel every few minutes, driving the real
// Workspace and LiveRunner frame by frame. Prints once a minute: the app's and its workers' RSS, GPU memory
// (with CUDA), frame times, runs and worker restarts. Asserts nothing.
// Run: build/tests/cp_soak_bench [--minutes M] [--backend cpu|cuda|auto] [--fault-every SECONDS]
//   (defaults: 10 minutes, auto, 180 s); e.g. `nice -n 19 build/tests/cp_soak_bench --minutes 60 --backend cpu`.
#include "ui/ui_test_support.h"

#include "core/kernel_file/kernel_file.h"

#include <dirent.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

using namespace cp;
using namespace cp::uitest;

namespace {

// Resident memory of a process in MiB (0 when it is gone).
double rss_mib(pid_t pid) {
    std::ifstream statm("/proc/" + std::to_string(pid) + "/statm");
    long pages = 0, resident = 0;
    if (!(statm >> pages >> resident)) return 0;
    return double(resident) * double(sysconf(_SC_PAGESIZE)) / (1024.0 * 1024.0);
}

// The executable a process runs ("" when it is gone or not ours to read).
std::string exe_of(const std::string& pid) {
    char path[4096];
    const ssize_t n = readlink(("/proc/" + pid + "/exe").c_str(), path, sizeof path - 1);
    return n > 0 ? std::string(path, size_t(n)) : std::string();
}

// This process's worker processes: children running the same executable (posix_spawn of /proc/self/exe; their
// name is "exe"), not the host compiler's.
std::vector<pid_t> worker_pids() {
    std::vector<pid_t> out;
    const std::string me = exe_of("self");
    DIR* tasks = opendir("/proc/self/task");
    if (!tasks) return out;
    while (dirent* t = readdir(tasks)) {
        if (t->d_name[0] == '.') continue;
        std::ifstream children(std::string("/proc/self/task/") + t->d_name + "/children");
        for (pid_t pid = 0; children >> pid;)
            if (exe_of(std::to_string(pid)) == me) out.push_back(pid);
    }
    closedir(tasks);
    return out;
}

// Used GPU memory in MiB from nvidia-smi (every process's, the whole GPU); -1 when it cannot be asked.
double gpu_used_mib() {
    FILE* p = popen("nvidia-smi --query-gpu=memory.used --format=csv,noheader,nounits 2>/dev/null", "r");
    if (!p) return -1;
    double used = -1;
    if (std::fscanf(p, "%lf", &used) != 1) used = -1;
    pclose(p);
    return used;
}

double percentile(std::vector<double> v, double q) {
    if (v.empty()) return 0;
    std::sort(v.begin(), v.end());
    return v[std::min(v.size() - 1, size_t(q * double(v.size())))];
}

// Light lessons for the CPU backend (a few ms a run), and one whose kernel faults (missing bounds check).
const std::vector<std::string> kLessons = {"basics/vector_add.cu", "image/box_blur.cu", "basics/index_2d.cu",
                                           "basics/thread_ids.cu", "basics/global_thread_id.cu"};
const char* const kFaulting = "mistakes/missing_bounds_check.cu";

// The first parameter with a range (a slider) of the open lesson; nullopt when it has none.
std::optional<ParamSpec> slider_of(ui::Workspace& ws) {
    const ui::KernelDocument* doc = ws.document();
    if (!doc) return std::nullopt;
    const KernelFile file = parse_kernel_source(doc->text(), doc->original_path());
    for (const ParamSpec& p : file.spec.params)
        if (!p.derived && p.min && p.max && *p.max > *p.min) return p;
    return std::nullopt;
}

}  // namespace

int main(int argc, char** argv) {
    double minutes = 10, fault_every_s = 180;
    std::string backend = "auto";
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--minutes" && i + 1 < argc)
            minutes = std::atof(argv[++i]);
        else if (a == "--backend" && i + 1 < argc)
            backend = argv[++i];
        else if (a == "--fault-every" && i + 1 < argc)
            fault_every_s = std::atof(argv[++i]);
        else {
            std::printf("usage: cp_soak_bench [--minutes M] [--backend cpu|cuda|auto] [--fault-every SECONDS]\n");
            return 2;
        }
    }
    ScopedUserDir user;
    ui::AppOptions o = headless_options(kLessons[0]);
    o.backend = backend;
    auto host = ui::AppHost::create(o, {});
    if (!host) {
        std::printf("[soak] cannot start the window: %s\n", host.error().full().c_str());
        return 1;
    }
    ui::Workspace& ws = (*host)->workspace();
    settle(**host);
    const bool cuda = ws.device_status().device.backend == "cuda";
    std::printf("[soak] %s (%s), %.0f minutes, a fault every %.0f s; lessons:", ws.device_status().device.name.c_str(),
                ws.device_status().device.backend.c_str(), minutes, fault_every_s);
    for (const auto& l : kLessons) std::printf(" %s", l.c_str());
    std::printf(", fault: %s\n", kFaulting);
    std::printf("[soak] %6s %9s %11s %9s %8s %11s %11s %11s %6s %7s %8s %6s\n", "minute", "app MiB", "workers MiB",
                "GPU MiB", "frames", "frame p50", "frame p99", "max wall", "runs", "errors", "restarts", "faults");
    std::fflush(stdout);

    using clock = std::chrono::steady_clock;
    const auto start = clock::now();
    auto elapsed_s = [&] { return std::chrono::duration<double>(clock::now() - start).count(); };
    std::set<pid_t> workers_seen;
    for (pid_t pid : worker_pids()) workers_seen.insert(pid);
    const size_t first_workers = workers_seen.size();

    std::vector<double> frame_cpu, frame_wall;
    double next_report = 60, next_slider = 2, next_edit = 7, next_switch = 30, next_fault = fault_every_s;
    size_t lesson = 0;
    int slider_step = 0, edits = 0, faults = 0, errors = 0, faults_seen = 0;
    std::set<std::string> error_texts;
    uint64_t runs_at_report = ws.runs_applied(), last_seen_run = ws.runs_applied();
    const double first_app_mib = rss_mib(getpid());
    while (elapsed_s() < minutes * 60) {
        const double t = elapsed_s();
        if (t >= next_fault) {
            ws.open_kernel(kernels_dir() / kFaulting);
            ++faults;
            next_fault += fault_every_s;
            next_switch = t + 10;  // the faulting lesson is shown for a while, then the rotation goes on
        } else if (t >= next_switch) {
            lesson = (lesson + 1) % kLessons.size();
            ws.open_kernel(kernels_dir() / kLessons[lesson]);
            next_switch = t + 30;
        } else if (t >= next_edit) {
            if (ui::KernelDocument* doc = ws.document()) {
                std::string text = doc->text();
                text += "\n// soak edit " + std::to_string(++edits) + "\n";
                ws.set_source(text, (*host)->seconds() - 5.0);  // as if typed, the typing pause already over
            }
            next_edit = t + 7;
        } else if (t >= next_slider) {
            if (const std::optional<ParamSpec> p = slider_of(ws)) {
                // Back and forth over the lower part of the range: sizes a CPU backend runs in milliseconds.
                const double lo = *p->min, hi = std::min(*p->max, lo + 2000);
                const int k = slider_step++ % 20;
                ws.inputs().choices.params[p->name] = std::floor(lo + (hi - lo) * (k < 10 ? k : 20 - k) / 10.0);
                ws.inputs().touch();
            }
            next_slider = t + 2;
        }
        const auto f0 = clock::now();
        (*host)->frame();
        frame_wall.push_back(std::chrono::duration<double, std::milli>(clock::now() - f0).count());
        frame_cpu.push_back((*host)->last_frame_cpu_ms());
        if (ws.runs_applied() != last_seen_run && ws.latest()) {
            last_seen_run = ws.runs_applied();
            if (const auto& error = ws.latest()->report.error) {
                ++errors;
                // Each different message once, so a run of errors can be told from one stuck state.
                const std::string text = std::string(error_kind_name(error->kind)) + ": " + error->message;
                if (error_texts.insert(text).second)
                    std::printf("[soak]   at %.0f s, a new error in %s: %s\n", t,
                                ws.document() ? ws.document()->shown_path().filename().string().c_str() : "?",
                                text.c_str());
                if (ws.latest()->report.error->kind == ErrorKind::OutOfBounds ||
                    ws.latest()->report.error->kind == ErrorKind::Fault)
                    ++faults_seen;
            }
        }
        for (pid_t pid : worker_pids()) workers_seen.insert(pid);
        usleep(4000);  // about a 60 Hz loop with the frame's own time: not a busy spin

        if (elapsed_s() >= next_report) {
            double workers_mib = 0;
            for (pid_t pid : worker_pids()) workers_mib += rss_mib(pid);
            const double gpu = cuda ? gpu_used_mib() : -1;
            char gpu_text[32] = "n/a";
            if (gpu >= 0) std::snprintf(gpu_text, sizeof gpu_text, "%.0f", gpu);
            std::printf("[soak] %6.0f %9.1f %11.1f %9s %8zu %9.2fms %9.2fms %9.0fms %6llu %7d %8zu %6d\n",
                        next_report / 60, rss_mib(getpid()), workers_mib, gpu_text, frame_cpu.size(),
                        percentile(frame_cpu, 0.5), percentile(frame_cpu, 0.99),
                        frame_wall.empty() ? 0.0 : *std::max_element(frame_wall.begin(), frame_wall.end()),
                        static_cast<unsigned long long>(ws.runs_applied() - runs_at_report), errors,
                        workers_seen.size() - first_workers, faults_seen);
            std::fflush(stdout);
            frame_cpu.clear();
            frame_wall.clear();
            runs_at_report = ws.runs_applied();
            next_report += 60;
        }
    }
    std::printf(
        "[soak] done: app RSS %.1f MiB at the first report's start, %.1f MiB now; %d edits, %d faulting "
        "lessons opened, %d runs reported a fault, %zu worker processes started after the first\n",
        first_app_mib, rss_mib(getpid()), edits, faults, faults_seen, workers_seen.size() - first_workers);
    return 0;
}
