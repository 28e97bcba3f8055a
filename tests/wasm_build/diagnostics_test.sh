#!/usr/bin/env bash
# The coded refusals of `rung build --target wasm` (CTest wasm_build.diagnostics):
#   diagnostics_test.sh RUNG SOURCE_DIR WORK_DIR
set -euo pipefail
rung=$1 src=$2 work=$3
rm -rf "$work" && mkdir -p "$work"
fail=0
# expect CODE EXIT ARGS...: the command exits with EXIT and prints CODE as its diagnostic.
expect() {
  local code=$1 want=$2
  shift 2
  local got=0
  "$rung" build --target wasm "$@" -o "$work/m.wasm" >"$work/out.txt" 2>&1 || got=$?
  if [ "$got" != "$want" ] || ! grep -q "\[$code\]" "$work/out.txt"; then
    echo "FAIL: expected $code (exit $want), got exit $got from: rung build --target wasm $*"; cat "$work/out.txt"; fail=1
  else
    echo "ok   $code: $(grep -m1 "\[$code\]" "$work/out.txt" | cut -c1-150)"
  fi
}
expect L0002 1 "$src/examples/mlp.rung" --entry forward                       # B has no extent
expect T0002 1 "$src/examples/transformer_block.rung" --entry block --dim S=8   # rms_norm, rope, ... have no wasm kernel
expect T0004 1 "$src/examples/mlp.rung"                                         # train: a loop, prints
expect T0001 1 "$src/examples/mlp.rung" --entry forward --dim B=2 --cc /nonexistent/clang++-14
expect T0001 1 "$src/examples/mlp.rung" --entry forward --dim B=2 --cc /bin/true  # runs, but is no clang 14
expect C0020 2 "$src/examples/mlp.rung" --entry forward --dim B=2 --plan
expect T0006 1 "$src/examples/mlp.rung" --entry forward --dim B=8 --budget 4KiB   # the arena is 4368 bytes
expect L0008 1 "$src/examples/mlp.rung" --entry forward --dim B=8 --budget lots
# --cc and --budget belong to --target wasm: the .keg build refuses them.
got=0
"$rung" build "$src/examples/mlp.rung" --cc clang++-14 -o "$work/m.keg" >"$work/out.txt" 2>&1 || got=$?
if [ "$got" != 2 ] || ! grep -q "\[C0020\]" "$work/out.txt"; then
  echo "FAIL: rung build --cc without --target wasm gave exit $got"; cat "$work/out.txt"; fail=1
else
  echo "ok   C0020: --cc without --target wasm"
fi
# No file is left behind by a refused build.
[ ! -e "$work/m.wasm" ] && [ ! -e "$work/m.keg" ] || { echo "FAIL: a refused build wrote a file"; fail=1; }
exit $fail
