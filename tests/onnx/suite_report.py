#!/usr/bin/python3
"""The node suite's report for docs: per op how many of its tests pass, and every test not passed with its reason.

  /usr/bin/python3 tests/onnx/suite_report.py JUDGE.json NODE_TESTS.json DOC.md [--update]

JUDGE.json: judge.py --json of rung's run; NODE_TESTS.json: tests/onnx/node_tests.json (each test's ops).
--update writes DOC.md; without it the verdicts DOC.md lists are compared with JUDGE.json, and a difference
fails (the doc is out of date: rerun with --update). Reasons are not compared: their wording may change.
"""
import json
import re
import sys


def short(reason, limit=170):
    r = (reason or "").replace("|", "/").replace("\n", " ").strip()
    return r if len(r) <= limit else r[: limit - 1] + "…"


def render(tests, index):
    ops_of = {k[len("node/"):]: [o.split("::", 1)[1] if o.startswith("ai.onnx::") else o for o in v["ops"]]
              for k, v in index.items() if k.startswith("node/")}
    counts = {}
    for t in tests.values():
        counts[t["verdict"]] = counts.get(t["verdict"], 0) + 1
    total = len(tests)
    special = sum(1 for t in tests.values() if t.get("specialized"))
    lines = [
        "# rung on the ONNX node tests, test by test",
        "",
        "Written by `tests/onnx/suite_report.py` from a run of `tests/onnx/node_suite_test.sh` (cpu backend, tier",
        "debug; `make test` checks that the verdicts here are current). The rule, the commands and the peer's figures are",
        "in [onnx-suite.md](onnx-suite.md); the importer and its codes in [onnx.md](onnx.md).",
        "",
        f"**{counts.get('pass', 0)} of {total} pass ({100.0 * counts.get('pass', 0) / max(total, 1):.1f}%)**; " +
        ", ".join(f"{counts.get(v, 0)} {v}" for v in ("FAIL", "refused", "not attempted")) +
        (f"; {special} of the tests ran `specialized` (shape-like graph inputs bound at import)." if special else "."),
        "",
        "## By op",
        "",
        "| op | tests | pass |",
        "|---|---|---|",
    ]
    by_op = {}
    for name, t in tests.items():
        for op in sorted(set(ops_of.get(name, ["?"]))):
            n, p = by_op.get(op, (0, 0))
            by_op[op] = (n + 1, p + (t["verdict"] == "pass"))
    for op in sorted(by_op):
        n, p = by_op[op]
        lines.append(f"| {op} | {n} | {p} |")
    lines += ["", "## Every test not passed", "", "| test | verdict | ops | reason |", "|---|---|---|---|"]
    for name in sorted(tests):
        t = tests[name]
        if t["verdict"] == "pass":
            continue
        ops = ", ".join(sorted(set(ops_of.get(name, ["?"]))))
        lines.append(f"| {name} | {t['verdict']} | {ops} | {short(t.get('reason'))} |")
    return "\n".join(lines) + "\n"


def listed(doc):
    """The verdicts of the tests the doc lists as not passed."""
    out = {}
    for line in doc.splitlines():
        m = re.match(r"\| (test_\S+) \| (FAIL|refused|not attempted) \|", line)
        if m:
            out[m.group(1)] = m.group(2)
    return out


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    if len(args) != 3:
        sys.exit(__doc__)
    report, index_path, doc_path = args
    tests = json.load(open(report))["tests"]
    index = json.load(open(index_path))
    if "--update" in sys.argv:
        with open(doc_path, "w") as f:
            f.write(render(tests, index))
        print(f"suite_report: wrote {doc_path}")
        return 0
    try:
        doc = open(doc_path).read()
    except OSError as e:
        sys.exit(f"suite_report: {e}: write it with --update")
    want = {n: t["verdict"] for n, t in tests.items() if t["verdict"] != "pass"}
    have = listed(doc)
    diff = sorted(set(want.items()) ^ set(have.items()))
    for name, verdict in diff[:20]:
        where = "in the run" if want.get(name) == verdict else f"in {doc_path}"
        print(f"suite_report: {name} is {verdict} {where} only")
    if diff:
        print(f"suite_report: {doc_path} is out of date ({len(diff)} differences): node_suite_test.sh --update")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
