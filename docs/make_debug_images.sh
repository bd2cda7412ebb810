#!/usr/bin/env bash
# Regenerates the README's Debug panel picture (docs/images/debug_panel.png) with the built binary:
#   docs/make_debug_images.sh [BUILD_DIR]        (default: build)
# The window headless at 1920x1080, text size 1.75 (a projector): the library's shared-memory reduction stepped
# through on the CPU backend, stopped at its second __syncthreads(), a breakpoint on the tree's add, and a watch of
# what the next level's add will store.
set -euo pipefail
cd "$(dirname "$0")/.."
bin="${1:-build}/cuda-playground"
out="docs/images"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$out"
export CUDA_PLAYGROUND_USER_DIR="$tmp/user"
"$bin" --headless --backend cpu --open reduction/shared_memory_sum --set n=1000 --frames 12 --size 1920x1080 \
    --text-size 1.75 --break 35 --debug-barrier 2 --watch "partial[tid] + partial[tid + stride]" --screenshot "$out/debug_panel.png" >/dev/null
echo "wrote $out/debug_panel.png"
