#!/usr/bin/env bash
# Regenerates the README's "See the launch" pictures (docs/images/launch_*.png) with the built binary:
#   docs/make_launch_images.sh [BUILD_DIR]        (default: build)
# Uses the CPU backend unless CUDA_PLAYGROUND_BACKEND is set (e.g. cuda on a GPU machine, for SM timelines).
set -euo pipefail
cd "$(dirname "$0")/.."
bin="${1:-build}/cuda-playground"
backend="${CUDA_PLAYGROUND_BACKEND:-cpu}"
out="docs/images"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$out"

# Coverage map: Thread IDs with a grid too small (3x2 blocks of 16x16 for a 333x200 image).
"$bin" run basics/thread_ids --backend "$backend" --grid 3x2 --coverage --out-dir "$tmp/cov" --repeat 1 >/dev/null || true
cp "$tmp/cov/ids_coverage.png" "$out/launch_coverage.png"

# Timeline: the box blur traced (one lane per SM on a GPU, per worker thread on the CPU backend).
"$bin" run image/box_blur --backend "$backend" --trace --out-dir "$tmp/trace" --repeat 1 >/dev/null
cp "$tmp/trace/timeline.png" "$out/launch_timeline.png"

# Sweep chart: the box blur over the usual 2D block shapes.
"$bin" sweep image/box_blur --backend "$backend" --repeat 3 --png "$out/launch_sweep.png" >/dev/null

# The window (headless): the launch overlay and the Occupancy panel on Thread IDs with the same small grid,
# with a settings file that shows those panels (they start hidden) and hides the ones they would overlap.
export CUDA_PLAYGROUND_USER_DIR="$tmp/user"
mkdir -p "$CUDA_PLAYGROUND_USER_DIR/config"
cat > "$CUDA_PLAYGROUND_USER_DIR/config/settings.json" <<'JSON'
{"panels": {"Launch view": true, "Occupancy": true, "Console": false, "Parameters": false, "Device": false}}
JSON
"$bin" --headless --backend "$backend" --open basics/thread_ids --grid 3x2 --frames 8 --size 1600x1000 \
    --screenshot "$out/launch_overlay.png" >/dev/null
echo "wrote $out/launch_coverage.png $out/launch_timeline.png $out/launch_sweep.png $out/launch_overlay.png"
