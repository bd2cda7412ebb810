#!/usr/bin/env python3
"""Runs every lesson of the library with `run --json` and prints one line per lesson: category, name,
expected outcome, verified, median time, bandwidth and its fraction of the copy bandwidth, and whether the
lesson behaved as its header says (verified, or failed exactly as `expect:` states). Prints figures; exit
status 1 when any lesson did not behave as stated.

usage: tests/bench/course_table.py [--backend cpu|cuda] [--repeat N] [--binary build/cuda-playground]
"""
import argparse
import json
import re
import subprocess
import sys


def expected_outcome(path):
    """The header's `expect:` value (mismatch, fault, refused, hang), or None for a lesson that must verify."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    header = text.split("*/", 1)[0]
    m = re.search(r"^(?:# )?expect:\s*(\w+)", header, re.MULTILINE)
    return m.group(1) if m else None


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
        expect = expected_outcome(lesson["path"]) or "verified"
        got = outcome(result, p.returncode)
        timing = result.get("timing") or {}
        median = timing.get("median_ms")
        gbps = result.get("bandwidth_gbps")
        frac = result.get("bandwidth_fraction_of_copy")
        ok = got == expect
        bad += not ok
        print(f"{lesson['category']:<22} {lesson['name']:<36} {expect:<9} {got:<10} "
              f"{median if median is not None else float('nan'):>10.4f} "
              f"{gbps if gbps is not None else float('nan'):>8.1f} "
              f"{(100 * frac) if frac else float('nan'):>7.1f}%  {'yes' if ok else 'NO'}")
    print(f"\n{len(lessons) - bad} of {len(lessons)} lessons behaved as stated on {args.backend}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
