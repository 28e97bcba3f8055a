#!/usr/bin/env bash
# The examples built with -O (so with fused elementwise regions: `rung show --rung graph`
# lists the calls marked fusion = "elementwise") run on BACKEND and on the reference in tier
# debug; every output hash must agree, and no region may have run op by op (U0005).
#   scripts/fused-examples.sh BIN_DIR BACKEND        (BIN_DIR holds a prebuilt `rung`)
# transformer_block: `main` (init, tokens, block and block_by_hand, printing where they
# differ); attention: `run`. Both declare tier debug.
set -uo pipefail
cd "$(dirname "$0")/.."
BIN=$(cd "${1:?usage: fused-examples.sh BIN_DIR BACKEND}" && pwd)
BACKEND=${2:?usage: fused-examples.sh BIN_DIR BACKEND}
export RUNG_HOME=${RUNG_HOME:-$(mktemp -d)}
W=$(mktemp -d)
status=0
for ex in transformer_block attention; do
  "$BIN"/rung build -O examples/$ex.rung -o "$W/$ex.keg" > /dev/null || { echo "$ex: build -O FAILED"; status=1; }
  echo "$ex: $("$BIN"/rung show "$W/$ex.keg" --rung graph | grep -c 'fusion') fused calls"
done
run_all() {  # run_all BACKEND: every exported entry's hashes (a .keg runs only its exported entries: C0021)
  local b=$1
  "$BIN"/rung run "$W/transformer_block.keg" --backend "$b" 2>&1
  "$BIN"/rung run "$W/attention.keg" --backend "$b" 2>&1
}
run_all reference > "$W/ref.txt"
run_all "$BACKEND" > "$W/dev.txt"
grep -E 'U0005|error' "$W/dev.txt" && status=1
n=$(grep -c '^output' "$W/ref.txt")
if [ "$n" -gt 0 ] && diff <(grep '^output' "$W/ref.txt") <(grep '^output' "$W/dev.txt") > /dev/null; then
  echo "examples -O: IDENTICAL output hashes on reference and $BACKEND ($n outputs)"
else
  echo "examples -O: DIFFERENT output hashes on reference and $BACKEND"; diff "$W/ref.txt" "$W/dev.txt" | head -20; status=1
fi
# The run record keeps the kernel generated for each fused region (format 4); a device backend
# that generates them must list one per region of its last run.
last=$(awk '/^record/{r=$2} END{print r}' "$W/dev.txt")
if [ -n "$last" ]; then
  kernels=$("$BIN"/rung record "$last" 2>&1 | grep -c '^kernel ' || true)
  echo "examples -O: the last $BACKEND run's record lists $kernels generated kernels"
  if [ "$BACKEND" = cuda ] && [ "$kernels" -eq 0 ]; then echo "examples -O: NO generated kernels in the cuda record"; status=1; fi
fi
exit $status
