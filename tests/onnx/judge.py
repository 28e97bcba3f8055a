#!/usr/bin/python3
"""Judge a backend's outputs on ONNX test cases by the node suite's rule, optionally against a second backend.

  /usr/bin/python3 tests/onnx/judge.py SUITE GOT [--peer OTHER] [--filter REGEX] [--json] [--verbose]

SUITE: one folder per test (model.onnx, test_data_set_N/output_K.npy from scripts/onnx-node-npy.py).
GOT (and OTHER): OUTDIR/<test>/test_data_set_N/output_K.npy, plus an optional OUTDIR/<test>/status.json
  {"status": "ran" | "refused" | "not attempted", "reason": ...}; any backend (onnxruntime, rung) writes this.
Rule (onnx.backend.test's assert_similar_outputs with the node tests' rtol=1e-3, atol=1e-7): same dtype and
shape, |got - want| <= atol + rtol*|want| elementwise, NaN where NaN, inf where inf of the same sign.
Verdicts: pass, FAIL, refused, not attempted; `specialized` (status.json: graph inputs bound at import) is a mark
on a test, counted beside the verdicts, never a verdict of its own. Max ulp is taken only where |want| > atol (across zero ulps explode).
BFLOAT16 values are uint16 bit patterns in the .npy; the model's declared type says so.
--peer: per output, whether GOT and OTHER are equal bit for bit, and how many tests both pass.
"""
import argparse
import json
import os
import re
import sys

try:
    import numpy as np
    import onnx
    from onnx import TensorProto
except ImportError as e:
    sys.exit(f"judge: {e}: install Debian's python3-onnx and python3-numpy, run with /usr/bin/python3")

RTOL, ATOL = 1e-3, 1e-7
VERDICTS = ("pass", "FAIL", "refused", "not attempted")


def data_sets(d):
    sets = [s for s in os.listdir(d) if re.fullmatch(r"test_data_set_\d+", s)]
    return sorted(sets, key=lambda s: int(s.rsplit("_", 1)[1]))


def declared_outputs(model_path):
    """Per graph output: 'bfloat16', 'tensor' or the non-tensor kind (sequence_type, ...)."""
    m = onnx.load(model_path, load_external_data=False)
    kinds = []
    for v in m.graph.output:
        k = v.type.WhichOneof("value")
        if k == "tensor_type" and v.type.tensor_type.elem_type == TensorProto.BFLOAT16:
            k = "bfloat16"
        kinds.append("tensor" if k == "tensor_type" else k)
    return kinds


def as_float(a, kind):
    if kind == "bfloat16":
        return (a.astype(np.uint32) << 16).view(np.float32)
    return a


def ordered(bits, width):
    """Float bit patterns (as integers) made monotonic: their difference is the distance in ulps."""
    i = bits.astype(np.int64) if width < 64 else bits.view(np.int64)
    mag = i & np.int64((1 << (width - 1)) - 1)
    neg = (i >> np.int64(width - 1)) & 1 if width < 64 else i < 0
    return np.where(neg.astype(bool), -mag, mag)


def ulps(got, want, kind):
    """Max ulp distance where |want| > atol and both are finite, in want's own format."""
    if kind == "bfloat16":
        width, gb, wb = 16, got, want
    elif got.dtype.kind == "f":
        width = 8 * got.dtype.itemsize
        uint = {16: np.uint16, 32: np.uint32, 64: np.uint64}[width]
        gb, wb = got.view(uint), want.view(uint)
    else:
        return None
    gf, wf = as_float(got, kind), as_float(want, kind)
    sel = (np.abs(wf) > ATOL) & np.isfinite(wf) & np.isfinite(gf)
    if not sel.any():
        return None
    gi, wi = ordered(gb[sel], width), ordered(wb[sel], width)
    if width == 64:  # int64 differences across signs can overflow; Python ints cannot
        return int(np.abs(gi.astype(object) - wi.astype(object)).max())
    return int(np.abs(gi - wi).max())


def compare(got, want, kind):
    """None when the output passes, else the reason; plus (max_ulp, max_abs, exact)."""
    exact = got.dtype == want.dtype and got.shape == want.shape and got.tobytes() == want.tobytes()
    if got.dtype != want.dtype:
        return f"dtype {got.dtype} where {want.dtype} is expected", None, None, False
    if got.shape != want.shape:
        return f"shape {got.shape} where {want.shape} is expected", None, None, False
    g = as_float(got, kind).astype(np.float64) if got.dtype != np.bool_ else got.astype(np.float64)
    w = as_float(want, kind).astype(np.float64) if want.dtype != np.bool_ else want.astype(np.float64)
    if got.dtype.kind in "iu":  # int64 does not fit float64; compare as the integers they are
        diff = np.abs(got.astype(object) - want.astype(object)).astype(np.float64) if got.dtype.itemsize == 8 \
            else np.abs(g - w)
    else:
        with np.errstate(invalid="ignore"):
            diff = np.abs(g - w)
    gn, wn = np.isnan(g), np.isnan(w)
    same_inf = np.isinf(w) & (g == w)
    with np.errstate(invalid="ignore"):
        ok = (gn & wn) | same_inf | (np.isfinite(g) & np.isfinite(w) & (diff <= ATOL + RTOL * np.abs(w)))
    finite = np.isfinite(g) & np.isfinite(w)
    max_abs = float(diff[finite].max()) if finite.any() else None
    max_ulp = ulps(got, want, kind)
    if ok.all():
        return None, max_ulp, max_abs, exact
    idx = np.unravel_index(int(np.argmin(ok.reshape(-1))), want.shape) if want.ndim else ()
    bad = int((~ok).sum())
    return (f"{bad} of {want.size} elements off; first at {list(map(int, idx))}: "
            f"got {g[idx]!r} want {w[idx]!r}"), max_ulp, max_abs, exact


def status_of(gotdir):
    p = os.path.join(gotdir, "status.json")
    if os.path.exists(p):
        with open(p) as f:
            return json.load(f)
    return {"status": "ran"} if os.path.isdir(gotdir) else None


def judge_test(suite, name, got_root):
    d = os.path.join(suite, name)
    kinds = declared_outputs(os.path.join(d, "model.onnx"))
    r = {"verdict": None, "reason": None, "outputs": []}
    st = status_of(os.path.join(got_root, name))
    r["specialized"] = bool(st and st.get("specialized"))
    if st is None:
        r.update(verdict="not attempted", reason="no output folder")
        return r
    if st.get("status") in ("refused", "not attempted"):
        stage = f"at {st['stage']}: " if st.get("stage") else ""
        r.update(verdict=st["status"], reason=stage + str(st.get("reason", "")))
        return r
    if st.get("stage") in ("crash", "timeout"):  # the runner lost the backend on this test: a failure, not a refusal
        r.update(verdict="FAIL", reason=f"{st['stage']}: {st.get('reason', '')}")
        return r
    for s in data_sets(d):
        for k, kind in enumerate(kinds):
            want_p = os.path.join(d, s, f"output_{k}.npy")
            if not os.path.exists(want_p):
                why = kind if kind != "tensor" else "a string tensor"
                r.update(verdict="not attempted", reason=f"expected output_{k} is {why}: no .npy to compare")
                return r
            got_p = os.path.join(got_root, name, s, f"output_{k}.npy")
            if not os.path.exists(got_p):
                r["reason"] = r["reason"] or f"{s}/output_{k} missing"
                r["outputs"].append({"set": s, "k": k, "ok": False, "exact": False})
                continue
            got, want = np.load(got_p, allow_pickle=False), np.load(want_p, allow_pickle=False)
            reason, mu, ma, exact = compare(got, want, kind)
            r["outputs"].append({"set": s, "k": k, "ok": reason is None, "max_ulp": mu, "max_abs": ma,
                                 "exact": exact})
            if reason and not r["reason"]:
                r["reason"] = f"{s}/output_{k}: {reason}"
    r["verdict"] = "FAIL" if r["reason"] else "pass"
    r["exact"] = r["verdict"] == "pass" and all(o["exact"] for o in r["outputs"])
    ups = [o["max_ulp"] for o in r["outputs"] if o.get("max_ulp") is not None]
    abss = [o["max_abs"] for o in r["outputs"] if o.get("max_abs") is not None]
    r["max_ulp"] = max(ups) if ups else None
    r["max_abs"] = max(abss) if abss else None
    return r


def bits_equal(a_root, b_root, name, suite):
    """Per output present in both trees: equal bit for bit (dtype, shape, bytes)."""
    res = []
    d = os.path.join(suite, name)
    for s in data_sets(d):
        k = 0
        while os.path.exists(os.path.join(d, s, f"output_{k}.pb")) or os.path.exists(os.path.join(d, s, f"output_{k}.npy")):
            pa, pb = (os.path.join(r, name, s, f"output_{k}.npy") for r in (a_root, b_root))
            if os.path.exists(pa) and os.path.exists(pb):
                a, b = np.load(pa, allow_pickle=False), np.load(pb, allow_pickle=False)
                res.append(a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes())
            k += 1
    return res


def fmt(x):
    return "-" if x is None else (f"{x:.3g}" if isinstance(x, float) else str(x))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("suite")
    ap.add_argument("got")
    ap.add_argument("--peer", help="a second output tree, compared bit for bit with GOT")
    ap.add_argument("--filter", help="regex on test names")
    ap.add_argument("--json", action="store_true", help="JSON on stdout instead of the table")
    ap.add_argument("--verbose", action="store_true", help="list passing tests too")
    args = ap.parse_args()
    for p, what in ((args.suite, "SUITE"), (args.got, "GOT")) + (((args.peer, "--peer"),) if args.peer else ()):
        if not os.path.isdir(p):
            sys.exit(f"judge: {what} {p} is not a directory")
    names = sorted(n for n in os.listdir(args.suite) if os.path.isfile(os.path.join(args.suite, n, "model.onnx")))
    if args.filter:
        names = [n for n in names if re.search(args.filter, n)]
    if not names:
        sys.exit(f"judge: no tests (folders with model.onnx) in {args.suite}")
    if not any(os.path.exists(os.path.join(args.suite, n, "test_data_set_0", "output_0.npy")) for n in names):
        sys.exit(f"judge: no expected .npy in {args.suite}: run /usr/bin/python3 scripts/onnx-node-npy.py")

    tests = {n: judge_test(args.suite, n, args.got) for n in names}
    counts = {v: sum(1 for t in tests.values() if t["verdict"] == v) for v in VERDICTS}
    summary = {"tests": len(names), **counts, "pass_rate": counts["pass"] / len(names),
               "exact": sum(1 for t in tests.values() if t.get("exact")), "rtol": RTOL, "atol": ATOL,
               "specialized": sum(1 for t in tests.values() if t.get("specialized")),
               "specialized_pass": sum(1 for t in tests.values() if t.get("specialized") and t["verdict"] == "pass")}
    if args.peer:
        peer = {n: judge_test(args.suite, n, args.peer) for n in names}
        eq = {n: bits_equal(args.got, args.peer, n, args.suite) for n in names}
        for n in names:
            tests[n]["peer_verdict"] = peer[n]["verdict"]
            tests[n]["bits_equal_peer"] = f"{sum(eq[n])}/{len(eq[n])}" if eq[n] else None
        summary["peer"] = {
            "pass": sum(1 for t in peer.values() if t["verdict"] == "pass"),
            "both_pass": sum(1 for n in names if tests[n]["verdict"] == peer[n]["verdict"] == "pass"),
            "outputs_compared": sum(len(v) for v in eq.values()),
            "outputs_bits_equal": sum(sum(v) for v in eq.values()),
            "tests_bits_equal": sum(1 for v in eq.values() if v and all(v)),
        }
    if args.json:
        json.dump({"suite": args.suite, "got": args.got, "peer": args.peer, "summary": summary, "tests": tests},
                  sys.stdout, indent=1, sort_keys=True)
        print()
        return
    for n in names:
        t = tests[n]
        if t["verdict"] == "pass" and not args.verbose:
            continue
        extra = f"  ulp {fmt(t.get('max_ulp'))} abs {fmt(t.get('max_abs'))}" if t["verdict"] in ("pass", "FAIL") else ""
        peer = f"  [peer {t['peer_verdict']}, bits {t['bits_equal_peer'] or '-'}]" if args.peer else ""
        mark = "  (specialized)" if t.get("specialized") else ""
        print(f"{t['verdict']:<14} {n}{mark}{extra}{peer}" + (f"\n{'':<15}{t['reason']}" if t["reason"] else ""))
    print(f"\n{summary['pass']}/{summary['tests']} pass ({100 * summary['pass_rate']:.1f}%): "
          + ", ".join(f"{counts[v]} {v}" for v in VERDICTS)
          + f"; {summary['exact']} passing tests equal the expected bits"
          + f"; {summary['specialized']} specialized (inputs bound at import), {summary['specialized_pass']} of them pass")
    if args.peer:
        p = summary["peer"]
        print(f"peer: {p['pass']} pass, both pass {p['both_pass']}; outputs equal bit for bit "
              f"{p['outputs_bits_equal']}/{p['outputs_compared']} ({p['tests_bits_equal']} tests entirely)")


if __name__ == "__main__":
    main()
