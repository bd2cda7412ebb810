"""The course's scripts (tests/data/scripts/course, PyCUDA and CuPy as a course writes them, each with its own
NumPy check) run unmodified: each prints `check: True`, exits 0, and every launch it made is recorded with the
script line of its call, its grid and block."""
import pathlib
import re

import pytest

from conftest import SCRIPTS

COURSE = sorted((SCRIPTS / "course").glob("*.py"))


@pytest.mark.parametrize("script", COURSE, ids=[p.stem for p in COURSE])
def test_course_script_checks_true(run, script):
    ran = run(script)
    assert ran.rc == 0, ran.stdout + ran.stderr
    assert re.search(r"^check: True$", ran.stdout, re.M), ran.stdout
    assert ran.report["end"] == "returned" and ran.report["exit_status"] == 0
    lines = pathlib.Path(script).read_text().splitlines()
    for launch in ran.launches():
        assert launch["error"] is None
        assert 1 <= launch["line"] <= len(lines)
        assert launch["grid"][0] >= 1 and launch["block"][0] >= 1


def test_every_course_script_launches_kernels(run):
    # The set as a whole exercises each part of the API at least once: kernels of both libraries ran.
    names = {p.stem for p in COURSE}
    assert {"03_vector_add", "14_gpuarray", "17_prepared_call", "18_cupy_rawkernel", "19_cupy_elementwise"} <= names
