#!/usr/bin/env bash
# The exact GEMM's hard cases through the engine: matmul.rung run by the x86-64 `rung` and by
# the wasm32 `rung` under node on inputs built to reach what the kernel's test and bounds exist
# for (float midpoints, sums between float subnormals, sums past FLT_MAX, integer sums past
# 2^24, operands of +-1), plain and with a K spanning several k-blocks. The output hashes
# must be equal. bench/wasm/parity.mjs checks the kernel itself on more cases; this checks
# the engine's use of it (strides, blocking, the cpu backend's GEMM driver).
#   bench/wasm/engine_parity.sh X86_BUILD WASM_BUILD
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
x86=$1 wasm=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export RUNG_HOME=$tmp/store
/usr/bin/python3 - "$tmp" <<'PY'
import sys
import numpy as np
out = sys.argv[1]
r = np.random.default_rng(20)
u = lambda x, m: np.float32(x) * np.float32(1 + m * 2.0**-23)  # x (1 + m 2^-23)
def pick(vals, shape):
    v = np.array(vals, dtype=np.float32)
    return (v[r.integers(0, len(v), shape)] * r.choice([-1, 1], shape)).astype(np.float32)
n, k = 67, 700
families = {
    # half a float ulp x (1 - 2^-46) onto accumulators near 1..8: binary64 sums on midpoints
    "midpoint": (pick([u(1, 1), u(1, -1), u(1.5, 3)] + [u(1, m) for m in range(8)], (n, k)),
                 pick([u(2**-24, -1), u(2**-23, -1), u(2**-22, 1), u(2**-25, -1), u(2**-24, 1)]
                      + [u(1, m) for m in range(0, 64, 7)], (k, n))),
    "tiny": (pick([u(2.0**-e, m) for e in range(65, 76) for m in (1, 77, 4097)], (n, k)),
             pick([u(2.0**-e, m) for e in range(65, 76) for m in (3, 999, 65537)], (k, n))),
    "overflow": (pick([u(2.0**e, m) for e in range(60, 65) for m in (1, 12345)], (n, k)),
                 pick([u(2.0**e, m) for e in range(60, 65) for m in (7, 54321)], (k, n))),
    "integers": (r.integers(-4096, 4097, (n, k)).astype(np.float32), r.integers(-4096, 4097, (k, n)).astype(np.float32)),
    "ones": (r.uniform(-1, 1, (n, k)).astype(np.float32), r.choice([-1.0, 1.0, 0.5, 2.0], (k, n)).astype(np.float32)),
}
for name, (a, b) in families.items():
    np.save(f"{out}/{name}_a.npy", a)
    np.save(f"{out}/{name}_b.npy", b)
PY
fail=0
for f in midpoint tiny overflow integers ones; do
  args=(run "$here/matmul_ab.rung" --arg "a=$tmp/${f}_a.npy" --arg "b=$tmp/${f}_b.npy" --backend cpu --receipts ignore)
  x=$("$x86/tools/rung/rung" "${args[@]}" 2>&1 | grep -o 'sha3 [0-9a-f]*' | cut -c6-) || true
  w=$(node --no-experimental-fetch "$wasm/tools/rung/rung.js" "${args[@]}" 2>&1 | grep -o 'sha3 [0-9a-f]*' | cut -c6-) || true
  printf '%-9s x86-64 %s  wasm32 %s\n' "$f" "${x:0:16}" "${w:0:16}"
  [[ -n $x && $x == "$w" ]] || { echo "FAIL: $f: the outputs differ"; fail=1; }
done
[[ $fail == 0 ]] && echo "engine parity: the wasm32 outputs are x86-64's on every family"
exit $fail
