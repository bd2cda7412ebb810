// SlurmCluster: a munge key and munged, a slurm.conf for one node on localhost (its CPUs and memory as
// `slurmd -C` reports them, no cgroups, no accounting), `slurmctld -D` and `slurmd -D` as children, and a
// wait until `sinfo` shows the node idle and srun runs a task.
#include "support/slurm_cluster.h"

#include "support/ssh_server.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <pwd.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <random>
#include <sstream>

extern char** environ;

namespace cp::test {

namespace {

constexpr const char* kMunged = "/usr/sbin/munged";
constexpr const char* kSlurmctld = "/usr/sbin/slurmctld";
constexpr const char* kSlurmd = "/usr/sbin/slurmd";
constexpr const char* kSrun = "/usr/bin/srun";
constexpr const char* kSinfo = "/usr/bin/sinfo";
constexpr const char* kNode = "cpnode";
constexpr int kStartS = 60;

bool ended(pid_t& pid) {
    int status = 0;
    if (pid > 0 && waitpid(pid, &status, WNOHANG) == pid) pid = -1;
    return pid <= 0;
}

std::string trim(const std::string& s) {
    const size_t first = s.find_first_not_of(" \t\r\n");
    return first == std::string::npos ? std::string() : s.substr(first, s.find_last_not_of(" \t\r\n") - first + 1);
}

}  // namespace

SlurmCluster::SlurmCluster() {
    why_not_ = start();
}

SlurmCluster::~SlurmCluster() {
    stop(slurmd_);
    stop(slurmctld_);
    stop(munged_);
}

void SlurmCluster::stop(pid_t& pid) {
    if (pid <= 0) return;
    kill(pid, SIGTERM);  // each daemon ends on SIGTERM; one that does not within 10 s is killed
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (!ended(pid)) {
        if (std::chrono::steady_clock::now() > deadline) {
            kill(pid, SIGKILL);
            int status = 0;
            waitpid(pid, &status, 0);
            pid = -1;
            break;
        }
        usleep(10000);  // between polls of its end
    }
}

pid_t SlurmCluster::spawn(const std::vector<std::string>& words, const std::string& log) {
    const std::string path = (dir_.path() / log).string();
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&actions, 1, path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    posix_spawn_file_actions_addopen(&actions, 2, path.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0600);
    std::vector<std::string> copy = words;
    std::vector<char*> argv;
    for (auto& w : copy) argv.push_back(w.data());
    argv.push_back(nullptr);
    pid_t pid = -1;
    const int rc = posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    return rc == 0 ? pid : -1;
}

std::string SlurmCluster::daemon_says(const std::string& log) const {
    const std::string text = read_file(dir_.path() / log);
    std::istringstream in(text);
    std::string line, errors, last;
    std::vector<std::string> tail;
    while (std::getline(in, line)) {
        // The Debian build's PMIx plugin complains at every start without PMIx installed; that is not the cause.
        const bool noise = line.find("pmix") != std::string::npos || line.find("MPI: Cannot") != std::string::npos ||
                           line.find("state file") != std::string::npos ||
                           line.find("Trying backup state") != std::string::npos;
        if (!noise && (line.find("fatal") != std::string::npos || line.find("error:") != std::string::npos))
            errors += (errors.empty() ? "" : " | ") + line;
        tail.push_back(line);
    }
    if (!errors.empty()) return log + ": " + errors;
    std::string end;
    for (size_t i = tail.size() > 6 ? tail.size() - 6 : 0; i < tail.size(); ++i) end += " | " + tail[i];
    return log + (end.empty() ? " is empty" : " ends with:" + end);
}

std::string SlurmCluster::start() {
    for (const char* tool : {kMunged, kSlurmctld, kSlurmd, kSrun, kSinfo})
        if (access(tool, X_OK) != 0)
            return std::string(tool) + " is not installed (apt-get install munge slurmctld slurmd slurm-client)";
    const auto& d = dir_.path();
    // munged warns when its socket's folder is not searchable by all (clients of other users could not reach it).
    chmod(d.c_str(), 0755);
    for (const char* sub : {"state", "spool"}) mkdir((d / sub).c_str(), 0700);

    // munged with a fresh key and a socket of its own, so that nothing of the machine's munge is used.
    {
        std::random_device random;
        std::string key(1024, '\0');
        for (char& c : key) c = char(random());
        std::ofstream(d / "munge.key", std::ios::binary) << key;
        chmod((d / "munge.key").c_str(), 0400);
    }
    const std::string socket = (d / "munge.socket").string();
    munged_ = spawn({kMunged, "-F", "-f", "--key-file=" + (d / "munge.key").string(), "--socket=" + socket,
                     "--pid-file=" + (d / "munged.pid").string(), "--seed-file=" + (d / "munged.seed").string()},
                    "munged.log");
    if (munged_ < 0) return "could not start munged";
    const auto munge_deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (access(socket.c_str(), F_OK) != 0) {
        if (ended(munged_)) return "munged ended at start: " + daemon_says("munged.log");
        if (std::chrono::steady_clock::now() > munge_deadline)
            return "munged made no socket within 20 s: " + daemon_says("munged.log");
        usleep(10000);  // between polls of its socket
    }

    // The node as slurmd sees this machine ("NodeName=vm CPUs=2 Boards=1 ... RealMemory=24105").
    const ProcessResult hardware = run_process({kSlurmd, "-C"});
    const std::string first = hardware.out.substr(0, hardware.out.find('\n'));
    if (hardware.exit_code != 0 || first.rfind("NodeName=", 0) != 0 || first.find(' ') == std::string::npos)
        return "`slurmd -C` did not describe this machine: " + hardware.both();
    const std::string node = std::string("NodeName=") + kNode + " NodeAddr=127.0.0.1 NodeHostname=localhost" +
                             first.substr(first.find(' ')) + " State=UNKNOWN";

    const passwd* me = getpwuid(geteuid());
    const std::string user = me ? me->pw_name : "root";
    const int ctld_port = free_loopback_port(), slurmd_port = free_loopback_port();
    if (ctld_port == 0 || slurmd_port == 0 || ctld_port == slurmd_port) return "no free ports on 127.0.0.1";
    const std::string conf = (d / "slurm.conf").string();
    std::ofstream(d / "plugstack.conf") << "";
    // No cgroups, no systemd, no accounting database: process tracking by the process tree and no task
    // confinement, which containers without cgroup delegation allow.
    // The scheduler starts a pending task as soon as a CPU is free (batch_sched_delay defaults to 3 s: a class of
    // forty through two CPUs took 61 s, mostly idle; 28 s with it at 0).
    std::ofstream(conf) << "ClusterName=cptest\nSlurmctldHost=localhost\nSlurmctldPort=" << ctld_port
                        << "\nSlurmdPort=" << slurmd_port << "\nSlurmUser=" << user << "\nSlurmdUser=" << user
                        << "\nAuthType=auth/munge\nCredType=cred/munge\nAuthInfo=socket=" << socket
                        << "\nStateSaveLocation=" << (d / "state").string()
                        << "\nSlurmdSpoolDir=" << (d / "spool").string()
                        << "\nSlurmctldPidFile=" << (d / "slurmctld.pid").string()
                        << "\nSlurmdPidFile=" << (d / "slurmd.pid").string()
                        << "\nPlugStackConfig=" << (d / "plugstack.conf").string()
                        << "\nProctrackType=proctrack/linuxproc\nTaskPlugin=task/none\n"
                           "JobAcctGatherType=jobacct_gather/none\nAccountingStorageType=accounting_storage/none\n"
                           "JobCompType=jobcomp/none\nMpiDefault=none\nSwitchType=switch/none\n"
                           "SchedulerType=sched/builtin\nSchedulerParameters=batch_sched_delay=0,sched_min_interval=0\n"
                           "SelectType=select/cons_tres\nSelectTypeParameters=CR_CPU\n"
                           "ReturnToService=2\nMailProg=/bin/true\n"
                        << node << "\nPartitionName=cptest Nodes=" << kNode
                        << " Default=YES MaxTime=INFINITE State=UP\n";

    slurmctld_ = spawn({kSlurmctld, "-D", "-f", conf}, "slurmctld.log");
    slurmd_ = spawn({kSlurmd, "-D", "-N", kNode, "-f", conf}, "slurmd.log");
    if (slurmctld_ < 0 || slurmd_ < 0) return "could not start slurmctld or slurmd";

    // Ready when the controller knows the node as idle; a daemon that ends first says why in its log.
    const std::vector<std::string> env = {"SLURM_CONF=" + conf};
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(kStartS);
    std::string state;
    for (;;) {
        if (ended(slurmctld_)) return "slurmctld ended at start: " + daemon_says("slurmctld.log");
        if (ended(slurmd_)) return "slurmd ended at start: " + daemon_says("slurmd.log");
        const ProcessResult r = run_process({kSinfo, "-h", "-N", "-o", "%T"}, env);
        state = trim(r.out);
        if (r.exit_code == 0 && state == "idle") break;
        if (std::chrono::steady_clock::now() > deadline)
            return "the node was not idle within " + std::to_string(kStartS) + " s (sinfo: " + trim(r.both()) + "); " +
                   daemon_says("slurmctld.log") + "; " + daemon_says("slurmd.log");
        usleep(50000);  // between polls of sinfo, not instead of one
    }
    // And it runs a task (slurmd may be up and still unable to start one: privileges, spool folder).
    const ProcessResult task = run_process({"/bin/sh", "-c", srun_prefix() + " /bin/echo ran"});
    if (task.exit_code != 0 || trim(task.out) != "ran")
        return "srun could not run a task: " + trim(task.both()) + "; " + daemon_says("slurmd.log");
    return {};
}

std::string SlurmCluster::srun_prefix() const {
    // --unbuffered: the task's stdout is forwarded as it comes, not held for a newline that binary frames
    // lack; --quiet: srun's own notes stay off; stdin goes to the one task.
    return "env SLURM_CONF=" + (dir_.path() / "slurm.conf").string() + " " + kSrun +
           " -N1 -n1 --quiet --unbuffered --job-name=cp-remote-test";
}

}  // namespace cp::test
