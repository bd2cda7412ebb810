#!/usr/bin/env python3
"""Every library lesson's SASS as the playground lists it (compile --sass --json) against `cuobjdump -sass` of the
same cubin (issue 38). The playground names branch targets by nvdisasm's labels (`BRA `(.L_x_3)`) where cuobjdump
prints the address (`BRA 0x260`): each label is replaced by the offset of the instruction that follows it, then the
two lists of instructions must be equal, instruction by instruction.

  tests/bench/sass_vs_cuobjdump.py [--binary build/cuda-playground] [--cuobjdump cuobjdump] [--arch sm_90]

Prints one line per lesson and the count; exits 1 when any differs. cuobjdump disassembles through nvdisasm: give it
one on PATH or in NVDISASM_PATH (the toolkit's, or third_party/nvdisasm-*/nvidia/cu13/bin)."""
import argparse, glob, json, os, re, subprocess, sys, tempfile

ap = argparse.ArgumentParser()
ap.add_argument("--binary", default="build/cuda-playground")
ap.add_argument("--cuobjdump", default="cuobjdump")
ap.add_argument("--arch", default="sm_90")
args = ap.parse_args()

label_ref = re.compile(r"`\(([^)]+)\)")
same = differ = 0
with tempfile.TemporaryDirectory() as tmp:
    for path in sorted(glob.glob("kernels/*/*.cu")):
        name = path[len("kernels/"):-3]
        cubin = os.path.join(tmp, name.replace("/", "_") + ".cubin")
        r = subprocess.run([args.binary, "compile", path, "--arch", args.arch, "--sass", "--json", "--cubin", cubin],
                           capture_output=True, text=True)
        try:
            j, _ = json.JSONDecoder().raw_decode(r.stdout[r.stdout.index("{"):])
        except Exception as e:
            print(name, "no json:", repr(e)[:200], r.stderr[-300:])
            differ += 1
            continue
        lines = j.get("sass", {}).get("lines", [])
        # Each label's address: the offset of the first instruction after it (per function, as cuobjdump prints).
        address = {}
        pending = []
        for l in lines:
            if l["kind"] == "label":
                pending.append(l["text"].rstrip(":"))
            elif l["kind"] == "function":
                pending.append(l["text"].rstrip(":"))
            elif l["kind"] == "instruction" and l.get("offset", -1) >= 0:
                for p in pending:
                    address[p] = l["offset"]
                pending = []
        ours = []
        for l in lines:
            if l["kind"] != "instruction":
                continue
            text = label_ref.sub(lambda m: "0x%x" % address[m.group(1)] if m.group(1) in address else m.group(0), l["text"])
            ours.append(" ".join(text.split()))
        d = subprocess.run([args.cuobjdump, "-sass", cubin], capture_output=True, text=True)
        theirs = []
        for line in d.stdout.splitlines():
            m = re.match(r"\s*/\*([0-9a-f]{4,})\*/\s+(.*?)\s*;", line)
            if m:
                theirs.append(" ".join(m.group(2).split()))
        ok = ours == theirs and len(ours) > 0
        same += ok
        differ += not ok
        if ok:
            print(name, "same", len(ours))
        else:
            first = next((i for i, (a, b) in enumerate(zip(ours, theirs)) if a != b), min(len(ours), len(theirs)))
            print(name, "DIFFER", len(ours), len(theirs), "at", first, ours[first:first + 2], theirs[first:first + 2],
                  d.stderr[-200:])
print("lessons whose SASS equals cuobjdump -sass:", same, "of", same + differ)
sys.exit(0 if differ == 0 else 1)
