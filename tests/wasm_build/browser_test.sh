#!/usr/bin/env bash
# `rung build --target wasm` modules in Debian's chromium (CTest wasm_build.browser):
#   browser_test.sh RUNG SOURCE_DIR WORK_DIR
# Builds a few modules (mlp forward and loss, transformer_block's block_by_hand, the fma chains
# whose double rounding is wrong), runs them headless in chromium through playwright-core (npm,
# installed into WORK_DIR/playwright on first use; the system's browser, never a download) with
# each .wasm fetched by URL, and compares every output with `rung run --backend cpu --tier
# debug` on the same inputs byte for byte. Exits 77 (skipped, reason printed) without clang-14,
# node, chromium or npm.
set -euo pipefail
rung=$1 src=$2 work=$3
chromium=${RUNG_CHROMIUM:-/usr/bin/chromium}
here="$src/tests/wasm_build"
for tool in clang++-14 wasm-ld node; do
  command -v "$tool" >/dev/null || { echo "SKIP: $tool not found"; exit 77; }
done
[[ -x $chromium ]] || { echo "SKIP: no $chromium (Debian: apt-get install chromium)"; exit 77; }
/usr/bin/python3 -c 'import numpy' 2>/dev/null || { echo "SKIP: /usr/bin/python3 has no numpy (python3-numpy)"; exit 77; }
pw=$work/playwright
if [[ ! -f $pw/node_modules/playwright-core/package.json ]]; then
  mkdir -p "$pw"
  (cd "$pw" && npm install --no-audit --no-fund --silent playwright-core@1.65.2) || { echo "SKIP: npm could not install playwright-core"; exit 77; }
fi
rm -rf "$work/modules" "$work/runs" && mkdir -p "$work/modules" "$work/runs"

# NAME FILE ENTRY [--dim N=E ...]
cases=(
  "mlp_forward examples/mlp.rung forward --dim B=8"
  "mlp_loss examples/mlp.rung loss --dim B=8"
  "block examples/transformer_block.rung block_by_hand"
  "halfway tests/wasm_build/programs/ops.rung halfway"
  "halfway_subnormal tests/wasm_build/programs/ops.rung halfway_subnormal"
)
names=()
for c in "${cases[@]}"; do
  read -r name file entry dims <<<"$c"
  # shellcheck disable=SC2086
  "$rung" build --target wasm "$src/$file" --entry "$entry" $dims -o "$work/modules/$name.wasm" >/dev/null
  names+=("$name")
done
node "$here/browser_test.mjs" "$pw/node_modules" "$chromium" "$work/modules" "$work/runs" "$src" "${names[@]}"

fail=0 compared=0
for c in "${cases[@]}"; do
  read -r name file entry dims <<<"$c"
  ran="$src/$file"
  if ! grep -qE "^export fn $entry\\b" "$ran"; then  # a plain fn runs once exported, as wasm_build_test.sh does
    ran="$work/runs/$name.rung"
    sed -E "s/^fn $entry\\b/export fn $entry/" "$src/$file" > "$ran"
  fi
  out=$work/runs/$name
  args=()
  for f in "$out"/in/*.npy; do args+=(--arg "$(basename "$f" .npy)=$f"); done
  "$rung" run "$ran" --entry "$entry" "${args[@]}" --backend cpu --tier debug --out "$out/cpu" >/dev/null 2>"$out/cpu.log" ||
    { echo "FAIL $name: rung run failed"; cat "$out/cpu.log"; fail=1; continue; }
  for w in "$out"/wasm/*.npy; do
    compared=$((compared + 1))
    /usr/bin/python3 "$here/compare_npy.py" "$w" "$out/cpu/$(basename "$w")" || { echo "FAIL $name: chromium differs from the cpu backend"; fail=1; }
  done
  echo "ok   $name in chromium"
done
[[ $compared -gt 0 ]] || { echo "FAIL: nothing compared"; exit 1; }
[[ $fail == 0 ]] || exit 1
echo "wasm_build.browser: ${#cases[@]} modules in chromium, $compared outputs bit-identical to the cpu backend"
