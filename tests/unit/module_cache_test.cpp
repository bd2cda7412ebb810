// The session's one compile cache (core/session/module_cache.h): a slot compiles again exactly when what the
// compile depends on changed, releases the module it replaces, keeps a failure instead of compiling it twice,
// and never releases a module it borrowed. Counted through the backend interface.
#include "core/session/module_cache.h"
#include "scripted_backend.h"

#include <gtest/gtest.h>

#include <algorithm>

using namespace cp;

namespace {

struct Rig {
    test::ScriptedBackend* backend = nullptr;
    std::unique_ptr<Engine> engine;
    Rig() {
        auto b = std::make_unique<test::ScriptedBackend>();
        backend = b.get();
        backend->kernels["k"] = [](const LaunchRequest&, auto&) {};
        backend->kernels["other"] = [](const LaunchRequest&, auto&) {};
        engine = std::make_unique<Engine>(std::move(b));
    }
};

CompileRequest request(const std::string& source, const std::string& kernel = "k") {
    CompileRequest r;
    r.source = source;
    r.path = "k.cu";
    r.kernel_name = kernel;
    return r;
}

bool released(const Rig& rig, ModuleId m) {
    const auto& r = rig.backend->released_modules;
    return std::find(r.begin(), r.end(), m) != r.end();
}

}  // namespace

TEST(ModuleCache, ASlotCompilesAgainOnlyWhenWhatItDependsOnChanged) {
    Rig rig;
    ModuleCache cache;
    bool compiled = false;
    const ModuleId first = cache.get(*rig.engine, "plain", request("text 1"), &compiled).module;
    EXPECT_TRUE(compiled);
    EXPECT_EQ(cache.get(*rig.engine, "plain", request("text 1"), &compiled).module, first);
    EXPECT_FALSE(compiled);
    EXPECT_EQ(rig.backend->compiles, 1);

    // Each thing a compile depends on makes another key: the source, the kernel, the instrumentation, options,
    // the kernels loaded with it.
    CompileRequest traced = request("text 1");
    traced.instrument_trace = true;
    CompileRequest with_option = request("text 1");
    with_option.extra_options = {"-lineinfo"};
    CompileRequest with_also = request("text 1");
    with_also.also_kernels = {"other"};
    const std::string plain_key = ModuleCache::key_of(request("text 1"));
    for (const CompileRequest& r : {request("text 2"), request("text 1", "other"), traced, with_option, with_also})
        EXPECT_NE(ModuleCache::key_of(r), plain_key);
    // Fields are length-prefixed: moving text from one field to the next is another key.
    CompileRequest a = request("x"), b = request("x");
    a.path = "ab";
    a.kernel_name = "c";
    b.path = "a";
    b.kernel_name = "bc";
    EXPECT_NE(ModuleCache::key_of(a), ModuleCache::key_of(b));

    // An edit: one compile, and the module it replaces is released.
    const ModuleId second = cache.get(*rig.engine, "plain", request("text 2"), &compiled).module;
    EXPECT_TRUE(compiled);
    EXPECT_NE(second, first);
    EXPECT_EQ(rig.backend->compiles, 2);
    EXPECT_TRUE(released(rig, first));
    EXPECT_FALSE(released(rig, second));
}

TEST(ModuleCache, SlotsAreIndependentAndAFailureIsKeptNotCompiledTwice) {
    Rig rig;
    ModuleCache cache;
    const ModuleId plain = cache.get(*rig.engine, "plain", request("t")).module;
    CompileRequest traced = request("t");
    traced.instrument_trace = true;
    const ModuleId instrumented = cache.get(*rig.engine, "traced", traced).module;
    EXPECT_NE(plain, instrumented);
    EXPECT_EQ(cache.get(*rig.engine, "plain", request("t")).module, plain) << "the traced compile left plain alone";
    EXPECT_EQ(rig.backend->compiles, 2);

    const CompileResult& failed = cache.get(*rig.engine, "step:missing", request("t", "missing"));
    EXPECT_FALSE(failed.ok);
    bool compiled = true;
    EXPECT_FALSE(cache.get(*rig.engine, "step:missing", request("t", "missing"), &compiled).ok);
    EXPECT_FALSE(compiled) << "the same text fails the same way";
    EXPECT_EQ(rig.backend->compiles, 3);

    cache.get(*rig.engine, "step:other", request("t", "other"));
    const ModuleId step = cache.find("step:other")->module;
    cache.drop(*rig.engine, "step:");
    EXPECT_EQ(cache.find("step:other"), nullptr);
    EXPECT_TRUE(released(rig, step));
    EXPECT_NE(cache.find("plain"), nullptr) << "dropping the steps keeps the others";
    EXPECT_FALSE(released(rig, plain));

    // A context reset: every module is gone already, so none is released, and the next get compiles.
    const size_t released_before = rig.backend->released_modules.size();
    cache.forget();
    EXPECT_EQ(rig.backend->released_modules.size(), released_before);
    cache.get(*rig.engine, "plain", request("t"), &compiled);
    EXPECT_TRUE(compiled);
}

TEST(ModuleCache, ABorrowedModuleIsNeverReleasedAndIsReplacedByACompileOfItsOwn) {
    Rig rig;
    ModuleCache lender, borrower;
    CompileRequest both = request("t");
    both.also_kernels = {"other"};
    const CompileResult& lent = lender.get(*rig.engine, "plain", both);
    borrower.lend(*rig.engine, "plain", "t", lent);
    EXPECT_TRUE(borrower.borrowed("plain"));
    EXPECT_EQ(*borrower.source_of("plain"), "t");
    bool compiled = false;
    const ModuleId own = borrower.get(*rig.engine, "plain", request("t", "other"), &compiled).module;
    EXPECT_TRUE(compiled) << "a lent module is never taken for a compile of its own";
    EXPECT_NE(own, lent.module);
    EXPECT_FALSE(released(rig, lent.module)) << "the lender's module stays loaded";
    borrower.drop(*rig.engine, "");
    EXPECT_TRUE(released(rig, own));
    EXPECT_FALSE(released(rig, lent.module));
}
