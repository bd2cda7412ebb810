#!/usr/bin/env python3
"""process_compile_bench.py: figures (no assertions) for what a new process pays to compile a kernel.

- `cuda-playground compile FILE`, the whole process, against `nvcc -cubin -arch=ARCH FILE` on the same file,
  paired in one run: cold (CUDA_PLAYGROUND_NO_CACHE=1, so NVRTC really compiles; the GPU's architecture is
  remembered per user after the first call) and with the cubin cache.
- The floor under the cold figure, in the same rounds, when build/tests/nvrtc_floor_bench is built: a process that
  links only NVRTC and compiles the same file with the same options (those `compile --json` reports), and one that
  only loads libnvrtc. What `compile` adds is the difference; what no NVRTC-based `compile` can go below is the
  floor itself.
- The first compile in a new process: `cuda-playground run FILE --json`'s compile_ms, each run a new process
  (and a new CUDA worker), cold.

Usage: tests/bench/process_compile_bench.py [--binary build/cuda-playground] [--file kernels/image/box_blur.cu]
       [--runs 7] [--arch sm_90] [--backend cuda] [--floor build/tests/nvrtc_floor_bench]
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time


def timed(cmd, env):
    start = time.perf_counter()
    done = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    ms = (time.perf_counter() - start) * 1000
    if done.returncode != 0:
        sys.exit(f"failed ({done.returncode}): {' '.join(cmd)}\n{done.stdout}\n{done.stderr}")
    return ms


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    root = os.path.dirname(os.path.dirname(here))
    p = argparse.ArgumentParser()
    p.add_argument("--binary", default=os.path.join(root, "build", "cuda-playground"))
    p.add_argument("--file", default=os.path.join(root, "kernels", "image", "box_blur.cu"))
    p.add_argument("--runs", type=int, default=7)
    p.add_argument("--arch", default="sm_90")
    p.add_argument("--backend", default="cuda")
    p.add_argument("--floor", default=os.path.join(root, "build", "tests", "nvrtc_floor_bench"))
    a = p.parse_args()

    cache = tempfile.mkdtemp(prefix="cp-compile-bench-")
    out = tempfile.mkdtemp(prefix="cp-compile-bench-out-")
    env = dict(os.environ, CUDA_PLAYGROUND_CACHE_DIR=cache)
    cold = dict(env, CUDA_PLAYGROUND_NO_CACHE="1")
    nvcc = shutil.which("nvcc") or "/usr/local/cuda/bin/nvcc"
    try:
        timed([a.binary, "compile", a.file], env)  # remembers the architecture, fills the cubin cache
        floor_cmd = None
        if os.access(a.floor, os.X_OK):
            report = json.loads(subprocess.run([a.binary, "compile", a.file, "--json"], env=cold, stdout=subprocess.PIPE,
                                               text=True).stdout)
            floor_cmd = [a.floor, a.file] + (["--name", report["kernel"]] if report.get("kernel") else [])
            floor_cmd += report["options"]
        ours_cold, ours_cached, theirs, floor, load_only = [], [], [], [], []
        for i in range(a.runs):  # paired: each round runs them all
            ours_cold.append(timed([a.binary, "compile", a.file], cold))
            ours_cached.append(timed([a.binary, "compile", a.file], env))
            theirs.append(timed([nvcc, "-cubin", f"-arch={a.arch}", a.file, "-o", os.path.join(out, f"k{i}.cubin")], env))
            if floor_cmd:
                floor.append(timed(floor_cmd, env))
                load_only.append(timed([a.floor, "--load-only"], env))
        first = []
        for i in range(a.runs):
            report = os.path.join(out, f"run{i}.json")
            timed([a.binary, "run", a.file, "--backend", a.backend, "--no-verify", "--json", report], cold)
            with open(report) as f:
                first.append(json.load(f)["compile"]["ms"])
    finally:
        shutil.rmtree(cache, ignore_errors=True)
        shutil.rmtree(out, ignore_errors=True)

    med = statistics.median
    print(f"[compile-bench] {os.path.basename(a.file)}, {a.runs} paired runs (median ms, whole processes)")
    print(f"[compile-bench]   nvcc -cubin -arch={a.arch}:                 {med(theirs):8.1f}")
    print(f"[compile-bench]   cuda-playground compile, cold (NVRTC):  {med(ours_cold):8.1f}  "
          f"({med(theirs) / med(ours_cold):.1f}x faster than nvcc)")
    print(f"[compile-bench]   cuda-playground compile, cubin cache:   {med(ours_cached):8.1f}  "
          f"({med(theirs) / med(ours_cached):.1f}x faster than nvcc)")
    if floor:
        print(f"[compile-bench]   floor: a process that only compiles it with NVRTC (same options): {med(floor):8.1f}  "
              f"({med(theirs) / med(floor):.1f}x faster than nvcc; `compile` adds {med(ours_cold) - med(floor):.1f})")
        print(f"[compile-bench]   floor: a process that only loads libnvrtc:                       {med(load_only):8.1f}")
    print(f"[compile-bench]   first compile in a new process (run --backend {a.backend}, cold): "
          f"median {med(first):.1f} ms (min {min(first):.1f}, max {max(first):.1f})")


if __name__ == "__main__":
    main()
