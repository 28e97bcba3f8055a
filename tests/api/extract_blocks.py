#!/usr/bin/python3
"""Writes each ```LANG block of the given Markdown files to OUT/<stem>_<n>.<ext>, one file per
block, and prints their paths (one per line): the doc-block tests compile and run each."""
import os
import re
import sys

lang, ext, out = sys.argv[1], sys.argv[2], sys.argv[3]
os.makedirs(out, exist_ok=True)
fence = re.compile(r"^```" + re.escape(lang) + r"\s*$")
for md in sys.argv[4:]:
    stem = os.path.splitext(os.path.basename(md))[0].replace("-", "_").replace(".", "_")
    blocks, cur = [], None
    for line in open(md, encoding="utf-8"):
        if cur is None and fence.match(line):
            cur = []
        elif cur is not None and line.startswith("```"):
            blocks.append("".join(cur))
            cur = None
        elif cur is not None:
            cur.append(line)
    for i, b in enumerate(blocks):
        path = os.path.join(out, f"{stem}_{i}.{ext}")
        old = open(path).read() if os.path.exists(path) else None
        if old != b:
            with open(path, "w") as f:
                f.write(b)
        print(path)
