"""A script's launches captured (issue 37, item 3): `--capture` keeps each launch's buffers before and after it with
NumPy's dtype and shape, equal to what NumPy computes here; `--save-launch` makes one launch a lesson that runs on
its own and matches what the script's launch wrote; `--json` lists the arrays' layout."""
import json
import subprocess

import numpy as np

from test_script_runtime import write

SCRIPT = '''
    import sys
    import numpy as np
    import pycuda.autoinit
    import pycuda.driver as drv
    from pycuda.compiler import SourceModule
    mod = SourceModule("""
    __global__ void scale_add(float *out, const float *x, const float *y, float a, int n)
    {
        int i = blockIdx.x * blockDim.x + threadIdx.x;
        if (i < n) out[i] = a * x[i] + y[i];
    }
    """)
    n = 1000
    x = np.arange(n, dtype=np.float32) * 0.5
    y = np.linspace(-3, 3, n).astype(np.float32)
    out = np.zeros(n, dtype=np.float32)
    mod.get_function("scale_add")(drv.Out(out), drv.In(x), drv.In(y), np.float32(2.5), np.int32(n),
                                  block=(256, 1, 1), grid=((n + 255) // 256, 1))
    grid_img = np.zeros((37, 53), dtype=np.int32)
    mod2 = SourceModule("""
    __global__ void index_map(int *img, int w, int h)
    {
        int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
        if (x < w && y < h) img[y * w + x] = 1000 * y + x;
    }
    """)
    d = drv.mem_alloc(grid_img.nbytes)
    drv.memcpy_htod(d, grid_img)
    mod2.get_function("index_map")(d, np.int32(53), np.int32(37), block=(16, 16, 1), grid=(4, 3))
    drv.memcpy_dtoh(grid_img, d)
    print("check:", bool(np.allclose(out, 2.5 * x + y)))
'''


def read_capture(path):
    data = path.read_bytes()
    first = data.index(b"\n")
    assert data[:first] == b"CUDA-PLAYGROUND-CAPTURE 1"
    second = data.index(b"\n", first + 1)
    return json.loads(data[first + 1:second]), data[second + 1:]


def test_capture_keeps_each_launchs_arrays_with_their_layout(binary, backend, tmp_path):
    script = write(tmp_path, SCRIPT)
    capture = tmp_path / "run.cpcap"
    proc = subprocess.run([binary, "run", str(script), "--backend", backend, "--capture", str(capture)],
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    report, blob = read_capture(capture)
    first, second = report["launches"]
    names = [b["name"] for b in first["buffers"]]
    assert names == ["out", "x", "y"]
    n = 1000
    x = np.arange(n, dtype=np.float32) * 0.5
    y = np.linspace(-3, 3, n).astype(np.float32)

    def array(buffer, at):
        return np.frombuffer(blob[buffer[at]:buffer[at] + buffer["bytes"]], dtype=buffer["dtype"]).reshape(buffer["shape"])

    out, bx, by = first["buffers"]
    for b in first["buffers"]:
        assert b["dtype"] == "float32" and b["shape"] == [n] and b["captured"]
    np.testing.assert_array_equal(array(bx, "before_at"), x)
    np.testing.assert_array_equal(array(by, "before_at"), y)
    np.testing.assert_array_equal(array(bx, "after_at"), x)  # read only
    np.testing.assert_array_equal(array(out, "before_at"), np.zeros(n, np.float32))
    np.testing.assert_allclose(array(out, "after_at"), np.float32(2.5) * x + y, rtol=1e-6)

    # A mem_alloc filled by memcpy_htod from a (37, 53) array: that array's layout.
    (img,) = second["buffers"]
    assert img["dtype"] == "int32" and img["shape"] == [37, 53]
    yy, xx = np.mgrid[0:37, 0:53]
    np.testing.assert_array_equal(array(img, "after_at"), 1000 * yy + xx)
    np.testing.assert_array_equal(array(img, "before_at"), np.zeros((37, 53), np.int32))


def test_a_launch_saved_as_a_lesson_runs_on_its_own_and_matches(binary, backend, tmp_path):
    script = write(tmp_path, SCRIPT)
    lesson_dir = tmp_path / "lesson"
    proc = subprocess.run([binary, "run", str(script), "--backend", backend, "--save-launch", "2",
                           "--out-dir", str(lesson_dir)], capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    lesson = lesson_dir / "index_map.cu"
    text = lesson.read_text()
    assert "script computed" in text and "__global__ void index_map" in text
    assert not text.split("*/", 1)[1].startswith("\n\n")  # the module without the script's padding lines
    ran = subprocess.run([binary, "run", str(lesson), "--backend", backend, "--json", "-"],
                         capture_output=True, text=True, timeout=600)
    assert ran.returncode == 0, ran.stdout + ran.stderr
    report = json.loads(ran.stdout)
    assert report["verified"] is True
    assert report["check"]["against"] == "recorded_result"
    assert report["grid"] == [4, 3, 1] and report["block"] == [16, 16, 1]
