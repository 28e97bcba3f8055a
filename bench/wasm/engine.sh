#!/usr/bin/env bash
# The exact GEMM through the engine: matmul.rung (one n^3 product) and matmul3.rung (three in
# a row) run by the x86-64 `rung` and by the wasm32 `rung` under node on the same .npy inputs.
# Prints each run's seconds and output hash (they must be equal natively and in wasm) and the
# GFLOP/s of the two extra products (matmul3 less matmul: V8's optimised code; a first call
# runs in its baseline compiler), which leaves out startup, parsing and the .npy reads.
#   bench/wasm/engine.sh X86_BUILD WASM_BUILD [n (default 1024)] [reps (default 3)]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
x86=$1 wasm=$2 n=${3:-1024} reps=${4:-3}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export RUNG_HOME=$tmp/store
/usr/bin/python3 -c "
import numpy as np, sys
r = np.random.default_rng($n)
for name in 'ab':
    np.save(f'$tmp/{name}.npy', r.uniform(-1, 1, ($n, $n)).astype(np.float32))
"
args=(--arg "a=$tmp/a.npy" --arg "b=$tmp/b.npy" --backend cpu --receipts ignore)
best() {  # best-of-reps seconds of a command; its output hash into $tmp/hash
  local t b=999999
  for ((i = 0; i < reps; ++i)); do
    local s; s=$(date +%s.%N)
    "$@" > "$tmp/out.txt" 2>&1
    t=$(echo "$(date +%s.%N) - $s" | bc)
    (( $(echo "$t < $b" | bc) )) && b=$t
  done
  grep -o 'sha3 [0-9a-f]*' "$tmp/out.txt" | cut -c6-21 > "$tmp/hash"
  echo "$b"
}
declare -A secs
for side in x86-64 wasm32; do
  for p in matmul matmul3; do
    if [[ $side == x86-64 ]]; then secs[$side/$p]=$(best "$x86/tools/rung/rung" run "$here/$p.rung" "${args[@]}")
    else secs[$side/$p]=$(best node --no-experimental-fetch "$wasm/tools/rung/rung.js" run "$here/$p.rung" "${args[@]}"); fi
    printf '%-7s %-8s n=%d  %6.2f s  output %s\n' "$side" "$p" "$n" "${secs[$side/$p]}" "$(cat "$tmp/hash")"
  done
  printf '%-7s two extra products: %.2f GFLOP/s\n' "$side" \
    "$(echo "4 * $n^3 / (${secs[$side/matmul3]} - ${secs[$side/matmul]}) / 10^9" | bc -l)"
done
