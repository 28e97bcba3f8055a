#!/usr/bin/env bash
# `rung build --target wasm` against the cpu backend (CTest wasm_build.outputs):
#   wasm_build_test.sh RUNG SOURCE_DIR WORK_DIR
# For each case (the static examples' pure entries and tests/wasm_build/programs/ops.rung):
# build the module, check it (wasm-validate, no imports, no relaxed-SIMD opcode), run it under
# node through its generated loader on three seeded input sets (plain; with -0, subnormals
# and extremes mixed in; with infinities and NaNs too), run `rung run --backend cpu --tier debug` on the same .npy inputs, and
# compare every output byte for byte. A second build of one case must give the same bytes.
# Exits 77 (CTest: skipped, with the reason printed) when a tool the command needs is missing.
set -euo pipefail
rung=$1 src=$2 work=$3
here="$src/tests/wasm_build"
for tool in clang++-14 wasm-ld node wasm-validate wasm-objdump; do
  command -v "$tool" >/dev/null || { echo "SKIP: $tool not found (rung build --target wasm and this test need it)"; exit 77; }
done
/usr/bin/python3 -c 'import numpy' 2>/dev/null || { echo "SKIP: /usr/bin/python3 has no numpy (python3-numpy)"; exit 77; }
rm -rf "$work" && mkdir -p "$work"

# The fuse pass (-O) turns elementwise trees into calls of fused regions: a .keg of ops.rung
# built with it exercises call nodes.
"$rung" build -O "$src/tests/wasm_build/programs/ops.rung" -o "$work/ops_fused.keg" >/dev/null

# FILE ENTRY [--dim N=E ...]   (FILE relative to SOURCE_DIR, or absolute)
cases=(
  "$work/ops_fused.keg unary"
  "$work/ops_fused.keg binary"
  "$work/ops_fused.keg softmaxes"
  "examples/mlp.rung forward --dim B=8"
  "examples/mlp.rung loss --dim B=8"
  "examples/digits.rung forward --dim B=5"
  "examples/digits.rung loss --dim B=3"
  "examples/transformer_block.rung block_by_hand"
  "tests/wasm_build/programs/ops.rung unary"
  "tests/wasm_build/programs/ops.rung binary"
  "tests/wasm_build/programs/ops.rung compare"
  "tests/wasm_build/programs/ops.rung reduce"
  "tests/wasm_build/programs/ops.rung big_sum"
  "tests/wasm_build/programs/ops.rung softmaxes"
  "tests/wasm_build/programs/ops.rung matmuls"
  "tests/wasm_build/programs/ops.rung transposed"
  "tests/wasm_build/programs/ops.rung shapes"
  "tests/wasm_build/programs/ops.rung slices"
  "tests/wasm_build/programs/ops.rung pair"
  "tests/wasm_build/programs/ops.rung halfway"
  "tests/wasm_build/programs/ops.rung halfway_subnormal"
  "tests/wasm_build/programs/ops.rung staged"
  "tests/wasm_build/programs/ops.rung wide"
)
fail=0 compared=0
for c in "${cases[@]}"; do
  read -r file entry dims <<<"$c"
  [[ $file = /* ]] || file="$src/$file"
  name="$(basename "$file").$entry"
  dir="$work/$name"
  mkdir -p "$dir"
  # The module is built from the file as it is; `rung run` runs exported functions only, so
  # the cpu side runs a copy of a source with the entry exported (the same program otherwise).
  ran="$file"
  if [[ $file = *.rung ]]; then
    ran="$dir/exported.rung"
    cp "$file" "$ran"
    sed -i -E "s/^fn $entry\\b/export fn $entry/" "$ran"
  fi
  # shellcheck disable=SC2086
  "$rung" build --target wasm "$file" --entry "$entry" $dims -o "$dir/$entry.wasm" >"$dir/build.txt"
  wasm-validate "$dir/$entry.wasm"
  "$src/scripts/wasm-no-relaxed-simd.sh" "$dir/$entry.wasm" || fail=1
  # The `rung` section names the entry and the ExecPlan `rung plan` makes for it.
  /usr/bin/python3 "$here/rung_section.py" "$dir/$entry.wasm" >"$dir/section.json"
  # shellcheck disable=SC2086
  plan_hash=$("$rung" plan "$file" --entry "$entry" $dims --json | /usr/bin/python3 -c 'import json,sys; print(json.load(sys.stdin)["hash"])')
  /usr/bin/python3 - "$dir/section.json" "$entry" "$plan_hash" <<'PY' || { echo "FAIL $name: the rung section"; fail=1; }
import json, sys
s = json.load(open(sys.argv[1]))
assert s["abi"] == 1 and s["entry"] == sys.argv[2], s
assert s["exec_plan"] == sys.argv[3], (s["exec_plan"], sys.argv[3])
assert s["tier"] in ("debug", "prod", "fast") and s["compiler"].find("clang version 14.") >= 0, s
assert s["inputs"] and s["outputs"], s
PY
  if wasm-objdump -j Import -x "$dir/$entry.wasm" 2>/dev/null | grep -q ' <- '; then
    echo "FAIL $name: the module imports something"; fail=1
  fi
  for run in "1 plain" "2 edges" "3 specials"; do
    read -r seed mode <<<"$run"
    out="$dir/$mode"
    node "$here/run_node.mjs" "$dir/$entry.mjs" "$dir/$entry.wasm" "$out" "$seed" "$mode"
    args=()
    for f in "$out"/in/*.npy; do args+=(--arg "$(basename "$f" .npy)=$f"); done
    "$rung" run "$ran" --entry "$entry" "${args[@]}" --backend cpu --tier debug --out "$out/cpu" >/dev/null 2>"$out/cpu.log" ||
      { echo "FAIL $name: rung run failed"; cat "$out/cpu.log"; fail=1; continue; }
    for w in "$out"/wasm/*.npy; do
      compared=$((compared + 1))
      if ! /usr/bin/python3 "$here/compare_npy.py" "$w" "$out/cpu/$(basename "$w")"; then
        echo "FAIL $name ($mode inputs): differs from the cpu backend"; fail=1
      fi
    done
  done
  echo "ok   $name: $(stat -c %s "$dir/$entry.wasm") bytes"
done

# Two builds of one program give the same bytes (and the same loader).
mkdir -p "$work/again"
"$rung" build --target wasm "$src/examples/mlp.rung" --entry loss --dim B=8 -o "$work/again/loss.wasm" >/dev/null
cmp "$work/again/loss.wasm" "$work/mlp.rung.loss/loss.wasm" || { echo "FAIL: two builds of mlp.loss differ"; fail=1; }
cmp "$work/again/loss.mjs" "$work/mlp.rung.loss/loss.mjs" || { echo "FAIL: two loaders of mlp.loss differ"; fail=1; }
[ "$fail" = 0 ] || exit 1
echo "wasm_build: ${#cases[@]} modules, $compared outputs bit-identical to the cpu backend"
