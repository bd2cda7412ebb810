// What the unit tests that run a kernel source on the real CPU backend share: an engine and a session holding
// the parsed source (a header error fails the test).
#pragma once

#include "core/engine/backend.h"
#include "core/kernel_file/kernel_file.h"
#include "core/session/session.h"
#include "core/backends/registry.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>

namespace cp::test {

struct CpuRun {
    std::unique_ptr<Engine> engine;
    std::unique_ptr<KernelSession> session;
};

inline CpuRun open_on_cpu(const std::string& source, const std::string& name) {
    auto made = make_backend("cpu");
    EXPECT_TRUE(made.ok()) << made.error().full();
    CpuRun r;
    r.engine = std::make_unique<Engine>(std::move(made->backend));
    r.session = std::make_unique<KernelSession>(*r.engine);
    KernelFile file = parse_kernel_source(source, name);
    EXPECT_FALSE(has_errors(file.diagnostics));
    r.session->set_kernel(std::move(file));
    return r;
}

}  // namespace cp::test
