#!/usr/bin/python3
"""The slice battery: every combination of slice start/stop/step (omitted, in range, negative,
out of range, huge) and of integer positions, on 1-D and 2-D tensors of several extents
(0 and 1 included), run through rung and compared with NumPy's own slicing of the same
expression text.

  slice_battery.py RUNG BACKEND [--diagnostics | --static-only]

Per tensor shape one .rung program slices a parameter every way (each slice `let`-bound with
the type NumPy's result has, so a wrong length is a compile error at that slice) and returns
the flattened slices concatenated; one workflow document does the same with `slice` nodes,
one output per slice. Both run on BACKEND and are compared element by element. Run-time
positions (`x[i, :]` with a loop variable, an `i64` argument) are checked too, including
the run-time error for one out of range. With --diagnostics (backend independent, run once):
a zero step and positions out of range must be the coded compile errors E2130 / E2131, one per
case, where NumPy raises; a zero step in a workflow must be W0006.
"""
import itertools
import json
import os
import re
import subprocess
import sys
import tempfile

import numpy as np

RUNG, BACKEND = sys.argv[1], sys.argv[2]
DIAGNOSTICS = "--diagnostics" in sys.argv[3:]
STATIC_ONLY = "--static-only" in sys.argv[3:]  # no run-time positions (they need i64 scalar kernels)
HUGE = 10**18  # exact in a double, far beyond any extent
BOUNDS = [None, 0, 1, 3, -1, -3, 9, -9, HUGE, -HUGE]
STEPS = [None, 1, 2, 3, -1, -2, -3, 0, HUGE, -HUGE]
SHAPES = [(0,), (1,), (4,), (7,), (3, 4), (1, 2), (0, 3), (4, 1), (2, 0)]
PREAMBLE = "module battery;\n\ntier debug;\ntolerance exact;\n\n"
failures = []


def text(v):
    return "" if v is None else str(v)


def slice_text(a, b, c, k):
    if c is None:  # both spellings of an omitted step
        return f"{text(a)}:{text(b)}" + (":" if k % 2 else "")
    return f"{text(a)}:{text(b)}:{text(c)}"


def triples():
    return [(a, b, c) for a in BOUNDS for b in BOUNDS for c in STEPS]


def positions(n):
    return list(range(-n - 2, n + 2))


def index_texts(shape):
    """Every index-list text for a tensor of this shape (some NumPy rejects)."""
    t = triples()
    out = []
    if len(shape) == 1:
        out += ["x[" + slice_text(a, b, c, k) + "]" for k, (a, b, c) in enumerate(t)]
        out += [f"x[{i}]" for i in positions(shape[0])]
        out += ["x[:]", "x[::]", "x[-HUGE:HUGE]".replace("HUGE", str(HUGE))]
        return out
    r, c = shape
    out += ["x[" + slice_text(*t[k], k) + "]" for k in range(len(t))]  # axis 0, axis 1 whole
    out += ["x[:, " + slice_text(*t[k], k) + "]" for k in range(len(t))]
    # Both axes: each triple paired with another (a fixed stride through the list).
    out += ["x[" + slice_text(*t[k], k) + ", " + slice_text(*t[(k * 37 + 11) % len(t)], k + 1) + "]" for k in range(len(t))]
    few = [(None, None, -1), (1, None, None), (None, -1, 2), (-HUGE, HUGE, -2), (5, -9, -1), (0, 0, None)]
    for i in positions(r):
        out += [f"x[{i}]", f"x[{i}, :]"] + [f"x[{i}, {slice_text(*s, 0)}]" for s in few]
    for j in positions(c):
        out += [f"x[:, {j}]"] + [f"x[{slice_text(*s, 1)}, {j}]" for s in few]
    for i, j in itertools.product(positions(r), positions(c)):
        out.append(f"x[{i}, {j}]")
    return out


def numpy_result(expr, x):
    try:
        return eval(expr, {"x": x}), None
    except IndexError:
        return None, "E2131"
    except ValueError as e:
        assert "step cannot be zero" in str(e), e
        return None, "E2130"


def ty(a):
    return "f32[" + ", ".join(str(d) for d in a.shape) + "]" if a.ndim else "f32"


def run(args, expect_ok=True):
    p = subprocess.run([RUNG] + args, capture_output=True, text=True)
    if expect_ok and p.returncode != 0:
        failures.append("`rung " + " ".join(args) + "` failed:\n" + p.stdout + p.stderr)
    return p


def save(path, a):
    np.save(path, a)


def compare(label, exprs, want, got):
    """want/got: per expression an array. Records each difference with its expression."""
    bad = 0
    for e, w, g in zip(exprs, want, got):
        if g is None or w.shape != g.shape or not np.array_equal(w, g):
            bad += 1
            if bad <= 20:
                failures.append(f"{label}: {e}: numpy {w.shape} {w.ravel()[:8]}, rung {None if g is None else (g.shape, g.ravel()[:8])}")
    return bad


def concat_tree(pieces):
    """concat(...) of the pieces, at most 8 operands per concat (a kernel's buffer limit)."""
    while len(pieces) > 8:
        pieces = ["concat(" + ", ".join(pieces[i:i + 8]) + ", axis: 0)" for i in range(0, len(pieces), 8)]
    return "concat(" + ", ".join(pieces) + ", axis: 0)"


def battery_program(tmp, shape, x, cases):
    """One .rung program: every case let-bound with NumPy's type, all flattened and concatenated."""
    lines, pieces = [], []
    for k, (e, w) in enumerate(cases):
        lines.append(f"    let s{k}: {ty(w)} = {e};")
        pieces.append(f"reshape(s{k}, shape: [{w.size}])")
    total = sum(w.size for _, w in cases)
    param = "f32[" + ", ".join(map(str, shape)) + "]"
    body = "\n".join(lines) + "\n    " + concat_tree(pieces) + "\n"
    src = PREAMBLE + f"export fn slices(x: {param}) -> f32[{total}] {{\n{body}}}\n"
    name = "prog_" + "x".join(map(str, shape))
    path = os.path.join(tmp, name + ".rung")
    open(path, "w").write(src)
    save(os.path.join(tmp, name + "_x.npy"), x)
    out = os.path.join(tmp, name + "_out")
    p = run(["run", path, "--backend", BACKEND, "--arg", f"x={tmp}/{name}_x.npy", "--out", out])
    if p.returncode != 0:
        return
    files = [f for f in os.listdir(out) if f.endswith(".npy")]
    got = np.load(os.path.join(out, files[0])) if len(files) == 1 else None
    if got is None or got.size != total:
        failures.append(f"{name}: expected one output of {total} elements, got {files}")
        return
    parts, at = [], 0
    for _, w in cases:  # the types fixed each length, so the offsets are NumPy's
        parts.append(got[at:at + w.size].reshape(w.shape))
        at += w.size
    bad = compare(name, [e for e, _ in cases], [w for _, w in cases], parts)
    print(f"{name}: {len(cases)} slices, {total} elements, {bad} differ")


def workflow_attrs(expr, rank):
    """The `slice` node (and the axes it drops) for a literal index text, or None for `x[:]`."""
    items = [s.strip() for s in expr[2:-1].split(",")]
    starts, ends, axes, steps, drop = [], [], [], [], []
    for ax, it in enumerate(items):
        if ":" not in it:
            i = int(it)
            starts.append(i), ends.append(i + 1 if i != -1 else 2**63 - 1), axes.append(ax), steps.append(1), drop.append(ax)
            continue
        parts = (it.split(":") + [""])[:3]
        if not any(parts):
            continue
        st = int(parts[2]) if parts[2] else 1
        # Python's None: the int64 extreme on its side (docs/semantics.md, `slice`).
        starts.append(int(parts[0]) if parts[0] else (2**63 - 1 if st < 0 else 0))
        ends.append(int(parts[1]) if parts[1] else (-2**63 if st < 0 else 2**63 - 1))
        axes.append(ax), steps.append(st)
    return {"starts": starts, "ends": ends, "axes": axes, "steps": steps}, drop


def battery_workflow(tmp, shape, x, cases):
    """The same slices as `slice` nodes of one workflow, each flattened by a `reshape` to
    NumPy's element count (a wrong count is a W0006 at that node), all concatenated."""
    nodes, edges, used = [], [], []
    for k, (e, w) in enumerate(cases):
        attrs, _ = workflow_attrs(e, len(shape))
        if not attrs["axes"]:
            continue
        nodes.append({"id": f"s{k}", "op": "slice", "attrs": attrs})
        nodes.append({"id": f"f{k}", "op": "reshape", "attrs": {"shape": [w.size]}})
        edges += [{"from": "x", "to": f"s{k}.x"}, {"from": f"s{k}", "to": f"f{k}.x"}]
        used.append((e, w))
    level = [n["id"] for n in nodes if n["id"].startswith("f")]
    depth = 0
    while True:  # concats of at most 8 operands (a kernel's buffer limit), the last one `all`
        groups = [level[i:i + 8] for i in range(0, len(level), 8)] or [[]]
        last = len(groups) == 1
        ids = ["all" if last else f"c{depth}_{g}" for g in range(len(groups))]
        for cid, grp in zip(ids, groups):
            nodes.append({"id": cid, "op": "concat", "attrs": {"axis": 0}})
            edges += [{"from": src, "to": cid + ".xs"} for src in grp]
        if last:
            break
        level, depth = ids, depth + 1
    doc = {"format": "rung-workflow", "version": 1, "name": "slices", "tier": "debug", "tolerance": "exact",
           "inputs": [{"name": "x", "type": "f32[" + ", ".join(map(str, shape)) + "]"}],
           "nodes": nodes, "edges": edges, "outputs": [{"name": "all", "from": "all"}]}
    name = "wf_" + "x".join(map(str, shape))
    path = os.path.join(tmp, name + ".json")
    json.dump(doc, open(path, "w"))
    save(os.path.join(tmp, name + "_x.npy"), x)
    out = os.path.join(tmp, name + "_out")
    p = run(["run", path, "--backend", BACKEND, "--arg", f"x={tmp}/{name}_x.npy", "--out", out])
    if p.returncode != 0:
        return
    got = np.load(os.path.join(out, "all.npy")).ravel()
    parts, at = [], 0
    for _, w in used:  # each reshape fixed its count, so the offsets are NumPy's
        parts.append(got[at:at + w.size].reshape(w.shape))
        at += w.size
    bad = compare(name, [e for e, _ in used], [w for _, w in used], parts)
    print(f"{name}: {len(used)} slice nodes, {at} elements, {bad} differ")


def problems(expr, shape):
    """(has a zero step, has a position out of range) of an index text."""
    zero = bad = False
    for n, it in zip(shape, (t.strip() for t in expr[2:-1].split(","))):
        if ":" in it:
            zero = zero or it.split(":")[2:] == ["0"]
        else:
            bad = bad or not -n <= int(it) < n
    return zero, bad


def diagnostics(tmp, shape, errors):
    """Each rejected case in a function of its own: one coded error each, where NumPy raises.
    The first bad item from the left is reported: E2130 (zero step) or E2131 (a position out
    of range); a case with both may give either."""
    param = "f32[" + ", ".join(map(str, shape)) + "]"
    for c0 in range(0, len(errors), 50):  # files small enough for any cap on diagnostics
        chunk = errors[c0:c0 + 50]
        fns = [f"fn e{k}(x: {param}) -> f32 {{\n    let s = {e};\n    0.0\n}}\n" for k, (e, _) in enumerate(chunk)]
        name = "err_" + "x".join(map(str, shape)) + f"_{c0}"
        path = os.path.join(tmp, name + ".rung")
        open(path, "w").write(PREAMBLE + "\n".join(fns))
        p = run(["check", path], expect_ok=False)
        out = p.stderr + p.stdout
        n30, n31 = (len(re.findall(r"error\[" + c + r"\]", out)) for c in ("E2130", "E2131"))
        n_err = len(re.findall(r"error\[", out))
        kinds = [problems(e, shape) for e, _ in chunk]
        zero = sum(1 for z, b in kinds if z and not b)
        mixed = sum(1 for z, b in kinds if z and b)
        if n_err != len(chunk) or n30 + n31 != len(chunk) or not (zero <= n30 <= zero + mixed):
            failures.append(f"{name}: {len(chunk)} cases NumPy rejects ({zero} zero steps), rung: {n_err} errors, "
                            f"{n30} E2130, {n31} E2131:\n{out[:3000]}")
    print(f"err_{'x'.join(map(str, shape))}: {len(errors)} rejected cases, each a coded error")


def workflow_zero_step(tmp):
    doc = {"format": "rung-workflow", "version": 1, "name": "zero", "tier": "debug",
           "inputs": [{"name": "x", "type": "f32[4]"}],
           "nodes": [{"id": "s", "op": "slice", "attrs": {"starts": [0], "ends": [4], "steps": [0]}}],
           "edges": [{"from": "x", "to": "s.x"}], "outputs": [{"name": "y", "from": "s"}]}
    path = os.path.join(tmp, "zero.json")
    json.dump(doc, open(path, "w"))
    p = run(["check", path], expect_ok=False)
    if p.returncode == 0 or "error[W0006]" not in p.stderr or "step" not in p.stderr:
        failures.append("a workflow slice with step 0 is not W0006:\n" + p.stderr)


RUNTIME = PREAMBLE + """\
// Run-time positions: loop variables and an argument index rows and columns.
export fn walk(x: f32[4, 3]) -> f32[16] {
    let mut rows = x[0] * 0.0;
    let mut back = x[0] * 0.0;
    let mut cols = x[:, 0] * 0.0;
    let mut picks = x[0, 0] * 0.0;
    for i in 0..4 {
        rows = rows * 8.0 + x[i, :];
        back = back * 8.0 + x[-1 - i];
        picks = picks * 8.0 + x[i, i - 3];
    }
    for j in 0..3 {
        cols = cols * 8.0 + x[:, j];
    }
    let mut steps = x[0, ::-1] * 0.0;
    for i in 0..4 {
        steps = steps * 8.0 + x[i, ::-1];
    }
    let mut tail = x[0, 1:] * 0.0;
    for i in 0..4 {
        tail = tail * 8.0 + x[i - 4, 1:];
    }
    concat(rows, back, cols, reshape(picks, shape: [1]), steps, tail, axis: 0)
}

export fn pick(x: f32[4, 3], k: i64) -> f32[3] {
    x[k]
}

// A symbolic dim: reversed whole, and indexed from the front.
export fn sym[N](x: f32[N, 3]) -> f32[N, 3] {
    x[::-1, ::-1] + x[1] * 100.0 + x[:, 2:][::-1] * 10000.0
}
"""


def runtime_positions(tmp):
    path = os.path.join(tmp, "runtime.rung")
    open(path, "w").write(RUNTIME)
    x = (np.arange(12, dtype=np.float32).reshape(4, 3) % 7)
    save(os.path.join(tmp, "rx.npy"), x)

    def fold(vals):
        acc = vals[0] * 0
        for v in vals:
            acc = acc * 8 + v
        return np.asarray(acc, dtype=np.float64)

    picks = fold([x[i, i - 3] for i in range(4)])
    want = np.concatenate([fold([x[i, :] for i in range(4)]), fold([x[-1 - i] for i in range(4)]),
                           fold([x[:, j] for j in range(3)]), [picks], fold([x[i, ::-1] for i in range(4)]),
                           fold([x[i - 4, 1:] for i in range(4)])]).astype(np.float32)
    out = os.path.join(tmp, "rt_out")
    p = run(["run", path, "--entry", "walk", "--backend", BACKEND, "--arg", f"x={tmp}/rx.npy", "--out", out])
    if p.returncode == 0:
        got = np.load(os.path.join(out, os.listdir(out)[0]))
        if not np.array_equal(got, want):
            failures.append(f"run-time positions: numpy {want}, rung {got}")
    for k in range(-4, 4):
        np.save(os.path.join(tmp, "k.npy"), np.array(k, dtype=np.int64))
        out = os.path.join(tmp, f"pick_out{k}")
        p = run(["run", path, "--entry", "pick", "--backend", BACKEND, "--arg", f"x={tmp}/rx.npy",
                 "--arg", f"k={tmp}/k.npy", "--out", out])
        if p.returncode == 0:
            got = np.load(os.path.join(out, os.listdir(out)[0]))
            if not np.array_equal(got, x[k]):
                failures.append(f"x[k] with k = {k}: numpy {x[k]}, rung {got}")
    for k in (4, -5, 1 << 40, -(1 << 40)):
        np.save(os.path.join(tmp, "k.npy"), np.array(k, dtype=np.int64))
        p = run(["run", path, "--entry", "pick", "--backend", BACKEND, "--arg", f"x={tmp}/rx.npy",
                 "--arg", f"k={tmp}/k.npy"], expect_ok=False)
        if p.returncode == 0 or "error[N0012]" not in p.stderr or str(k) not in p.stderr:
            failures.append(f"x[k] with k = {k} out of range: not a run-time N0012 naming {k}:\n{p.stdout}{p.stderr}")
    for rows in (2, 5):
        xs = (np.arange(rows * 3, dtype=np.float32).reshape(rows, 3) % 7)
        save(os.path.join(tmp, "xs.npy"), xs)
        out = os.path.join(tmp, f"sym_out{rows}")
        p = run(["run", path, "--entry", "sym", "--backend", BACKEND, "--arg", f"x={tmp}/xs.npy", "--out", out])
        want = xs[::-1, ::-1] + xs[1] * 100 + xs[:, 2:][::-1] * 10000
        if p.returncode == 0:
            got = np.load(os.path.join(out, os.listdir(out)[0]))
            if not np.array_equal(got, want):
                failures.append(f"symbolic N = {rows}: numpy {want}, rung {got}")
    print("run-time positions: loop variables, 8 in-range and 4 out-of-range arguments; a symbolic dim")


def main():
    with tempfile.TemporaryDirectory() as tmp:
        total = 0
        for shape in SHAPES:
            x = (np.arange(int(np.prod(shape)), dtype=np.float32) + 1).reshape(shape)
            ok, errors = [], []
            for e in index_texts(shape):
                w, code = numpy_result(e, x)
                if code:
                    errors.append((e, code))
                else:
                    ok.append((e, np.asarray(w, dtype=np.float32)))
            total += len(ok) + len(errors)
            if DIAGNOSTICS:
                diagnostics(tmp, shape, errors)
                continue
            battery_program(tmp, shape, x, ok)
            battery_workflow(tmp, shape, x, ok)
        if DIAGNOSTICS:
            workflow_zero_step(tmp)
        elif STATIC_ONLY:
            print("run-time positions not run (--static-only)")
        else:
            runtime_positions(tmp)
        print(f"{total} index expressions over {len(SHAPES)} shapes on {BACKEND}")
    for f in failures:
        print("FAIL:", f)
    sys.exit(1 if failures else 0)


main()
