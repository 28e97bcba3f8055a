#!/usr/bin/env bash
# The CUDA backend's correctness checks in one call (bench/RESULTS.md holds the output):
#   scripts/gpu-conform.sh BIN_DIR DATA_DIR
# BIN_DIR holds prebuilt `rung` and `cuda_test` (and any library they need, e.g. libhwy);
# DATA_DIR holds digits.csv. Runs: the op suite (every cuda kernel vs the reference, 0
# differing bits), `rung conform --backend cuda --tier debug` with receipts minted into a
# fresh store, the same conformance in tier fast (the profile hash must differ: the tier is
# a fact of the profile), transformer_block on cpu and on cuda with --receipts=require (the
# receipts just minted must be found for this device profile), the examples built with -O
# on the reference and cuda (scripts/fused-examples.sh), and digits training on cpu
# and cuda, and both again with `rung run --shadow` (each region checked against the reference
# on the same inputs). The hashes of each pair must be identical.
set -uo pipefail
cd "$(dirname "$0")/.."
BIN=$(cd "${1:?usage: gpu-conform.sh BIN_DIR DATA_DIR}" && pwd)
DATA=$(cd "${2:?usage: gpu-conform.sh BIN_DIR DATA_DIR}" && pwd)
export LD_LIBRARY_PATH=$BIN:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
export RUNG_HOME=$(mktemp -d)
status=0
hashes() { grep -E '^(output|record|entry)' "$1" | grep -v '^record'; }
same() {  # same LABEL FILE_A FILE_B: the output hashes must agree
  if diff <(grep '^output' "$2") <(grep '^output' "$3") >/dev/null && grep -q '^output' "$2"; then
    echo "$1: IDENTICAL output hashes on cpu and cuda"
  else
    echo "$1: DIFFERENT output hashes"; status=1
  fi
}
echo "== date: $(date -u +%Y-%m-%dT%H:%MZ) =="
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader || status=1
if [ -z "${RUNG_GPU_SUITE_DONE:-}" ]; then  # gpu-check.sh has run it already
  echo "== op suite (tests/cuda) =="
  "$BIN"/cuda_test --gtest_color=no 2>&1 | grep -v "^\[ RUN\|^\[       OK" || status=1
fi
echo "== rung conform --backend cuda --tier debug (receipts into a fresh store) =="
"$BIN"/rung conform --backend cuda --tier debug > /tmp/conform_debug.txt 2>&1 || status=1
grep -vE " pass$" /tmp/conform_debug.txt | head -60
grep -cE " pass$" /tmp/conform_debug.txt | sed 's/^/rows passing: /'
echo "receipts minted: $(ls "$RUNG_HOME"/receipts 2>/dev/null | wc -l)"
echo "== rung conform --backend cuda --tier fast --no-receipts (every op, within its class) =="
"$BIN"/rung conform --backend cuda --tier fast --no-receipts > /tmp/conform_fast.txt 2>&1 || status=1
grep -vE " pass$" /tmp/conform_fast.txt | head -60
grep -cE " pass$" /tmp/conform_fast.txt | sed 's/^/rows passing: /'
grep -E "^ +profile" /tmp/conform_debug.txt | sed 's/^/debug /'
for tier in debug fast; do  # six times the cases, another seed: 56,064 cases each, ~8 s
  echo "== rung conform --backend cuda --tier $tier --cases 96 --seed 7 --no-receipts =="
  "$BIN"/rung conform --backend cuda --tier $tier --cases 96 --seed 7 --no-receipts > /tmp/conform_96.txt 2>&1 || status=1
  grep -vE " pass$" /tmp/conform_96.txt | grep -E "ops:|FAIL|fail " | head -40
done
for ex in transformer_block; do
  echo "== examples/$ex.rung: cpu vs cuda (tier debug; cuda with --receipts=require) =="
  "$BIN"/rung run examples/$ex.rung --backend cpu > /tmp/$ex.cpu 2>&1 || status=1
  "$BIN"/rung run examples/$ex.rung --backend cuda --receipts=require > /tmp/$ex.cuda 2>&1 || status=1
  cat /tmp/$ex.cpu; cat /tmp/$ex.cuda
  same "$ex" /tmp/$ex.cpu /tmp/$ex.cuda
done
echo "== examples built with -O (fused elementwise regions, one generated kernel each): reference vs cuda =="
scripts/fused-examples.sh "$BIN" cuda || status=1
echo "== examples/digits.rung --entry train: cpu vs cuda (tier debug) =="
"$BIN"/rung run examples/digits.rung --entry train --backend cpu --data-dir "$DATA" > /tmp/digits.cpu 2>&1 || status=1
"$BIN"/rung run examples/digits.rung --entry train --backend cuda --data-dir "$DATA" --receipts=require > /tmp/digits.cuda 2>&1 || status=1
tail -12 /tmp/digits.cpu; tail -12 /tmp/digits.cuda
same digits /tmp/digits.cpu /tmp/digits.cuda
echo "the cuda run's record:"
"$BIN"/rung record "$(awk '/^record/{print $2}' /tmp/digits.cuda)" 2>&1 | grep -E "^(backend|device|transfers|output|replay)"
# What the program printed (losses, accuracy) and its outputs; progress lines (stderr, only
# when a loop runs longer than a second) and run facts (record, memory, transfers) differ.
printed() { grep -E "^(epoch|test accuracy|output)" "$1"; }
if [ "$(printed /tmp/digits.cpu | grep -c '^epoch')" -eq 8 ] && diff <(printed /tmp/digits.cpu) <(printed /tmp/digits.cuda) >/dev/null; then
  echo "digits: identical printed losses and accuracy"
else
  echo "digits: printed lines differ"; status=1
fi
echo "== rung run --shadow on cuda: every region also on the reference with the same inputs =="
shadow() {  # shadow LABEL ARGS...: the run's shadow line must say all agree
  local label=$1; shift
  "$BIN"/rung run "$@" --backend cuda --shadow > /tmp/shadow.txt 2>&1 || status=1
  grep -A3 "A0030" /tmp/shadow.txt | head -12
  if grep -E "^shadow .*: all agree$" /tmp/shadow.txt; then echo "$label: every region agrees with the reference"
  else echo "$label: SHADOW DIFFERENCES (see A0030 above)"; status=1; fi
}
# Each example in its declared tier (debug ones bit for bit; receipts: the ones minted above,
# ops of other tiers conformed now),
# then in tier fast (each node within its class; no receipts were minted for fast).
for f in examples/*.rung; do
  ex=$(basename "$f" .rung)
  shadow "$ex" "$f" --data-dir "$DATA" --receipts=conform
  shadow "$ex (tier fast)" "$f" --data-dir "$DATA" --tier fast --receipts=ignore
done
echo "== gpu-conform status: $status =="
exit $status
