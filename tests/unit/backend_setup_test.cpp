// The backend set-up the command line and the window share (core/session/backend_setup.h): "auto" falling
// back with a note that says why, the other devices of a `devices:` file opened from the same backend, a
// caller's backend running the split alone, and the window's compile-only fallback.
#include "core/session/backend_setup.h"
#include "core/backends/registry.h"

#include <gtest/gtest.h>

#include <cstdlib>

namespace cp {
namespace {

// Sets an environment variable for one test, restoring the old value after.
class ScopedEnv {
public:
    ScopedEnv(const char* name, const char* value) : name_(name) {
        if (const char* old = std::getenv(name)) old_ = old;
        had_ = std::getenv(name) != nullptr;
        ::setenv(name, value, 1);
    }
    ~ScopedEnv() {
        if (had_)
            ::setenv(name_, old_.c_str(), 1);
        else
            ::unsetenv(name_);
    }

private:
    const char* name_;
    std::string old_;
    bool had_ = false;
};

// Not with CUDA_PLAYGROUND_LIBCUDA pointed elsewhere: the driver is loaded (or found missing) once per
// process, and CudaUnavailable's tests read that answer.
TEST(BackendSetup, AutoWithoutAGpuRunsOnTheCpuAndSaysWhy) {
    if (make_backend("cuda").ok()) GTEST_SKIP() << "the CUDA backend runs here: auto passes nothing over";
    auto setup = set_up_backend("auto");
    ASSERT_TRUE(setup.ok()) << setup.error().full();
    EXPECT_EQ(setup->engine->device().backend, "cpu");
    ASSERT_EQ(setup->passed_over.size(), 1u);
    EXPECT_EQ(setup->passed_over[0].first, "cuda");
    const Error& why = setup->passed_over[0].second;
    EXPECT_EQ(why.kind, ErrorKind::Unsupported) << why.message;
    // The CUDA backend's bare reason, which its message words more around.
    ASSERT_FALSE(why.reason.empty()) << why.message;
    EXPECT_EQ(why.message.rfind(why.reason, 0), 0u) << why.message;
    EXPECT_GT(why.message.size(), why.reason.size());
    const std::vector<std::string> notes = setup->fallback_notes();
    ASSERT_EQ(notes.size(), 1u);
    EXPECT_EQ(notes[0], "the cuda backend cannot run here (" + why.reason + "); running on the cpu backend");
    EXPECT_EQ(setup->passed_over_text(), "cuda: " + why.message);
}

TEST(BackendSetup, TheFallbackNoteSaysEachErrorsReasonOrElseItsMessage) {
    auto setup = set_up_backend("cpu");
    ASSERT_TRUE(setup.ok()) << setup.error().full();
    Error framed = make_error(ErrorKind::Unsupported, "the driver is asleep, so this backend is unavailable");
    framed.reason = "the driver is asleep";
    setup->passed_over = {{"cuda", framed}, {"elsewhere", make_error(ErrorKind::WorkerLost, "the server is down")}};
    const std::vector<std::string> notes = setup->fallback_notes();
    ASSERT_EQ(notes.size(), 2u);
    EXPECT_EQ(notes[0], "the cuda backend cannot run here (the driver is asleep); running on the cpu backend");
    EXPECT_EQ(notes[1], "the elsewhere backend cannot run here (the server is down); running on the cpu backend");
    EXPECT_EQ(setup->passed_over_text(),
              "cuda: the driver is asleep, so this backend is unavailable; elsewhere: the server is down");
}

TEST(BackendSetup, ANamedBackendOpensItsOtherDevicesForASplit) {
    ScopedEnv devices("CUDA_PLAYGROUND_CPU_DEVICES", "3");
    auto setup = set_up_backend("cpu");
    ASSERT_TRUE(setup.ok()) << setup.error().full();
    EXPECT_TRUE(setup->passed_over.empty());
    EXPECT_TRUE(setup->fallback_notes().empty());
    EXPECT_EQ(setup->device_count, 3);
    ASSERT_TRUE(setup->open_device);
    auto other = setup->open_device(2);
    ASSERT_TRUE(other.ok()) << other.error().full();
    EXPECT_EQ((*other)->device().backend, "cpu");
    EXPECT_EQ((*other)->device().ordinal, 2);
    EXPECT_FALSE(setup->open_device(3).ok());  // past the last device: an Error, not a crash
}

TEST(BackendSetup, ACallersBackendRunsTheSplitAlone) {
    ScopedEnv devices("CUDA_PLAYGROUND_CPU_DEVICES", "2");
    const MakeBackendFn cpu = []() -> Result<std::unique_ptr<Backend>> {
        auto made = make_backend("cpu");
        if (!made) return made.error();
        return std::move(made->backend);
    };
    auto setup = set_up_backend("cuda", cpu);  // `make` wins over the name
    ASSERT_TRUE(setup.ok()) << setup.error().full();
    EXPECT_EQ(setup->engine->device().backend, "cpu");
    EXPECT_FALSE(setup->open_device);  // the caller's backend (e.g. under compute-sanitizer) cannot be reopened
}

TEST(BackendSetup, NoBackendIsAnErrorOrForTheWindowACompileOnlyOne) {
    const MakeBackendFn fails = []() -> Result<std::unique_ptr<Backend>> {
        return make_error("no device in this test", "none");
    };
    auto setup = set_up_backend("auto", fails);
    ASSERT_FALSE(setup.ok());
    EXPECT_EQ(setup.error().message, "no device in this test");
    EXPECT_FALSE(set_up_backend("no_such_backend").ok());

    BackendSetup window = set_up_backend_or_compile_only("auto", fails);
    ASSERT_TRUE(window.engine);
    EXPECT_FALSE(window.engine->capabilities().launches);
    EXPECT_NE(window.engine->device().notes.find("no device in this test"), std::string::npos)
        << window.engine->device().notes;
    EXPECT_FALSE(window.open_device);
}

}  // namespace
}  // namespace cp
