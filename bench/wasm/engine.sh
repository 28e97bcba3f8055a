#!/usr/bin/env bash
# The exact GEMM through the engine: matmul.rung (one n^3 product) and matmul3.rung (three in
# a row) run by the x86-64 `rung` and by the wasm32 `rung` under node on the same .npy inputs.
# Prints each run's seconds and output hash (they must be equal natively and in wasm) and the
# GFLOP/s of the two extra products (matmul3 less matmul: V8's optimised code; a first call
# runs in its baseline compiler), which leaves out startup, parsing and the .npy reads, by
# wall time and by CPU time (on a shared machine the single-threaded wasm run's CPU time is
# what it would take alone; the x86-64 run uses every core, so only its wall time counts).
#   bench/wasm/engine.sh X86_BUILD WASM_BUILD [n (default 1024)] [reps (default 3)]
#   RUNG_NODE_FLAGS="--no-liftoff": node flags for the wasm runs (that one compiles every function
#   optimised at start-up, which the difference of the two programs leaves out)
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
best() {  # best-of-reps "wall cpu" seconds of a command (CPU: user + system, all its threads);
          # its output hash into $tmp/hash
  local bw=999999 bc=999999 w c
  for ((i = 0; i < reps; ++i)); do
    /usr/bin/time -f '%e %U %S' -o "$tmp/time" "$@" > "$tmp/out.txt" 2>&1
    read -r w u s < "$tmp/time"
    c=$(echo "$u + $s" | bc)
    (( $(echo "$w < $bw" | bc) )) && bw=$w
    (( $(echo "$c < $bc" | bc) )) && bc=$c
  done
  grep -o 'sha3 [0-9a-f]*' "$tmp/out.txt" | cut -c6-21 > "$tmp/hash"
  echo "$bw $bc"
}
declare -A wall cpu
for side in x86-64 wasm32; do
  for p in matmul matmul3; do
    if [[ $side == x86-64 ]]; then r=$(best "$x86/tools/rung/rung" run "$here/$p.rung" "${args[@]}")
    else r=$(best node --no-experimental-fetch ${RUNG_NODE_FLAGS:-} "$wasm/tools/rung/rung.js" run "$here/$p.rung" "${args[@]}"); fi
    read -r wall[$side/$p] cpu[$side/$p] <<< "$r"
    printf '%-7s %-8s n=%d  wall %6.2f s  cpu %6.2f s  output %s\n' "$side" "$p" "$n" "${wall[$side/$p]}" "${cpu[$side/$p]}" "$(cat "$tmp/hash")"
  done
  rate() {  # GFLOP/s of the two extra products from two times, or n/a within the timer's noise
    local d; d=$(echo "$2 - $1" | bc -l)
    if (( $(echo "$d > 0.02" | bc) )); then printf '%.2f' "$(echo "4 * $n^3 / $d / 10^9" | bc -l)"; else printf 'n/a'; fi
  }
  printf '%-7s two extra products: %s GFLOP/s by wall time' "$side" "$(rate "${wall[$side/matmul]}" "${wall[$side/matmul3]}")"
  # CPU time says nothing of a threaded run's speed: only for the single-threaded wasm32 build.
  [[ $side == wasm32 ]] && printf ', %s by CPU time' "$(rate "${cpu[$side/matmul]}" "${cpu[$side/matmul3]}")"
  echo
done
