#!/usr/bin/env python3
"""Runs every lesson of the library with `run --json` and prints one line per lesson: category, name,
expected outcome, verified, median time, bandwidth and its fraction of the copy bandwidth, and whether the
lesson behaved as its header says (verified, or failed exactly as `expect:` states for this backend and GPU). Prints figures; exit
status 1 when any lesson did not behave as stated.

usage: tests/bench/course_table.py [--backend cpu|cuda] [--repeat N] [--binary build/cuda-playground]
"""
import argparse
import json
import re
import subprocess
import sys


def expect_clauses(path):
    """The header's `expect:` clauses as (outcome, backend, from_cc, before_cc), or [] for a lesson that must
    verify. `hang on cpu; undefined on cuda from sm_70` gives [("hang", "cpu", 0, 0), ("undefined", "cuda", 70, 0)]."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    header = text.split("*/", 1)[0]
    m = re.search(r"^(?:# )?expect:\s*(.+)$", header, re.MULTILINE)
    if not m:
        return []
    clauses = []
    for part in m.group(1).split(";"):
        words = part.split()
        backend, from_cc, before_cc = "", 0, 0
        for key, value in zip(words[1::2], words[2::2]):
            if key == "on":
                backend = value
            elif key == "from":
                from_cc = int(value[3:])
            elif key == "before":
                before_cc = int(value[3:])
        clauses.append((words[0], backend, from_cc, before_cc))
    return clauses


def expected_here(clauses, backend, cc):
    """What the lesson says a run on `backend` with compute capability `cc` (10 * major + minor) shows: the first
    clause that applies, "verified" without clauses, None where no clause does (not judged here)."""
    if not clauses:
        return "verified"
    for outcome_word, on, from_cc, before_cc in clauses:
        if on and on != backend:
            continue
        if (from_cc or before_cc) and cc <= 0:
            continue
        if from_cc and cc < from_cc or before_cc and cc >= before_cc:
            continue
        return outcome_word
    return None


def compute_capability(binary, backend):
    """10 * major + minor of the backend's device, from `info --json` (0 for the CPU backend)."""
    p = subprocess.run([binary, "info", "--backend", backend, "--json"], capture_output=True, text=True)
    try:
        major, minor = json.loads(p.stdout)[backend]["compute_capability"].split(".")
        return int(major) * 10 + int(minor)
    except (ValueError, KeyError, json.JSONDecodeError):
        return 0


def outcome(result, rc):
    """What happened, in the words `expect:` uses."""
    # Decided on the error's kind (the JSON's "error_kind"), never on its message's words.
    err = result.get("error") or {}
    stage = (err.get("stage") or "").lower()
    kind = result.get("error_kind") or ""
    if result.get("verified") is True:
        return "verified"
    if result.get("verified") is False:
        return "mismatch"
    if kind == "launch_refused":
        return "refused"
    if kind == "hang":
        return "hang"
    if kind in ("fault", "out_of_bounds", "worker_lost") or (kind == "unknown" and stage == "launch"):
        return "fault"
    return "error:" + (kind or stage or f"rc={rc}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--backend", default="cpu")
    ap.add_argument("--repeat", default="5")
    ap.add_argument("--binary", default="build/cuda-playground")
    args = ap.parse_args()
    lessons = json.loads(subprocess.run([args.binary, "list", "--json"], check=True, capture_output=True,
                                        text=True).stdout)["kernels"]
    cc = compute_capability(args.binary, args.backend)
    bad = 0
    print(f"{'category':<22} {'lesson':<36} {'expect':<9} {'outcome':<10} {'median ms':>10} {'GB/s':>8} "
          f"{'of copy':>8}  ok")
    for lesson in lessons:
        p = subprocess.run([args.binary, "run", lesson["path"], "--backend", args.backend, "--repeat", args.repeat,
                            "--json", "-"], capture_output=True, text=True)
        try:
            result = json.loads(p.stdout)
        except json.JSONDecodeError:
            result = {"error": {"stage": "no json", "message": p.stderr.strip()[-200:]}}
        expect = expected_here(expect_clauses(lesson["path"]), args.backend, cc)
        got = outcome(result, p.returncode)
        timing = result.get("timing") or {}
        median = timing.get("median_ms")
        gbps = result.get("bandwidth_gbps")
        frac = result.get("bandwidth_fraction_of_copy")
        # "undefined": the lesson says any result here is luck (it must still run); None: not judged here.
        ok = got == expect or (expect == "undefined" and not got.startswith("error")) or expect is None
        bad += not ok
        expect = expect or "not here"
        print(f"{lesson['category']:<22} {lesson['name']:<36} {expect:<9} {got:<10} "
              f"{median if median is not None else float('nan'):>10.4f} "
              f"{gbps if gbps is not None else float('nan'):>8.1f} "
              f"{(100 * frac) if frac else float('nan'):>7.1f}%  {'yes' if ok else 'NO'}")
    print(f"\n{len(lessons) - bad} of {len(lessons)} lessons behaved as stated on {args.backend}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
