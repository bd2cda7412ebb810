// A real single-node Slurm for the tests of --remote through srun: munged, slurmctld and slurmd (Debian's
// packages) on localhost with their key, config, state and logs in a temporary folder, started as children and
// stopped (and the folder removed) when the object dies.
#pragma once

#include "support/process.h"

#include <sys/types.h>
#include <string>

namespace cp::test {

class SlurmCluster {
public:
    SlurmCluster();  // starts it and waits for its node to be idle; why_not() says why it cannot run here
    ~SlurmCluster();
    SlurmCluster(const SlurmCluster&) = delete;
    SlurmCluster& operator=(const SlurmCluster&) = delete;

    bool running() const { return why_not_.empty(); }
    const std::string& why_not() const { return why_not_; }
    // "env SLURM_CONF=... /usr/bin/srun -N1 -n1 ...": what --remote takes (one task, bytes passed through).
    std::string srun_prefix() const;
    const std::filesystem::path& folder() const { return dir_.path(); }

private:
    std::string start();
    // Starts `words` with stdout and stderr to `log` in the folder; -1 when it cannot.
    pid_t spawn(const std::vector<std::string>& words, const std::string& log);
    // The daemon's own words for why it ended or is not ready: its fatal/error lines, else its log's end.
    std::string daemon_says(const std::string& log) const;
    void stop(pid_t& pid);

    TempDir dir_;
    pid_t munged_ = -1, slurmctld_ = -1, slurmd_ = -1;
    std::string why_not_;
};

}  // namespace cp::test
