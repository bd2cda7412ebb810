// cp_class_bench: a class on one server (issue 24; a benchmark that prints, asserts nothing). N simulated
// students, each with a worker process of their own through the stdio transport (`--remote env` by default:
// the worker runs here; any PREFIX, e.g. "ssh gpu01"), edit and run library lessons in a loop for M minutes:
// each iteration is a source edit (the kernel recompiles) or a slider move, a run whose outputs come back
// (timed: edit -> new outputs), then the check against the lesson's reference. Student 0 also runs a faulting
// kernel every S seconds (an illegal address on CUDA, kernels/mistakes/missing_bounds_check.cu on the CPU
// backend). Prints p50/p95 edit -> new outputs, runs per second, device memory per worker (nvidia-smi, matched
// to the workers' processes), the faults, and what matters: the other students' wrong results and failed runs
// (expected: 0 and 0).
// usage: cp_class_bench [--students N] [--minutes M] [--backend cuda|cpu|auto] [--remote PREFIX] [--fault-every S]
#include "core/engine/engine.h"
#include "core/kernel_file/kernel_file.h"
#include "core/remote/remote_backend.h"
#include "core/session/session.h"

#include <sys/types.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "test_paths.h"

using namespace cp;
using Clock = std::chrono::steady_clock;

namespace {

// A lesson and the slider a student moves on it: a parameter with its range, or (none) the block's width.
struct Lesson {
    const char* path;
    const char* param;  // nullptr: the slider is the block
    double lo, hi, step;
};
const Lesson kLessons[] = {
    {"image/box_blur", nullptr, 0, 0, 0},  // the default demo
    {"image/gaussian_blur", "sigma", 0.5, 4, 0.5},
    {"basics/vector_add", "n", 200001, 1000003, 1},
    {"matrix/transpose_naive", "width", 501, 2000, 1},
    {"image/grayscale", nullptr, 0, 0, 0},
    {"patterns/map_square", "n", 200001, 1000003, 1},
};

// A kernel that writes through a wild pointer: an illegal address on the GPU, the worker's context lost.
const char* kIllegalAddress =
    "/*@playground\ntitle: Illegal address (the class benchmark's faulting student)\n"
    "param n: int = 1000\nbuffer out: float[n] out zeros\nblock: 256\n"
    "grid: ceil(n / block.x)\n*/\n"
    "extern \"C\" __global__ void wild_write(float* out, int n)\n{\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i < n) ((float*)(0x10 + 4096ull * 1024 * 1024))[i] = out[i] + 1.0f;\n}\n";

struct Options {
    int students = 30;
    double minutes = 5;
    std::string backend = "auto", remote = "env";
    double fault_every_s = 30;
};

// One student's figures.
struct Tally {
    std::vector<double> edit_ms, slider_ms;                  // edit -> new outputs
    std::vector<double> edit_compile_ms, slider_compile_ms;  // of which compiling (a slider move: none)
    int runs = 0, wrong = 0, failed = 0, unchecked = 0;
    int fault_runs = 0, faults = 0;     // student 0's faulting kernel: runs, and those that faulted
    std::vector<std::string> problems;  // the first few failures' words
};

struct Student {
    int index = 0;
    const Lesson* lesson = nullptr;
    std::string source;  // the lesson's text, edited
    std::filesystem::path path;
    pid_t worker_pid = -1;  // the process started for this student (the worker, or ssh)
    std::unique_ptr<Engine> engine;
    std::unique_ptr<KernelSession> session;
    Tally tally;
};

double percentile(std::vector<double> v, double p) {
    if (v.empty()) return 0;
    std::sort(v.begin(), v.end());
    return v[std::min(v.size() - 1, size_t(p * double(v.size())))];
}

std::string read_text(const std::filesystem::path& p) {
    std::ifstream in(p);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

// The parent of `pid` (from /proc), or -1.
pid_t parent_of(pid_t pid) {
    std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
    std::string stat;
    std::getline(in, stat);
    const size_t close = stat.rfind(')');  // the name may hold spaces and parentheses
    if (close == std::string::npos) return -1;
    std::istringstream rest(stat.substr(close + 1));
    char state = 0;
    pid_t ppid = -1;
    rest >> state >> ppid;
    return ppid;
}

std::set<pid_t> children_of_this_process() {
    std::set<pid_t> out;
    std::error_code ec;
    for (const auto& e : std::filesystem::directory_iterator("/proc", ec)) {
        const std::string name = e.path().filename().string();
        if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos) continue;
        const pid_t pid = pid_t(std::stol(name));
        if (parent_of(pid) == getpid()) out.insert(pid);
    }
    return out;
}

// nvidia-smi's compute processes and their device memory (MiB); empty without nvidia-smi or a GPU.
std::map<pid_t, double> gpu_memory_by_pid(bool* have_nvidia_smi) {
    std::map<pid_t, double> out;
    FILE* p = popen("nvidia-smi --query-compute-apps=pid,used_memory --format=csv,noheader,nounits 2>/dev/null", "r");
    if (!p) return out;
    char line[256];
    while (std::fgets(line, sizeof line, p)) {
        long pid = 0;
        double mib = 0;
        if (std::sscanf(line, "%ld, %lf", &pid, &mib) == 2) out[pid_t(pid)] = mib;
    }
    *have_nvidia_smi = pclose(p) == 0;
    return out;
}

// The student whose worker `pid` descends from (a CUDA worker is the stdio worker's child), or -1.
int student_of(pid_t pid, const std::map<pid_t, int>& by_worker) {
    for (int depth = 0; pid > 1 && depth < 8; ++depth) {
        if (auto it = by_worker.find(pid); it != by_worker.end()) return it->second;
        pid = parent_of(pid);
    }
    return -1;
}

bool open_student(Student& s, const Options& o) {
    RemoteOptions remote;
    remote.prefix = o.remote;
    remote.program = CP_BINARY;
    if (const char* v = std::getenv("CUDA_PLAYGROUND_REMOTE_PROGRAM"); v && *v) remote.program = v;
    remote.backend = o.backend;
    const std::set<pid_t> before = children_of_this_process();
    auto backend = make_remote_backend(remote);
    if (!backend) {
        std::fprintf(stderr, "[class] student %d: %s\n", s.index, backend.error().full().c_str());
        return false;
    }
    for (pid_t pid : children_of_this_process())
        if (!before.count(pid)) s.worker_pid = pid;
    s.engine = std::make_unique<Engine>(std::move(*backend));
    s.session = std::make_unique<KernelSession>(*s.engine);
    s.path = kernels_dir() / (std::string(s.lesson->path) + ".cu");
    s.source = read_text(s.path);
    if (s.source.empty()) {
        std::fprintf(stderr, "[class] cannot read %s\n", s.path.string().c_str());
        return false;
    }
    s.session->set_kernel(parse_kernel_source(s.source, s.path));
    return true;
}

// One run as the window does it: the outputs first (timed), then the check against the reference.
void run_and_check(Student& s, std::vector<double>& times, std::vector<double>& compile_times) {
    RunOptions run;
    run.timing = TimingOptions{0, 1, false};
    run.defer_check = true;
    const auto t = Clock::now();
    RunReport r = s.session->run(run);
    const double ms = std::chrono::duration<double, std::milli>(Clock::now() - t).count();
    ++s.tally.runs;
    if (r.error || !r.launched) {
        ++s.tally.failed;
        if (s.tally.problems.size() < 3)
            s.tally.problems.push_back(r.error ? r.error->message : std::string("did not launch"));
        return;
    }
    times.push_back(ms);
    compile_times.push_back(r.stages.compile_ms);
    if (auto checked = r.check_pending ? s.session->check(r) : std::nullopt) take_check(r, *checked);
    if (!r.verified.has_value())
        ++s.tally.unchecked;
    else if (!*r.verified) {
        ++s.tally.wrong;
        if (s.tally.problems.size() < 3) s.tally.problems.push_back("wrong result: " + r.mismatch_detail);
    }
}

void fault_once(Student& s, const KernelFile& faulting, const KernelFile& own) {
    s.session->set_kernel(faulting);
    RunOptions run;
    run.timing = TimingOptions{0, 1, false};
    const RunReport r = s.session->run(run);
    ++s.tally.fault_runs;
    // The outcome as the CLI names it (RunReport::outcome is set only for a lesson with an `expect:` line).
    const std::string outcome = run_outcome(r);
    if (outcome == "fault")
        ++s.tally.faults;
    else if (s.tally.problems.size() < 3)
        s.tally.problems.push_back("the faulting kernel did not fault: " + outcome +
                                   (r.error ? " (" + r.error->message + ")" : std::string()));
    s.session->set_kernel(own);
}

void student_loop(Student& s, const Options& o, Clock::time_point end, const KernelFile* faulting) {
    unsigned seed = unsigned(s.index) * 2654435761u + 1;
    auto next_random = [&seed] {
        seed = seed * 1103515245u + 12345u;
        return (seed >> 8) & 0xffffff;
    };
    auto next_fault = Clock::now() + std::chrono::milliseconds(int64_t(o.fault_every_s * 1000));
    for (int k = 0; Clock::now() < end; ++k) {
        if (faulting && Clock::now() >= next_fault) {
            const KernelFile own = s.session->kernel();  // set_kernel replaces the session's copy
            fault_once(s, *faulting, own);
            next_fault += std::chrono::milliseconds(int64_t(o.fault_every_s * 1000));
        }
        if (k % 2 == 0) {
            // A source edit: the text changes, so the kernel compiles again (a comment, so the reference holds).
            s.source += "// student " + std::to_string(s.index) + ", edit " + std::to_string(k) + "\n";
            s.session->set_kernel(parse_kernel_source(s.source, s.path));
            run_and_check(s, s.tally.edit_ms, s.tally.edit_compile_ms);
        } else {
            // A slider move: only the launch onward runs again.
            if (s.lesson->param) {
                const int steps = int((s.lesson->hi - s.lesson->lo) / s.lesson->step);
                const double v = s.lesson->lo + s.lesson->step * double(next_random() % unsigned(steps + 1));
                std::ostringstream text;
                text << v;
                if (auto ok = s.session->set_param(s.lesson->param, text.str()); !ok && s.tally.problems.size() < 3)
                    s.tally.problems.push_back("slider: " + ok.error().message);
            } else {
                static const Dim3 blocks[] = {{16, 16, 1}, {32, 8, 1}, {8, 32, 1}, {24, 12, 1}};
                RunChoices c = s.session->choices();
                c.block = blocks[next_random() % 4];
                s.session->set_choices(std::move(c));
            }
            run_and_check(s, s.tally.slider_ms, s.tally.slider_compile_ms);
        }
    }
}

}  // namespace

int main(int argc, char** argv) {
    Options o;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        const char* v = i + 1 < argc ? argv[i + 1] : nullptr;
        if (a == "--help" || !v) {
            std::printf(
                "usage: cp_class_bench [--students N] [--minutes M] [--backend cuda|cpu|auto] "
                "[--remote PREFIX] [--fault-every S]\n");
            return a == "--help" ? 0 : 1;
        }
        if (a == "--students")
            o.students = std::max(1, std::atoi(v));
        else if (a == "--minutes")
            o.minutes = std::max(0.05, std::atof(v));
        else if (a == "--backend")
            o.backend = v;
        else if (a == "--remote")
            o.remote = v;
        else if (a == "--fault-every")
            o.fault_every_s = std::max(1.0, std::atof(v));
        else {
            std::fprintf(stderr, "[class] unknown option %s\n", a.c_str());
            return 1;
        }
        ++i;
    }

    // Each student connects in turn (their own worker process, noted for the memory figures), then all work at once.
    std::vector<Student> students(size_t(o.students));
    std::map<pid_t, int> by_worker;
    const auto connect_start = Clock::now();
    for (int i = 0; i < o.students; ++i) {
        Student& s = students[size_t(i)];
        s.index = i;
        s.lesson = &kLessons[size_t(i) % std::size(kLessons)];
        if (!open_student(s, o)) return 1;
        if (s.worker_pid > 0) by_worker[s.worker_pid] = i;
    }
    const double connect_s = std::chrono::duration<double>(Clock::now() - connect_start).count();
    const DeviceInfo device = students[0].engine->device();
    const bool gpu = device.caps.gpu;
    std::printf("[class] %d students, %.2f min, backend %s, through `%s`, a fault every %.0f s by student 0\n",
                o.students, o.minutes, o.backend.c_str(), o.remote.c_str(), o.fault_every_s);
    std::printf("[class] workers: %s; %d connected in %.1f s\n", device.where.c_str(), o.students, connect_s);

    // The faulting kernel: an illegal address on a GPU; on the CPU backend the lesson that forgets its bounds check.
    auto faulting = gpu ? Result<KernelFile>(
                              parse_kernel_source(kIllegalAddress, std::filesystem::temp_directory_path() / "wild.cu"))
                        : load_kernel_file(kernels_dir() / "mistakes/missing_bounds_check.cu");
    if (!faulting) {
        std::fprintf(stderr, "[class] %s\n", faulting.error().full().c_str());
        return 1;
    }

    // Each worker's device memory, sampled while the class works (the largest seen).
    std::map<int, double> peak_mib;
    std::map<pid_t, double> unmatched_mib;  // processes nvidia-smi lists that are not (visibly) the workers'
    bool have_nvidia_smi = false;
    std::atomic<bool> done{false};
    std::mutex sampler_mutex;
    std::condition_variable sampler_wake;
    std::thread sampler([&] {
        for (;;) {
            for (const auto& [pid, mib] : gpu_memory_by_pid(&have_nvidia_smi))
                if (const int s = student_of(pid, by_worker); s >= 0)
                    peak_mib[s] = std::max(peak_mib[s], mib);
                else
                    unmatched_mib[pid] = std::max(unmatched_mib[pid], mib);
            std::unique_lock lock(sampler_mutex);
            if (sampler_wake.wait_for(lock, std::chrono::seconds(5), [&] { return done.load(); })) return;
        }
    });

    const auto start = Clock::now();
    const auto end = start + std::chrono::milliseconds(int64_t(o.minutes * 60000));
    std::vector<std::thread> threads;
    for (Student& s : students)
        threads.emplace_back(student_loop, std::ref(s), std::cref(o), end, s.index == 0 ? &*faulting : nullptr);
    for (std::thread& t : threads) t.join();
    const double elapsed_s = std::chrono::duration<double>(Clock::now() - start).count();
    {
        std::lock_guard lock(sampler_mutex);
        done = true;
    }
    sampler_wake.notify_all();
    sampler.join();

    // The figures.
    std::vector<double> edits, sliders, edit_compiles, slider_compiles;
    int runs = 0, other_wrong = 0, other_failed = 0, other_unchecked = 0, other_runs = 0;
    for (const Student& s : students) {
        edits.insert(edits.end(), s.tally.edit_ms.begin(), s.tally.edit_ms.end());
        sliders.insert(sliders.end(), s.tally.slider_ms.begin(), s.tally.slider_ms.end());
        runs += s.tally.runs + s.tally.fault_runs;
        edit_compiles.insert(edit_compiles.end(), s.tally.edit_compile_ms.begin(), s.tally.edit_compile_ms.end());
        slider_compiles.insert(slider_compiles.end(), s.tally.slider_compile_ms.begin(),
                               s.tally.slider_compile_ms.end());
        if (s.index == 0) continue;
        other_runs += s.tally.runs;
        other_wrong += s.tally.wrong;
        other_failed += s.tally.failed;
        other_unchecked += s.tally.unchecked;
    }
    std::vector<double> all = edits;
    all.insert(all.end(), sliders.begin(), sliders.end());
    std::printf(
        "[class] edit -> new outputs: p50 %.1f ms, p95 %.1f ms (%zu runs); source edits p50 %.1f p95 %.1f ms (%zu; "
        "compiling p50 %.1f ms of it); slider moves p50 %.1f p95 %.1f ms (%zu; compiling p50 %.1f ms)\n",
        percentile(all, 0.5), percentile(all, 0.95), all.size(), percentile(edits, 0.5), percentile(edits, 0.95),
        edits.size(), percentile(edit_compiles, 0.5), percentile(sliders, 0.5), percentile(sliders, 0.95),
        sliders.size(), percentile(slider_compiles, 0.5));
    std::printf("[class] runs per second, all students: %.1f (%d runs in %.1f s)\n", double(runs) / elapsed_s, runs,
                elapsed_s);
    if (!have_nvidia_smi) {
        std::printf("[class] device memory per worker: n/a (no nvidia-smi or no GPU here)\n");
    } else if (peak_mib.empty() && !unmatched_mib.empty()) {
        // In a container nvidia-smi may list the host's process ids, which match none of ours.
        std::vector<double> mib;
        for (const auto& [pid, m] : unmatched_mib) mib.push_back(m);
        std::printf(
            "[class] device memory per worker: no listed process matched a worker's pid (another pid "
            "namespace?); nvidia-smi listed %zu processes: median %.0f MiB, max %.0f MiB\n",
            mib.size(), percentile(mib, 0.5), *std::max_element(mib.begin(), mib.end()));
    } else if (peak_mib.empty()) {
        std::printf(
            "[class] device memory per worker: n/a (nvidia-smi lists none of the workers' processes: "
            "they run on another host, or on the CPU backend)\n");
    } else {
        std::vector<double> mib;
        for (const auto& [s, m] : peak_mib) mib.push_back(m);
        std::printf(
            "[class] device memory per worker (nvidia-smi, peak): %zu of %d workers seen, min %.0f MiB, "
            "median %.0f MiB, max %.0f MiB, all %.0f MiB\n",
            mib.size(), o.students, *std::min_element(mib.begin(), mib.end()), percentile(mib, 0.5),
            *std::max_element(mib.begin(), mib.end()), [&] {
                double sum = 0;
                for (double m : mib) sum += m;
                return sum;
            }());
    }
    const Tally& f = students[0].tally;
    std::printf(
        "[class] student 0 (faulting, %s): %d faulting runs, %d faulted; its own lesson afterwards: %d runs, "
        "%d failed, %d wrong\n",
        faulting->path.filename().string().c_str(), f.fault_runs, f.faults, f.runs, f.failed, f.wrong);
    std::printf(
        "[class] the other %d students: %d runs, %d wrong results, %d failed runs, %d not checked "
        "(expected 0, 0, 0)\n",
        o.students - 1, other_runs, other_wrong, other_failed, other_unchecked);
    for (const Student& s : students)
        for (const std::string& p : s.tally.problems)
            std::printf("[class]   student %d (%s): %s\n", s.index, s.lesson->path, p.c_str());
    return 0;
}
