// cp_ui_test_helper: processes the autosave tests start and kill (tests/ui/autosave_test.cpp). Not a test:
//   cp_ui_test_helper app-autosaves MARKER   the headless app; types MARKER into the demo, lets the app's own
//                                            loop autosave it, prints READY, then keeps drawing until killed
//   cp_ui_test_helper save-loop FILE         writes 1 MiB of 'a' then of 'b' to FILE atomically, forever;
//                                            prints READY after the first write
#include "ui/ui_test_support.h"

#include "ui/state/text_file.h"
#include "ui/workspace.h"

#include <chrono>
#include <cstdio>
#include <string>
#include <thread>

using namespace cp;
using namespace cp::uitest;

namespace {

int app_autosaves(const std::string& marker) {
    auto host = ui::AppHost::create(headless_options(), host_kernels_factory());
    if (!host) {
        std::fprintf(stderr, "%s\n", host.error().full().c_str());
        return 1;
    }
    ui::Workspace& ws = (*host)->workspace();
    (*host)->frame();
    std::string text = document_of(ws).text();
    text.insert(text.find("extern \"C\""), marker + "\n");
    ws.set_source(text, (*host)->seconds());
    // The app's own loop saves it (after the short typing pause); nothing here calls save().
    for (int i = 0; i < 500 && document_of(ws).unsaved(); ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
        (*host)->frame();
    }
    std::printf("READY\n");
    std::fflush(stdout);
    for (;;) {  // a live app: keeps drawing until killed
        (*host)->frame();
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
}

int save_loop(const std::string& path) {
    const std::string a(1 << 20, 'a'), b(1 << 20, 'b');
    for (uint64_t i = 0;; ++i) {
        if (auto r = ui::write_file_atomically(path, i % 2 ? b : a); !r) {
            std::fprintf(stderr, "%s\n", r.error().full().c_str());
            return 1;
        }
        if (i == 0) {
            std::printf("READY\n");
            std::fflush(stdout);
        }
    }
}

}  // namespace

int main(int argc, char** argv) {
    const std::string mode = argc > 1 ? argv[1] : "";
    if (mode == "app-autosaves" && argc == 3) return app_autosaves(argv[2]);
    if (mode == "save-loop" && argc == 3) return save_loop(argv[2]);
    std::fprintf(stderr, "usage: cp_ui_test_helper app-autosaves MARKER | save-loop FILE\n");
    return 2;
}
