// The remote backend (the app's side: start `PREFIX cuda-playground worker --stdio`, greet, forward requests
// with time limits, turn a lost connection into WorkerLost) and the worker's side (serve_stdio).
//
// Sections: the link's helpers (time limits, compression, words) · RemoteBackend: spawn, stop, stderr, lost, start
// (greeting), call · the options from the environment and command words · serve_stdio (the worker's loop)
#include "core/remote/remote_backend.h"
#include "core/clock.h"

#include "core/engine/engine_wire.h"
#include "core/remote/remote_sanitize.h"
#include "core/toolkit/sanitizer_report.h"
#include "core/remote/wire_compress.h"
#include "core/remote/worker_limits.h"
#include "core/worker/worker_process.h"

#include <nlohmann/json.hpp>

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <mutex>
#include <optional>
#include <thread>

extern char** environ;

namespace cp {

namespace {

constexpr int kCompileTimeoutS = 300;
constexpr int kTransferTimeoutS = 300;
// The worker's own watchdog (launch_timeout_s on its side) stops a kernel that does not end and answers; the
// app waits that long and this much more for the answer to cross the network before it gives up on the link.
constexpr int kNetworkMarginS = 30;
constexpr size_t kStderrKeep = 16 * 1024;
// compute-sanitizer finishes its log as the worker under it ends: the server's CUDA worker gives it a minute.
constexpr int kSanitizerLogTimeoutS = 90;
constexpr uint64_t kFrameHeaderBytes = 24;  // wire_frame.cpp's header

std::atomic<uint64_t> g_sent{0}, g_received{0}, g_requests{0};

uint64_t frame_bytes(const WireMessage& m) {
    return kFrameHeaderBytes + m.json.size() + m.blob.size();
}

int start_timeout_s() {
    // ssh's login, or Slurm's queue (srun waits for a GPU), comes before the greeting.
    if (const char* v = std::getenv("CUDA_PLAYGROUND_REMOTE_START_TIMEOUT_S"); v && std::atoi(v) > 0)
        return std::atoi(v);
    return 120;
}

// CUDA_PLAYGROUND_PRETEND_BEFORE_FRAMES=1: this side acts as a build before compressed blobs and previews (it
// neither offers, accepts nor reads them), for the tests of an older peer.
bool pretend_before_frames() {
    const char* v = std::getenv("CUDA_PLAYGROUND_PRETEND_BEFORE_FRAMES");
    return v && std::string(v) == "1";
}

// CUDA_PLAYGROUND_REMOTE_COMPRESS=0: this side neither offers nor accepts compressed blobs (the benchmark's
// "before"; a link whose own transport compresses already, `ssh -C`). =1: every large blob is compressed,
// whatever the link's speed. Unset: coded as the link's measured speed makes worth it (coding_for_link).
bool compression_allowed() {
    const char* v = std::getenv("CUDA_PLAYGROUND_REMOTE_COMPRESS");
    return !(v && std::string(v) == "0") && !pretend_before_frames();
}
bool compression_always() {
    const char* v = std::getenv("CUDA_PLAYGROUND_REMOTE_COMPRESS");
    return v && std::string(v) == "1";
}

// Waits until `fd` has bytes to read (or ended) for at most `timeout_ms`: false when it timed out.
bool wait_readable(int fd, int timeout_ms) {
    const auto end = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
    for (;;) {
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(end - std::chrono::steady_clock::now());
        pollfd p{fd, POLLIN, 0};
        const int ready = poll(&p, 1, int(std::max<int64_t>(0, left.count())));
        if (ready > 0) return true;
        if (ready == 0) return false;
        if (errno != EINTR) return true;  // let the read say what is wrong
    }
}

std::string host_name() {
    char name[256] = {};
    if (gethostname(name, sizeof name - 1) != 0) return "unknown";
    return name;
}

std::string join_words(const std::vector<std::string>& words) {
    std::string text;
    for (const std::string& w : words) {
        const bool plain = !w.empty() && w.find_first_of(" \t\n'\"\\$`") == std::string::npos;
        text += (text.empty() ? "" : " ") + (plain ? w : "'" + w + "'");
    }
    return text;
}

class RemoteBackend;

// Every remote backend alive in this process, for close_remote_links().
std::mutex g_links_mutex;
std::vector<RemoteBackend*> g_links;

class RemoteBackend final : public Backend {
public:
    explicit RemoteBackend(RemoteOptions options) : options_(std::move(options)) {
        std::lock_guard lock(g_links_mutex);
        g_links.push_back(this);
    }
    ~RemoteBackend() override {
        {
            std::lock_guard lock(g_links_mutex);
            std::erase(g_links, this);
        }
        stop(closing_);
    }

    const RemoteOptions& options() const { return options_; }
    // close_remote_links(): from another thread. The child is killed under pid_mutex_, which the reaping in
    // stop() holds too, so the pid is never one the system handed to another process since.
    void close_now() {
        std::lock_guard lock(pid_mutex_);
        closing_ = true;
        if (pid_ > 0) kill(pid_, SIGKILL);
    }

    std::optional<Error> start();

    InfoResult info() override {
        if (info_) return InfoResult{*info_};
        InfoResult r = std::get<InfoResult>(call(InfoRequest{}, start_timeout_s(), "asking for the device"));
        if (r.device.name.empty()) return r;
        // The remote worker's device addresses and IPC handles mean nothing in this process: outputs are read
        // back, never imported, and compute-sanitizer is not started here: a sanitized run is another link, to
        // `worker --stdio --sanitize TOOL` (sanitize_unavailable_reason leaves that to the server).
        r.device.caps.device_buffers = false;
        r.device.caps.buffers_by_ipc = false;
        r.device.caps.sanitizer = false;
        r.device.where = "remote: `" + options_.prefix + "` -> host " + host_ + " (" + r.device.backend + " backend, " +
                         r.device.name +
                         (!compress_         ? ""
                          : compress_always_ ? ", frames compressed with zstd"
                                             : ", frames compressed with zstd while the link is slow") +
                         ")";
        info_ = r.device;
        return r;
    }
    CompileResult compile(const CompileRequest& request) override {
        return std::get<CompileResult>(call(request, kCompileTimeoutS, "compiling `" + request.kernel_name + "`"));
    }
    AllocateResult allocate(const AllocateRequest& request) override {
        AllocateResult r =
            std::get<AllocateResult>(call(request, kTransferTimeoutS, "allocating `" + request.name + "`"));
        r.ipc_handle.clear();  // a handle for the remote machine's processes, not this one's
        return r;
    }
    UploadResult upload(const UploadRequest& request) override {
        return std::get<UploadResult>(call(request, kTransferTimeoutS, "an upload"));
    }
    LaunchResult launch(const LaunchRequest& request) override {
        const std::string subject =
            "kernel `" + request.kernel_name + "` (grid " + request.grid.str() + ", block " + request.block.str() + ")";
        return std::get<LaunchResult>(call(request, launch_timeout_s() + kNetworkMarginS, subject));
    }
    ReadBackResult read_back(const ReadBackRequest& request) override {
        return std::get<ReadBackResult>(call(request, kTransferTimeoutS, "a read-back"));
    }
    ReleaseResult release(const ReleaseRequest& request) override {
        if (pid_ <= 0) return {};  // nothing to release on a worker that is gone
        return std::get<ReleaseResult>(call(request, kTransferTimeoutS, "a release"));
    }
    OccupancyResult occupancy(const OccupancyRequest& request) override {
        return std::get<OccupancyResult>(
            call(request, kTransferTimeoutS, "the occupancy query for `" + request.kernel_name + "`"));
    }
    StreamsResult streams(const StreamsRequest& request) override {
        return std::get<StreamsResult>(
            call(request, launch_timeout_s() + kNetworkMarginS, "kernel `" + request.kernel_name + "` on streams"));
    }

private:
    Response call(const Request& request, int timeout_s, const std::string& subject);
    std::optional<Error> spawn();
    // Closes the link; the worker gets 2 s to end (none with kill_now), then it is killed and reaped.
    void stop(bool kill_now);
    std::string stderr_tail() const;
    Error lost(const std::string& what) const;

    RemoteOptions options_;
    std::vector<std::string> words_;
    pid_t pid_ = -1;  // written under pid_mutex_ (close_now reads it from another thread)
    std::mutex pid_mutex_;
    std::atomic<bool> closing_{false};
    int to_ = -1, from_ = -1;
    std::thread stderr_reader_;
    std::atomic<bool> stop_reading_{false};
    mutable std::mutex stderr_mutex_;
    std::string stderr_text_;
    std::string ended_how_;
    std::string host_ = "unknown", build_;
    std::optional<DeviceInfo> info_;
    bool compress_ = false;  // both sides said so in the greeting
    // The link's speed as the last large answer measured it (MB/s; 0: not yet), which decides how frames are
    // coded (coding_for_link): a new link compresses until it knows better.
    double link_mb_per_s_ = 0;
    bool compress_always_ = false;  // CUDA_PLAYGROUND_REMOTE_COMPRESS=1 when the link started
};

std::optional<Error> RemoteBackend::spawn() {
    auto prefix = split_command_words(options_.prefix);
    if (!prefix) return prefix.error();
    if (prefix->empty())
        return make_error(ErrorKind::UserInput, "--remote needs a command to reach the server",
                          "e.g. --remote \"ssh gpu01\" or --remote \"ssh login srun --gres=gpu:1\"");
    words_ = with_srun_unbuffered(*prefix);
    words_.insert(words_.end(), {options_.program, "worker", "--stdio", "--backend", options_.backend});
    if (!options_.sanitize_tool.empty()) words_.insert(words_.end(), {"--sanitize", options_.sanitize_tool});

    int in[2], out[2], err[2];
    if (pipe2(in, O_CLOEXEC) != 0)
        return make_error(ErrorKind::WorkerLost, std::string("pipe: ") + std::strerror(errno));
    if (pipe2(out, O_CLOEXEC) != 0) {
        close(in[0]), close(in[1]);
        return make_error(ErrorKind::WorkerLost, std::string("pipe: ") + std::strerror(errno));
    }
    if (pipe2(err, O_CLOEXEC) != 0) {
        close(in[0]), close(in[1]), close(out[0]), close(out[1]);
        return make_error(ErrorKind::WorkerLost, std::string("pipe: ") + std::strerror(errno));
    }
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, in[0], 0);
    posix_spawn_file_actions_adddup2(&actions, out[1], 1);
    posix_spawn_file_actions_adddup2(&actions, err[1], 2);
    std::vector<char*> argv;
    for (std::string& w : words_) argv.push_back(w.data());
    argv.push_back(nullptr);
    pid_t pid = -1;
    std::unique_lock pid_lock(pid_mutex_);
    const int rc = posix_spawnp(&pid, argv[0], &actions, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    close(in[0]), close(out[1]), close(err[1]);
    if (rc != 0) {
        close(in[1]), close(out[0]), close(err[0]);
        return make_error(ErrorKind::WorkerLost, "could not start `" + join_words(words_) + "`: " + std::strerror(rc),
                          "check that `" + words_.front() + "` is installed and on PATH");
    }
    pid_ = pid;
    if (closing_) kill(pid_, SIGKILL);  // closed while it was being started: its greeting never comes
    pid_lock.unlock();
    to_ = in[1];
    from_ = out[0];
    {
        std::lock_guard lock(stderr_mutex_);
        stderr_text_.clear();
    }
    stop_reading_ = false;
    // The remote's stderr (ssh's own complaints, the worker's messages) is kept for the error that says the
    // link was lost; a thread drains it so that a chatty remote never blocks on a full pipe.
    stderr_reader_ = std::thread([this, fd = err[0]] {
        char buffer[4096];
        for (;;) {
            pollfd p{fd, POLLIN, 0};
            const int ready = poll(&p, 1, 100);
            if (ready < 0 && errno == EINTR) continue;
            if (ready == 0) {
                if (stop_reading_) break;
                continue;
            }
            const ssize_t n = read(fd, buffer, sizeof buffer);
            if (n < 0 && errno == EINTR) continue;
            if (n <= 0) break;
            std::lock_guard lock(stderr_mutex_);
            stderr_text_.append(buffer, size_t(n));
            if (stderr_text_.size() > kStderrKeep) stderr_text_.erase(0, stderr_text_.size() - kStderrKeep);
        }
        close(fd);
    });
    return std::nullopt;
}

void RemoteBackend::stop(bool kill_now) {
    if (to_ >= 0) close(to_);  // the worker reads the end of its input and ends
    to_ = -1;
    // A sanitizing worker answers the end of its input with the sanitizer's log: it goes where `run` reads a
    // local one. No frame (a worker lost or refused) leaves no log, which `run` reports as an unfinished report.
    if (!kill_now && pid_ > 0 && from_ >= 0 && !options_.sanitize_tool.empty()) {
        WireMessage goodbye;
        if (read_message(from_, kSanitizerLogTimeoutS * 1000, &goodbye) == ReadStatus::Ok) {
            g_received += frame_bytes(goodbye);
            const auto j = nlohmann::json::parse(goodbye.json, nullptr, false);
            if (j.is_object() && j.contains(kSanitizerGoodbye) && !options_.sanitizer_log.empty())
                std::ofstream(options_.sanitizer_log, std::ios::binary)
                    .write(reinterpret_cast<const char*>(goodbye.blob.data()), std::streamsize(goodbye.blob.size()));
        }
    }
    if (pid_ > 0) {
        int status = -1;
        // Reaped and forgotten under the lock: close_now() never signals a pid that was reaped.
        auto reaped = [&](int flags) {
            std::lock_guard lock(pid_mutex_);
            const pid_t got = waitpid(pid_, &status, flags);
            if (got == pid_ || (got < 0 && errno != EINTR)) {
                pid_ = -1;
                return true;
            }
            return false;
        };
        if (kill_now || closing_) kill(pid_, SIGKILL);
        for (int waited_ms = 0; !reaped(WNOHANG); waited_ms += 5) {
            if (waited_ms >= 2000) {
                kill(pid_, SIGKILL);
                while (!reaped(0)) {
                }
                break;
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(5));
        }
        ended_how_ = describe_wait_status(status);
    }
    if (from_ >= 0) close(from_);
    from_ = -1;
    stop_reading_ = true;
    if (stderr_reader_.joinable()) stderr_reader_.join();
}

std::string RemoteBackend::stderr_tail() const {
    std::lock_guard lock(stderr_mutex_);
    std::vector<std::string> lines;
    size_t start = 0;
    while (start < stderr_text_.size()) {
        size_t end = stderr_text_.find('\n', start);
        if (end == std::string::npos) end = stderr_text_.size();
        std::string line = stderr_text_.substr(start, end - start);
        if (line.find_first_not_of(" \t\r") != std::string::npos) lines.push_back(line);
        start = end + 1;
    }
    std::string tail;
    const size_t first = lines.size() > 8 ? lines.size() - 8 : 0;
    for (size_t i = first; i < lines.size(); ++i) tail += "\n    " + lines[i];
    return tail;
}

Error RemoteBackend::lost(const std::string& what) const {
    std::string message = "the remote worker `" + join_words(words_) + "` " + what +
                          ": the server is unreachable or the worker there ended";
    const std::string tail = stderr_tail();
    message += tail.empty() ? " (it wrote nothing on stderr)" : "; its stderr ended with:" + tail;
    return make_error(ErrorKind::WorkerLost, message,
                      "check that `" + options_.prefix +
                          " true` works on its own (host name, keys, known hosts) and "
                          "that `" +
                          options_.program +
                          " worker --stdio` runs there (CUDA_PLAYGROUND_REMOTE_PROGRAM sets "
                          "its path); the next run tries to connect again");
}

std::optional<Error> RemoteBackend::start() {
    if (auto e = spawn()) return e;
    // The app speaks first, so that a worker of another build can say so on its side too.
    const nlohmann::json hello = {
        {"hello", "cuda-playground app"}, {"protocol", kWireProtocolVersion}, {"build", CP_VERSION}};
    nlohmann::json hello_offer = hello;
    if (compression_allowed()) hello_offer["compress"] = {kWireCompression};  // a worker without it ignores it
    (void)write_message(to_, WireMessage{hello_offer.dump(), {}, {}});        // a worker already gone shows in the read
    WireMessage greeting;
    const int timeout_s = start_timeout_s();
    const ReadStatus s = read_message(from_, timeout_s * 1000, &greeting);
    if (s != ReadStatus::Ok) {
        stop(s == ReadStatus::TimedOut);
        return lost(s == ReadStatus::TimedOut ? "did not greet within " + std::to_string(timeout_s) +
                                                    " s (CUDA_PLAYGROUND_REMOTE_START_TIMEOUT_S) and was stopped"
                                              : "ended before it greeted (" + ended_how_ + ")");
    }
    std::optional<Error> failure;
    // The worker refused (its greeting said not ok): its serve_stdio wrote the same words to its stderr, so the
    // message, which quotes them, needs no stderr tail.
    bool refused = false;
    try {
        const auto j = nlohmann::json::parse(greeting.json);
        host_ = j.value("host", std::string("unknown"));
        build_ = j.value("build", std::string());
        compress_ = compression_allowed() && j.value("compress", std::string()) == kWireCompression;
        compress_always_ = compression_always();
        failure = check_worker_protocol(j.value("protocol", 0), "remote worker `" + join_words(words_) + "` (host " +
                                                                    host_ + ", build " + build_ + ")");
        if (failure)
            failure->hint = "install the same version of CUDA Playground on the server as here (this is " +
                            std::string(CP_VERSION) + "), or point CUDA_PLAYGROUND_REMOTE_PROGRAM at it";
        if (!failure && !j.at("ok").get<bool>()) {
            failure = make_error(
                error_kind_from_name(j.at("kind").get<std::string>()).value_or(ErrorKind::Unknown),
                "the remote worker on host " + host_ + " cannot serve: " + j.at("message").get<std::string>(),
                j.at("hint").get<std::string>());
            refused = true;
        }
    } catch (const std::exception& e) {
        failure =
            make_error(ErrorKind::WorkerLost,
                       "the remote worker `" + join_words(words_) + "` answered what is not a greeting: " + e.what(),
                       "check that `" + options_.program + "` on the server is CUDA Playground");
    }
    if (failure) {
        stop(false);
        // Any other failure (another protocol, not a greeting) is the app's words: the worker's are on its stderr.
        if (const std::string tail = refused ? std::string() : stderr_tail(); !tail.empty())
            failure->message += "; its stderr ended with:" + tail;
    }
    return failure;
}

Response RemoteBackend::call(const Request& request, int timeout_s, const std::string& subject) {
    if (closing_) {
        // The window is closing: no new worker, no waiting.
        EngineError error = to_engine_error(
            make_error(ErrorKind::WorkerLost, "the link to `" + options_.prefix + "` was closed (the app is closing)"),
            "remote closed", ErrorKind::WorkerLost);
        error.context_was_reset = true;
        return failed_response(request, error, info_);
    }
    if (pid_ <= 0) {
        if (auto e = start()) {
            EngineError error = to_engine_error(*e, "remote unavailable", ErrorKind::WorkerLost);
            error.context_was_reset = true;
            return failed_response(request, error, info_);
        }
    }
    std::string what;
    WireMessage message = encode_request(request);
    const auto* read_back = std::get_if<ReadBackRequest>(&request);
    const bool shown_frame = read_back && read_back->preview;
    const AnswerCoding coding = compress_always_ ? AnswerCoding::Full : coding_for_link(link_mb_per_s_, shown_frame);
    if (compress_ && coding != AnswerCoding::Raw) compress_blob(message);
    // A faster link: the worker's codec would cost more than it saves.
    if (compress_) ask_answer_coding(message, coding);
    g_sent += frame_bytes(message);
    ++g_requests;
    if (write_message(to_, message)) {
        WireMessage answer;
        // The answer's first byte comes when the worker is done; from there to its last byte is the link's time.
        const bool ready = wait_readable(from_, timeout_s * 1000);
        const auto first_byte = std::chrono::steady_clock::now();
        const ReadStatus s = ready ? read_message(from_, timeout_s * 1000, &answer) : ReadStatus::TimedOut;
        if (s == ReadStatus::Ok) {
            const uint64_t bytes = frame_bytes(answer);
            g_received += bytes;
            if (compress_ && bytes >= kLinkMeasureMinBytes) {
                const double took_s =
                    std::chrono::duration<double>(std::chrono::steady_clock::now() - first_byte).count();
                link_mb_per_s_ = took_s > 0 ? double(bytes) / 1e6 / took_s : 1e6;  // faster than the clock can tell
            }
            std::optional<Error> damaged = compress_ ? decompress_blob(answer) : std::nullopt;
            if (!damaged && compress_) damaged = delta_decode_picture(answer);
            if (!damaged)
                if (Result<Response> response = decode_response(std::move(answer))) return std::move(*response);
            stop(true);
            what = "sent an answer to " + subject + " that could not be read" +
                   (damaged ? " (" + damaged->message + ")" : "");
        } else if (s == ReadStatus::TimedOut) {
            stop(true);
            what = "did not answer " + subject + " within " + std::to_string(timeout_s) + " s and was stopped";
        }
    }
    if (what.empty()) {
        stop(false);
        what = "ended during " + subject + " (" + ended_how_ + ")";
    }
    // Whatever the remote held (buffers, modules) went with it; the next request starts a new worker.
    EngineError e = to_engine_error(lost(what), "remote worker lost", ErrorKind::WorkerLost);
    e.context_was_reset = true;
    return failed_response(request, e, info_);
}

}  // namespace

RemoteOptions remote_options_from_environment(const std::string& backend) {
    RemoteOptions o;
    if (const char* v = std::getenv("CUDA_PLAYGROUND_REMOTE")) o.prefix = v;
    if (const char* v = std::getenv("CUDA_PLAYGROUND_REMOTE_PROGRAM"); v && *v) o.program = v;
    o.backend = backend;
    return o;
}

Result<std::vector<std::string>> split_command_words(const std::string& text) {
    std::vector<std::string> words;
    std::string word;
    bool in_word = false;
    for (size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (c == ' ' || c == '\t' || c == '\n') {
            if (in_word) words.push_back(word);
            word.clear();
            in_word = false;
        } else if (c == '\'') {
            const size_t end = text.find('\'', i + 1);
            if (end == std::string::npos)
                return make_error(ErrorKind::UserInput, "`" + text + "`: a ' is not closed", "close the quote");
            word += text.substr(i + 1, end - i - 1);
            in_word = true;
            i = end;
        } else if (c == '"') {
            size_t j = i + 1;
            for (; j < text.size() && text[j] != '"'; ++j) {
                if (text[j] == '\\' && j + 1 < text.size() && std::strchr("\"\\$`\n", text[j + 1])) ++j;
                word += text[j];
            }
            if (j >= text.size())
                return make_error(ErrorKind::UserInput, "`" + text + "`: a \" is not closed", "close the quote");
            in_word = true;
            i = j;
        } else if (c == '\\' && i + 1 < text.size()) {
            word += text[++i];
            in_word = true;
        } else {
            word += c;
            in_word = true;
        }
    }
    if (in_word) words.push_back(word);
    return words;
}

std::vector<std::string> with_srun_unbuffered(std::vector<std::string> words) {
    for (size_t i = 0; i < words.size(); ++i) {
        const std::string& w = words[i];
        if (w != "srun" && !(w.size() > 5 && w.compare(w.size() - 5, 5, "/srun") == 0)) continue;
        for (size_t j = i + 1; j < words.size(); ++j)
            if (words[j] == "-u" || words[j] == "--unbuffered") return words;
        words.insert(words.begin() + long(i) + 1, "--unbuffered");
        return words;
    }
    return words;
}

Result<std::unique_ptr<Backend>> make_remote_backend(const RemoteOptions& options) {
    auto backend = std::make_unique<RemoteBackend>(options);
    if (auto e = backend->start()) return *e;
    return std::unique_ptr<Backend>(std::move(backend));
}

void close_remote_links() {
    std::lock_guard lock(g_links_mutex);
    for (RemoteBackend* link : g_links) link->close_now();
}

std::optional<RemoteOptions> remote_options_of(const Backend& backend) {
    if (const auto* remote = dynamic_cast<const RemoteBackend*>(&backend)) return remote->options();
    return std::nullopt;
}

RemoteTraffic remote_traffic() {
    return {g_sent.load(), g_received.load(), g_requests.load()};
}

int worker_protocol_version() {
    if (const char* v = std::getenv("CUDA_PLAYGROUND_PRETEND_PROTOCOL"); v && std::atoi(v) > 0) return std::atoi(v);
    return kWireProtocolVersion;
}

int serve_stdio(const ServedBackends& served, const std::string& backend_name, const std::string& sanitize_tool) {
    // The frames own stdin and stdout: they move to descriptors of their own, stdout becomes stderr (so that
    // anything else printed cannot corrupt the stream) and stdin /dev/null (no child reads the app's bytes).
    const int in = fcntl(0, F_DUPFD_CLOEXEC, 3);
    const int out = fcntl(1, F_DUPFD_CLOEXEC, 3);
    if (in < 0 || out < 0) {
        std::cerr << "error: worker --stdio needs a standard input and output\n";
        return 1;
    }
    std::cout.flush();
    std::fflush(stdout);
    dup2(2, 1);
    if (const int null = open("/dev/null", O_RDONLY | O_CLOEXEC); null >= 0) {
        dup2(null, 0);
        close(null);
    }
    signal(SIGPIPE, SIG_IGN);  // an app gone mid-answer is a failed write, not a dead worker

    const int mine = worker_protocol_version();
    nlohmann::json greeting = {{"hello", "cuda-playground worker"},
                               {"protocol", mine},
                               {"build", CP_VERSION},
                               {"host", host_name()},
                               {"ok", false},
                               {"message", ""},
                               {"hint", ""},
                               {"kind", ""}};
    nlohmann::json names = nlohmann::json::array();
    for (const std::string& name : served.names) names.push_back(name);
    greeting["backends"] = names;
    auto refuse = [&](const Error& e) {
        greeting.update({{"message", e.message}, {"hint", e.hint}, {"kind", error_kind_name(e.kind)}});
        (void)write_message(out, WireMessage{greeting.dump(), {}, {}});
        std::cerr << "error: " << e.message << "\n";
        if (!e.hint.empty()) std::cerr << "  hint: " << e.hint << "\n";
        return 1;
    };

    WireMessage hello;
    if (read_message(in, start_timeout_s() * 1000, &hello) != ReadStatus::Ok) {
        std::cerr << "error: worker --stdio: no greeting from the app on standard input\n"
                     "  hint: this command is started by `cuda-playground --remote ...`, not by hand\n";
        return 1;
    }
    int app_protocol = 0;
    std::string app_build;
    bool compress = false;  // the app offered zstd and this side may: both compress their blobs from now on
    try {
        const auto j = nlohmann::json::parse(hello.json);
        app_protocol = j.value("protocol", 0);
        app_build = j.value("build", std::string());
        if (const auto offer = j.find("compress"); offer != j.end() && offer->is_array() && compression_allowed())
            for (const auto& name : *offer) compress = compress || name == kWireCompression;
    } catch (const std::exception&) {
    }
    if (app_protocol != mine)
        return refuse(make_error(ErrorKind::WorkerLost,
                                 "the app (build " + app_build + ") speaks wire protocol " +
                                     std::to_string(app_protocol) + " but this worker (build " + CP_VERSION + " on " +
                                     host_name() + ") speaks " + std::to_string(mine),
                                 "install the same version of CUDA Playground here as on the app's machine"));
    // The server's limits (worker_limits.h): a broken file or a user with all slots taken is refused here.
    auto limits = load_worker_limits();
    if (!limits) return refuse(limits.error());
    auto limiter = WorkerLimiter::start(std::move(*limits));
    if (!limiter) return refuse(limiter.error());
    // Under --sanitize the backend is the CUDA worker under this server's compute-sanitizer (remote_sanitize.h).
    std::unique_ptr<Backend> owned;
    std::string sanitizer_log;
    if (!sanitize_tool.empty()) {
        auto made = served.make_sanitized(backend_name, sanitize_tool, host_name(), &sanitizer_log);
        if (!made) return refuse(made.error());
        owned = std::move(*made);
    } else {
        auto made = served.make(backend_name);
        if (!made) return refuse(made.error());
        owned = std::move(*made);
    }
    Backend& backend = *owned;
    // The app closed the connection: a sanitizing worker ends its backend, so that compute-sanitizer finishes
    // the log, and sends the log back as the last frame before it ends.
    auto closed = [&] {
        if (sanitize_tool.empty()) return 0;
        owned.reset();
        const std::string text = take_sanitizer_log(sanitizer_log);
        WireMessage goodbye{nlohmann::json{{kSanitizerGoodbye, text.size()}}.dump(), {}, {}};
        goodbye.blob.resize(text.size());
        if (!text.empty()) std::memcpy(goodbye.blob.data(), text.data(), text.size());
        (void)write_message(out, goodbye);
        return 0;
    };
    const DeviceInfo device = backend.info().device;
    greeting.update(
        {{"ok", true}, {"backend", device.backend}, {"device", device.name}, {"device_count", device.device_count}});
    if (compress) greeting["compress"] = kWireCompression;
    if (!write_message(out, WireMessage{greeting.dump(), {}, {}})) return 0;

    for (;;) {
        WireMessage message;
        if (read_message(in, -1, &message) != ReadStatus::Ok) return closed();  // the app closed the connection
        if (auto e = compress ? decompress_blob(message) : std::nullopt) {
            std::cerr << "error: worker --stdio: " << e->message << "\n";
            return 1;
        }
        // The app measured a link faster than the codec: this answer is coded less, or not at all.
        const AnswerCoding coding = compress ? answer_coding_asked(message) : AnswerCoding::Raw;
        Result<Request> request = decode_request(std::move(message));
        if (!request) {
            std::cerr << "error: worker --stdio: a request this build cannot read: " << request.error().message << "\n";
            return 1;
        }
        const auto started = std::chrono::steady_clock::now();
        Response response = limiter->dispatch(backend, *request);
        if (auto* launched = std::get_if<LaunchResult>(&response); launched && launched->backend_ms == 0)
            launched->backend_ms =
                ms_since(started);
        // A picture only shown: the whole buffer was read here, the downscaled copy crosses the network.
        const auto* rb = std::get_if<ReadBackRequest>(&*request);
        const bool preview = rb && rb->preview && !pretend_before_frames();
        if (preview) make_preview(*rb->preview, std::get<ReadBackResult>(response));
        WireMessage answer = encode_response(response);
        if (preview && coding == AnswerCoding::Full && !rb->preview->is_float)
            if (const uint32_t w = std::get<ReadBackResult>(response).preview_width)
                delta_encode_picture(answer, w, rb->preview->components);
        if (coding != AnswerCoding::Raw) compress_blob(answer);
        if (!write_message(out, answer)) return 0;
    }
}

}  // namespace cp
