#!/usr/bin/env python3
"""The house drawn from the imports: which folder of app/ may include which.

Each folder of app/core is a module (its own CMake target in app/CMakeLists.txt) on a floor. A file may include
headers of its own module and of the modules listed for it below, never a module on a higher floor, and the
backends (cpu, cuda, remote) never include each other: what two of them share lives in `toolkit`, below both.
app/core and app/ui/state include no ImGui, GLFW or OpenGL header.

    check_layers.py [APP_DIR]          exits 1 and names each forbidden include (file:line, from -> to)
    check_layers.py --graph [APP_DIR]  prints the module graph (edges with their counts), floor by floor
    check_layers.py --self-test        plants each kind of forbidden include in a scratch tree and checks that
                                       every one is named, and that an allowed tree passes

CTest runs it (tests/CMakeLists.txt: cp_layering), so a forbidden include fails CI on every machine.
"""
import os
import re
import sys

# Floor by floor, bottom first: module -> the modules it may include (besides itself). Keep in step with the
# target_link_libraries lines of app/CMakeLists.txt.
BELOW = {}
def floor(names, may_use):
    for n in names:
        BELOW[n] = set(may_use)

floor(["core"], [])                                             # result.h, types, text_util
floor(["kernel_file", "worker"], ["core"])                      # the file format; worker processes and sandbox
floor(["data"], ["core", "kernel_file"])                        # buffers, images, colour maps
floor(["engine"], ["core", "kernel_file", "worker"])            # the Backend interface, requests, the wire
floor(["toolkit"], ["core", "kernel_file", "worker", "engine"])  # NVRTC, cubin cache, sanitizer report format
BACKENDS = ["cpu", "cuda", "remote"]
floor(BACKENDS, ["core", "kernel_file", "worker", "data", "engine", "toolkit"])  # side by side
floor(["backends"], ["core", "kernel_file", "worker", "data", "engine", "toolkit"] + BACKENDS)  # registry: the doors
CORE_BELOW_SESSION = ["core", "kernel_file", "worker", "data", "engine", "toolkit", "backends"]
floor(["session"], CORE_BELOW_SESSION)
ALL_CORE = CORE_BELOW_SESSION + BACKENDS + ["session"]
# render: the GL context and CUDA-GL interop, which needs the CUDA driver (core/cuda) and nothing of the others.
floor(["render"], ALL_CORE)
floor(["ui/state"], ALL_CORE + ["render"])
floor(["ui/panels"], ALL_CORE + ["render", "ui/state", "ui"])
floor(["ui"], ALL_CORE + ["render", "ui/state", "ui/panels"])
floor(["cli"], ALL_CORE + ["render", "ui"])
floor(["main"], ALL_CORE + ["render", "ui", "ui/state", "cli"])

# Single headers a module may include although their module is not below it, each with the reason. Keep this short.
EXCEPTIONS = {
    ("session", "core/cpu/host_code.h"):
        "a lesson's CPU reference runs in the CPU side's host-code runner on every backend, the GPU's too",
    ("cuda", "core/cpu/shim/cp_shim_abi.h"):
        "a whole program's host code is built against the CPU side's runtime and reaches the GPU through its ABI",
}

GUI_HEADERS = re.compile(r"\s*#\s*include\s*[<\"](imgui|implot|GLFW/|glad/|GL/|EGL/|TextEditor|ImFileDialog)")
INCLUDE = re.compile(r"\s*#\s*include\s*\"([^\"]+)\"")


def module_of(rel):
    """The module of a path relative to app/ ("core/cuda/x.h" -> "cuda"); None outside the house."""
    parts = rel.split("/")
    if parts[0] == "core":
        return "core" if len(parts) == 2 else parts[1]
    if parts[0] == "ui":
        return "ui/" + parts[1] if len(parts) > 2 and parts[1] in ("state", "panels") else "ui"
    if parts[0] in ("render", "cli"):
        return parts[0]
    if rel == "main.cpp":
        return "main"
    return None


def scan(app):
    """[(file, line, from_module, to_module, included)] for every include of a header of another module, and the
    problems found on the way (unknown modules, GUI headers where none may be)."""
    edges, problems = [], []
    for dirpath, _, files in os.walk(app):
        for name in sorted(files):
            if not name.endswith((".cpp", ".h")):
                continue
            path = os.path.join(dirpath, name)
            rel = os.path.relpath(path, app).replace(os.sep, "/")
            mod = module_of(rel)
            if mod is None:
                continue
            if mod not in BELOW:
                problems.append(f"{rel}: module `{mod}` is on no floor: add it to BELOW in {sys.argv[0]}")
                continue
            with open(path, encoding="utf-8", errors="replace") as f:
                for number, text in enumerate(f, 1):
                    if (mod in ALL_CORE or mod == "ui/state") and GUI_HEADERS.match(text):
                        problems.append(f"{rel}:{number}: {mod} includes a GUI header ({text.strip()}): "
                                        "app/core and app/ui/state stay free of ImGui, GLFW and OpenGL")
                    m = INCLUDE.match(text)
                    if not m:
                        continue
                    inc = m.group(1)
                    target = inc if os.path.exists(os.path.join(app, inc)) else None
                    if target is None:
                        local = os.path.normpath(os.path.join(os.path.dirname(rel), inc)).replace(os.sep, "/")
                        if os.path.exists(os.path.join(app, local)):
                            target = local
                    if target is None:
                        continue  # a generated header, a shim header, a third-party one
                    to = module_of(target)
                    if to and to != mod:
                        edges.append((rel, number, mod, to, inc))
    return edges, problems


def forbidden(app):
    """The forbidden includes of the tree at `app`, as (from, to) pairs, and the GUI-header problems' files."""
    edges, problems = scan(app)
    arrows = sorted({(a, b) for _, _, a, b, inc in edges if b not in BELOW.get(a, set()) and (a, inc) not in EXCEPTIONS})
    gui = sorted({p.split(":")[0] for p in problems if "GUI header" in p})
    return arrows, gui


def self_test():
    """A scratch app/ with one file per floor: allowed includes pass; each forbidden kind is named."""
    import shutil
    import tempfile

    roots = []

    def tree(files):
        root = tempfile.mkdtemp(prefix="cp-layers-")
        roots.append(root)
        for rel, text in files.items():
            os.makedirs(os.path.join(root, os.path.dirname(rel)), exist_ok=True)
            with open(os.path.join(root, rel), "w") as f:
                f.write(text)
        return root

    base = {
        "core/result.h": "#pragma once\n",
        "core/engine/backend.h": '#include "core/result.h"\n',
        "core/toolkit/nvrtc_compiler.h": '#include "core/engine/backend.h"\n',
        "core/cpu/cpu_backend.cpp": '#include "core/toolkit/nvrtc_compiler.h"\n',
        "core/cuda/cuda_backend.h": '#include "core/engine/backend.h"\n',
        "core/session/session.cpp": '#include "core/engine/backend.h"\n#include "core/data/image.h"\n',
        "core/data/image.h": '#include "core/result.h"\n',
        "ui/panels/panel.cpp": '#include <imgui.h>\n#include "core/session/session.cpp"\n',
    }
    failures = []
    arrows, gui = forbidden(tree(base))
    if arrows or gui:
        failures.append(f"an allowed tree was refused: {arrows} {gui}")
    planted = {
        "between backends": ("core/cpu/uses_cuda.cpp", '#include "core/cuda/cuda_backend.h"\n', ("cpu", "cuda")),
        "lower to higher": ("core/data/uses_session.cpp", '#include "core/session/session.cpp"\n', ("data", "session")),
        "engine to a backend": ("core/engine/uses_cpu.cpp", '#include "core/cpu/cpu_backend.cpp"\n', ("engine", "cpu")),
        "relative path": ("core/toolkit/rel.cpp", '#include "../cuda/cuda_backend.h"\n', ("toolkit", "cuda")),
    }
    for what, (rel, text, arrow) in planted.items():
        arrows, _ = forbidden(tree({**base, rel: text}))
        if arrow not in arrows:
            failures.append(f"{what}: {arrow[0]} -> {arrow[1]} was not named (found {arrows})")
    _, gui = forbidden(tree({**base, "core/session/draw.cpp": "#include <GLFW/glfw3.h>\n"}))
    if "core/session/draw.cpp" not in gui:
        failures.append("a GLFW include in core/session was not named")
    _, gui = forbidden(tree({**base, "ui/state/s.h": '#include "imgui.h"\n'}))
    if "ui/state/s.h" not in gui:
        failures.append("an ImGui include in ui/state was not named")
    for root in roots:
        shutil.rmtree(root, ignore_errors=True)
    for f in failures:
        print("self-test failed: " + f)
    if not failures:
        print("self-test ok: an allowed tree passes and 6 planted forbidden includes are each named")
    return 1 if failures else 0


def main(argv):
    if "--self-test" in argv:
        return self_test()
    graph = "--graph" in argv
    args = [a for a in argv if a != "--graph"]
    app = args[0] if args else os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "app")
    edges, problems = scan(app)
    if graph:
        counts = {}
        for _, _, a, b, _ in edges:
            counts[(a, b)] = counts.get((a, b), 0) + 1
        for a in BELOW:
            outs = sorted((b, n) for (x, b), n in counts.items() if x == a)
            print(f"{a:10} -> " + (", ".join(f"{b} ({n})" for b, n in outs) or "-"))
    for rel, number, a, b, inc in edges:
        if b not in BELOW.get(a, set()) and (a, inc) not in EXCEPTIONS:
            why = ("backends never include each other" if a in BACKENDS and b in BACKENDS
                   else f"`{b}` is not below `{a}`")
            problems.append(f"{rel}:{number}: {a} -> {b} (#include \"{inc}\"): {why}")
    for p in problems:
        print("forbidden: " + p)
    if problems:
        print(f"{len(problems)} forbidden include(s): move what both sides need to a module below both "
              "(see the floors at the top of this script and app/CMakeLists.txt)")
        return 1
    print(f"layering ok: {len(edges)} includes between modules, none forbidden")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
