#!/usr/bin/python3
"""Runs the ONNX node tests on rung (through the Python module) and writes what judge.py reads.

  PYTHONPATH=build/python /usr/bin/python3 tests/onnx/run_rung_node_tests.py SUITE OUTDIR
      [--backend cpu] [--tier debug] [--filter REGEX] [--timeout SECONDS] [--jobs N]

SUITE: one folder per test (model.onnx, test_data_set_N/input_K.npy from scripts/onnx-node-npy.py).
OUTDIR/<test>/test_data_set_N/output_K.npy in the entry's result order, and OUTDIR/<test>/status.json
{"status": "ran" | "refused" | "not attempted", "stage": "load" | "run" | "crash" | "timeout", "reason": ...,
 "specialized": bool, "bound": [input names]}.
A load refused with I0012 whose notes name graph inputs to bind ("bind the graph input "NAME" at import") is
retried with those inputs bound to the data set's values (rung.load(bind=...), once per data set, as the values
may differ), the rest passed at run time: the test is then "specialized", a mark judge.py counts, not a verdict.
A BFLOAT16 input (the .npy holds its bit patterns as uint16) is handed to rung as a bf16 tensor of those bits.
A test is refused when rung declines it with a coded diagnostic (the reason is the code and message); a
crash or a hang of rung is not a refusal: the worker that ran it is replaced, and the test says "crash" or
"timeout", which judge.py counts as FAIL. Tests run in worker processes, so one crash loses one test.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import time

try:
    import numpy as np
except ImportError as e:
    sys.exit(f"run_rung_node_tests: {e}: install Debian's python3-numpy, run with /usr/bin/python3")


def data_sets(d):
    sets = [s for s in os.listdir(d) if re.fullmatch(r"test_data_set_\d+", s)]
    return sorted(sets, key=lambda s: int(s.rsplit("_", 1)[1]))


def numbered(d, prefix):
    files = [f for f in os.listdir(d) if re.fullmatch(prefix + r"_\d+\.npy", f)]
    return [os.path.join(d, f) for f in sorted(files, key=lambda f: int(f[len(prefix) + 1:-4]))]


def write_status(out, status, stage, reason, bound=()):
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "status.json"), "w") as f:
        json.dump({"status": status, "stage": stage, "reason": reason, "specialized": bool(bound), "bound": sorted(bound)}, f)


BIND_NOTE = re.compile(r'^bind the graph input "((?:[^"\\]|\\.)*)" at import:')


def inputs_to_bind(error):
    """The graph inputs an I0012 refusal asks to bind (its notes' stable phrase), else []."""
    names = []
    for d in error.diagnostics:
        if d.code == "I0012" and d.severity == "error":
            for note in d.notes:
                m = BIND_NOTE.match(note)
                if m:
                    names.append(re.sub(r"\\(.)", r"\1", m.group(1)))
    return names


def graph_inputs(model_path):
    """The graph inputs a data set's input_K.npy feed, in order (initializers excluded), and which are BFLOAT16."""
    import onnx
    m = onnx.load(model_path, load_external_data=False)
    inits = {t.name for t in m.graph.initializer}
    ins = [v for v in m.graph.input if v.name not in inits]
    return [v.name for v in ins], {v.name for v in ins if v.type.tensor_type.elem_type == onnx.TensorProto.BFLOAT16}


def load_specialized(rung, model, tier, values, bound):
    """Loads `model`, binding the inputs in `bound` (grown while I0012 names more) to `values`."""
    while True:
        try:
            return rung.load(model, tier=tier, bind={n: values[n] for n in sorted(bound)})
        except rung.Error as e:
            more = [n for n in inputs_to_bind(e) if n in values and n not in bound]
            if not more:
                raise
            bound.update(more)


def run_test(rung, suite, name, outdir, backend, tier):
    test, out = os.path.join(suite, name), os.path.join(outdir, name)
    model = os.path.join(test, "model.onnx")
    sets = data_sets(test)
    for s in sets:
        inputs, outputs = numbered(os.path.join(test, s), "input"), numbered(os.path.join(test, s), "output")
        pbs = [f for f in os.listdir(os.path.join(test, s)) if f.endswith(".pb")]
        if len(inputs) + len(outputs) < len(pbs):  # a string, sequence or optional value: no .npy
            return write_status(out, "not attempted", "load", "an input or output is not a tensor judge.py can read")
    names, bf16 = graph_inputs(model)
    bound = set()  # the inputs bound at import; one program per data set once there are any
    program = None
    for s in sets:
        arrays = [np.load(p) for p in numbered(os.path.join(test, s), "input")]
        if len(arrays) != len(names):
            return write_status(out, "refused", "run", f"the model has {len(names)} graph inputs; the data set has {len(arrays)}")
        values = {n: rung.Tensor(a, dtype="bf16") if n in bf16 else a for n, a in zip(names, arrays)}
        if program is None or bound:
            try:
                program = load_specialized(rung, model, tier, values, bound)
            except rung.Error as e:
                return write_status(out, "refused", "load", f"{e.code} {e.message}", bound)
        params = [p.name for p in program.entries[0].params]
        if sorted(params) != sorted(n for n in names if n not in bound):
            return write_status(out, "refused", "run", f"the entry takes {params}; the graph inputs left are "
                                f"{[n for n in names if n not in bound]}", bound)
        try:
            with program.session(backend=backend) as session:
                result = session.run(inputs={p: values[p] for p in params})
        except rung.Error as e:
            return write_status(out, "refused", "run", f"{e.code} {e.message}", bound)
        os.makedirs(os.path.join(out, s), exist_ok=True)
        for k, t in enumerate(result.outputs.values()):
            # bf16 has no numpy dtype: its bit patterns as uint16, the layout judge.py reads
            array = np.asarray(t.bits()) if t.dtype == "bf16" else np.asarray(t)
            np.save(os.path.join(out, s, f"output_{k}.npy"), array)
    write_status(out, "ran", "run", "", bound)


def worker(args):
    import rung  # here, not at the top: the parent needs no rung
    import warnings
    warnings.simplefilter("ignore")  # C0016 and friends: the tier is the runner's choice
    for line in sys.stdin:
        name = line.strip()
        if not name:
            continue
        run_test(rung, args.suite, name, args.outdir, args.backend, args.tier)
        print(name, flush=True)  # done: the parent moves on


def parent(args):
    names = sorted(n for n in os.listdir(args.suite) if os.path.isfile(os.path.join(args.suite, n, "model.onnx")))
    if args.filter:
        names = [n for n in names if re.search(args.filter, n)]
    if not names:
        sys.exit(f"run_rung_node_tests: no tests in {args.suite} (run scripts/onnx-node-data.py --npy first)")
    os.makedirs(args.outdir, exist_ok=True)
    todo, started, lost = list(names), time.time(), 0
    while todo:
        # One worker at a time keeps the order and the timing plain; it serves tests until one kills it.
        cmd = [sys.executable, os.path.abspath(__file__), "--worker", args.suite, args.outdir,
               "--backend", args.backend, "--tier", args.tier]
        w = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)
        while todo:
            name = todo[0]
            w.stdin.write(name + "\n")
            w.stdin.flush()
            done = _read_line(w, args.timeout)
            if done == name:
                todo.pop(0)
                n = len(names) - len(todo)
                if n % 100 == 0 or not todo:
                    print(f"rung node tests: {n}/{len(names)} ({time.time() - started:.0f} s)", file=sys.stderr)
                continue
            stage = "timeout" if done is None else "crash"
            w.kill()
            w.wait()
            write_status(os.path.join(args.outdir, name), "ran", stage,
                         f"rung {'did not finish within %g s' % args.timeout if done is None else 'exited with status %s' % w.returncode}")
            print(f"rung node tests: {name}: {stage}", file=sys.stderr)
            todo.pop(0)
            lost += 1
            break
        else:
            w.stdin.close()
            w.wait()
    print(f"rung node tests: {len(names)} run on {args.backend}, tier {args.tier}, {lost} crashed or timed out", file=sys.stderr)
    return 1 if lost else 0


def _read_line(w, timeout):
    import select
    ready, _, _ = select.select([w.stdout], [], [], timeout)
    if not ready:
        return None
    line = w.stdout.readline()
    return line.strip() if line else ""


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("suite")
    ap.add_argument("outdir")
    ap.add_argument("--backend", default="cpu")
    ap.add_argument("--tier", default="debug")
    ap.add_argument("--filter")
    ap.add_argument("--timeout", type=float, default=120.0)
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker:
        return worker(args)
    return parent(args)


if __name__ == "__main__":
    sys.exit(main())
