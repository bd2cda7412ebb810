#!/usr/bin/env bash
# playground.sh demo|test [args] — install what is missing (Debian/Ubuntu), build, then open the app on its
# default demo or run the whole test suite. The README's Quick start and .ci/run use exactly this.
set -euo pipefail
cd "$(dirname "$0")"

PACKAGES=(cmake ninja-build g++ pkg-config python3-glad libglfw3-dev libimgui-dev libstb-dev nlohmann-json3-dev
          libgtest-dev libboost-context-dev libseccomp-dev libegl-dev libgl-dev libegl1 libegl-mesa0 libgl1-mesa-dri xvfb xauth)

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
        # The window smoke test needs an X server; everything else (headless EGL included) does not.
        exec xvfb-run -a -s "-screen 0 1920x1080x24" ctest --test-dir build --output-on-failure "$@"
        ;;
    *)
        echo "usage: $0 demo [app options] | test [ctest options]" >&2
        exit 2
        ;;
esac
