#!/usr/bin/env python3
"""Writes tests/ctest_costs.cmake from a run's cost data: the tests that took at least 1.5 s, slowest first.

    python3 tests/arch/ctest_costs.py build/Testing/Temporary/CTestCostData.txt build > tests/ctest_costs.cmake

With a build folder, only the tests that build lists now are kept (the cost data remembers every test that ever
ran there). CTestCostData.txt holds one line per test, "NAME RUNS AVERAGE_SECONDS", then "---" and the failed tests.
Tests that are not discovered GoogleTest cases (added with add_test) get their COST in tests/CMakeLists.txt.
"""
import sys

HEADER = """\
# The suite's slowest tests and about how many seconds each takes on 2 cores, as COST properties: ctest starts
# the costly ones first, so that a fresh clone's first run (which has no record of earlier runs' times yet) does
# not end on one long test while the other core idles (about 50 s of a 2-core run). Included by ctest after the
# tests are listed (tests/CMakeLists.txt); a name that no longer exists is ignored. Refresh it from a run's
# build/Testing/Temporary/CTestCostData.txt when tests are added or renamed: tests/arch/ctest_costs.py.
"""
PLAIN_TESTS = {"cli_json_schemas"}  # add_test tests: their COST is in tests/CMakeLists.txt


def main(argv):
    if len(argv) not in (2, 3):
        print(__doc__.strip(), file=sys.stderr)
        return 2
    listed = None
    if len(argv) == 3:
        import json
        import subprocess

        shown = subprocess.run(["ctest", "--test-dir", argv[2], "--show-only=json-v1"], capture_output=True,
                               text=True, check=True).stdout
        listed = {t["name"] for t in json.loads(shown)["tests"]}
    costs = []
    with open(argv[1], encoding="utf-8") as f:
        for line in f:
            if line.startswith("---"):
                break
            parts = line.split()
            if len(parts) != 3 or parts[0] in PLAIN_TESTS or (listed is not None and parts[0] not in listed):
                continue
            seconds = float(parts[2])
            if int(parts[1]) > 0 and seconds >= 1.5:
                costs.append((seconds, parts[0]))
    sys.stdout.write(HEADER)
    for seconds, name in sorted(costs, key=lambda c: (-c[0], c[1])):
        print(f"set_tests_properties([=[{name}]=] PROPERTIES COST {round(seconds)})")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
