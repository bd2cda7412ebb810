// Test support implementation: fork/exec with pipes, temp folders.
#include "support/process.h"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <random>
#include <sstream>
#include <stdexcept>

namespace cp::test {

ProcessResult run_process(const std::vector<std::string>& args, const std::vector<std::string>& env) {
    // Output goes to temp files (not pipes) so a chatty child cannot block on a full pipe.
    TempDir dir;
    const auto out_path = dir.path() / "out", err_path = dir.path() / "err";
    const pid_t pid = fork();
    if (pid < 0) throw std::runtime_error("fork failed");
    if (pid == 0) {
        const int out = ::open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
        const int err = ::open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
        ::dup2(out, 1);
        ::dup2(err, 2);
        for (const auto& e : env) ::putenv(const_cast<char*>(e.c_str()));
        std::vector<char*> argv;
        for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
        argv.push_back(nullptr);
        ::execv(argv[0], argv.data());
        _exit(127);
    }
    int status = 0;
    ::waitpid(pid, &status, 0);
    ProcessResult r;
    r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    r.out = read_file(out_path);
    r.err = read_file(err_path);
    return r;
}

TempDir::TempDir() {
    std::random_device rd;
    path_ = std::filesystem::temp_directory_path() / ("cp-test-" + std::to_string(rd()) + std::to_string(::getpid()));
    std::filesystem::create_directories(path_);
}

TempDir::~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
}

std::filesystem::path TempDir::write(const std::string& name, const std::string& content) const {
    const auto p = path_ / name;
    std::filesystem::create_directories(p.parent_path());
    std::ofstream(p, std::ios::binary) << content;
    return p;
}

std::string read_file(const std::filesystem::path& path) {
    std::ifstream f(path, std::ios::binary);
    std::stringstream s;
    s << f.rdbuf();
    return s.str();
}

}  // namespace cp::test

namespace cp::test {

std::filesystem::path cuda_toolkit_tool(const std::string& name) {
    namespace fs = std::filesystem;
    if (const char* c = std::getenv("CUDACXX"); name == "nvcc" && c && fs::exists(c)) return c;
    if (const char* h = std::getenv("CUDA_HOME"); h && fs::exists(fs::path(h) / "bin" / name))
        return fs::path(h) / "bin" / name;
    if (fs::exists(fs::path("/usr/local/cuda/bin") / name)) return fs::path("/usr/local/cuda/bin") / name;
    return {};
}

}  // namespace cp::test
