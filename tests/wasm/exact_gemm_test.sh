#!/usr/bin/env bash
# The wasm cpu backend's exact GEMM kernel (src/backends/cpu/wasm/exact_gemm.h, issue 20) under
# node against the x86-64 fused chain: bench/wasm/harness.cpp built for wasm32 by clang-14 with
# no libc, checked to hold no relaxed-SIMD instruction, then bench/wasm/parity.mjs runs every
# case the native generator (CASES_BIN, bench/wasm/cases.cpp) wrote: random, float-midpoint,
# subnormal, grid-boundary, cancelling, special-value, zero-heavy, integer, tiny-sum and
# overflowing products, plain,
# transposed and accumulating, across edge tiles and every blocking boundary. The exact kernel
# must match every output bit; the same tile without its midpoint test must not (else the data
# misses the cases the test exists for).
# Usage: exact_gemm_test.sh CASES_BIN SOURCE_DIR OUT_DIR
set -euo pipefail
cases=$1 root=$2 out=$3
for tool in clang-14 wasm-ld node wasm-objdump; do
  command -v $tool >/dev/null || { echo "SKIP: $tool not found (Debian: clang-14 lld-14 nodejs wabt)"; exit 77; }
done
mkdir -p "$out"
clang-14 --target=wasm32 -msimd128 -std=c++20 -O2 -ffp-contract=off -nostdlib -nostdinc++ -ffreestanding \
  -fno-exceptions -fno-rtti -Wall -Wextra -Werror -I "$root/bench/wasm/shim" -I "$root/bench/ops/wasm/shim" -I "$root/src" \
  -Wl,--no-entry -Wl,--export=buffer -Wl,--export=buffer_elems -Wl,--export=gemm -Wl,--export=tiles \
  "$root/bench/wasm/harness.cpp" -o "$out/gemm.wasm"
"$root/scripts/wasm-no-relaxed-simd.sh" "$out/gemm.wasm"
"$cases" "$out/cases.bin"
node "$root/bench/wasm/parity.mjs" "$out/gemm.wasm" "$out/cases.bin"
