// cp_ui_test_helper: processes the autosave tests start and kill (tests/ui/autosave_test.cpp). Not a test:
//   cp_ui_test_helper app-autosaves MARKER   the headless app; types MARKER into the demo, lets the app's own
//                                            loop autosave it, prints READY, then keeps drawing until killed
//   cp_ui_test_helper die-saving STAGE FILE  saves kOldContents to FILE, then saves kNewContents and kills
//                                            itself with SIGKILL at STAGE of the atomic write
//                                            (part-written, written, renamed: see ui/state/text_file.h)
#include "ui/ui_test_support.h"

#include "ui/state/text_file.h"
#include "ui/workspace.h"

#include <chrono>
#include <csignal>
#include <cstdio>
#include <string>
#include <thread>
#include <unistd.h>

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

ui::WriteStage g_die_at = ui::WriteStage::Renamed;

// kill -9 at exactly that moment: no handler, no flushing, as when the power goes.
void die_at_stage(ui::WriteStage stage) {
    if (stage == g_die_at) ::kill(::getpid(), SIGKILL);
}

int die_saving(const std::string& stage, const std::string& path) {
    if (stage == "part-written") g_die_at = ui::WriteStage::PartWritten;
    else if (stage == "written") g_die_at = ui::WriteStage::Written;
    else if (stage != "renamed") return 2;
    if (auto r = ui::write_file_atomically(path, kOldContents); !r) {
        std::fprintf(stderr, "%s\n", r.error().full().c_str());
        return 1;
    }
    ui::set_write_stage_hook(die_at_stage);
    auto r = ui::write_file_atomically(path, kNewContents);
    std::fprintf(stderr, "still alive after saving (%s)\n", r ? "saved" : r.error().full().c_str());
    return 3;
}

}  // namespace

int main(int argc, char** argv) {
    const std::string mode = argc > 1 ? argv[1] : "";
    if (mode == "app-autosaves" && argc == 3) return app_autosaves(argv[2]);
    if (mode == "die-saving" && argc == 4) return die_saving(argv[2], argv[3]);
    std::fprintf(stderr, "usage: cp_ui_test_helper app-autosaves MARKER | die-saving STAGE FILE\n");
    return 2;
}
