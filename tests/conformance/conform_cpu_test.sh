#!/usr/bin/env bash
# `rung conform --backend cpu` must pass every op with 0 differing bits in tier debug, and
# the digest over all of the cpu's outputs must equal the reference's (same cases, same bits).
set -euo pipefail
rung="$1"
export RUNG_HOME="$(mktemp -d)"
trap 'rm -rf "$RUNG_HOME"' EXIT

"$rung" conform --backend reference --tier debug --no-receipts > "$RUNG_HOME/ref.txt"
RUNG_CPU_THREADS=2 "$rung" conform --backend cpu --tier debug > "$RUNG_HOME/cpu2.txt"
RUNG_CPU_THREADS=1 "$rung" conform --backend cpu --tier debug --no-receipts > "$RUNG_HOME/cpu1.txt"

for f in ref cpu2 cpu1; do
  summary=$(grep -E '^[0-9]+ ops: ' "$RUNG_HOME/$f.txt")
  echo "$f: $summary"
  if ! grep -qE '^[0-9]+ ops: [0-9]+ pass, 0 fail, 0 missing' <<<"$summary"; then
    echo "FAIL: $f conformance did not pass every op" >&2
    grep -vE ' pass$' "$RUNG_HOME/$f.txt" | head -40 >&2
    exit 1
  fi
done
d_ref=$(awk '/^outputs digest/ {print $3}' "$RUNG_HOME/ref.txt")
for f in cpu2 cpu1; do
  d=$(awk '/^outputs digest/ {print $3}' "$RUNG_HOME/$f.txt")
  if [[ -z "$d" || "$d" != "$d_ref" ]]; then
    echo "FAIL: $f outputs digest $d differs from the reference's $d_ref" >&2
    exit 1
  fi
done
# (a count, not `ls | grep -q`: under pipefail grep's early exit can fail ls with SIGPIPE)
receipts=$(find "$RUNG_HOME" -path '*receipts*' -type f | wc -l)
[[ "$receipts" -ge 85 ]] || { echo "FAIL: $receipts receipts minted, expected one per op" >&2; exit 1; }
# --dump-failures into a folder that cannot be written: F0002 before anything runs, exit 1;
# into a writable one with nothing failing: the folder stays empty.
set +e
"$rung" conform --backend cpu --ops add --cases 2 --no-receipts --dump-failures /proc/rung-nope > "$RUNG_HOME/dump.txt" 2>&1
rc=$?
set -e
[[ $rc == 1 ]] && grep -F 'error[F0002]' "$RUNG_HOME/dump.txt" > /dev/null || { echo "FAIL: --dump-failures to /proc: rc $rc, no F0002" >&2; cat "$RUNG_HOME/dump.txt" >&2; exit 1; }
"$rung" conform --backend cpu --ops add --cases 2 --no-receipts --dump-failures "$RUNG_HOME/dumps" > /dev/null
[[ -z "$(ls -A "$RUNG_HOME/dumps")" ]] || { echo "FAIL: a passing suite dumped cases" >&2; exit 1; }
echo "conform cpu: every op bit-identical to the reference at 1 and 2 threads (digest $d_ref), $receipts receipts"
