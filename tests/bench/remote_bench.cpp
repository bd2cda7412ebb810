// cp_remote_bench: the transport overhead of --remote, paired (a benchmark, no assertion): the same lesson
// (default: the default demo, image/box_blur) run on the local worker and through `ssh` to this machine (a real
// sshd the benchmark starts, or --remote PREFIX: `--remote env` runs the worker here through the stdio transport,
// for a GPU machine without sshd), alternately, after each connection is up, with the same backend on both sides
// (--backend, default cpu); the median per-run wall time of each, the difference, and the bytes a remote run
// sends and receives, and where a checked run's time goes (round trips, codec, pipe hops). Then edit -> new outputs,
// paired the same way: a source edit (the kernel compiles again) and a run that brings the outputs back. Then the bytes
// per shown frame (a live run: no check) of box_blur (600x400), vector_add and box_blur on a 3840x2160 photo, raw
// (CUDA_PLAYGROUND_REMOTE_COMPRESS=0), compressed with zstd (=1), as the link decides (compressed while it is slower
// than the codec), and compressed as previews (RunOptions::preview_max_width: 1920x1080, and 960x540 for a view that
// size on screen).  usage: cp_remote_bench [--runs N] [--file LESSON] [--remote PREFIX] [--backend cpu|cuda]
#include "support/ssh_server.h"

#include "core/data/image_io.h"
#include "core/engine/engine.h"
#include "core/engine/engine_wire.h"
#include "core/kernel_file/kernel_file.h"
#include "core/remote/remote_backend.h"
#include "core/remote/wire_compress.h"
#include "core/session/session.h"
#include "core/worker/wire_frame.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <unistd.h>

#include "support/process.h"
#include "test_paths.h"
#include "core/backends/registry.h"

using namespace cp;

namespace {

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v.empty() ? 0 : v[v.size() / 2];
}

struct Side {
    std::unique_ptr<Engine> engine;
    std::unique_ptr<KernelSession> session;
    std::vector<double> ms;
};

bool open_side(Side& side, std::unique_ptr<Backend> backend, const KernelFile& file) {
    side.engine = std::make_unique<Engine>(std::move(backend));
    side.session = std::make_unique<KernelSession>(*side.engine);
    side.session->set_kernel(file);
    const RunReport first = side.session->run();  // compiles, allocates: not what is measured
    if (first.error) std::fprintf(stderr, "[remote] first run failed: %s\n", first.error->message.c_str());
    return !first.error;
}

double timed_run(Side& side, bool* ok) {
    const auto t = std::chrono::steady_clock::now();
    const RunReport r = side.session->run();
    *ok = !r.error && r.launched;
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t).count();
}

// A source edit (a comment: the text differs, so the kernel compiles again, and each side's differs from the
// other's, so neither finds the other's in the shared compile cache) and a run that brings the outputs back
// (no check: what the window shows first).
double timed_edit(Side& side, const KernelFile& file, const std::string& side_name, int edit, bool* ok) {
    const std::string text =
        file.source + "// " + side_name + " edit " + std::to_string(edit) + " " + std::to_string(getpid()) + "\n";
    const auto t = std::chrono::steady_clock::now();
    side.session->set_kernel(parse_kernel_source(text, file.path));
    RunOptions live;
    live.verify = false;
    live.timing = TimingOptions{0, 1, false};
    const RunReport r = side.session->run(live);
    *ok = !r.error && r.launched && r.compiled && !r.cache_hit && !r.outputs.empty();
    if (!*ok && r.error) std::fprintf(stderr, "[remote] %s: %s\n", side_name.c_str(), r.error->message.c_str());
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t).count();
}

// Bytes per shown frame through `remote`: a fresh connection (compressed unless `raw`), a first run (compile,
// allocation, first uploads), then `runs` live runs whose traffic is averaged.
struct Bytes {
    double sent = 0, received = 0;
    bool ok = false;
};
// `compress`: CUDA_PLAYGROUND_REMOTE_COMPRESS for this link ("0" raw, "1" always, "" while the link is slow).
Bytes frame_bytes(const std::string& remote, const std::string& backend_name, const KernelFile& file,
                  const RunChoices& choices, const char* compress, uint32_t preview_w, uint32_t preview_h, int runs) {
    if (*compress) setenv("CUDA_PLAYGROUND_REMOTE_COMPRESS", compress, 1);
    RemoteOptions options;
    options.prefix = remote;
    options.program = CP_BINARY;
    options.backend = backend_name;
    auto backend = make_remote_backend(options);
    unsetenv("CUDA_PLAYGROUND_REMOTE_COMPRESS");
    Bytes b;
    if (!backend) {
        std::fprintf(stderr, "[remote] %s\n", backend.error().full().c_str());
        return b;
    }
    Engine engine(std::move(*backend));
    KernelSession session(engine);
    session.set_kernel(file);
    session.set_choices(choices);
    RunOptions live;
    live.verify = false;
    live.preview_max_width = preview_w;
    live.preview_max_height = preview_h;
    if (session.run(live).error) return b;
    const RemoteTraffic before = remote_traffic();
    for (int i = 0; i < runs; ++i)
        if (session.run(live).error) return b;
    const RemoteTraffic after = remote_traffic();
    b.sent = double(after.sent - before.sent) / runs;
    b.received = double(after.received - before.received) / runs;
    b.ok = true;
    return b;
}

void print_bytes(const char* what, const Bytes& b) {
    if (!b.ok) {
        std::printf("[remote]   %-34s failed\n", what);
        return;
    }
    std::printf("[remote]   %-34s %10.0f sent %10.0f received (%.2f MB)\n", what, b.sent, b.received, b.received / 1e6);
}

bool bytes_table(const std::string& remote, const std::string& backend, int runs) {
    test::TempDir dir;
    std::filesystem::path uhd;
    if (auto photo = load_image(assets_dir() / "coffee.png")) {
        uhd = dir.path() / "uhd.png";  // nearest-neighbour upscale, as cp_ui_bench's: blockier than a 4K photo
        if (!save_png(uhd, resize_nearest(*photo, 3840, 2160))) uhd.clear();
    }
    struct Case {
        const char* name;
        std::string lesson;
        std::filesystem::path photo;
        bool picture;
    };
    const Case cases[] = {{"box_blur 600x400", "image/box_blur", {}, true},
                          {"vector_add", "basics/vector_add", {}, false},
                          {"box_blur 3840x2160 photo", "image/box_blur", uhd, true}};
    std::printf("[remote] bytes per shown frame (live runs, no check; %d runs each after a first):\n", runs);
    for (const Case& c : cases) {
        auto file = load_kernel_file(kernels_dir() / (c.lesson + ".cu"));
        if (!file) return false;
        RunChoices choices;
        if (!c.photo.empty()) choices.images["src"] = c.photo.string();
        std::printf("[remote] %s:\n", c.name);
        print_bytes("raw (COMPRESS=0)", frame_bytes(remote, backend, *file, choices, "0", 0, 0, runs));
        print_bytes("zstd (COMPRESS=1)", frame_bytes(remote, backend, *file, choices, "1", 0, 0, runs));
        print_bytes("default (zstd while slow)", frame_bytes(remote, backend, *file, choices, "", 0, 0, runs));
        if (!c.picture) continue;
        print_bytes("zstd + preview <= 1920x1080", frame_bytes(remote, backend, *file, choices, "1", 1920, 1080, runs));
        print_bytes("zstd + preview <= 960x540", frame_bytes(remote, backend, *file, choices, "1", 960, 540, runs));
    }
    return true;
}

template <class F>
double median_ms(int n, F&& f) {
    std::vector<double> ms;
    for (int i = 0; i < n; ++i) {
        const auto t = std::chrono::steady_clock::now();
        f();
        ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t).count());
    }
    return median(ms);
}

// Where a checked run's extra time through the link goes, part by part, on this machine: the round trips of a
// run, an empty request's round trip, and for the run's largest output (the picture read back in full for the
// check) the answer's encoding, zstd at a few levels, the frame's way through a pipe, and the app's decoding.
void where_the_time_goes(Side& far, const KernelFile& file) {
    const RemoteTraffic t0 = remote_traffic();
    RunReport r = far.session->run();
    const RemoteTraffic t1 = remote_traffic();
    if (r.error || r.outputs.empty()) return;
    auto largest = r.outputs.begin();
    for (auto it = r.outputs.begin(); it != r.outputs.end(); ++it)
        if (it->second.bytes.size() > largest->second.bytes.size()) largest = it;
    const HostBuffer& biggest = largest->second;
    std::printf("[remote] where a checked run's time goes (%s; `%s`, %zu bytes, the largest output):\n",
                file.path.filename().string().c_str(), biggest.name.c_str(), biggest.bytes.size());
    std::printf("[remote]   round trips a run: %llu (%llu bytes sent, %llu received)\n",
                static_cast<unsigned long long>(t1.requests - t0.requests),
                static_cast<unsigned long long>(t1.sent - t0.sent),
                static_cast<unsigned long long>(t1.received - t0.received));
    const double empty_ms = median_ms(50, [&] { (void)far.engine->call(ReleaseRequest{}); });
    std::printf("[remote]   an empty request's round trip: %.3f ms\n", empty_ms);
    ReadBackResult rb;
    rb.data = biggest.bytes;
    const Response answer = rb;
    WireMessage encoded;
    const double encode_ms = median_ms(20, [&] { encoded = encode_response(answer); });
    std::printf("[remote]   encode the answer (worker): %.3f ms\n", encode_ms);
    for (int level : {3, 1, -1, -3, -7}) {
        WireMessage packed = encoded;
        const double c_ms = median_ms(10, [&] {
            packed = encoded;
            compress_blob(packed, level);
        });
        WireMessage unpacked;
        const double d_ms = median_ms(10, [&] {
            unpacked = packed;
            (void)decompress_blob(unpacked);
        });
        std::printf(
            "[remote]   zstd level %2d: %7zu bytes (%.2f), compress %.3f ms (worker), decompress %.3f ms (app), "
            "copies included\n",
            level, packed.blob.size(), double(packed.blob.size()) / double(encoded.blob.size()), c_ms, d_ms);
    }
    // A picture of uchars (a preview's way): the predictor's differences, then zstd.
    int width = 0, height = 0;
    if (r.resolved)
        for (const ResolvedView& v : r.resolved->views)
            if (v.spec.buffer == biggest.name && v.width > 0 && v.height > 0) width = v.width, height = v.height;
    const uint32_t components = width > 0 ? uint32_t(biggest.bytes.size() / (size_t(width) * size_t(height))) : 0;
    if (width > 0 && components >= 1 && components <= 4) {
        WireMessage packed;
        const double c_ms = median_ms(10, [&] {
            packed = encoded;
            delta_encode_picture(packed, uint32_t(width), components);
            compress_blob(packed);
        });
        WireMessage unpacked;
        const double d_ms = median_ms(10, [&] {
            unpacked = packed;
            (void)decompress_blob(unpacked);
            (void)delta_decode_picture(unpacked);
        });
        WireMessage planes;
        const double p_ms = median_ms(10, [&] {
            planes = encoded;
            delta_encode_picture(planes, uint32_t(width), components);
        });
        const double u_ms = median_ms(10, [&] {
            WireMessage back = planes;
            (void)delta_decode_picture(back);
        });
        std::printf(
            "[remote]   predictor + zstd level 1 (previews): %7zu bytes (%.2f), encode %.3f ms (worker), decode "
            "%.3f ms (app); of which the predictor %.3f ms and its inverse %.3f ms\n",
            packed.blob.size(), double(packed.blob.size()) / double(encoded.blob.size()), c_ms, d_ms, p_ms, u_ms);
    }
    // The frame through a pipe, as the transport's last hop moves it (a reader on another thread).
    for (bool compressed : {false, true}) {
        WireMessage frame = encoded;
        if (compressed) compress_blob(frame);
        int fds[2];
        if (pipe(fds) != 0) return;
        std::vector<double> ms;
        for (int i = 0; i < 20; ++i) {
            WireMessage got;
            const auto t = std::chrono::steady_clock::now();
            std::thread reader([&] { (void)read_message(fds[0], 10000, &got); });
            (void)write_message(fds[1], frame);
            reader.join();
            ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t).count());
        }
        close(fds[0]);
        close(fds[1]);
        std::printf("[remote]   one pipe hop of the %s frame (%zu bytes): %.3f ms\n", compressed ? "compressed" : "raw",
                    frame.blob.size(), median(ms));
    }
    WireMessage copy;
    const double decode_ms = median_ms(20, [&] {
        copy = encoded;
        (void)decode_response(std::move(copy));
    });
    std::printf("[remote]   decode the answer (app), a copy included: %.3f ms\n", decode_ms);
}

}  // namespace

int main(int argc, char** argv) {
    int runs = 10;
    std::string lesson = "image/box_blur", remote, backend = "cpu";
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!std::strcmp(argv[i], "--runs"))
            runs = std::max(1, std::atoi(argv[i + 1]));
        else if (!std::strcmp(argv[i], "--file"))
            lesson = argv[i + 1];
        else if (!std::strcmp(argv[i], "--remote"))
            remote = argv[i + 1];
        else if (!std::strcmp(argv[i], "--backend"))
            backend = argv[i + 1];
    }
    std::unique_ptr<test::SshServer> sshd;
    if (remote.empty()) {
        sshd = std::make_unique<test::SshServer>();
        if (!sshd->running()) {
            std::printf("[remote] skipped: %s\n", sshd->why_not().c_str());
            return 0;
        }
        remote = sshd->prefix();
    }
    auto file = load_kernel_file(kernels_dir() / (lesson + ".cu"));
    if (!file) {
        std::fprintf(stderr, "[remote] %s\n", file.error().full().c_str());
        return 1;
    }
    auto local_backend = make_backend(backend);
    if (!local_backend) {
        std::fprintf(stderr, "[remote] %s\n", local_backend.error().full().c_str());
        return 1;
    }
    RemoteOptions options;
    options.prefix = remote;
    options.program = CP_BINARY;
    options.backend = backend;
    auto remote_backend = make_remote_backend(options);
    if (!remote_backend) {
        std::fprintf(stderr, "[remote] %s\n", remote_backend.error().full().c_str());
        return 1;
    }
    Side local, far;
    if (!open_side(local, std::move(local_backend->backend), *file) ||
        !open_side(far, std::move(*remote_backend), *file))
        return 1;
    std::printf("[remote] %s, %s backend on both sides, %d runs each, alternating\n", lesson.c_str(), backend.c_str(),
                runs);
    std::printf("[remote] here: %s; through: %s\n", local.engine->device().name.c_str(),
                far.engine->device().where.c_str());
    const RemoteTraffic before = remote_traffic();
    bool ok = true;
    for (int i = 0; i < runs && ok; ++i) {
        bool a = false, b = false;
        local.ms.push_back(timed_run(local, &a));
        far.ms.push_back(timed_run(far, &b));
        ok = a && b;
    }
    if (!ok) {
        std::fprintf(stderr, "[remote] a run failed\n");
        return 1;
    }
    const RemoteTraffic after = remote_traffic();
    std::vector<double> diff;
    for (size_t i = 0; i < local.ms.size(); ++i) diff.push_back(far.ms[i] - local.ms[i]);
    std::printf(
        "[remote] per run: local worker median %.3f ms, through the link median %.3f ms, paired difference median "
        "%+.3f ms\n",
        median(local.ms), median(far.ms), median(diff));
    std::printf("[remote] bytes per remote run: %.0f sent, %.0f received\n", double(after.sent - before.sent) / runs,
                double(after.received - before.received) / runs);

    where_the_time_goes(far, *file);

    // Edit -> new outputs, paired: each side compiles its own edited text.
    std::vector<double> edit_local, edit_far, edit_diff;
    for (int i = 0; i < runs && ok; ++i) {
        bool a = false, b = false;
        edit_local.push_back(timed_edit(local, *file, "local", i, &a));
        edit_far.push_back(timed_edit(far, *file, "remote", i, &b));
        edit_diff.push_back(edit_far.back() - edit_local.back());
        ok = a && b;
    }
    if (!ok) {
        std::fprintf(stderr, "[remote] an edit's run failed (or found its compile in the cache)\n");
        return 1;
    }
    std::printf(
        "[remote] edit -> new outputs (source edit, compile, run, read back; no check): local median %.3f "
        "ms, through the link median %.3f ms, paired difference median %+.3f ms\n",
        median(edit_local), median(edit_far), median(edit_diff));
    return bytes_table(remote, backend, std::min(runs, 5)) ? 0 : 1;
}
