#!/usr/bin/env bash
# The fma hard vectors as wasm32 under node (issue 20): fma_vectors.cpp built for wasm32 by
# clang-14 with no libc (the soft fma forms; libm's fmaf/fma, wrong on wasm, cannot be
# linked), checked to hold no relaxed-SIMD instruction, run under node, and every result
# compared with the native build (NATIVE_BIN), whose fma tests/ops holds to MPFR.
# Usage: fma_vectors_test.sh NATIVE_BIN SOURCE_DIR OUT_DIR
set -euo pipefail
native=$1 root=$2 out=$3
for tool in clang-14 wasm-ld node wasm-objdump; do
  command -v $tool >/dev/null || { echo "SKIP: $tool not found (Debian: clang-14 lld-14 nodejs wabt)"; exit 77; }
done
mkdir -p "$out"
clang-14 --target=wasm32 -msimd128 -std=c++20 -O2 -ffp-contract=off -nostdlib -nostdinc++ -ffreestanding \
  -fno-exceptions -fno-rtti -I "$root/bench/ops/wasm/shim" -I "$root/src" -I "$root/tests" \
  -Wl,--no-entry -Wl,--export=f32_count -Wl,--export=f32_result -Wl,--export=f64_count -Wl,--export=f64_result \
  "$root/tests/wasm/fma_vectors.cpp" -o "$out/fma_vectors.wasm"
"$root/scripts/wasm-no-relaxed-simd.sh" "$out/fma_vectors.wasm"
"$native" > "$out/native.txt"
node "$root/tests/wasm/fma_vectors.mjs" "$out/fma_vectors.wasm" > "$out/wasm.txt"
n=$(wc -l < "$out/native.txt")
[[ $n -gt 200 ]] || { echo "FAIL: only $n result lines"; exit 1; }
if ! diff "$out/native.txt" "$out/wasm.txt" > "$out/diff.txt"; then
  echo "FAIL: wasm32 fma results differ from the native ones (line: kind index form bits):"; head -20 "$out/diff.txt"; exit 1
fi
echo "wasm32 and native: the same $n fma results"
