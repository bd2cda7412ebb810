// Where a run's time goes (allocation, host->device, kernel, device->host) on the real CPU backend: every step
// is reported, positive, counted for the right buffers, and the steps sum to the total without exceeding the
// run's own wall time; a re-run that keeps its buffers allocates nothing.
#include "core/engine/backend.h"
#include "core/kernel_file/kernel_file.h"
#include "core/session/report_json.h"
#include "core/session/session.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <chrono>
#include "test_paths.h"
#include "core/backends/registry.h"

namespace cp {
namespace {

std::filesystem::path library() { return std::filesystem::path(CP_SOURCE_DIR) / "kernels"; }

struct TransferSession {
    Engine engine;
    KernelSession session;
    explicit TransferSession(const std::filesystem::path& file)
        : engine(std::move(make_backend("cpu").value().backend)), session(engine) {
        session.set_kernel(load_kernel_file(file).value());
    }
};

TEST(TransferTimes, EveryStepOfARunIsMeasuredAndTheyAddUp) {
    TransferSession s(library() / "basics" / "vector_add.cu");
    ASSERT_TRUE(s.session.set_param("n", "1000003"));
    s.session.compile();  // compiling is not one of the steps: keep it out of the wall time below
    const auto start = std::chrono::steady_clock::now();
    const RunReport r = s.session.run();
    const double wall_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    ASSERT_TRUE(r.ok()) << r.error->message;
    ASSERT_TRUE(r.verified.value_or(false));

    const TransferTimes& t = r.transfers;
    const uint64_t bytes = 1000003ull * 4;
    EXPECT_EQ(t.allocations, 3);  // a, b, c
    EXPECT_EQ(t.allocated_bytes, 3 * bytes);
    EXPECT_EQ(t.uploads, 3);      // c starts from zeros each run, so it is sent (as a fill) too
    EXPECT_EQ(t.upload_bytes, 3 * bytes);
    EXPECT_EQ(t.downloads, 1);    // only the output comes back
    EXPECT_EQ(t.download_bytes, bytes);
    EXPECT_GT(t.allocate_ms, 0);
    EXPECT_GT(t.upload_ms, 0);
    EXPECT_GT(t.kernel_ms, 0);
    EXPECT_GT(t.download_ms, 0);
    EXPECT_DOUBLE_EQ(t.kernel_ms, r.timing.median_ms);
    EXPECT_DOUBLE_EQ(t.total_ms(), t.allocate_ms + t.upload_ms + t.kernel_ms + t.download_ms);
    // Each step is a part of the run: together they cannot take longer than the run did.
    EXPECT_LT(t.total_ms(), wall_ms);

    const auto j = run_report_json(r, {});
    ASSERT_TRUE(j.at("transfers").is_object());
    EXPECT_DOUBLE_EQ(j["transfers"]["host_to_device_ms"].get<double>(), t.upload_ms);
    EXPECT_DOUBLE_EQ(j["transfers"]["device_to_host_ms"].get<double>(), t.download_ms);
    EXPECT_EQ(j["transfers"]["device_to_host_bytes"].get<uint64_t>(), bytes);
    EXPECT_DOUBLE_EQ(j["transfers"]["total_ms"].get<double>(), t.total_ms());
}

TEST(TransferTimes, ARerunKeepsItsBuffersAndConstInputs) {
    TransferSession s(library() / "basics" / "vector_add.cu");
    ASSERT_TRUE(s.session.run().ok());
    const RunReport again = s.session.run();
    ASSERT_TRUE(again.ok());
    EXPECT_EQ(again.transfers.allocations, 0);
    EXPECT_DOUBLE_EQ(again.transfers.allocate_ms, 0);
    EXPECT_EQ(again.transfers.uploads, 1);  // only the output is reset; the const inputs are still there
    EXPECT_EQ(again.transfers.downloads, 1);
    EXPECT_GT(again.transfers.download_ms, 0);
}

TEST(TransferTimes, InputsSentInChunksArriveWholeAndCountEachCopy) {
    TransferSession s(library() / "basics" / "vector_add.cu");
    ASSERT_TRUE(s.session.set_param("n", "100003"));
    RunOptions options;
    options.upload_chunk_bytes = 4096;  // 400012 bytes per input: 98 copies each (the last one short)
    const RunReport r = s.session.run(options);
    ASSERT_TRUE(r.ok()) << r.error->message;
    EXPECT_TRUE(r.verified.value_or(false)) << r.mismatch_detail;  // every chunk landed where it belongs
    EXPECT_EQ(r.transfers.uploads, 2 * 98 + 1);                     // a and b in chunks, c as one fill
    EXPECT_EQ(r.transfers.upload_bytes, 3 * 400012u);
    EXPECT_GT(r.transfers.upload_ms, 0);
}

TEST(TransferTimes, NotLaunchedMeansNoBreakdownInTheJson) {
    TransferSession s(library() / "basics" / "vector_add.cu");
    RunChoices choices = s.session.choices();
    choices.block = Dim3{2048, 1, 1};
    s.session.set_choices(choices);
    const RunReport r = s.session.run();
    ASSERT_FALSE(r.ok());
    EXPECT_TRUE(run_report_json(r, {}).at("transfers").is_null());
}

}  // namespace
}  // namespace cp
