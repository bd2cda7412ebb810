#!/usr/bin/env python3
"""Every JSON output of the command line against its documented schema (docs/schema/*.schema.json).

Runs the real binary (CPU backend, no GPU needed) for `list`, `info` (here, a reached and an unreachable
`--remote`), `compile` (clean, `--memory`, an error), `run` (a plain run, coverage and trace, memory, steps,
streams, devices, variants, a lesson buggy on purpose, a mismatch, a compile error, an inout buffer) and `sweep`,
and validates each output against its schema. It fails when an output has a field the schema does not document
(every fixed object is closed: "additionalProperties" or "unevaluatedProperties" false), lacks a required one,
or has a value of another type; when a schema_version differs from its schema's; and when a schema documents a
field no output here has (a misspelt or stale entry), except the few only a GPU or the window produce (listed
below with why). Each output is also mutated -- an unknown key added to each of its objects, each required
top-level key removed -- to show the schema refuses it.

Python, not C++: the schemas are JSON Schema draft 2020-12, and python3-jsonschema (a Debian package,
installed by playground.sh) validates all of it ($ref, oneOf, unevaluatedProperties); a C++ check would need a
validator of its own. Registered with CTest in tests/CMakeLists.txt.

usage: json_schemas_test.py BINARY SOURCE_DIR [--schemas DIR]   (DIR: a changed copy of docs/schema to try)
"""

import argparse
import copy
import json
import os
import subprocess
import sys
import tempfile

try:
    import jsonschema
except ImportError:
    sys.exit("error: the Python module jsonschema is missing: install python3-jsonschema "
             "(./playground.sh test installs it)")

# Fields no output of this test can have, by schema, and why: the test checks every other documented field
# appears in some output, so a schema entry for a field that does not exist (or no longer does) fails.
UNSEEN = {
    "run": {
        # --sanitize needs the CUDA backend (compute-sanitizer).
        "sanitizer", "tool", "errors", "findings", "detail", "address", "element", "buffer_elements",
        # A traced GPU launch names SMs; the CPU backend's names workers.
        "sm",
        # Only when the write-counting copy of a kernel fails to build or read back.
        "written_more_than_once_not_measured",
    },
    # NVRTC itself failing (not the source): a broken toolkit.
    "compile": {"error"},
    "info": set(),
    "list": set(),
    "sweep": set(),
    "grade": set(),
    "debug": set(),
    # A whole program's run: a program whose thread faults has `thread` and `block` in its launch's error.
    "program": set(),
}


def load_schemas(schema_dir):
    schemas = {}
    for name in UNSEEN:
        with open(os.path.join(schema_dir, name + ".schema.json"), encoding="utf-8") as f:
            schemas[name] = json.load(f)
    return schemas


def walk_schema(node, visit, where="#"):
    """Calls visit(subschema, where) for every subschema that is a dict, in every keyword that holds them."""
    if isinstance(node, dict):
        visit(node, where)
        for key, value in node.items():
            if key in ("properties", "$defs", "patternProperties"):
                for name, sub in value.items():
                    walk_schema(sub, visit, f"{where}/{key}/{name}")
            elif key in ("oneOf", "anyOf", "allOf", "prefixItems"):
                for i, sub in enumerate(value):
                    walk_schema(sub, visit, f"{where}/{key}/{i}")
            elif key in ("items", "additionalProperties", "unevaluatedProperties", "not", "if", "then", "else"):
                walk_schema(value, visit, f"{where}/{key}")


def check_schema_documents_every_field(name, schema, failures):
    """Valid draft 2020-12; every property has a description and says what it holds."""
    try:
        jsonschema.Draft202012Validator.check_schema(schema)
    except jsonschema.SchemaError as e:
        failures.append(f"{name}.schema.json is not a valid draft 2020-12 schema: {e.message}")
        return
    if schema.get("$schema") != "https://json-schema.org/draft/2020-12/schema":
        failures.append(f"{name}.schema.json does not say it is draft 2020-12 ($schema)")

    def visit(node, where):
        for key in ("properties", "patternProperties"):
            for prop, sub in node.get(key, {}).items():
                if sub is False:
                    continue  # "must not be here", in one branch of a oneOf
                if "description" not in sub:
                    failures.append(f"{name}.schema.json {where}/{key}/{prop}: no description")
                if not any(k in sub for k in ("type", "const", "enum", "$ref", "oneOf", "anyOf")):
                    failures.append(f"{name}.schema.json {where}/{key}/{prop}: does not say what it holds")
        extra = node.get("additionalProperties")
        if isinstance(extra, dict) and "description" not in extra:
            failures.append(f"{name}.schema.json {where}/additionalProperties: no description")

    walk_schema(schema, visit)


def property_names(schema):
    names = set()
    walk_schema(schema, lambda node, where: names.update(p for p, s in node.get("properties", {}).items()
                                                         if s is not False))
    return names


def key_names(value, free_maps=("params", "buffer_counts")):
    """Every object key anywhere in `value`, except the keys of maps whose keys are the kernel's own names."""
    names = set()
    if isinstance(value, dict):
        for key, sub in value.items():
            names.add(key)
            if key not in free_maps:
                names |= key_names(sub, free_maps)
    elif isinstance(value, list):
        for sub in value:
            names |= key_names(sub, free_maps)
    return names


def errors_of(validator, value):
    return sorted(validator.iter_errors(value), key=lambda e: list(e.absolute_path))


def describe(error):
    """Where and what; for a oneOf that no branch matched, the branch's error that went deepest."""
    path = "/".join(str(p) for p in error.absolute_path) or "(top level)"
    if error.context:
        return f"at {path}: no `{error.validator}` branch matches; closest: " + describe(
            jsonschema.exceptions.best_match(error.context))
    return f"at {path}: {error.message[:300]}"


def objects_in(value, path=(), free_maps=("params", "buffer_counts", "variables", "watches", "watch_notes")):
    """(path, object) for the output's objects: every object key's value, the first element of each array."""
    if isinstance(value, dict):
        yield path, value
        for key, sub in value.items():
            if key not in free_maps:
                yield from objects_in(sub, path + (key,), free_maps)
    elif isinstance(value, list) and value:
        yield from objects_in(value[0], path + (0,), free_maps)


def at(value, path):
    for p in path:
        value = value[p]
    return value


def check_mutations(label, validator, schema, output, failures):
    """An unknown key in any object, or a required top-level key missing, must be refused."""
    for path, _ in objects_in(output):
        mutated = copy.deepcopy(output)
        at(mutated, path)["undocumented_field"] = 1
        if validator.is_valid(mutated):
            where = "/".join(str(p) for p in path) or "the top level"
            failures.append(f"{label}: an undocumented field at {where} was accepted (the schema is not closed there)")
    required = list(schema.get("required", []))
    for ref in ("#/$defs/report",):  # the run report's own required keys sit in its $defs
        if schema.get("$ref") == ref:
            required += schema["$defs"]["report"]["required"]
    for key in required:
        mutated = copy.deepcopy(output)
        del mutated[key]
        if validator.is_valid(mutated):
            failures.append(f"{label}: an output without `{key}` was accepted (not required)")


def kernel_copy(source, folder, name, old, new):
    """The kernel file `source` with one piece of its body replaced: a wrong sum, a compile error."""
    with open(source, encoding="utf-8") as f:
        text = f.read()
    assert old in text, f"{source} no longer has {old!r}"
    text = text.replace(old, new, 1)  # the kernel's line, not the reference's below it
    path = os.path.join(folder, name)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    return path


def main():
    parser = argparse.ArgumentParser(description="Every JSON output of cuda-playground against docs/schema/.")
    parser.add_argument("binary", help="the cuda-playground binary")
    parser.add_argument("source_dir", help="the checkout (its docs/schema and kernels/)")
    parser.add_argument("--schemas", help="the schema folder (default: SOURCE_DIR/docs/schema)")
    args = parser.parse_args()
    binary = args.binary
    schemas = load_schemas(args.schemas or os.path.join(args.source_dir, "docs", "schema"))
    failures = []
    for name, schema in schemas.items():
        check_schema_documents_every_field(name, schema, failures)
    # The small shared definitions are copied into each schema that uses them: the copies must agree.
    defs = {}
    for name, schema in schemas.items():
        for def_name, sub in schema.get("$defs", {}).items():
            if def_name in defs and defs[def_name][1] != sub:
                failures.append(f"$defs/{def_name} differs between {defs[def_name][0]} and {name}.schema.json")
            defs.setdefault(def_name, (name + ".schema.json", sub))

    with tempfile.TemporaryDirectory(prefix="json-schemas-") as tmp:
        cache = os.environ.get("CP_TEST_CACHE_DIR")
        cache = os.path.join(cache, "cli") if cache else os.path.join(tmp, "cache")
        env = dict(os.environ, CUDA_PLAYGROUND_CACHE_DIR=cache, CUDA_PLAYGROUND_REMOTE_PROGRAM=binary)
        env.pop("CUDA_PLAYGROUND_REMOTE", None)  # `info` and `run` here are this machine's unless told
        vector_add = os.path.join(args.source_dir, "kernels", "basics", "vector_add.cu")
        wrong = kernel_copy(vector_add, tmp, "wrong_sum.cu", "c[i] = a[i] + b[i];", "c[i] = a[i] - b[i];")
        broken = kernel_copy(vector_add, tmp, "broken.cu", "c[i] = a[i] + b[i];", "c[i] = a[i] + undeclared;")
        out_dir = os.path.join(tmp, "out")
        # A class of three for `grade`: a right kernel, a wrong one, one that does not compile (from the
        # assignment's students' copy, as students get it).
        assignment = os.path.join(args.source_dir, "tests", "data", "grade", "vector_add_assignment.cu")
        grade_class = os.path.join(tmp, "class")
        os.makedirs(grade_class)
        subprocess.run([binary, "export", assignment, "--for-students", "--out", os.path.join(tmp, "handout.cu")],
                       check=True, capture_output=True)
        handout = os.path.join(tmp, "handout.cu")
        kernel_copy(handout, grade_class, "right.cu", "c[i] = a[i] + b[i];", "c[i] = a[i] + b[i];")
        kernel_copy(handout, grade_class, "wrong.cu", "c[i] = a[i] + b[i];", "c[i] = a[i] - b[i];")
        kernel_copy(handout, grade_class, "broken.cu", "c[i] = a[i] + b[i];", "c[i] = a[i] + undeclared;")
        cpu = ["--backend", "cpu", "--json", "-"]
        programs = os.path.join(args.source_dir, "tests", "data", "programs")
        # (schema, what, arguments, extra environment, exit statuses that are right)
        cases = [
            ("list", "list", ["list", "--json"], {}, {0}),
            ("info", "info here", ["info", "--json"], {}, {0}),
            ("info", "info of a reached server", ["info", "--json", "--remote", "env", "--backend", "cpu"], {}, {0}),
            ("info", "info of an unreachable server", ["info", "--json", "--remote", "false"], {}, {1}),
            ("compile", "compile", ["compile", "basics/vector_add", "--json"], {}, {0}),
            ("compile", "compile --memory", ["compile", "basics/vector_add", "--json", "--memory"], {}, {0}),
            ("compile", "compile --ptx --sass", ["compile", "basics/vector_add", "--json", "--ptx", "--sass", "--arch", "sm_90"], {}, {0}),
            ("compile", "compile --against", ["compile", "matrix/matmul_naive", "--json", "--arch", "sm_90", "--against",
                                              "matrix/matmul_register_blocked"], {}, {0}),
            ("compile", "compile --sass without nvdisasm", ["compile", "basics/vector_add", "--json", "--sass", "--arch", "sm_90"],
             {"CUDA_PLAYGROUND_NVDISASM": "/nonexistent/nvdisasm"}, {1}),
            ("compile", "compile with an error", ["compile", broken, "--json"], {}, {1}),
            ("run", "run", ["run", "basics/vector_add"] + cpu, {}, {0}),
            ("run", "run --coverage --trace --thread-order --out-dir",
             ["run", "basics/thread_ids", "--coverage", "--trace", "--thread-order", "reversed", "--out-dir", out_dir,
              "--repeat", "1"] + cpu, {}, {0}),
            ("run", "run --memory", ["run", "basics/vector_add", "--set", "n=1000", "--memory"] + cpu, {}, {0}),
            ("run", "run of steps, --until-step",
             ["run", "patterns/reduce_two_pass", "--set", "n=5000", "--until-step", "1"] + cpu, {}, {0}),
            ("run", "run of steps", ["run", "patterns/reduce_two_pass", "--set", "n=5000"] + cpu, {}, {0}),
            ("run", "run of streams", ["run", "streams/overlap", "--set", "n=100003", "--repeat", "1"] + cpu, {}, {0}),
            ("run", "run of devices", ["run", "multigpu/split_across_gpus", "--repeat", "1"] + cpu,
             {"CUDA_PLAYGROUND_CPU_DEVICES": "2"}, {0}),
            ("run", "run --compare", ["run", "image/grayscale", "--compare", "--repeat", "1"] + cpu, {}, {0}),
            ("run", "run --compare of a variant that does not exist",
             ["run", "basics/vector_add", "--set", "n=1000", "--compare", "no_such_kernel"] + cpu, {}, {1}),
            ("run", "run of a lesson buggy on purpose", ["run", "mistakes/shared_tile_overflow"] + cpu, {}, {0}),
            ("run", "run that differs from its reference", ["run", wrong, "--set", "n=1001"] + cpu, {}, {2}),
            ("run", "run that does not compile", ["run", broken] + cpu, {}, {1}),
            ("run", "run with a block that leaves lanes idle",
             ["run", "basics/vector_add", "--set", "n=1000", "--block", "100", "--repeat", "1"] + cpu, {}, {0}),
            ("run", "run whose block the device refuses", ["run", "basics/vector_add", "--block", "2048"] + cpu, {}, {1}),
            ("run", "run refused before it starts", ["run", "basics/vector_add", "--repeat", "0"] + cpu, {}, {1}),
            ("run", "run --coverage of an inout buffer",
             ["run", "memory/round_trip", "--set", "n=1001", "--coverage", "--repeat", "1"] + cpu, {}, {0}),
            ("program", "run of a program", ["run", programs + "/reduce_two_launches.cu"] + cpu, {}, {0}),
            ("program", "run of a program whose kernel writes out of bounds",
             ["run", programs + "/out_of_bounds.cu"] + cpu, {}, {1}),
            ("program", "run of a program with a refused launch", ["run", programs + "/bad_block.cu"] + cpu, {}, {0}),
            ("program", "run of a program with --capture",
             ["run", programs + "/stencil_1d.cu", "--capture", os.path.join(tmp, "stencil.cpcap")] + cpu, {}, {0}),
            ("program", "run of a program that calls exit", ["run", programs + "/exit_status.cu"] + cpu, {}, {3}),
            ("program", "run of a program whose host code crashes", ["run", programs + "/host_segfault.cu"] + cpu,
             {}, {1}),
            ("program", "run of a program that does not compile", ["run", programs + "/samples/matrix_scale.cu"] + cpu,
             {}, {1}),
            ("program", "run of a Python script (its arrays' dtype and shape)",
             ["run", os.path.join(args.source_dir, "tests", "data", "scripts", "course", "07_grayscale.py")] + cpu,
             {}, {0}),
            ("grade", "grade a small class", ["grade", assignment, grade_class, "--backend", "cpu", "--out",
                                              os.path.join(tmp, "grade"), "--json", "-"], {}, {0}),
            ("debug", "debug at a barrier", ["debug", "reduction/shared_memory_sum", "--set", "n=100", "--block-dim",
                                             "32", "--barrier", "2", "--json"], {}, {0}),
            ("debug", "debug at a line", ["debug", os.path.join(args.source_dir, "tests", "data", "debug", "branches.cu"),
                                          "--block", "2", "--break", "17", "--json", "--watch", "lane * 2",
                                          "--watch", "out[i]"], {}, {0}),
            ("debug", "debug of a block that faults", ["debug", os.path.join(args.source_dir, "tests", "data", "debug",
                                                                            "past_the_end.cu"),
                                                       "--block", "2", "--json"], {}, {0}),
            ("debug", "debug of a program's launch, one warp alone",
             ["debug", os.path.join(args.source_dir, "tests", "data", "programs", "reduce_two_launches.cu"),
              "--launch", "2", "--warp", "1", "--barrier", "1", "--json", "--", "1000"], {}, {0}),
            ("sweep", "sweep", ["sweep", "basics/vector_add", "--backend", "cpu", "--set", "n=1000", "--blocks",
                                "64,2048,100", "--repeat", "1", "--json", "-"], {}, {0}),
        ]
        seen = {name: set() for name in schemas}
        outputs = 0
        for schema_name, what, args, extra_env, statuses in cases:
            label = f"`{what}` ({' '.join(args)})"
            p = subprocess.run([binary] + args, capture_output=True, text=True, env=dict(env, **extra_env),
                               timeout=600)
            if p.returncode not in statuses:
                failures.append(f"{label} exited {p.returncode}, not {sorted(statuses)}:\n{p.stderr[-2000:]}")
                continue
            try:
                output = json.loads(p.stdout)
            except json.JSONDecodeError as e:
                failures.append(f"{label} did not print JSON ({e}):\n{p.stdout[:500]}{p.stderr[-1000:]}")
                continue
            outputs += 1
            schema = schemas[schema_name]
            validator = jsonschema.Draft202012Validator(schema)
            errors = errors_of(validator, output)
            for e in errors[:10]:
                failures.append(f"{label} against {schema_name}.schema.json {describe(e)}")
            version = schema["properties"]["schema_version"]["const"] if "schema_version" in schema.get(
                "properties", {}) else schema["$defs"]["report"]["properties"]["schema_version"]["const"]
            if output.get("schema_version") != version:
                failures.append(f"{label}: schema_version {output.get('schema_version')!r}, the schema's is {version}")
            if not errors:
                check_mutations(label, validator, schema, output, failures)
            seen[schema_name] |= key_names(output)
        print(f"{outputs} of {len(cases)} outputs read")

    for name, schema in schemas.items():
        never = property_names(schema) - seen[name] - UNSEEN[name]
        if never:
            failures.append(f"{name}.schema.json documents fields no output here has: {sorted(never)} "
                            "(misspelt, gone, or to be listed in UNSEEN with why)")
        stale = UNSEEN[name] & seen[name]
        if stale:
            failures.append(f"UNSEEN[{name!r}] lists fields an output here has: {sorted(stale)} (take them out)")

    for f in failures:
        print("FAIL:", f)
    if failures:
        print(f"{len(failures)} failure(s)")
        return 1
    print(f"all outputs match their schemas ({', '.join(sorted(schemas))})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
