// cp_code_bench: figures for the machine code view (issue 38), no assertion about speed, no GPU needed.
//  1. disassembly of the library's largest lesson (by SASS instructions): the compile to a cubin and to PTX,
//     nvdisasm's run and the parse, cold (a fresh compile cache) and warm (cached compiles: nvdisasm and the parse);
//  2. the Code panel's cost per frame: CPU time of a headless frame at 1920x1080, text 1.75, with the panel in
//     front of its tab group (a line picked, its instructions lit) against the same window with the Output there.
// Run: build/tests/cp_code_bench
#include "ui/ui_test_support.h"

#include "core/kernel_file/kernel_file.h"
#include "core/session/session.h"
#include "core/toolkit/machine_code.h"
#include "ui/app.h"
#include "ui/workspace.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <vector>

using namespace cp;
using namespace cp::uitest;

namespace {

double median(std::vector<double> v) {
    if (v.empty()) return 0;
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

double frame_ms(ui::AppHost& host, int frames) {
    std::vector<double> ms;
    for (int i = 0; i < frames; ++i) {
        host.draw_frame();
        ms.push_back(host.last_frame_cpu_ms());
    }
    return median(ms);
}

}  // namespace

int main() {
    ScopedUserDir user;  // a fresh cache: the first compile is cold
    // 1. The largest lesson.
    std::string largest;
    int most = 0;
    MachineCodeRequest biggest;
    for (const KernelFile& file : scan_library(kernels_dir())) {
        MachineCodeRequest r;
        r.compile = kernel_compile_request(file);
        r.arch = "sm_90";
        r.ptx = false;
        const MachineCode c = machine_code(r);
        if (c.sass.instructions > most) {
            most = c.sass.instructions;
            largest = file.path.filename().string();
            biggest = r;
        }
    }
    if (largest.empty()) {
        std::printf("no lesson disassembled (is nvdisasm there? compile --sass says why)\n");
        return 1;
    }
    biggest.ptx = true;
    std::printf("largest lesson: %s, %d SASS instructions for sm_90\n", largest.c_str(), most);
    {
        ScopedUserDir cold_cache;
        const auto t0 = std::chrono::steady_clock::now();
        const MachineCode c = machine_code(biggest);
        const double total = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
        std::printf("  cold: %.0f ms in all (cubin %.0f ms, PTX %.0f ms, nvdisasm + parse %.0f ms), %d PTX lines\n",
                    total, c.compile.compile_ms, c.ptx_ms, c.sass_ms, c.ptx.instructions);
    }
    std::vector<double> warm, sass, tool;
    for (int i = 0; i < 10; ++i) {
        const auto t0 = std::chrono::steady_clock::now();
        const MachineCode c = machine_code(biggest);
        warm.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
        sass.push_back(c.sass_ms);
        tool.push_back(c.nvdisasm_ms);
    }
    std::printf("  warm (compiles cached): %.1f ms in all, of which nvdisasm's run %.1f ms and the rest of the SASS "
                "(cubin to a file, the parse) %.1f ms (medians of 10)\n",
                median(warm), median(tool), median(sass) - median(tool));

    // 2. The panel's cost per frame.
    ui::AppOptions o = headless_options("matrix/matmul_register_blocked.cu");
    o.backend = "cpu";
    o.width = 1920;
    o.height = 1080;
    o.text_size = 1.75f;
    o.show = {"Code"};
    o.line = 117;
    auto host = start_settled(o, {});
    if (!host) {
        std::printf("no headless window\n");
        return 1;
    }
    ui::Workspace& ws = host->workspace();
    const bool ready = frames_until(*host, [&] { return ws.code_view().shown() && !ws.code_view().busy(); },
                                    "the listing", 2000);
    if (!ready) return 1;
    const double with_panel = frame_ms(*host, 200);
    ws.show_panel("Output");
    host->draw_frame();
    const double without = frame_ms(*host, 200);
    std::printf("Code panel, %d SASS + %d PTX instructions listed (1920x1080, text 1.75): frame CPU %.3f ms with the "
                "panel in front, %.3f ms with the Output there (medians of 200): %.3f ms for the panel\n",
                ws.code_view().shown()->sass.instructions, ws.code_view().shown()->ptx.instructions, with_panel, without,
                with_panel - without);
    return 0;
}
