#!/usr/bin/env bash
# Builds parity.cpp natively and for wasm32 (clang, no libc) and compares the digests.
#   bench/ops/wasm/run.sh [BUILD_DIR]     (needs clang, wasm-ld and node >= 18)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
out=${1:-$root/build-ops}/wasm-parity
mkdir -p "$out"
flags=(-std=c++20 -O2 -ffp-contract=off -I "$root/src")
clang++ "${flags[@]}" "$here/parity.cpp" -o "$out/native"
clang++ "${flags[@]}" --target=wasm32 -nostdlib -nostdinc++ -ffreestanding -fno-exceptions -fno-rtti \
  -I "$here/shim" -Wl,--no-entry -Wl,--export=digest -Wl,--export=matmul_digest -Wl,--export=sum_bits \
  "$here/parity.cpp" -o "$out/parity.wasm"
"$out/native" > "$out/native.txt"
node "$here/run.mjs" "$out/parity.wasm" > "$out/wasm.txt"
if diff "$out/native.txt" "$out/wasm.txt" > "$out/diff.txt"; then
  echo "native and wasm32: identical ($(wc -l < "$out/native.txt") digests)"
else
  echo "native and wasm32 DIFFER:"; head "$out/diff.txt"; exit 1
fi
