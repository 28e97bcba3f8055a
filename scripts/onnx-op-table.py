#!/usr/bin/python3
"""Rewrites the op table of docs/onnx.md from `rung import --list-ops` (onnx.cli checks the two are equal).

  /usr/bin/python3 scripts/onnx-op-table.py build/tools/rung/rung docs/onnx.md
"""
import subprocess, sys, re
rung, doc = sys.argv[1], sys.argv[2]
out = subprocess.run([rung, "import", "--list-ops"], capture_output=True, text=True, check=True).stdout.splitlines()[1:]
rows = []
for l in out:
    m = re.match(r"(\S+)\s+(\S+)\s+(.*)$", l)
    rows.append(f"| {m.group(1)} | {m.group(2)} | {m.group(3)} |")
s = open(doc).read().split("\n")
i = s.index("| op | opsets | registry ops |")
j = i + 2
while j < len(s) and s[j].startswith("| "):
    j += 1
s[i + 2:j] = rows
open(doc, "w").write("\n".join(s))
print(f"{len(rows)} ops")
