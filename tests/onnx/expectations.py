#!/usr/bin/python3
"""Compares a judge.py --json report with the committed expectations (tests/onnx/node_expectations.txt).

  /usr/bin/python3 tests/onnx/expectations.py JUDGE.json EXPECTATIONS.txt [--update]

Each line of EXPECTATIONS is `VERDICT TEST`, then `specialized` when the runner bound graph inputs at import
(verdicts: pass, FAIL, refused, not-attempted; a mark that changes fails the run as well). A test
expected to pass that does not is a regression; a test that passes but is expected not to is a
surprise pass (write it down: --update); either fails the run. A FAIL is a wrong result rung gave:
each must be listed, so a new one is never silent. Prints the summary by verdict either way.
"""
import json
import os
import sys


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    if len(args) != 2:
        sys.exit(__doc__)
    report, path = args
    tests = json.load(open(report))["tests"]
    got = {name: r["verdict"].replace(" ", "-") for name, r in tests.items()}
    marked = {name for name, r in tests.items() if r.get("specialized")}
    if "--update" in sys.argv:
        # The file's own comments stay: those at the top, and those just above a test's line
        # (why it has the verdict it has), which stay above that test.
        header, notes, pending, seen_test = [], {}, [], False
        for line in (open(path) if os.path.exists(path) else []):
            if line.startswith("#"):
                (pending if seen_test else header).append(line)
            elif line.strip():
                seen_test = True
                notes[line.split()[1]] = pending
                pending = []
        if not header:
            header = [f"# {os.path.basename(path)}: the verdict each test is expected to get (expectations.py --update).\n"]
        with open(path, "w") as f:
            f.writelines(header)
            for name in sorted(got):
                f.writelines(notes.get(name, []))
                f.write(f"{got[name]} {name}" + (" specialized" if name in marked else "") + "\n")
        print(f"expectations: wrote {len(got)} verdicts to {path}")
        return 0
    if not os.path.exists(path):
        sys.exit(f"expectations: {path} is missing: write it with --update (make test-onnx ONNX_UPDATE=1) and review it")
    want, want_marked = {}, set()
    for line in open(path):
        line = line.strip()
        if line and not line.startswith("#"):
            verdict, name, *marks = line.split()
            want[name] = verdict
            if "specialized" in marks:
                want_marked.add(name)
    problems = []
    for name in sorted(set(got) | set(want)):
        g, w = got.get(name, "missing"), want.get(name, "unlisted")
        if g == w and name in got and (name in marked) != (name in want_marked):
            problems.append(f"CHANGED {name}: {'now' if name in marked else 'no longer'} specialized (update the expectations)")
        if g == w:
            continue
        if w == "pass":
            problems.append(f"REGRESSION {name}: expected pass, got {g} ({tests.get(name, {}).get('reason')})")
        elif g == "pass":
            problems.append(f"SURPRISE PASS {name}: expected {w} (update the expectations)")
        elif g == "FAIL":
            problems.append(f"NEW FAIL {name}: expected {w}, got a wrong result ({tests[name].get('reason')})")
        else:
            problems.append(f"CHANGED {name}: expected {w}, got {g}")
    counts = {}
    for v in got.values():
        counts[v] = counts.get(v, 0) + 1
    total = len(got)
    print(f"{os.path.basename(path)}: " + ", ".join(f"{counts.get(v, 0)} {v}" for v in ("pass", "FAIL", "refused", "not-attempted")) +
          f" of {total} ({100.0 * counts.get('pass', 0) / max(total, 1):.1f}% pass; {len(marked)} specialized,"
          f" {sum(1 for n in marked if got[n] == 'pass')} of them pass)")
    for p in problems:
        print(p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
