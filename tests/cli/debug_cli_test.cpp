// `cuda-playground debug`: stepping through one block on the CPU backend. The values it shows are checked against
// values computed here from the inputs: a shared-memory tree's partial sums at every barrier, the lanes of a
// divergent branch, a transpose tile after its barrier (a block inside the matrix and one at its corner), the
// same stops reached forward, backward and in any order, and each thread's last values against what the run wrote.
#include "cli_support.h"
#include "support/debug_data.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <fstream>
#include <random>
#include <sstream>
#include "test_paths.h"

using cp::test::cli;
using cp::test::ProcessResult;
using nlohmann::json;

namespace {

json debug_json(std::vector<std::string> args) {
    args.insert(args.begin(), "debug");
    args.insert(std::find(args.begin(), args.end(), "--"), "--json");  // before a program's own arguments
    const ProcessResult r = cli(args);
    EXPECT_EQ(r.exit_code, 0) << r.both();
    json j = json::parse(r.out, nullptr, false);
    EXPECT_FALSE(j.is_discarded()) << r.out;
    return j;
}

const json& shared_named(const json& stop, const std::string& name) {
    for (const json& s : stop.at("shared"))
        if (s.at("name") == name) return s;
    static const json none;
    ADD_FAILURE() << "no shared array " << name << " in " << stop.at("shared").dump().substr(0, 400);
    return none;
}

}  // namespace

TEST(DebugCli, TreeSumShowsEachLevelsPartialSumsAtItsBarrier) {
    const std::string file = cp::test::debug_data("tree_sum.cu");
    const int sync_load = cp::test::line_in(file, "__syncthreads();");
    const int sync_level = cp::test::line_in(file, "__syncthreads();", sync_load);
    for (int block : {0, 3}) {  // 3: the last block, 8 of its 64 elements inside n = 200
        SCOPED_TRACE("block " + std::to_string(block));
        const std::vector<std::vector<long>> levels = cp::test::tree_sum_levels(block, 200);
        const json first = debug_json({file, "--block", std::to_string(block), "--barrier", "1"});
        ASSERT_EQ(first.at("barriers").size(), levels.size()) << "one barrier after the load, one per level";
        for (size_t k = 0; k < levels.size(); ++k) {
            SCOPED_TRACE("barrier " + std::to_string(k + 1));
            const json stop = k == 0 ? first : debug_json({file, "--block", std::to_string(block), "--barrier",
                                                           std::to_string(k + 1)});
            EXPECT_EQ(stop.at("round"), first.at("barriers")[k]);
            const json& partial = shared_named(stop, "partial");
            ASSERT_EQ(partial.at("values").size(), 64u);
            for (size_t t = 0; t < 64; ++t) EXPECT_EQ(partial["values"][t].get<long>(), levels[k][t]) << "partial[" << t << "]";
            // Each element was stored last by its own thread (also where the load stored a 0 over a 0).
            ASSERT_TRUE(stop.at("accesses_recorded").get<bool>()) << "the CPU backend here is built with GCC";
            for (size_t t = 0; t < 64; ++t) EXPECT_EQ(partial.at("writers")[t], t) << "partial[" << t << "]";
            // The block read its part of the input and, before the end, wrote nothing to global memory.
            const json expected_read = {{"buffer", "input"},
                                        {"read", {{block * 64, std::min(200, block * 64 + 64) - 1}}},
                                        {"written", json::array()}};
            EXPECT_EQ(stop.at("touched"), json::array({expected_read}));
            // Every thread waits at the barrier of this level, its loop variable the level's stride.
            ASSERT_EQ(stop.at("threads").size(), 64u);
            for (const json& th : stop["threads"]) {
                EXPECT_EQ(th.at("line"), k == 0 ? sync_load : sync_level) << th.dump();
                EXPECT_EQ(th["variables"].at("tid"), th.at("thread"));
                EXPECT_EQ(th["variables"].at("i"), block * 64 + th.at("thread").get<int>());
                if (k > 0) EXPECT_EQ(th["variables"].at("stride"), 32 >> (k - 1)) << th.dump();
                else EXPECT_FALSE(th["variables"].contains("stride")) << "not in scope before the loop";
            }
        }
        // The end: partial[0] is the block's sum, as computed here.
        const json last = debug_json({file, "--block", std::to_string(block)});
        long sum = 0;
        for (int i = block * 64; i < std::min(200, block * 64 + 64); ++i) sum += i + 1;
        EXPECT_EQ(shared_named(last, "partial")["values"][0].get<long>(), sum);
        const json& sums = last.at("touched").at(1);
        EXPECT_EQ(sums.at("buffer"), "sums");
        EXPECT_EQ(sums.at("written"), json::array({{block, block}}));  // thread 0's store of the block's sum
    }
}

TEST(DebugCli, ADivergentBranchShowsWhichLanesTookIt) {
    const std::string file = cp::test::debug_data("branches.cu");
    const int then_line = cp::test::line_in(file, "value = i * 10;");
    const int else_line = cp::test::line_in(file, "value = -lane;");
    const int return_line = cp::test::line_in(file, "if (i >= n) return;");
    for (int block : {1, 2}) {  // 2: threads 96..143 of n = 100, 44 of them past the end
        SCOPED_TRACE("block " + std::to_string(block));
        const json stop = debug_json({file, "--block", std::to_string(block), "--break", std::to_string(then_line)});
        ASSERT_EQ(stop.at("threads").size(), 48u);
        int took = 0;
        for (const json& th : stop["threads"]) {
            const int i = block * 48 + th.at("thread").get<int>();
            SCOPED_TRACE("i = " + std::to_string(i));
            if (i >= 100) {
                // At the early return (the last probe before it), or already gone.
                EXPECT_EQ(th.at("line"), return_line);
            } else if (i % 3 == 0) {
                EXPECT_EQ(th.at("line"), then_line);
                ++took;
            } else {
                EXPECT_EQ(th.at("line"), else_line);
            }
            if (i < 100) {
                EXPECT_EQ(th["variables"].at("lane"), th.at("thread").get<int>() % 32);
                EXPECT_EQ(th["variables"].at("value"), 0) << "the branch has not run yet";
            }
        }
        int expected = 0;
        for (int i = block * 48; i < std::min(100, block * 48 + 48); ++i) expected += i % 3 == 0;
        EXPECT_EQ(took, expected);
        // Past the end, the threads of the early return have returned.
        const json last = debug_json({file, "--block", std::to_string(block)});
        for (const json& th : last.at("threads")) {
            if (block * 48 + th.at("thread").get<int>() >= 100) {
                EXPECT_TRUE(th.at("returned").get<bool>()) << th.dump();
            }
        }
    }
}

TEST(DebugCli, ATransposeTileAfterItsBarrierHoldsTheInputTile) {
    const std::string file = cp::test::debug_data("tile_transpose.cu");
    const int width = 37, height = 21;
    for (auto [bx, by] : {std::pair{0, 0}, std::pair{2, 1}}) {  // (2, 1): 5 x 5 of its 16 x 16 inside the matrix
        SCOPED_TRACE("block " + std::to_string(bx) + "," + std::to_string(by));
        const json stop = debug_json({file, "--block", std::to_string(bx) + "," + std::to_string(by), "--barrier", "1"});
        const json& tile = shared_named(stop, "tile");
        ASSERT_EQ(tile.at("extents"), json::array({16, 17}));
        for (int ty = 0; ty < 16; ++ty)
            for (int tx = 0; tx < 16; ++tx) {
                const int x = bx * 16 + tx, y = by * 16 + ty;
                if (x >= width || y >= height) continue;
                EXPECT_EQ(tile["values"][size_t(ty * 17 + tx)].get<double>(), 0.5 * (y * width + x))
                    << "tile[" << ty << "][" << tx << "]";
            }
        // Who stored each element: thread (tx, ty) its tile[ty][tx] inside the matrix; nobody the padding column
        // or the elements outside the matrix.
        ASSERT_TRUE(stop.at("accesses_recorded").get<bool>()) << "the CPU backend here is built with GCC";
        for (int ty = 0; ty < 16; ++ty)
            for (int tx = 0; tx < 17; ++tx) {
                const int x = bx * 16 + tx, y = by * 16 + ty;
                const json expected = tx < 16 && x < width && y < height ? json(ty * 16 + tx) : json(nullptr);
                EXPECT_EQ(tile.at("writers")[size_t(ty * 17 + tx)], expected) << "tile[" << ty << "][" << tx << "]";
            }
        // The input it read: one run of elements per matrix row of the block.
        json rows = json::array();
        for (int y = by * 16; y < std::min(height, by * 16 + 16); ++y)
            rows.push_back({y * width + bx * 16, y * width + std::min(width, bx * 16 + 16) - 1});
        EXPECT_EQ(stop.at("touched"), json::array({{{"buffer", "in"}, {"read", rows}, {"written", json::array()}}}));
        // threadIdx as the block's shape orders it: x fastest.
        for (const json& th : stop.at("threads")) {
            const int t = th.at("thread");
            EXPECT_EQ(th.at("index"), json::array({t % 16, t / 16, 0}));
            EXPECT_EQ(th["variables"].at("x"), bx * 16 + t % 16);
            EXPECT_EQ(th["variables"].at("y"), by * 16 + t / 16);
        }
    }
}

TEST(DebugCli, EveryRoundReadsTheSameForwardBackwardAndInAnyOrder) {
    const std::string file = cp::test::debug_data("tree_sum.cu");
    const json all = debug_json({file, "--block", "3", "--round", "0"});
    const int rounds = all.at("rounds");
    ASSERT_GT(rounds, 20);
    auto stop_at = [&](int r) {
        json j = debug_json({file, "--block", "3", "--round", std::to_string(r)});
        j.erase("ms");  // the recording's wall time
        return j;
    };
    std::vector<int> order;
    for (int r = 0; r < rounds; r += 4) order.push_back(r);
    order.push_back(rounds - 1);
    std::map<int, json> forward;
    for (int r : order) forward[r] = stop_at(r);
    std::vector<int> backward(order.rbegin(), order.rend());
    for (int r : backward) EXPECT_TRUE(stop_at(r) == forward[r]) << "round " << r;
    std::mt19937 shuffle(5);
    std::shuffle(order.begin(), order.end(), shuffle);
    for (int r : order) EXPECT_TRUE(stop_at(r) == forward[r]) << "round " << r;
    // Rounds move forward: from a round to the next, a thread that did not step keeps its line.
    for (const auto& [r, before] : forward) {
        if (r + 1 >= rounds) continue;
        const json next = stop_at(r + 1);
        for (size_t t = 0; t < 64; ++t) {
            if (!next["threads"][t]["moved"].get<bool>()) {
                EXPECT_EQ(next["threads"][t]["line"], before["threads"][t]["line"]) << "round " << r + 1 << ", thread " << t;
            }
        }
    }
}

TEST(DebugCli, EachThreadsLastValuesAreWhatTheRunWrote) {
    const std::string file = cp::test::debug_data("branches.cu");
    cp::test::TempDir dir;
    const ProcessResult run = cli({"run", file, "--backend", "cpu", "--out-dir", dir.path().string()});
    ASSERT_EQ(run.exit_code, 0) << run.both();
    std::ifstream csv(dir.path() / "out.csv");
    std::string line;
    std::getline(csv, line);  // index,value
    std::vector<long> out;
    while (std::getline(csv, line)) out.push_back(std::stol(line.substr(line.find(',') + 1)));
    ASSERT_EQ(out.size(), 100u);
    for (int block : {0, 1, 2}) {
        const json last = debug_json({file, "--block", std::to_string(block)});
        for (const json& th : last.at("threads")) {
            const int i = block * 48 + th.at("thread").get<int>();
            if (i >= 100) continue;
            EXPECT_EQ(th["variables"].at("value").get<long>(), out[size_t(i)]) << "i = " << i;
            EXPECT_EQ(out[size_t(i)], i % 3 == 0 ? i * 10 : -(i % 48 % 32)) << "i = " << i;
        }
    }
}

TEST(DebugCli, MistakesAreRefusedWithTheirKindOfMessage) {
    const std::string file = cp::test::debug_data("tree_sum.cu");
    auto refused = [&](std::vector<std::string> args) {
        args.insert(args.begin(), "debug");
        const ProcessResult r = cli(args);
        EXPECT_NE(r.exit_code, 0) << r.both();
        EXPECT_TRUE(r.out.empty()) << r.out;
        return r;
    };
    refused({file, "--block", "4"});             // the grid is 4 blocks
    refused({file, "--block", "1,x"});           // not a place
    refused({file, "--barrier", "8"});           // 7 barriers
    refused({file, "--break", "1"});             // a comment line: no thread is there
    refused({file, "--break", "20", "--round", "3"});
    refused({file, "--threads", "60-64"});       // 64 threads: 0..63
    // The --break refusal lists the lines the block ran.
    const ProcessResult r = refused({file, "--break", "1"});
    EXPECT_NE(r.err.find(std::to_string(cp::test::line_in(file, "int tid = threadIdx.x;"))), std::string::npos) << r.err;
}

// A block that writes past the end of its output is recorded up to the fault, and the fault comes with it: its
// kind, its line and the first thread past the end (thread order: each round runs the threads in order).
TEST(DebugCli, ABlockThatFaultsIsSteppedUpToTheFaultWhichItNames) {
    const std::string file = cp::test::debug_data("past_the_end.cu");
    const int n = 70, block = 2, threads = 32;
    const int store = cp::test::line_in(file, "out[i] = twice;");
    const json stop = debug_json({file, "--block", std::to_string(block)});
    ASSERT_TRUE(stop.at("failure").is_object()) << stop.dump().substr(0, 600);
    const json& f = stop.at("failure");
    EXPECT_EQ(f.at("kind"), "out_of_bounds");
    EXPECT_EQ(f.at("line"), store);
    const int first_past = n - block * threads;  // thread 6: i = 70
    EXPECT_EQ(f.at("thread"), json::array({first_past, 0, 0}));
    // The stop is the fault's round: the faulting thread is at the store, `twice` is each thread's 2 * in[i].
    ASSERT_EQ(stop.at("threads").size(), size_t(threads));
    for (const json& th : stop.at("threads")) {
        const int t = th.at("thread").get<int>(), i = block * threads + t;
        const double in = i < n ? 1.0 + 0.5 * i : 0.0;
        if (th.at("line").is_null() || !th.at("variables").contains("twice")) continue;
        EXPECT_EQ(th["variables"]["twice"].get<double>(), 2.0 * in) << "thread " << t;
    }
    EXPECT_EQ(stop.at("threads")[size_t(first_past)].at("line"), store);
    // A block inside the buffer does not fault.
    EXPECT_TRUE(debug_json({file, "--block", "0"}).at("failure").is_null());
    // The text names it too, with the line.
    const ProcessResult text = cli({"debug", file, "--block", std::to_string(block)});
    EXPECT_EQ(text.exit_code, 0) << text.both();
    EXPECT_NE(text.out.find("stopped at line " + std::to_string(store)), std::string::npos) << text.out;
}

// --watch: expressions over a thread's variables, shared elements (1-D and 2-D) and, through a pointer, the
// elements the block loaded, each equal to what the test computes; what has no value says why.
TEST(DebugCli, WatchedExpressionsAreTheValuesComputedHere) {
    const std::string tree = cp::test::debug_data("tree_sum.cu");
    const int block = 1, k = 3;  // barrier 3: the second level's sums, stride 16
    const std::vector<std::vector<long>> levels = cp::test::tree_sum_levels(block, 200);
    const json stop = debug_json({tree, "--block", std::to_string(block), "--barrier", std::to_string(k), "--watch",
                                  "partial[tid]", "--watch", "input[i] * 2 + blockIdx.x", "--watch",
                                  "partial[tid] + partial[tid + stride]", "--watch", "nosuch + 1"});
    for (const json& th : stop.at("threads")) {
        const int t = th.at("thread");
        const json& w = th.at("watches");
        EXPECT_EQ(w.at("partial[tid]").get<double>(), double(levels[size_t(k - 1)][size_t(t)])) << "thread " << t;
        const int i = block * 64 + t;
        EXPECT_EQ(w.at("input[i] * 2 + blockIdx.x").get<double>(), 2.0 * (i + 1) + block) << "thread " << t;
        if (t + 16 < 64) {
            EXPECT_EQ(w.at("partial[tid] + partial[tid + stride]").get<double>(),
                      double(levels[size_t(k - 1)][size_t(t)] + levels[size_t(k - 1)][size_t(t + 16)]))
                << "thread " << t;
        } else {
            EXPECT_TRUE(w.at("partial[tid] + partial[tid + stride]").is_null()) << "past partial's end: " << t;
        }
        EXPECT_TRUE(w.at("nosuch + 1").is_null());
    }
    EXPECT_TRUE(stop.at("watch_notes").contains("nosuch + 1"));
    EXPECT_TRUE(stop.at("watch_notes").contains("partial[tid] + partial[tid + stride]"));
    EXPECT_FALSE(stop.at("watch_notes").contains("partial[tid]"));

    // The last block reads input only below n = 200: past it the element was never loaded, so it has no value.
    const json last = debug_json({tree, "--block", "3", "--barrier", "1", "--watch", "input[i]"});
    for (const json& th : last.at("threads")) {
        const int i = 3 * 64 + th.at("thread").get<int>();
        if (i < 200) EXPECT_EQ(th["watches"].at("input[i]").get<double>(), double(i + 1)) << i;
        else EXPECT_TRUE(th["watches"].at("input[i]").is_null()) << i;
    }

    // A 2-D tile by threadIdx after its barrier: the input element the thread loaded.
    const std::string transpose = cp::test::debug_data("tile_transpose.cu");
    const json tile = debug_json({transpose, "--block", "2,1", "--barrier", "1", "--watch",
                                  "tile[threadIdx.y][threadIdx.x]", "--watch", "tile[0][16]"});
    for (const json& th : tile.at("threads")) {
        const int t = th.at("thread"), x = 2 * 16 + t % 16, y = 16 + t / 16;
        if (x < 37 && y < 21) {
            EXPECT_EQ(th["watches"].at("tile[threadIdx.y][threadIdx.x]").get<double>(), 0.5 * (y * 37 + x)) << t;
        }
        EXPECT_TRUE(th["watches"].at("tile[0][16]").is_number());  // the padding column: inside the array
    }
}

// A block whose warps wait at different barriers cannot step on: the recording ends there, the failure is a hang,
// and each thread stands at its own half's __syncthreads(), having stored its value.
TEST(DebugCli, WarpsWaitingAtDifferentBarriersStopTheBlockWhereTheyWait) {
    const std::string file = cp::test::debug_data("divergent_barrier.cu");
    const int first = cp::test::line_in(file, "__syncthreads();");
    const int second = cp::test::line_in(file, "__syncthreads();", first);
    const json stop = debug_json({file, "--watch", "out[t]"});
    ASSERT_TRUE(stop.at("failure").is_object()) << stop.dump().substr(0, 400);
    EXPECT_EQ(stop.at("failure").at("kind"), "hang");
    for (const json& th : stop.at("threads")) {
        const int t = th.at("thread");
        EXPECT_EQ(th.at("line"), t < 32 ? first : second) << "thread " << t;
        EXPECT_EQ(th.at("watches").at("out[t]"), t < 32 ? 1 : 2) << "thread " << t;
    }
    const ProcessResult text = cli({"debug", file});
    EXPECT_NE(text.out.find(std::to_string(first)), std::string::npos);
    EXPECT_NE(text.out.find(std::to_string(second)), std::string::npos);
}

// --warp 1: the block's second warp steps alone. Each round before the first barrier moves exactly one warp's 32
// threads: warp 1 until it waits at the barrier, warp 0 (held at its first line meanwhile) after. The stops at the
// barriers are the same as when the block steps together: each level's partial sums, computed here.
TEST(DebugCli, AWarpStepsAloneWhileTheOtherWarpsWaitAtTheirLine) {
    const std::string file = cp::test::debug_data("tree_sum.cu");
    const std::vector<std::vector<long>> levels = cp::test::tree_sum_levels(3, 200);
    const json first = debug_json({file, "--block", "3", "--warp", "1", "--barrier", "1"});
    EXPECT_EQ(first.at("focus_warp"), 1);
    EXPECT_TRUE(debug_json({file, "--block", "3", "--round", "0"}).at("focus_warp").is_null());
    const int held_line = debug_json({file, "--block", "3", "--warp", "1", "--round", "0"})["threads"][0].at("line");
    const uint32_t barrier = first.at("barriers")[0];
    int last_mover = 1, switches = 0, warp1_rounds = 0;
    for (uint32_t r = 1; r <= barrier; ++r) {
        SCOPED_TRACE("round " + std::to_string(r));
        const json stop = debug_json({file, "--block", "3", "--warp", "1", "--round", std::to_string(r)});
        std::vector<int> moved(2, 0);
        for (const json& th : stop.at("threads")) moved[size_t(th.at("thread").get<int>() / 32)] += th.at("moved").get<bool>();
        ASSERT_TRUE((moved[0] == 0 && moved[1] == 32) || (moved[0] == 32 && moved[1] == 0))
            << "warp 0 moved " << moved[0] << ", warp 1 moved " << moved[1];
        const int mover = moved[1] ? 1 : 0;
        if (mover != last_mover) ++switches;
        last_mover = mover;
        if (mover == 1) {
            ++warp1_rounds;
            for (const json& th : stop["threads"]) {
                if (th.at("thread").get<int>() < 32) {
                    EXPECT_EQ(th.at("line"), held_line) << "warp 0 is held";
                }
            }
        }
    }
    EXPECT_EQ(switches, 1) << "warp 1 first, then warp 0, once";
    EXPECT_GE(warp1_rounds, 3) << "its statements before the barrier, one a round";
    for (size_t k = 0; k < levels.size(); ++k) {
        const json stop = k == 0 ? first
                                 : debug_json({file, "--block", "3", "--warp", "1", "--barrier", std::to_string(k + 1)});
        const json& partial = shared_named(stop, "partial");
        for (size_t t = 0; t < 64; ++t)
            EXPECT_EQ(partial["values"][t].get<long>(), levels[k][t]) << "barrier " << k + 1 << ", partial[" << t << "]";
    }
    const json last = debug_json({file, "--block", "3", "--warp", "1"});
    EXPECT_EQ(shared_named(last, "partial")["values"][0].get<long>(), levels.back()[0]);

    for (std::vector<std::string> wrong : {std::vector<std::string>{"--warp", "2"}, {"--warp", "x"}, {"--warp", "-1"}}) {
        std::vector<std::string> args = {"debug", file};
        args.insert(args.end(), wrong.begin(), wrong.end());
        const ProcessResult r = cli(args);
        EXPECT_NE(r.exit_code, 0) << r.both();
        EXPECT_TRUE(r.out.empty()) << r.out;
    }
}

namespace {

std::string program_data(const std::string& name) { return std::string(CP_SOURCE_DIR) + "/tests/data/programs/" + name; }

// reduce_two_launches.cu's input as its main() fills it, for n elements.
std::vector<long> two_launch_input(int n) {
    std::vector<long> in(static_cast<size_t>(n));
    for (int i = 0; i < n; ++i) in[size_t(i)] = (i * 7) % 13 - 6;
    if (n > 100) in[100] = 1000;
    return in;
}

}  // namespace

// A whole program's launches, stepped through on the inputs the program gave them: the first launch's block 3 loads
// its 232 elements of n = 1000 (the rest of the tile zeros) and sums them; the second launch, one block over the
// first one's 120 partial sums, loads exactly those and ends with the program's total. Values computed here from
// the program's fill.
TEST(DebugCli, AProgramsLaunchesAreSteppedOnTheInputsTheProgramGaveThem) {
    const std::string file = program_data("reduce_two_launches.cu");
    const std::vector<long> h = two_launch_input(1000);
    auto tile_of = [&](int block) {
        std::vector<long> t(256, 0);
        for (int k = 0; k < 256; ++k)
            if (block * 256 + k < 1000) t[size_t(k)] = h[size_t(block * 256 + k)];
        return t;
    };
    auto sum = [](const std::vector<long>& v) { long s = 0; for (long x : v) s += x; return s; };

    const json loaded = debug_json({file, "--launch", "1", "--block", "3", "--barrier", "1", "--", "1000"});
    EXPECT_EQ(loaded.at("launch"), 1);
    EXPECT_EQ(loaded.at("launch_line"), cp::test::line_in(file, "partial_sums<<<blocks"));
    EXPECT_EQ(loaded.at("kernel"), "partial_sums");
    const std::vector<long> tile = tile_of(3);
    const json& cache = shared_named(loaded, "cache");
    ASSERT_EQ(cache.at("values").size(), 256u);
    for (size_t k = 0; k < 256; ++k) EXPECT_EQ(cache["values"][k].get<long>(), tile[k]) << "cache[" << k << "]";
    for (const json& th : loaded.at("threads")) EXPECT_EQ(th["variables"].at("n"), 1000);
    const json end1 = debug_json({file, "--block", "3", "--", "1000"});  // --launch 1 is the default
    EXPECT_EQ(shared_named(end1, "cache")["values"][0].get<long>(), sum(tile));

    // The second launch reads what the first wrote: each block's sum, as the program left them.
    const json partials = debug_json({file, "--launch", "2", "--barrier", "1", "--", "1000"});
    EXPECT_EQ(partials.at("launch_line"), cp::test::line_in(file, "partial_sums<<<1"));
    const json& cache2 = shared_named(partials, "cache");
    for (int k = 0; k < 256; ++k)
        EXPECT_EQ(cache2["values"][size_t(k)].get<long>(), k < 120 ? sum(tile_of(k)) : 0) << "cache[" << k << "]";
    const json touched = {{"buffer", "d_partial"}, {"read", {{0, 119}}}, {"written", json::array()}};
    EXPECT_EQ(partials.at("touched"), json::array({touched}));
    const json end2 = debug_json({file, "--launch", "2", "--", "1000"});
    EXPECT_EQ(shared_named(end2, "cache")["values"][0].get<long>(), sum(h)) << "the program's total";

    for (std::vector<std::string> wrong : {std::vector<std::string>{"--launch", "3"}, {"--block", "120"},
                                           {"--set", "n=5"}, {"--block-dim", "64"}, {"--launch", "0"}}) {
        std::vector<std::string> args = {"debug", file};
        args.insert(args.end(), wrong.begin(), wrong.end());
        args.insert(args.end(), {"--", "1000"});
        const ProcessResult r = cli(args);
        EXPECT_NE(r.exit_code, 0) << r.both();
        EXPECT_TRUE(r.out.empty()) << r.out;
    }
}

// A program whose launch faults: without --block the debugger takes the block that faulted, recorded up to the
// fault, which it names (the first thread past n = 1000 in the last block of 256).
TEST(DebugCli, AProgramsFaultedLaunchIsSteppedInTheBlockThatFaulted) {
    const json stop = debug_json({program_data("out_of_bounds.cu")});
    EXPECT_EQ(stop.at("block"), json::array({3, 0, 0}));
    ASSERT_TRUE(stop.at("failure").is_object());
    EXPECT_EQ(stop["failure"].at("kind"), "out_of_bounds");
    EXPECT_EQ(stop["failure"].at("thread"), json::array({1000 - 3 * 256, 0, 0}));
    for (const json& th : stop.at("threads")) EXPECT_EQ(th["variables"].at("i"), 3 * 256 + th.at("thread").get<int>());
}
