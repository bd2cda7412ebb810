#!/bin/bash
# Kernel times of a whole program under the playground against the same program built with nvcc -O2 (issue 36):
# tests/bench/programs/kernel_timing.cu times its kernels with CUDA events itself; both builds run it, and this
# prints each kernel's median, their ratio, and the playground run's compile and run times beside the nvcc
# binary's wall time. Needs a GPU.
#   tests/bench/program_timing.sh [CUDA_PLAYGROUND_COMMAND] [NVCC_BUILT_BINARY]   (the command may have words:
#   "bash .gpu/gpu-run.sh cuda-playground" on the GPU test machine)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
app=${1:-build/cuda-playground}
program=$here/programs/kernel_timing.cu
native=${2:-}
work=$(mktemp -d)
if [ -z "$native" ]; then
    native=$work/kernel_timing
    "${NVCC:-nvcc}" -O2 -std=c++17 -arch=native -o "$native" "$program"
fi
start=$(date +%s%N)
"$native" > "$work/native.out"
end=$(date +%s%N)
native_ms=$(( (end - start) / 1000000 ))
# Twice: the second run compiles nothing (the caches), as when a student runs their program again.
$app run "$program" --backend cuda > /dev/null 2>&1 || true
$app run "$program" --backend cuda --json "$work/run.json" > "$work/app.out"
echo "kernel             nvcc -O2   playground   ratio"
while read -r name ms _; do
    [ "$name" = check ] && continue
    app_ms=$(awk -v k="$name" '$1 == k { print $2 }' "$work/app.out")
    awk -v k="$name" -v a="$ms" -v b="$app_ms" 'BEGIN { printf "%-18s %8.4f ms %8.4f ms   %.3f\n", k, a, b, b / a }'
done < "$work/native.out"
python3 - "$work/run.json" "$native_ms" <<'PY'
import json, sys
run = json.load(open(sys.argv[1]))
kernels = sum(l["ms"] for l in run["launches"])
print(f"playground: compile {run['compile_ms']:.0f} ms (cache hit: {run['cache_hit']}), run {run['run_ms']:.0f} ms, "
      f"of which {len(run['launches'])} launches {kernels:.1f} ms; the nvcc binary's whole process: {sys.argv[2]} ms")
PY
diff <(grep check "$work/native.out") <(grep check "$work/app.out") && echo "same result: $(grep check "$work/app.out")"
rm -rf "$work"
