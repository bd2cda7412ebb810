"""The script runtime's semantics, each against values computed here with NumPy: In/Out/InOut and explicit
copies, pointer arithmetic into an allocation, a __constant__ filled with get_global, prepared calls, gpuarray, CuPy
kernels; errors with PyCUDA's types and the playground's kinds; the sandbox; the time limit; Python itself running
the script (script-serve)."""
import json
import os
import re
import subprocess
import sys
import textwrap

import numpy as np

from conftest import ROOT, SCRIPTS, line_of


def write(tmp_path, text, name="script.py"):
    path = tmp_path / name
    path.write_text(textwrap.dedent(text))
    return path


def values(ran):
    """The JSON line the test script printed last."""
    assert ran.rc == 0, ran.stdout + ran.stderr
    return json.loads(ran.stdout.strip().splitlines()[-1])


def test_in_out_inout_and_pointer_arithmetic(run, tmp_path):
    script = write(tmp_path, '''
        import json
        import numpy as np
        import pycuda.autoinit
        import pycuda.driver as drv
        from pycuda.compiler import SourceModule
        mod = SourceModule("""
        __global__ void axpy(float *y, const float *x, float a, int n)
        {
            int i = blockIdx.x * blockDim.x + threadIdx.x;
            if (i < n) y[i] = a * x[i] + y[i];
        }
        """)
        axpy = mod.get_function("axpy")
        n = 1001
        x = np.arange(n, dtype=np.float32) * 0.5
        y = np.ones(n, dtype=np.float32)
        axpy(drv.InOut(y), drv.In(x), np.float32(3.0), np.int32(n), block=(128, 1, 1), grid=(8, 1))
        d = drv.mem_alloc(y.nbytes)
        drv.memcpy_htod(d, y)
        dx = drv.to_device(x)
        # the second half only, through addresses computed from the allocations
        half = 500
        axpy(np.intp(int(d) + 4 * half), np.intp(int(dx) + 4 * half), np.float32(-1.0), np.int32(n - half),
             block=(64, 1, 1), grid=(8, 1))
        out = np.empty_like(y)
        drv.memcpy_dtoh(out, d)
        print(json.dumps([float(v) for v in out]))
        ''')
    got = np.array(values(run(script)), np.float32)
    x = np.arange(1001, dtype=np.float32) * 0.5
    want = np.float32(3.0) * x + np.float32(1.0)
    want[500:] = np.float32(-1.0) * x[500:] + want[500:]
    assert np.array_equal(got, want)


def test_constant_memory_prepared_call_and_launch_records(run, tmp_path):
    script = write(tmp_path, '''
        import json
        import numpy as np
        import pycuda.autoinit
        import pycuda.driver as drv
        from pycuda.compiler import SourceModule
        mod = SourceModule("""
        __constant__ int offsets[3];
        __global__ void shift(int *out, int n)
        {
            int i = blockIdx.x * blockDim.x + threadIdx.x;
            if (i < n) out[i] = i * offsets[0] + offsets[1] - offsets[2];
        }
        """)
        ptr, size = mod.get_global("offsets")
        drv.memcpy_htod(ptr, np.array([3, 7, 2], np.int32))
        f = mod.get_function("shift")
        f.prepare("Pi")
        out = drv.mem_alloc(4 * 77)
        f.prepared_call((3, 1), (32, 1, 1), out, 77)
        host = np.empty(77, np.int32)
        drv.memcpy_dtoh(host, out)
        back = np.empty(3, np.int32)
        drv.memcpy_dtoh(back, ptr)
        print(json.dumps({"size": size, "out": host.tolist(), "back": back.tolist()}))
        ''')
    ran = run(script)
    got = values(ran)
    assert got["size"] == 12 and got["back"] == [3, 7, 2]
    assert got["out"] == [i * 3 + 7 - 2 for i in range(77)]
    (launch,) = ran.launches()
    assert launch["kernel"] == "shift"
    assert launch["line"] == line_of(script, "f.prepared_call")
    assert launch["grid"] == [3, 1, 1] and launch["block"] == [32, 1, 1]
    assert launch["args"][0]["pointer"] and not launch["args"][1]["pointer"]
    assert launch["args"][1]["bytes"] == (77).to_bytes(4, "little").hex()


def test_gpuarray_and_cupy_kernels(run, tmp_path):
    script = write(tmp_path, '''
        import json
        import numpy as np
        import pycuda.autoinit
        import pycuda.gpuarray as gpuarray
        from pycuda.compiler import SourceModule
        import cupy as cp
        a = gpuarray.to_gpu(np.arange(333, dtype=np.float32))
        b = (a * 2 + 1).get()
        mod = SourceModule("""
        __global__ void neg(float *v, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) v[i] = -v[i]; }
        """)
        mod.get_function("neg")(a, np.int32(333), block=(64, 1, 1), grid=(6, 1))
        sq = cp.ElementwiseKernel("float32 x, float32 y", "float32 z", "z = (x - y) * (x - y)", "sqdiff")
        x = cp.asarray(np.linspace(0, 1, 1003, dtype=np.float32))
        y = cp.asarray(np.full(1003, 0.25, np.float32))
        l1 = cp.ReductionKernel("T x", "T y", "fabsf(x)", "a + b", "y = a", "0", "l1")
        raw = cp.RawKernel(r"""
        extern "C" __global__ void twice(const int *x, int *y, long long n)
        { long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; if (i < n) y[i] = 2 * x[i]; }
        """, "twice")
        xi = cp.arange(517, dtype=cp.int32)
        yi = cp.zeros(517, dtype=cp.int32)
        raw((5,), (128,), (xi, yi, 517))
        print(json.dumps({"b": b.tolist(), "neg": a.get().tolist(), "sq": cp.asnumpy(sq(x, y)).tolist(),
                          "l1": float(l1(x - y).get()), "twice": yi.get().tolist()}))
        ''')
    ran = run(script)
    got = values(ran)
    a = np.arange(333, dtype=np.float32)
    assert got["b"] == (a * 2 + 1).tolist()
    assert got["neg"] == (-a).tolist()
    x = np.linspace(0, 1, 1003, dtype=np.float32)
    assert np.array_equal(np.array(got["sq"], np.float32), (x - np.float32(0.25)) * (x - np.float32(0.25)))
    assert abs(got["l1"] - float(np.abs(x - np.float32(0.25)).sum())) < 1e-3
    assert got["twice"] == [2 * i for i in range(517)]
    assert [l["kernel"] for l in ran.launches()] == ["neg", "twice", "sqdiff", "l1"]


def test_missing_bounds_check_is_stopped_at_the_scripts_line(run):
    script = SCRIPTS / "pitfalls" / "missing_bounds_check.py"
    ran = run(script)
    assert ran.rc == 1
    assert "pycuda._driver.LaunchError" in ran.stderr
    (launch,) = ran.launches()
    error = launch["error"]
    assert error["kind"] == "out_of_bounds"
    assert error["line"] == line_of(script, "c[i] = a[i] + b[i]")
    assert launch["grid"] == [4, 1, 1] and launch["block"] == [256, 1, 1]
    if "thread" in error:  # the CPU backend names the first thread past the end: element 1000 of 1000
        block, thread = error["block"][0], error["thread"][0]
        assert block * 256 + thread >= 1000


def test_block_too_large_is_pycudas_logic_error(run):
    ran = run(SCRIPTS / "pitfalls" / "block_too_large.py")
    assert ran.rc == 1
    # PyCUDA's own words: it sets the block's shape before the launch, and that call refuses it
    assert "pycuda._driver.LogicError: cuFuncSetBlockShape failed: invalid argument" in ran.stderr
    (launch,) = ran.launches()
    assert launch["error"]["kind"] == "launch_refused"
    assert launch["block"] == [2000, 1, 1]
    assert "1024" in launch["error"]["message"]


def test_float64_data_to_a_float_kernel_is_named(run):
    ran = run(SCRIPTS / "pitfalls" / "float64_to_float_kernel.py")
    assert ran.rc == 1 and "check: False" in ran.stdout
    warned = [l for l in ran.stderr.splitlines() if "float64" in l and "float" in l and "astype" in l]
    assert warned, ran.stderr


def test_compile_error_names_the_scripts_line(run, tmp_path):
    script = write(tmp_path, '''
        import pycuda.autoinit
        from pycuda.compiler import SourceModule
        mod = SourceModule("""
        __global__ void broken(float *v)
        {
            v[threadIdx.x] = 1.0f   // no semicolon
        }
        """)
        ''')
    ran = run(script)
    assert ran.rc == 1
    assert "pycuda._driver.CompileError" in ran.stderr
    line = line_of(script, "no semicolon")
    assert re.search(r"script\.py:(%d|%d):\d+: error" % (line, line + 1), ran.stderr), ran.stderr


def test_the_script_is_confined(run, tmp_path):
    script = write(tmp_path, '''
        import os, socket
        def attempt(name, fn):
            try:
                fn()
                print(name, "allowed")
            except OSError as e:
                print(name, "refused", e.errno)
        attempt("passwd", lambda: open("/etc/passwd").read())
        attempt("write", lambda: open(os.path.join(os.path.dirname(__file__), "made.txt"), "w").write("x"))
        attempt("tcp", lambda: socket.create_connection(("127.0.0.1", 9), timeout=1))
        attempt("fork", lambda: os.fork())
        attempt("own", lambda: open(__file__).read())
        print("system", os.system("touch " + os.path.join(os.path.dirname(__file__), "sys.txt")))
        ''')
    ran = run(script)
    assert ran.rc == 0, ran.stderr
    out = dict(l.split(" ", 1) for l in ran.stdout.splitlines())
    for name in ("passwd", "write", "tcp", "fork"):
        assert out[name].startswith("refused"), (name, out[name])
    assert out["own"] == "allowed"
    assert out["system"] != "0"
    assert not (tmp_path / "made.txt").exists() and not (tmp_path / "sys.txt").exists()


def test_a_script_that_never_ends_is_stopped(run, tmp_path):
    script = write(tmp_path, "while True:\n    pass\n")
    ran = run(script, time_limit=2)
    assert ran.rc != 0
    assert ran.report["end"] == "stopped"
    assert ran.report["error"]["kind"] == "hang"


def test_arguments_and_exit_status_are_the_scripts(run, tmp_path):
    script = write(tmp_path, "import sys\nprint(sys.argv[1:])\nsys.exit(int(sys.argv[1]))\n")
    ran = run(script, 3, "x")
    assert ran.rc == 3 and ran.stdout.strip() == "['3', 'x']"


def test_python_itself_runs_the_script_through_script_serve(binary, backend, tmp_path):
    script = SCRIPTS / "course" / "03_vector_add.py"
    env = dict(os.environ, PYTHONPATH=str(ROOT / "python"), CUDA_PLAYGROUND_BIN=binary,
               CUDA_PLAYGROUND_BACKEND=backend)
    env.pop("CUDA_PLAYGROUND_SCRIPT_FD", None)
    proc = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, env=env, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert "check: True" in proc.stdout


def test_the_package_installs_with_pip_into_a_virtual_environment(binary, backend, tmp_path):
    """pip install ./python into a virtual environment (the distribution's NumPy through its site packages, no
    network), then `python3 script.py` there: the installed pycuda, not the source tree's, runs the course's
    vector add through script-serve."""
    import shutil
    source = tmp_path / "src"
    shutil.copytree(ROOT / "python", source)  # setuptools writes build files next to the sources
    env_dir = tmp_path / "env"
    subprocess.run(["/usr/bin/python3", "-m", "venv", "--system-site-packages", "--without-pip", str(env_dir)],
                   check=True, timeout=120)
    python = env_dir / "bin" / "python"
    pip = subprocess.run([str(python), "-m", "pip", "install", "-q", "--no-deps", "--no-build-isolation",
                          "--no-index", str(source)], capture_output=True, text=True, timeout=300)
    assert pip.returncode == 0, pip.stdout + pip.stderr
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "CUDA_PLAYGROUND_SCRIPT_FD")}
    env.update(CUDA_PLAYGROUND_BIN=binary, CUDA_PLAYGROUND_BACKEND=backend)
    where = subprocess.run([str(python), "-c", "import pycuda; print(pycuda.__file__)"], capture_output=True,
                           text=True, env=env, cwd=tmp_path, timeout=60)
    assert where.stdout.strip().startswith(str(env_dir)), where.stdout + where.stderr
    proc = subprocess.run([str(python), str(SCRIPTS / "course" / "03_vector_add.py")], capture_output=True,
                          text=True, env=env, cwd=tmp_path, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "check: True" in proc.stdout
