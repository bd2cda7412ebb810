#!/usr/bin/env python3
"""Benchmark (prints figures, asserts nothing): the course's Python scripts under the playground.

  script_bench.py [BINARY] [--backend cpu|cuda]

1. Each script of tests/data/scripts/course run with `cuda-playground run`, its wall time (a warm compile cache:
   each is run once before), and all of them together.
2. One script's run against plain NumPy doing the same work on the host: 03_vector_add's whole run (start,
   compile from the cache, copies, the launch, the check) beside NumPy's a + b of the same size.
"""
import os
import pathlib
import subprocess
import sys
import time

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[2]
args = [a for a in sys.argv[1:] if not a.startswith("--")]
binary = args[0] if args else str(ROOT / "build" / "cuda-playground")
backend = sys.argv[sys.argv.index("--backend") + 1] if "--backend" in sys.argv else "cpu"
scripts = sorted((ROOT / "tests" / "data" / "scripts" / "course").glob("*.py"))


def run(script):
    start = time.perf_counter()
    proc = subprocess.run([binary, "run", str(script), "--backend", backend], capture_output=True, text=True)
    return time.perf_counter() - start, proc.returncode, "check: True" in proc.stdout


print("backend %s, %d cores" % (backend, os.cpu_count()))
for s in scripts:  # warm the compile cache
    run(s)
total = 0.0
for s in scripts:
    seconds, rc, ok = run(s)
    total += seconds
    print("%-32s %7.2f s  rc=%d  check %s" % (s.stem, seconds, rc, "True" if ok else "FALSE"))
print("%-32s %7.2f s" % ("all %d scripts" % len(scripts), total))

seconds, rc, ok = run(ROOT / "tests" / "data" / "scripts" / "course" / "03_vector_add.py")
n = 100003
a = np.random.rand(n).astype(np.float32)
b = np.random.rand(n).astype(np.float32)
start = time.perf_counter()
for _ in range(100):
    c = a + b
numpy_s = (time.perf_counter() - start) / 100
print("03_vector_add under the playground: %.3f s (whole run); NumPy a + b of the same n: %.6f s (%.0fx)"
      % (seconds, numpy_s, seconds / numpy_s))
