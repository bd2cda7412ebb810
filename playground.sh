#!/usr/bin/env bash
# playground.sh demo|test|benches|fuzz|screenshots [args] — install what is missing (Debian/Ubuntu), build, then open the
# app on its default demo, run the whole test suite, run the fuzzers, or remake the README's pictures. The README's Quick start and .ci/run use exactly this.
set -euo pipefail
cd "$(dirname "$0")"

# Debian packages. The GUI libraries (Dear ImGui, ImPlot, the code editor, the file dialog) are not packaged
# in the versions we need: CMake fetches them once, pinned and hash-checked (third_party/imgui_bundle.cmake).
PACKAGES=(cmake ninja-build g++ clang pkg-config ca-certificates python3-glad libglfw3-dev libstb-dev nlohmann-json3-dev
          libgtest-dev libboost-context-dev libseccomp-dev libzstd-dev libegl-dev libgl-dev libegl1 libegl-mesa0 libgl1-mesa-dri
          fonts-dejavu-core xvfb xauth openssh-server openssh-client python3-jsonschema python3-numpy python3-pytest
          python3-venv python3-pip python3-setuptools)

# Only `fuzz` needs these (clang and its libFuzzer runtime); CI builds the fuzz targets' corpus replays with g++.
FUZZ_PACKAGES=(clang libclang-rt-dev)

# The tests of --remote through srun start a real single-node Slurm (tests/support/slurm_cluster.h).
PACKAGES+=(slurmctld slurmd slurm-client munge)

say() { printf '\033[1m==> %s\033[0m\n' "$*"; }

install_missing() {
    local missing=() p
    for p in "${PACKAGES[@]}"; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
    done
    [ ${#missing[@]} -eq 0 ] && return 0
    local sudo=()
    if [ "$(id -u)" -ne 0 ]; then
        command -v sudo >/dev/null || { echo "error: missing packages (${missing[*]}) and not root; install them or run as root" >&2; exit 1; }
        sudo=(sudo)
    fi
    say "installing ${missing[*]}"
    "${sudo[@]}" apt-get update -qq
    DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

find_cuda() {
    CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
    if [ ! -f "$CUDA_HOME/include/nvrtc.h" ]; then
        echo "error: the CUDA Toolkit (12 or newer, with NVRTC) was not found at $CUDA_HOME." >&2
        echo "  hint: install it from NVIDIA's CUDA downloads page (no GPU is needed to build), or set CUDA_HOME." >&2
        exit 1
    fi
    export PATH="$CUDA_HOME/bin:$PATH"
}

build() {
    say "building (build/)"
    cmake --preset default -DCUDAToolkit_ROOT="$CUDA_HOME" >/dev/null
    cmake --build --preset default -j "$(nproc)"
}

# fuzz [SECONDS] [TARGET...]: the libFuzzer targets (clang, ASan + UBSan) built in build-fuzz/, each run for SECONDS
# (default 60). New inputs are kept in build-fuzz/corpus/TARGET, anything found in build-fuzz/crashes/TARGET.
fuzz() {
    local seconds=${1:-60} targets=() failed=() t
    [ $# -gt 0 ] && shift
    [[ $seconds =~ ^[0-9]+$ ]] || { echo "error: \`$seconds\` is not a number of seconds (usage: $0 fuzz [SECONDS] [TARGET...])" >&2; exit 2; }
    targets=("$@")
    [ ${#targets[@]} -gt 0 ] || targets=(kernel_header expr image)
    say "building the fuzz targets (build-fuzz/)"
    cmake --preset fuzz >/dev/null
    cmake --build --preset fuzz
    for t in "${targets[@]}"; do
        [ -x "build-fuzz/tests/fuzz/fuzz_$t" ] || { echo "error: no fuzz target \`$t\` (targets: kernel_header expr image)" >&2; exit 2; }
        mkdir -p "build-fuzz/corpus/$t" "build-fuzz/crashes/$t"
        say "fuzzing $t for ${seconds}s"
        local dict=() seeds=("tests/fuzz/corpus/$t")
        [ -f "tests/fuzz/$t.dict" ] && dict=("-dict=tests/fuzz/$t.dict")
        [ "$t" = kernel_header ] && seeds+=(kernels)  # the library is a seed corpus too
        "build-fuzz/tests/fuzz/fuzz_$t" "${dict[@]}" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
            -print_final_stats=1 -artifact_prefix="build-fuzz/crashes/$t/" "build-fuzz/corpus/$t" "${seeds[@]}" \
            || failed+=("$t")
    done
    if [ ${#failed[@]} -gt 0 ]; then
        echo "error: fuzzing found a problem in: ${failed[*]}; the input is in build-fuzz/crashes/TARGET/" >&2
        echo "  hint: replay it with build-fuzz/tests/fuzz/fuzz_TARGET FILE, fix the cause, add it to tests/fuzz/corpus/TARGET/" >&2
        exit 1
    fi
}

# screenshots: the README's pictures (docs/images/*.png), rendered headless at 1920x1080 with text size 1.75, in a
# fresh user folder (the default layout, nothing remembered), on the CPU backend so they look alike everywhere.
screenshots() {
    local out=docs/images app=./build/cuda-playground
    mkdir -p "$out"
    shot() {  # shot NAME ARGS...: one picture, from a fresh user folder of its own
        local name=$1 user
        shift
        say "docs/images/$name.png"
        user=$(mktemp -d)
        CUDA_PLAYGROUND_USER_DIR="$user" "$app" --headless --size 1920x1080 --text-size 1.75 --backend cpu \
            --frames 8 --screenshot "$out/$name.png" "$@"
        rm -rf "$user"
    }
    shot window --open image/box_blur
    shot presentation --open image/box_blur --present
    # Each lesson's stage (its `show:` line): the streams timeline, printf in the Console, the two-device split
    # (two CPU workers play two GPUs), and a comparison's columns in presentation mode.
    shot stage_streams --open streams/overlap
    shot stage_printf --open basics/printf_double
    CUDA_PLAYGROUND_CPU_DEVICES=2 shot stage_two_devices --open multigpu/split_across_gpus
    shot presentation_compare --open matrix/matmul_naive --present
    shot plot --open histogram/atomic_histogram
    shot error_marker --open tests/data/planted_oob.cu
    # A whole program (issue 36): its launch strip, the faulted launch in red, its own output.
    shot program_out_of_bounds --open tests/data/programs/out_of_bounds.cu
    # ... and a launch of one saved as a lesson (--save-launch), opened with a lesson's views.
    local launch
    launch=$(mktemp -d)
    "$app" run tests/data/programs/ripple.cu --backend cpu --save-launch 1 --out-dir "$launch" >/dev/null
    shot program_lesson --open "$launch/ripple.cu"
    rm -rf "$launch"
    # See memory: the gutter and the warp picture (memory_pick and memory_banks_large come from cp_ui_tests with
    # CP_UI_TEST_SHOTS set: a click and the large window are not command-line options).
    shot memory_strided --open performance/coalesced_vs_strided --set n=1000 --set stride=8 --memory
    shot memory_coalesced --open performance/coalesced_vs_strided --set n=1000 --set stride=1 --memory
    shot memory_transpose_shared --open matrix/transpose_shared --memory
    shot memory_bank_conflicts --open performance/shared_bank_conflicts --set stride=8 --memory
    # The machine code (issue 38): the register-blocked multiply's inner line lit in its PTX and SASS.
    shot code_panel --open matrix/matmul_register_blocked --show Code --line 117
    # The launch views: coverage map, timeline, sweep chart, and the window's Launch view and Occupancy panel.
    docs/make_launch_images.sh build
    # Grade a class (issue 40): the class page, a student's page and the window's Class panel.
    docs/make_grade_images.sh build
}

cmd=${1:-}
[ $# -gt 0 ] && shift
case "$cmd" in
    demo)
        install_missing; find_cuda; build
        say "starting CUDA Playground"
        exec ./build/cuda-playground "$@"
        ;;
    test)
        install_missing; find_cuda; build
        say "running the tests (window tests under Xvfb)"
        # The window smoke test needs an X server; everything else (headless EGL included) does not. Each test
        # case is a CTest test: one per core at a time unless -j is given (those that share the display or the
        # GPU take turns, tests/CMakeLists.txt).
        export CTEST_PARALLEL_LEVEL=${CTEST_PARALLEL_LEVEL:-$(nproc)}
        exec xvfb-run -a -s "-screen 0 1920x1080x24" ctest --test-dir build --output-on-failure "$@"
        ;;
    fuzz)
        PACKAGES=("${FUZZ_PACKAGES[@]}" cmake ninja-build libstb-dev)
        install_missing; fuzz "$@"
        ;;
    benches)
        # The benchmarks (tests/bench: they print figures, nothing passes or fails) are not in the default build.
        install_missing; find_cuda; build
        say "building the benchmarks (build/tests/)"
        cmake --build --preset default -j "$(nproc)" --target cp_benches
        ;;
    screenshots)
        install_missing; find_cuda; build
        screenshots
        ;;
    *)
        echo "usage: $0 demo [app options] | test [ctest options] | benches | fuzz [SECONDS] [TARGET...] | screenshots" >&2
        exit 2
        ;;
esac
