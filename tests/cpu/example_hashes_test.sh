#!/usr/bin/env bash
# The debug-tier examples give the reference's output hashes on the CPU backend with 1 and 2
# threads and with Highway's dispatch forced to each x86-64 target the CPU has
# (RUNG_CPU_SIMD); a forced target the CPU lacks must be refused with H0003, not ignored.
# Usage: example_hashes_test.sh RUNG SOURCE_DIR
set -uo pipefail
rung=$1
src=$2
fail=0
hashes() { "$rung" run "$@" 2>&1 | awk '/^output/ {print $NF}'; }
for ex in transformer_block q8_matmul; do
  file="$src/examples/$ex.rung"
  want=$(hashes "$file" --backend reference)
  [[ -n $want ]] || { echo "FAIL: $ex gives no output hash on the reference"; fail=1; continue; }
  for cfg in "RUNG_CPU_THREADS=1" "RUNG_CPU_THREADS=2" "RUNG_CPU_SIMD=AVX3" "RUNG_CPU_SIMD=AVX2" "RUNG_CPU_SIMD=SSE4"; do
    out=$(env "$cfg" "$rung" run "$file" --backend cpu 2>&1)
    if grep -q "H0003" <<<"$out"; then
      echo "skip: $ex with $cfg: $(grep -m1 H0003 <<<"$out")"
      continue
    fi
    got=$(awk '/^output/ {print $NF}' <<<"$out")
    if [[ $got == "$want" ]]; then
      echo "ok: $ex with $cfg: $(head -c 16 <<<"$got")..."
    else
      echo "FAIL: $ex with $cfg: hashes differ from the reference"
      echo "$out" | tail -5
      fail=1
    fi
  done
done
# An unknown target name is a diagnostic, never a silent fallback.
out=$(RUNG_CPU_SIMD=NOPE "$rung" run "$src/examples/transformer_block.rung" --backend cpu 2>&1)
grep -q "H0003" <<<"$out" || { echo "FAIL: RUNG_CPU_SIMD=NOPE was not refused with H0003"; fail=1; }
exit $fail
