#!/usr/bin/env bash
# Trains examples/digits.rung twice: the test accuracy must be >= 0.95 and both runs must
# print identical output hashes, fingerprint and BlockIR hash.
set -euo pipefail
#   digits_twice.sh RUNG SOURCE_DIR BUILD_DIR      (the data lives in BUILD_DIR/data)
rung=$1; src=$2; build=$3
data="$build/data/digits.csv"
[ -f "$data" ] || "$src/scripts/fetch-digits.sh" "$data"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
for i in 1 2; do "$rung" run "$src/examples/digits.rung" --entry train --data-dir "$build/data" >"$tmp/run$i.txt" 2>/dev/null; done
cat "$tmp/run1.txt"
acc=$(awk '/^test accuracy/ {print $3}' "$tmp/run1.txt")
awk -v a="$acc" 'BEGIN { exit !(a >= 0.95) }' || { echo "test accuracy $acc < 0.95"; exit 1; }
diff <(grep -E '^(fingerprint|blockir|output)' "$tmp/run1.txt") <(grep -E '^(fingerprint|blockir|output)' "$tmp/run2.txt") \
  || { echo "the two runs differ"; exit 1; }
grep -q '^output 0' "$tmp/run1.txt"
echo "ok: accuracy $acc, identical hashes"
