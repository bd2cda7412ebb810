#!/usr/bin/env python3
"""Compares `run --memory`'s figures with Nsight Compute's counters for the memory lessons (issue 23, item 5).

For each case (a lesson and its --set values) it runs
  cuda-playground run LESSON --backend cuda --memory --json - --set ...      (our figures, summed per kernel)
  ncu --target-processes all --csv --print-units base --metrics ... -k regex:^KERNEL$ -c 1 \\
      cuda-playground run LESSON --backend cuda --repeat 1 --set ...          (the hardware's counters)
and prints a markdown table: lesson x metric x ours x ncu x difference %. Ratios per request (global sectors per
request, shared bank conflicts per request) are always compared; totals only where our recording is whole (the
recording keeps at most 4,194,304 accesses on the CPU and a stated sample of blocks on CUDA: a sampled total
cannot equal the whole launch's). A run that fails on either side prints its error and the table goes on.

usage: tests/bench/ncu_memory_compare.py [--binary build/cuda-playground] [--ncu PATH] [--ours-backend cuda|cpu]
                                         [--only SUBSTRING] [--tolerance 5] [--basic-metrics] [--self-test]
Exit status: 0 every compared figure within the tolerance; 1 some differ; 2 a run failed (the table says which).
`--self-test` checks the parsing on canned ncu CSV (both of ncu's CSV shapes) and canned JSON, without a GPU.
"""
import argparse
import csv
import io
import json
import os
import re
import shutil
import subprocess
import sys

# The counters the issue names, and the shared-memory instruction counts (one warp-level request each) that make
# the bank conflicts a figure per request.
BASIC_METRICS = [
    "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
    "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum",
    "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum",
    "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum",
]
SHARED_REQUEST_METRICS = ["smsp__inst_executed_op_shared_ld.sum", "smsp__inst_executed_op_shared_st.sum"]

# Our totals (keys of `ours_totals`) and the ncu metric each equals.
NCU_OF = {
    "gld_sectors": "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
    "gld_requests": "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum",
    "gst_sectors": "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum",
    "gst_requests": "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum",
    "sld_conflicts": "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
    "sst_conflicts": "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum",
    "sld_requests": "smsp__inst_executed_op_shared_ld.sum",
    "sst_requests": "smsp__inst_executed_op_shared_st.sum",
}

# (label, library lesson, kernel name, --set values). Sizes whose recording is whole where the lesson allows it:
# 100003 floats (2 accesses each), a 1000 x 1000 transpose (4 accesses an element through the tile).
CASES = (
    [(f"coalesced stride {s}", "performance/coalesced_vs_strided", "coalesced_vs_strided",
      {"n": "100003", "stride": str(s)}) for s in (1, 2, 4, 8, 32)]
    + [("transpose naive 1000x1000", "matrix/transpose_naive", "transpose_naive", {"width": "1000", "height": "1000"}),
       ("transpose shared pad 0", "matrix/transpose_shared", "transpose_shared",
        {"width": "1000", "height": "1000", "pad": "0"}),
       ("transpose shared pad 1", "matrix/transpose_shared", "transpose_shared",
        {"width": "1000", "height": "1000", "pad": "1"})]
    + [(f"bank conflicts stride {s}", "performance/shared_bank_conflicts", "shared_bank_conflicts",
        {"n": "100003", "stride": str(s), "broadcast": "0"}) for s in (1, 2, 8, 32)]
    + [("bank conflicts stride 32 broadcast", "performance/shared_bank_conflicts", "shared_bank_conflicts",
        {"n": "100003", "stride": "32", "broadcast": "1"})]
    + [(f"warp divergence k {k}", "performance/warp_divergence", "warp_divergence",
        {"n": "100003", "k": str(k), "work": "16"}) for k in (1, 2, 32)]
    + [("matmul naive 150x120x100", "matrix/matmul_naive", "matmul_naive", {"m": "150", "n": "120", "k": "100"}),
       ("matmul tiled 150x120x100", "matrix/tiled_matmul", "tiled_matmul", {"m": "150", "n": "120", "k": "100"})]
)


# ---------------------------------------------------------------------------------------------- our figures

def ours_totals(result):
    """Our figures summed over the kernel's lines: {key: total}, plus 'whole' (the recording kept every block)
    and 'note'. Raises ValueError with the run's own error when the JSON has no figures."""
    if "memory" not in result:
        err = result.get("error") or {}
        msg = err.get("message") or "the result has no `memory` figures"
        hint = err.get("hint")
        raise ValueError(msg + (f" ({hint})" if hint else ""))
    t = {k: 0 for k in NCU_OF}
    for e in result["memory"]:
        space, op = e.get("space"), e.get("op")
        prefix = ("g" if space == "global" else "s") + ("ld" if op == "load" else "st")
        t[prefix + "_requests"] += int(e.get("requests", 0))
        if space == "global":
            t[prefix + "_sectors"] += int(e.get("sectors", 0))
        else:
            t[prefix + "_conflicts"] += int(e.get("bank_conflicts", 0))
    rec = result.get("memory_recording") or {}
    t["whole"] = not rec.get("capped", False) and rec.get("blocks_recorded") == rec.get("blocks_total")
    t["note"] = rec.get("note", "")
    return t


# ---------------------------------------------------------------------------------------------- ncu's CSV

def number(text):
    """A counter as ncu prints it: '1,048,576' (grouped), '1048576', '12.5', 'n/a'. None when not a number."""
    s = text.strip().strip('"')
    if re.fullmatch(r"-?\d{1,3}(,\d{3})+(\.\d+)?", s):
        s = s.replace(",", "")
    try:
        return float(s)
    except ValueError:
        return None


def csv_rows(output):
    """The CSV lines of ncu's stdout (which also holds ==PROF== lines and the profiled program's own output)."""
    lines = [ln for ln in output.splitlines() if ln.startswith('"')]
    return list(csv.reader(io.StringIO("\n".join(lines))))


def parse_ncu_csv(output, kernel=None):
    """{metric: value} of the first profiled kernel (named `kernel` when given) in ncu's --csv output, in either
    shape: the details page (one row per metric: ..., "Kernel Name", ..., "Metric Name", "Metric Unit",
    "Metric Value") or the raw page (--page raw: a header row of metric names, a row of units, a row per kernel)."""
    rows = csv_rows(output)
    metrics = {}
    header = None
    for row in rows:
        if "Kernel Name" in row or "Metric Name" in row:
            header = row
            break
    if header is None:
        return metrics
    start = rows.index(header) + 1
    col = {name: i for i, name in enumerate(header)}
    kname = col.get("Kernel Name")
    ident = col.get("ID")

    def wanted(row):
        return kernel is None or kname is None or row[kname].split("(")[0].strip() == kernel

    if "Metric Name" in col and "Metric Value" in col:  # details page: one row per metric
        first_id = None
        for row in rows[start:]:
            if len(row) < len(header) or not wanted(row):
                continue
            if ident is not None:
                first_id = row[ident] if first_id is None else first_id
                if row[ident] != first_id:
                    continue
            v = number(row[col["Metric Value"]])
            if v is not None:
                metrics[row[col["Metric Name"]]] = v
        return metrics
    for row in rows[start:]:  # raw page: metric columns; the units row has no ID
        if len(row) < len(header) or (ident is not None and number(row[ident]) is None) or not wanted(row):
            continue
        for name, i in col.items():
            if "__" in name:
                v = number(row[i])
                if v is not None:
                    metrics[name] = v
        break
    return metrics


def ncu_errors(output):
    """ncu's own complaints (==ERROR== / ==WARNING== lines), e.g. ERR_NVGPUCTRPERM without counter access."""
    return [ln for ln in output.splitlines() if ln.startswith("==ERROR==") or ln.startswith("==WARNING==")]


# ---------------------------------------------------------------------------------------------- comparison

def pct(ours, theirs):
    if ours is None or theirs is None:
        return None
    if theirs == 0:
        return 0.0 if ours == 0 else float("inf")
    return 100.0 * (ours - theirs) / theirs


def ratio(a, b):
    return None if a is None or b is None or b == 0 else a / b


def compare_rows(ours, ncu):
    """(metric, ours, ncu, diff %) rows for one case: per-request ratios always, totals when ours is whole.
    Rows where neither side has anything (no such accesses) are left out."""
    rows = []
    g = lambda key: ncu.get(NCU_OF[key])  # noqa: E731
    for side, name in (("gld", "global load"), ("gst", "global store")):
        o_req, n_req = ours[side + "_requests"], g(side + "_requests")
        if not o_req and not n_req:
            continue
        rows.append((f"{name} sectors/request", ratio(ours[side + "_sectors"], o_req),
                     ratio(g(side + "_sectors"), n_req)))
        if ours["whole"]:
            rows.append((f"{name} requests", o_req, n_req))
            rows.append((f"{name} sectors", ours[side + "_sectors"], g(side + "_sectors")))
    for side, name in (("sld", "shared load"), ("sst", "shared store")):
        o_req, n_req = ours[side + "_requests"], g(side + "_requests")
        o_c, n_c = ours[side + "_conflicts"], g(side + "_conflicts")
        if not o_req and not n_req and not o_c and not n_c:
            continue
        rows.append((f"{name} bank conflicts/request", ratio(o_c, o_req), ratio(n_c, n_req)))
        if ours["whole"]:
            rows.append((f"{name} bank conflicts", o_c, n_c))
            if n_req is not None:
                rows.append((f"{name} requests", o_req, n_req))
    return [(m, o, n, pct(o, n)) for m, o, n in rows]


def cell(text):
    """Text fit for one markdown table cell: one line, no column bars."""
    return " ".join(str(text).split()).replace("|", "/")


def fmt(v):
    if v is None:
        return "n/a"
    if isinstance(v, float) and not v.is_integer():
        return f"{v:.3f}"
    return f"{int(v):,}"


def fmt_pct(p):
    if p is None:
        return "n/a"
    if p == float("inf"):
        return "inf"
    return f"{p:+.1f}%"


# ---------------------------------------------------------------------------------------------- running

def run_ours(binary, lesson, sets, backend):
    cmd = [binary, "run", lesson, "--backend", backend, "--memory", "--repeat", "1", "--json", "-"]
    for k, v in sets.items():
        cmd += ["--set", f"{k}={v}"]
    try:
        p = subprocess.run(cmd, capture_output=True, text=True)
    except OSError as e:
        raise ValueError(f"could not start {binary}: {e}")
    try:
        result = json.loads(p.stdout)
    except json.JSONDecodeError:
        raise ValueError(f"no JSON from `{' '.join(cmd)}` (exit {p.returncode}): {p.stderr.strip()[-400:]}")
    return ours_totals(result)


def run_ncu(ncu, binary, lesson, kernel, sets, metrics):
    cmd = [ncu, "--target-processes", "all", "--csv", "--print-units", "base", "--metrics", ",".join(metrics),
           "-k", f"regex:^{kernel}$", "-c", "1",
           binary, "run", lesson, "--backend", "cuda", "--repeat", "1", "--warmup", "0"]
    for k, v in sets.items():
        cmd += ["--set", f"{k}={v}"]
    try:
        p = subprocess.run(cmd, capture_output=True, text=True)
    except OSError as e:
        raise ValueError(f"could not start {ncu}: {e}")
    values = parse_ncu_csv(p.stdout, kernel)
    if not values:
        said = ncu_errors(p.stdout + "\n" + p.stderr) or (p.stderr.strip() or p.stdout.strip()).splitlines()[-5:]
        raise ValueError(f"ncu gave no counters for {kernel} (exit {p.returncode}): " + " | ".join(said))
    return values


def find_ncu(given):
    if given:
        return given
    return shutil.which("ncu") or ("/usr/local/cuda/bin/ncu" if os.path.exists("/usr/local/cuda/bin/ncu") else None)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--binary", default="build/cuda-playground")
    ap.add_argument("--ncu", default=None, help="default: ncu on PATH, else /usr/local/cuda/bin/ncu")
    ap.add_argument("--ours-backend", default="cuda", help="where our recording runs (cpu: the same figures)")
    ap.add_argument("--only", default=None, help="only the cases whose label contains this")
    ap.add_argument("--tolerance", type=float, default=5.0, help="percent")
    ap.add_argument("--basic-metrics", action="store_true",
                    help="only the six counters the issue names (no shared requests: no conflicts per request)")
    ap.add_argument("--self-test", action="store_true")
    args = ap.parse_args()
    if args.self_test:
        return self_test()
    ncu = find_ncu(args.ncu)
    metrics = BASIC_METRICS + ([] if args.basic_metrics else SHARED_REQUEST_METRICS)
    print(f"ours: `run --memory` on {args.ours_backend}; ncu: {ncu or 'not found'}; binary: {args.binary}\n")
    print("| lesson | metric | ours | ncu | difference |")
    print("| --- | --- | ---: | ---: | ---: |")
    failed, differ, notes = 0, 0, []
    for label, lesson, kernel, sets in CASES:
        if args.only and args.only not in label:
            continue
        try:
            ours = run_ours(args.binary, lesson, sets, args.ours_backend)
        except ValueError as e:
            print(f"| {label} | ours failed: {cell(e)} | | | |")
            failed += 1
            continue
        if not ours["whole"]:
            notes.append(f"{label}: ours recorded {ours['note']} (totals left out)")
        theirs = {}
        if ncu is None:
            print(f"| {label} | ncu not found (--ncu PATH, or put it on PATH) | | | |")
            failed += 1
        else:
            try:
                theirs = run_ncu(ncu, args.binary, lesson, kernel, sets, metrics)
            except ValueError as e:
                print(f"| {label} | ncu failed: {cell(e)} | | | |")
                failed += 1
        # Without ncu's counters our figures are still printed, against n/a.
        for metric, o, n, p in compare_rows(ours, theirs):
            off = p is not None and abs(p) > args.tolerance
            differ += off
            print(f"| {label} | {metric} | {fmt(o)} | {fmt(n)} | {fmt_pct(p)}{' **off**' if off else ''} |")
    for n in notes:
        print(f"\n- {n}")
    print(f"\n{differ} figure(s) off by more than {args.tolerance}%; {failed} case(s) failed to run")
    return 2 if failed else (1 if differ else 0)


# ---------------------------------------------------------------------------------------------- self-test

# ncu's details page as `--csv --print-units base --metrics ...` prints it (2023+ columns), with the profiled
# program's output and ncu's ==PROF== lines around it, a grouped number, and a second kernel that must not count.
CANNED_DETAILS = '''==PROF== Connected to process 4242 (/work/build/cuda-playground)
==PROF== Profiling "coalesced_vs_strided" - 0: 0%....50%....100% - 3 passes
Coalesced vs strided access (coalesced_vs_strided) on cuda: NVIDIA H100 80GB HBM3
==PROF== Disconnected from process 4242
"ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream","Block Size","Grid Size","Device","CC","Section Name","Metric Name","Metric Unit","Metric Value"
"0","4243","cuda-playground","localhost","coalesced_vs_strided","1","7","(256, 1, 1)","(391, 1, 1)","0","9.0","Command line profiler metrics","l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum","","0"
"0","4243","cuda-playground","localhost","coalesced_vs_strided","1","7","(256, 1, 1)","(391, 1, 1)","0","9.0","Command line profiler metrics","l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum","","0"
"0","4243","cuda-playground","localhost","coalesced_vs_strided","1","7","(256, 1, 1)","(391, 1, 1)","0","9.0","Command line profiler metrics","l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum","","3,126"
"0","4243","cuda-playground","localhost","coalesced_vs_strided","1","7","(256, 1, 1)","(391, 1, 1)","0","9.0","Command line profiler metrics","l1tex__t_requests_pipe_lsu_mem_global_op_st.sum","","3126"
"0","4243","cuda-playground","localhost","coalesced_vs_strided","1","7","(256, 1, 1)","(391, 1, 1)","0","9.0","Command line profiler metrics","l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum","sector","100,004"
"0","4243","cuda-playground","localhost","coalesced_vs_strided","1","7","(256, 1, 1)","(391, 1, 1)","0","9.0","Command line profiler metrics","l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum","sector","12,502"
"0","4243","cuda-playground","localhost","coalesced_vs_strided","1","7","(256, 1, 1)","(391, 1, 1)","0","9.0","Command line profiler metrics","smsp__inst_executed_op_shared_ld.sum","inst","0"
"0","4243","cuda-playground","localhost","coalesced_vs_strided","1","7","(256, 1, 1)","(391, 1, 1)","0","9.0","Command line profiler metrics","smsp__inst_executed_op_shared_st.sum","inst","0"
"1","4243","cuda-playground","localhost","coalesced_vs_strided","1","7","(256, 1, 1)","(391, 1, 1)","0","9.0","Command line profiler metrics","l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum","sector","999"
'''

# The raw page (--page raw --csv): metric columns, a units row, one row per kernel.
CANNED_RAW = '''==PROF== Connected to process 77 (/work/build/cuda-playground)
"ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream","Block Size","Grid Size","Device","CC","l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum","l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum","l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum","smsp__inst_executed_op_shared_ld.sum"
"","","","","","","","","","","","","","request","inst"
"0","78","cuda-playground","localhost","shared_bank_conflicts","1","7","(256, 1, 1)","(391, 1, 1)","0","9.0","0","96,969","3,126","3,128"
'''

CANNED_FAILURE = '''==PROF== Connected to process 900 (/work/build/cuda-playground)
==ERROR== ERR_NVGPUCTRPERM - The user does not have permission to access NVIDIA GPU Performance Counters on the target device 0.
==PROF== Disconnected from process 900
'''


def self_test():
    failures = []

    def check(cond, what):
        if not cond:
            failures.append(what)

    d = parse_ncu_csv(CANNED_DETAILS, "coalesced_vs_strided")
    check(d.get("l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum") == 100004, f"grouped number, first ID only: {d}")
    check(d.get("l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum") == 3126, f"requests: {d}")
    check(len(d) == 8, f"eight metrics: {d}")
    check(parse_ncu_csv(CANNED_DETAILS, "other_kernel") == {}, "another kernel's name matches nothing")
    r = parse_ncu_csv(CANNED_RAW, "shared_bank_conflicts")
    check(r.get("l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum") == 96969, f"raw page: {r}")
    check(r.get("smsp__inst_executed_op_shared_ld.sum") == 3128, f"raw page, units row skipped: {r}")
    check(parse_ncu_csv(CANNED_FAILURE) == {}, "no CSV, no metrics")
    check(ncu_errors(CANNED_FAILURE)[0].startswith("==ERROR== ERR_NVGPUCTRPERM"), "ncu's error is kept")
    check(number("1,234,567.5") == 1234567.5 and number("n/a") is None and number("12") == 12, "numbers")

    # Our JSON for the same launch: n = 100003, stride 1 (3126 warps, the last with 3 lanes).
    ours_json = {
        "memory": [
            {"line": 30, "space": "global", "op": "load", "requests": 3126, "sectors": 12502,
             "ideal_sectors": 12502, "bank_conflicts": 0, "active_lanes_mean": 31.99},
            {"line": 30, "space": "global", "op": "store", "requests": 3126, "sectors": 12502,
             "ideal_sectors": 12502, "bank_conflicts": 0, "active_lanes_mean": 31.99},
        ],
        "memory_recording": {"capped": False, "blocks_recorded": 391, "blocks_total": 391, "note": "all 391 blocks"},
    }
    ours = ours_totals(ours_json)
    check(ours["gld_sectors"] == 12502 and ours["whole"], f"our totals: {ours}")
    rows = {m: (o, n, p) for m, o, n, p in compare_rows(ours, d)}
    check("shared load bank conflicts/request" not in rows, f"no shared rows where neither side has any: {rows}")
    o, n, p = rows["global store sectors/request"]
    check(o == n == 12502 / 3126 and p == 0.0, f"equal ratios: {rows['global store sectors/request']}")
    o, n, p = rows["global load sectors"]
    check(o == 12502 and n == 100004 and abs(p - 100.0 * (12502 - 100004) / 100004) < 1e-9, f"a difference: {o, n, p}")
    sampled = dict(ours, whole=False)
    check("global load sectors" not in {m for m, *_ in compare_rows(sampled, d)}, "no totals from a sampled recording")
    check(pct(3, 0) == float("inf") and pct(0, 0) == 0.0, "percent against zero")
    try:
        ours_totals({"error": {"message": "the memory recording runs on the CPU backend for now",
                               "hint": "run with --backend cpu"}})
        check(False, "a result without figures raises")
    except ValueError as e:
        check("CPU backend for now (run with --backend cpu)" in str(e), f"its error is said: {e}")

    for f in failures:
        print("FAILED:", f)
    print("self-test:", "ok" if not failures else f"{len(failures)} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
