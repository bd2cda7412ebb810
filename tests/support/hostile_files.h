// Test support: the hostile kernel files of tests/data/hostile (see its README), each copied into a fresh
// folder with @DIR@ and @PORT@ filled in, run through the real binary with HOME pointing at a planted secret.
#pragma once

#include "support/process.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <random>
#include <string>
#include <utility>
#include <vector>
#include "test_paths.h"

namespace cp::test {

inline const TestCacheDir& hostile_cache_dir() {
    static const TestCacheDir dir("hostile");
    return dir;
}

// One hostile file, copied into a fresh folder `<dir>/lesson/` with @DIR@ and @PORT@ filled in; `<dir>/home`
// is the app's HOME and holds the secret (a text file, a header and an SSH key).
struct Hostile {
    TempDir dir;
    std::filesystem::path file;
    std::string secret;

    explicit Hostile(const std::string& name, int port = 0) {
        std::random_device rd;
        secret = "TOPSECRET-" + std::to_string(rd()) + std::to_string(rd());
        dir.write("home/secret.txt", secret + "\n");
        dir.write("home/secret.h", "// " + secret + "\n#define SECRET 42\n");
        dir.write("home/.ssh/id_rsa", "-----BEGIN OPENSSH PRIVATE KEY-----\n" + secret + "\n");
        std::string text = cp::test::read_file(std::filesystem::path(CP_TEST_DATA_DIR) / "hostile" / name);
        EXPECT_FALSE(text.empty()) << name;
        for (const auto& [from, to] :
             {std::pair<std::string, std::string>{"@DIR@", dir.path().string()}, {"@PORT@", std::to_string(port)}})
            for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()))
                text.replace(at, from.size(), to);
        file = dir.write("lesson/" + name, text);
    }
    bool exists(const std::string& name) const { return std::filesystem::exists(dir.path() / name); }
    std::filesystem::path json() const { return dir.path() / "result.json"; }

    ProcessResult cli(std::vector<std::string> args, std::vector<std::string> env = {}) const {
        args.insert(args.begin(), CP_BINARY);
        env.push_back("CUDA_PLAYGROUND_CACHE_DIR=" + hostile_cache_dir().path().string());
        env.push_back("HOME=" + (dir.path() / "home").string());
        return cp::test::run_process(args, env);
    }
    ProcessResult run_on(const std::string& backend, std::vector<std::string> env = {}) const {
        return cli({"run", file.string(), "--backend", backend, "--json", json().string()}, std::move(env));
    }
    ProcessResult run_cpu(std::vector<std::string> env = {}) const { return run_on("cpu", std::move(env)); }
    ProcessResult compile() const { return cli({"compile", file.string()}); }
    // The JSON result was written, and its error says `words`.
    void expect_json_error(const std::string& words) const {
        ASSERT_TRUE(std::filesystem::exists(json())) << "no JSON result";
        const auto j = nlohmann::json::parse(cp::test::read_file(json()));
        ASSERT_TRUE(j.contains("error")) << j.dump(2);
        EXPECT_NE(j["error"]["message"].get<std::string>().find(words), std::string::npos) << j.dump(2);
    }
    void expect_secret_kept(const ProcessResult& r) const {
        EXPECT_EQ(r.both().find(secret), std::string::npos) << "the secret leaked:\n" << r.both();
        if (std::filesystem::exists(json())) {
            EXPECT_EQ(cp::test::read_file(json()).find(secret), std::string::npos);
        }
    }
};

inline bool output_contains(const ProcessResult& r, const std::string& words) {
    return r.both().find(words) != std::string::npos;
}

// Whether the compilers are confined here (Landlock): otherwise computed includes cannot be stopped.
inline bool compilers_confined() {
    static const bool confined = [] {
        const ProcessResult r = cp::test::run_process({CP_BINARY, "info", "--json"});
        try {
            return nlohmann::json::parse(r.out).at("sandbox").at("landlock_abi").get<int>() > 0;
        } catch (const std::exception&) {
            return false;
        }
    }();
    return confined;
}

}  // namespace cp::test
