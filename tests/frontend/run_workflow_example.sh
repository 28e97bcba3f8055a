#!/usr/bin/env bash
# Checks and runs examples/center.workflow.json on the reference backend with inputs written
# here, and compares its outputs with the same centring and projection computed in Python.
#   run_workflow_example.sh RUNG SOURCE_DIR
set -euo pipefail
rung=$1; src=$2
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
"$rung" check "$src/examples/center.workflow.json"
python3 - "$tmp" <<'PY'
import struct, sys
def save(path, rows, cols, vals):
    header = "{'descr': '<f4', 'fortran_order': False, 'shape': (%d, %d), }" % (rows, cols)
    header += " " * (63 - (10 + len(header)) % 64) + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode() + struct.pack("<%df" % len(vals), *vals))
save(sys.argv[1] + "/x.npy", 5, 8, [float((3 * i + 1) % 7) - 2.5 for i in range(40)])
save(sys.argv[1] + "/w.npy", 8, 4, [0.25 * ((i % 5) - 2) for i in range(32)])
PY
for i in 1 2; do "$rung" run "$src/examples/center.workflow.json" --arg x="$tmp/x.npy" --arg w="$tmp/w.npy" --out "$tmp/out$i" >"$tmp/run$i.txt"; done
cat "$tmp/run1.txt"
diff <(grep -E '^(fingerprint|output)' "$tmp/run1.txt" | sed 's/ -> .*//') <(grep -E '^(fingerprint|output)' "$tmp/run2.txt" | sed 's/ -> .*//') \
  || { echo "FAIL: the two runs differ"; exit 1; }
python3 - "$tmp" <<'PY'
import glob, struct, sys
def load(path):
    data = open(path, "rb").read()
    n = struct.unpack("<H", data[8:10])[0]
    header = data[10:10 + n].decode()
    assert "'<f4'" in header, header
    body = data[10 + n:]
    return list(struct.unpack("<%df" % (len(body) // 4), body))
tmp = sys.argv[1]
x, w = load(tmp + "/x.npy"), load(tmp + "/w.npy")
means = [sum(x[r * 8 + c] for r in range(5)) / 5 for c in range(8)]
y = [sum((x[r * 8 + k] - means[k]) * w[k * 4 + c] for k in range(8)) for r in range(5) for c in range(4)]
outs = sorted(glob.glob(tmp + "/out1/*.npy"))
got = {p.rsplit("/", 1)[1]: load(p) for p in outs}
print("outputs:", sorted(got))
gy = next(v for k, v in got.items() if k.startswith("y"))
gm = next(v for k, v in got.items() if k.startswith("column_means"))
dy = max(abs(a - b) for a, b in zip(gy, y)); dm = max(abs(a - b) for a, b in zip(gm, means))
print("max abs difference y", dy, "column_means", dm)
assert len(gy) == 20 and len(gm) == 8, (len(gy), len(gm))
assert dy <= 1e-5 and dm <= 1e-6, "outputs differ from the Python formulation"
PY
