"""Fixtures for the Python scripts' tests: the playground binary (CUDA_PLAYGROUND_BIN, from CTest), the backend
(CUDA_PLAYGROUND_TEST_BACKEND, default cpu; cuda on the GPU machine) and a runner that returns what a run gave."""
import json
import os
import pathlib
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
SCRIPTS = ROOT / "tests" / "data" / "scripts"


class Ran:
    def __init__(self, proc, report):
        self.rc = proc.returncode
        self.stdout = proc.stdout
        self.stderr = proc.stderr
        self.report = report

    def launches(self):
        return self.report["launches"]


@pytest.fixture(scope="session")
def binary():
    path = os.environ.get("CUDA_PLAYGROUND_BIN", str(ROOT / "build" / "cuda-playground"))
    assert os.access(path, os.X_OK), "the playground binary %s is missing: build it first" % path
    return path


@pytest.fixture(scope="session")
def backend():
    return os.environ.get("CUDA_PLAYGROUND_TEST_BACKEND", "cpu")


@pytest.fixture
def run(binary, backend, tmp_path):
    def go(script, *args, time_limit=None):
        report_file = tmp_path / "report.json"
        cmd = [binary, "run", str(script), "--backend", backend, "--json", str(report_file)]
        if time_limit:
            cmd += ["--time-limit", str(time_limit)]
        if args:
            cmd += ["--"] + [str(a) for a in args]
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
        report = json.loads(report_file.read_text()) if report_file.exists() else None
        return Ran(proc, report)
    return go


def line_of(path, text):
    """The 1-based line of `path` holding `text` (exactly one must)."""
    lines = [i + 1 for i, l in enumerate(pathlib.Path(path).read_text().splitlines()) if text in l]
    assert len(lines) == 1, "%r is on lines %s of %s" % (text, lines, path)
    return lines[0]
