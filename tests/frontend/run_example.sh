#!/usr/bin/env bash
# Runs one example program twice on the reference backend and checks what it prints: the
# numbers each example computes against an independent formulation of the same result,
# and identical output hashes, fingerprint and BlockIR hash across the two runs.
#   run_example.sh RUNG SOURCE_DIR NAME
set -euo pipefail
rung=$1; src=$2; name=$3
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
for i in 1 2; do "$rung" run "$src/examples/$name.rung" >"$tmp/run$i.txt"; done
cat "$tmp/run1.txt"
diff <(grep -E '^(fingerprint|blockir|output)' "$tmp/run1.txt") <(grep -E '^(fingerprint|blockir|output)' "$tmp/run2.txt") \
  || { echo "FAIL: the two runs differ"; exit 1; }
grep -q '^output 0' "$tmp/run1.txt" || { echo "FAIL: no output"; exit 1; }
# value LABEL: the number printed after "LABEL" on its line.
value() { grep -F "$1" "$tmp/run1.txt" | head -1 | awk -v l="$1" '{ s = substr($0, index($0, l) + length(l)); split(s, w, " "); print w[1] }'; }
check() {  # check LABEL AWK-CONDITION-ON-v
  local v; v=$(value "$1")
  [ -n "$v" ] || { echo "FAIL: \"$1\" not printed"; exit 1; }
  awk -v v="$v" "BEGIN { exit !($2) }" || { echo "FAIL: $1 = $v, expected $2"; exit 1; }
  echo "ok: $1 = $v ($2)"
}
case "$name" in
  spmm)
    check "stored entries" "v == 190"
    check "max abs difference" "v == 0" ;;
  q8_matmul)
    check "float path vs dequantized matmul" "v <= 1e-5"
    check "int8 path vs dequantized matmul" "v <= 0.05"
    check "q8_0 vs f32 weights" "v > 0 && v <= 0.1" ;;
  transformer_block)
    check "max abs difference" "v <= 1e-4"
    check "mean square" "v > 0.01 && v < 100" ;;
  control)
    # skip_threes(100, 50): 1+2+4+5+7+8+10+11+13 = 61 passes 50 at the 9th kept number.
    exp=$(awk 'BEGIN { c = 0; t = 0; for (i = 0; i < 100; i++) { if (i % 3 == 0) continue; c++; t += i; if (t > 50) break }; print c, t }')
    grep -qx "kept ${exp% *} total ${exp#* }" "$tmp/run1.txt" || { echo "FAIL: expected kept/total $exp"; exit 1; }
    grep -qx "signs -1 0 1" "$tmp/run1.txt" || { echo "FAIL: signs"; exit 1; }
    grep -qx "clamped -5 2 5" "$tmp/run1.txt" || { echo "FAIL: clamped"; exit 1; }
    grep -qx "row sums f32\[3\] \[2, 7, 6\]" "$tmp/run1.txt" || { echo "FAIL: row sums"; exit 1; }
    check "sqrt2" "v - sqrt(2) < 1e-6 && sqrt(2) - v < 1e-6"
    check "steps" "v >= 2 && v < 50"
    grep -qx "n $((0x10 + 2#11 + 8#7)) swapped ${exp% *} ${exp#* }" "$tmp/run1.txt" || { echo "FAIL: n / swapped"; exit 1; }
    grep -q '^done true tail a "quoted" word$' "$tmp/run1.txt" || { echo "FAIL: done"; exit 1; }
    # main's body says `override tier fast;` over the module's `tier prod;`: the run is at fast.
    grep -q '^entry        main (tier fast,' "$tmp/run1.txt" || { echo "FAIL: the entry's own tier (fast) is not the run's"; exit 1; } ;;
  mlp)
    first=$(value "initial loss"); last=$(value "final loss")
    awk -v a="$first" -v b="$last" 'BEGIN { exit !(b < a / 10) }' || { echo "FAIL: loss $first -> $last"; exit 1; }
    echo "ok: loss $first -> $last"
    check "test accuracy" "v >= 0.8" ;;
  attention)
    grep -q '^first row' "$tmp/run1.txt" || { echo "FAIL: no print"; exit 1; } ;;
  *) echo "FAIL: no checks for $name"; exit 1 ;;
esac
