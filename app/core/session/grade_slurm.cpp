#include "core/session/grade_slurm.h"

#include "core/text_util.h"
#include "core/worker/subprocess.h"

#include <chrono>
#include <fstream>
#include <set>
#include <sstream>
#include <thread>

namespace cp {

namespace {

namespace fs = std::filesystem;

std::string read_whole(const fs::path& p) {
    std::ifstream f(p, std::ios::binary);
    std::ostringstream s;
    s << f.rdbuf();
    return s.str();
}

// "0-40" or "3,17": the tasks as sbatch's --array takes them.
std::string array_spec(const std::vector<size_t>& tasks) {
    std::string out;
    for (size_t i = 0; i < tasks.size(); ++i) {
        size_t j = i;
        while (j + 1 < tasks.size() && tasks[j + 1] == tasks[j] + 1) ++j;
        if (!out.empty()) out += ',';
        out += std::to_string(tasks[i]);
        if (j > i) out += '-' + std::to_string(tasks[j]);
        i = j;
    }
    return out;
}

// The shell word `s`, quoted for the job script.
std::string shell_quoted(const std::string& s) {
    std::string q = "'";
    for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return q + "'";
}

// What sacct says of the job's tasks ("3 NODE_FAIL, 17 CANCELLED"), or "" where it cannot (no accounting).
std::string sacct_states(const std::string& job, const std::vector<size_t>& tasks) {
    const ProcessOutcome r = run_process({"sacct", "-n", "-P", "-X", "-j", job, "--format=JobID,State"}, 20);
    if (!r.started || r.exit_code != 0) return "";
    std::string out;
    std::istringstream lines(r.output);
    for (std::string l; std::getline(lines, l);) {
        const size_t bar = l.find('|'), under = l.find('_');
        if (bar == std::string::npos || under == std::string::npos || under > bar) continue;
        const std::string index = l.substr(under + 1, bar - under - 1);
        for (size_t t : tasks)
            if (index == std::to_string(t)) out += (out.empty() ? "" : ", ") + index + " " + trim(l.substr(bar + 1));
    }
    return out;
}

}  // namespace

fs::path grade_task_file(const fs::path& out, size_t task) {
    return out / "slurm" / ("task-" + std::to_string(task) + ".json");
}

std::vector<std::string> slurm_array_options(const std::string& options) {
    std::vector<std::string> out;
    bool gres = false;
    std::istringstream words(options);
    for (std::string w; words >> w;) {
        if (w.rfind("--gres", 0) == 0) {
            gres = true;
            if (w == "--gres=none") continue;
        }
        out.push_back(w);
    }
    if (!gres) out.insert(out.begin(), "--gres=gpu:1");
    return out;
}

Result<std::vector<GradeTask>> grade_on_slurm(const SlurmGrading& s) {
    auto say = [&](const std::string& line) {
        if (s.say) s.say(line);
    };
    std::error_code ec;
    fs::create_directories(s.out / "slurm", ec);
    // The job script: each task runs the grader on its own index. Its log is beside its result.
    const fs::path script = s.out / "slurm" / "grade.sbatch";
    std::string text = "#!/bin/sh\n# Made by `cuda-playground grade --slurm`: one array task per submission (0: the "
                       "reference).\n#SBATCH --job-name=cp-grade\n#SBATCH --output=" +
                       (s.out / "slurm" / "task-%a.log").string() + "\nexec";
    for (const std::string& w : s.task_command) text += " " + shell_quoted(w);
    text += " \"$SLURM_ARRAY_TASK_ID\"\n";
    {
        std::ofstream f(script, std::ios::binary);
        f << text;
        if (!f) return make_error(ErrorKind::Io, "could not write the job script " + script.string());
    }
    std::vector<size_t> pending;
    for (size_t t = 0; t < s.tasks; ++t) {
        fs::remove(grade_task_file(s.out, t), ec);
        pending.push_back(t);
    }
    std::string job;
    for (int attempt = 0; !pending.empty(); ++attempt) {
        if (attempt > s.retries) {
            std::string states = sacct_states(job, pending);
            return make_error(ErrorKind::WorkerLost,
                              "Slurm array task" + std::string(pending.size() == 1 ? " " : "s ") + array_spec(pending) +
                                  " left no result after " + std::to_string(s.retries + 1) + " tries" +
                                  (states.empty() ? std::string() : " (sacct: " + states + ")") + "; see " +
                                  (s.out / "slurm").string() + "/task-N.log");
        }
        std::vector<std::string> argv = {"sbatch", "--parsable", "--array=" + array_spec(pending)};
        for (const std::string& o : slurm_array_options(s.sbatch_options)) argv.push_back(o);
        argv.push_back(script.string());
        const ProcessOutcome submitted = run_process(argv, 60);
        if (!submitted.started)
            return make_error(ErrorKind::Unsupported, "sbatch could not be run (" + submitted.error +
                                                          "): --slurm needs Slurm's sbatch and squeue on PATH");
        if (submitted.exit_code != 0)
            return make_error(ErrorKind::Unsupported, "sbatch refused the array job: " + trim(submitted.output));
        // --parsable prints "JOBID" or "JOBID;CLUSTER".
        job = trim(submitted.output);
        if (const size_t semi = job.find(';'); semi != std::string::npos) job = job.substr(0, semi);
        if (const size_t nl = job.rfind('\n'); nl != std::string::npos) job = trim(job.substr(nl + 1));
        say((attempt == 0 ? "submitted Slurm array job " : "resubmitted the lost tasks as job ") + job + " (tasks " +
            array_spec(pending) + ")");
        // Follow it until squeue lists none of its tasks.
        size_t last_left = 0;
        for (;;) {
            const ProcessOutcome q = run_process({"squeue", "-h", "-r", "-j", job, "-o", "%i %T"}, 30);
            if (!q.started) return make_error(ErrorKind::Unsupported, "squeue could not be run: " + q.error);
            size_t left = 0;
            std::istringstream lines(q.output);
            for (std::string l; std::getline(lines, l);) left += !trim(l).empty();
            // squeue fails for a job that has left the queue on some versions: that is "none left".
            if (q.exit_code != 0 || left == 0) break;
            if (left != last_left) say("  " + std::to_string(left) + " task" + (left == 1 ? "" : "s") + " queued or running");
            last_left = left;
            std::this_thread::sleep_for(std::chrono::duration<double>(s.poll_s));
        }
        std::vector<size_t> lost;
        for (size_t t : pending)
            if (!fs::exists(grade_task_file(s.out, t), ec)) lost.push_back(t);
        if (!lost.empty()) {
            const std::string states = sacct_states(job, lost);
            say("  task" + std::string(lost.size() == 1 ? " " : "s ") + array_spec(lost) + " left no result" +
                (states.empty() ? std::string() : " (sacct: " + states + ")") +
                (attempt < s.retries ? ": submitting again" : ""));
        }
        pending = std::move(lost);
    }
    std::vector<GradeTask> out;
    for (size_t t = 0; t < s.tasks; ++t) {
        auto task = read_grade_task(read_whole(grade_task_file(s.out, t)));
        if (!task) return make_error(ErrorKind::Io, "task " + std::to_string(t) + "'s result " +
                                                        grade_task_file(s.out, t).string() + ": " + task.error().message);
        out.push_back(std::move(*task));
    }
    return out;
}

}  // namespace cp
