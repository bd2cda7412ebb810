"""`cuda-playground debug SCRIPT`: a PyCUDA script runs as written, its launch is captured, and one block of it is
stepped through on the inputs the script gave it. The values are checked against NumPy: the course's reduction
(05_reduce.py), whose last block holds 67 of its 512 inputs, at its first barrier and at its end."""
import json
import subprocess

import numpy as np

from conftest import SCRIPTS, line_of

REDUCE = SCRIPTS / "course" / "05_reduce.py"


def debug(binary, *args):
    proc = subprocess.run([binary, "debug", str(REDUCE), *args, "--json"], capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return json.loads(proc.stdout)


def the_scripts_input():
    # As the script makes it.
    n = 1000003
    return n, np.random.default_rng(5).random(n).astype(np.float32)


def loaded_tile(x, n, block, threads=256):
    tile = np.zeros(threads, dtype=np.float32)
    for tid in range(threads):
        i = block * threads * 2 + tid
        v = np.float32(0)
        if i < n:
            v = x[i]
        if i + threads < n:
            v = np.float32(v + x[i + threads])
        tile[tid] = v
    return tile


def shared(stop, name):
    return next(s for s in stop["shared"] if s["name"] == name)


def test_a_scripts_block_is_stepped_on_the_scripts_inputs(binary):
    n, x = the_scripts_input()
    last = (n + 511) // 512 - 1
    stop = debug(binary, "--block", str(last), "--barrier", "1")
    assert stop["launch"] == 1
    assert stop["launch_line"] == line_of(REDUCE, "block_sum(drv.In(x)")
    assert stop["kernel"] == "block_sum"
    tile = loaded_tile(x, n, last)
    assert np.count_nonzero(tile) == n - last * 512 == 67
    got = np.array(shared(stop, "sdata")["values"], dtype=np.float32)
    assert np.array_equal(got, tile), np.nonzero(got != tile)
    for th in stop["threads"]:
        assert th["variables"]["i"] == last * 512 + th["thread"]

    # The tree, in float32 as the kernel adds: the block's partial sum at the end, bit for bit.
    tree = tile.copy()
    s = 128
    while s > 0:
        tree[:s] = tree[:s] + tree[s:2 * s]
        s //= 2
    end = debug(binary, "--block", str(last))
    assert np.float32(shared(end, "sdata")["values"][0]) == tree[0]

    # Block 0, the first: both halves of its 512 inputs.
    first = debug(binary, "--barrier", "1")
    assert np.array_equal(np.array(shared(first, "sdata")["values"], dtype=np.float32), loaded_tile(x, n, 0))
