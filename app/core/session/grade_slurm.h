// Grading a class as one Slurm array job (`grade --slurm "OPTIONS"`, issue 40): task 0 grades the assignment's
// own kernel (the reference times), task K the K-th submission, each on a node of its own, each writing its
// result as a file beside the others; the array is followed with squeue until no task is left, and a task that
// left no result (its node lost, the job cancelled or preempted) is submitted again. A student's own failure
// always leaves a result, so it is never re-run.
#pragma once

#include "core/result.h"
#include "core/session/grade.h"

#include <filesystem>
#include <functional>
#include <string>
#include <vector>

namespace cp {

// Where task K writes its result: DIR/slurm/task-K.json.
std::filesystem::path grade_task_file(const std::filesystem::path& out, size_t task);

struct SlurmGrading {
    std::string sbatch_options;             // the user's, split at spaces; `--gres=gpu:1` added unless they name --gres
    std::vector<std::string> task_command;  // what each task runs, before its index (cuda-playground grade ... --task)
    std::filesystem::path out;              // the results folder (it must be on a filesystem the nodes share)
    size_t tasks = 0;                       // 1 + the submissions
    int retries = 2;                        // resubmissions of lost tasks
    double poll_s = 1;                      // between squeue's looks
    std::function<void(const std::string&)> say;  // progress, a line at a time
};
// Submits, follows and resubmits; then every task's result in index order. An Error: kind Unsupported when
// sbatch cannot be run or refuses; WorkerLost when a task is still missing after the retries (naming the tasks
// and what sacct says of them where it can); Io when a result cannot be read.
Result<std::vector<GradeTask>> grade_on_slurm(const SlurmGrading& s);

// The sbatch options as given with `--gres=gpu:1` added unless they name --gres (`--gres=none`: none).
std::vector<std::string> slurm_array_options(const std::string& options);

}  // namespace cp
