// A whole program's host code and files (issue 36): it reads the files of its own folder (a relative path is taken
// from there, a sub-folder too), as a course program reads its input; reading outside it (`..`, an absolute path, a
// link that leads out) and writing anything are refused, the call fails in the program, which goes on, and the run
// lists each refused attempt (stderr and --json) with the program's own exit status.
#include "cli_support.h"
#include "support/process.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <numeric>

namespace cp::test {
namespace {

namespace fs = std::filesystem;

// Squares the numbers of data/values.txt on the device and prints their sum, then tries what it may not.
const char* kProgram = R"(#include <cstdio>
#include <cstdlib>

__global__ void square(const int* in, long long* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = (long long)in[i] * in[i];
}

int main()
{
    FILE* f = fopen("data/values.txt", "r");
    if (!f) { printf("no input\n"); return 3; }
    int values[1000], n = 0;
    while (n < 1000 && fscanf(f, "%d", &values[n]) == 1) ++n;
    fclose(f);
    int* d_in; long long* d_out;
    cudaMalloc(&d_in, n * sizeof(int));
    cudaMalloc(&d_out, n * sizeof(long long));
    cudaMemcpy(d_in, values, n * sizeof(int), cudaMemcpyHostToDevice);
    square<<<(n + 127) / 128, 128>>>(d_in, d_out, n);
    long long squares[1000], sum = 0;
    cudaMemcpy(squares, d_out, n * sizeof(long long), cudaMemcpyDeviceToHost);
    for (int i = 0; i < n; ++i) sum += squares[i];
    printf("%d values, sum of squares %lld\n", n, sum);
    printf("outside: %s\n", fopen("../outside.txt", "r") ? "read" : "refused");
    printf("link: %s\n", fopen("leak.txt", "r") ? "read" : "refused");
    printf("missing: %s\n", fopen("missing.txt", "r") ? "read" : "absent");
    printf("write: %s\n", fopen("results.txt", "w") ? "written" : "refused");
    return 7;
}
)";

TEST(ProgramFiles, ItReadsItsOwnFolderAndNothingElseAndGoesOnWhenRefused) {
    TempDir dir;
    const fs::path folder = dir.path() / "course";
    fs::create_directories(folder / "data");
    std::vector<int> values;
    for (int i = 0; i < 997; ++i) values.push_back((i * 37) % 201 - 100);  // not a multiple of the block
    {
        std::ofstream out(folder / "data" / "values.txt");
        for (int v : values) out << v << "\n";
    }
    std::ofstream(dir.path() / "outside.txt") << "secret\n";
    fs::create_symlink(dir.path() / "outside.txt", folder / "leak.txt");
    const fs::path program = folder / "squares.cu";
    std::ofstream(program) << kProgram;
    const long long expected =
        std::accumulate(values.begin(), values.end(), 0LL, [](long long s, int v) { return s + static_cast<long long>(v) * v; });

    const fs::path json = dir.path() / "run.json";
    const ProcessResult r = cli({"run", program.string(), "--backend", "cpu", "--json", json.string()});
    EXPECT_EQ(r.exit_code, 7) << r.both();  // the program's own status
    const nlohmann::json j = nlohmann::json::parse(read_file(json));
    const std::string out = j.at("stdout");
    EXPECT_NE(out.find("997 values, sum of squares " + std::to_string(expected) + "\n"), std::string::npos) << out;
    EXPECT_NE(out.find("outside: refused\n"), std::string::npos) << out;
    EXPECT_NE(out.find("link: refused\n"), std::string::npos) << out;
    EXPECT_NE(out.find("missing: absent\n"), std::string::npos) << out;
    EXPECT_NE(out.find("write: refused\n"), std::string::npos) << out;
    EXPECT_EQ(j.at("end"), "returned");
    EXPECT_FALSE(fs::exists(folder / "results.txt"));
    // Each refused attempt, once: the two reads out of the folder and the write.
    const auto& refused = j.at("refused");
    ASSERT_EQ(refused.size(), 3u) << refused.dump();
    auto listed = [&](const std::string& what) {
        for (const auto& x : refused)
            if (x.get<std::string>().find(what) != std::string::npos) return true;
        return false;
    };
    EXPECT_TRUE(listed("read the file ../outside.txt"));
    EXPECT_TRUE(listed("read the file leak.txt"));
    EXPECT_TRUE(listed("write the file results.txt"));
    EXPECT_EQ(j.at("launches").size(), 1u);
}

}  // namespace
}  // namespace cp::test
