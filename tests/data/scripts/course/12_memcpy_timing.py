"""Lesson 12: pageable vs page-locked (pinned) host memory.

Copies from ordinary NumPy arrays go through a staging buffer inside the
driver; copies from page-locked memory can be done by DMA directly, so
they are usually faster. We time both directions with CUDA events.
"""
import sys

import numpy as np
import pycuda.autoinit
import pycuda.driver as drv

n = 1 << 20                               # 1M float32 = 4 MiB
nbytes = n * np.dtype(np.float32).itemsize
rng = np.random.default_rng(12)

pageable = rng.random(n).astype(np.float32)
pinned = drv.pagelocked_empty(n, dtype=np.float32)
pinned[:] = pageable                      # same data in both

d_buf = drv.mem_alloc(nbytes)
start, end = drv.Event(), drv.Event()


def timed(copy):
    """Run copy() between two events and return the time in ms."""
    start.record()
    copy()
    end.record()
    end.synchronize()
    return start.time_till(end)


def mb_per_s(ms):
    return nbytes / 1e6 / max(ms / 1e3, 1e-9)   # guard against 0 ms


results = {}
for name, host in (("pageable", pageable), ("pinned", pinned)):
    # Receive into a fresh buffer of the same kind.
    if name == "pinned":
        back = drv.pagelocked_zeros(n, dtype=np.float32)
    else:
        back = np.zeros(n, dtype=np.float32)
    t_up = timed(lambda: drv.memcpy_htod(d_buf, host))
    t_down = timed(lambda: drv.memcpy_dtoh(back, d_buf))
    results[name] = bool(np.array_equal(back, pageable))
    print("%-9s htod %9.1f MB/s   dtoh %9.1f MB/s   round trip ok: %s"
          % (name, mb_per_s(t_up), mb_per_s(t_down), results[name]))

ok = all(results.values())
print("check:", ok)
sys.exit(0 if ok else 1)
