#!/usr/bin/env bash
# Builds the wasm GEMM harness (clang-14, wasm32, no libc) and the native case generator,
# checks the exact kernel's bits against the fused chain (parity.mjs), then measures GEMM
# speed under node (bench.mjs), with onnxruntime-web's WASM backend as the peer when
# bench/wasm/node_modules holds it (npm install in bench/wasm/).
#   bench/wasm/run.sh [OUT_DIR (default build-bench-wasm)] [bench.mjs options...]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
out=${1:-$root/build-bench-wasm}
shift || true
mkdir -p "$out"
clang++-14 -std=c++20 -O2 -ffp-contract=off -mfma -Wall -Wextra -Werror "$here/cases.cpp" -o "$out/cases"
clang++-14 --target=wasm32 -msimd128 -std=c++20 -O2 -ffp-contract=off -nostdlib -nostdinc++ -ffreestanding \
  -fno-exceptions -fno-rtti -Wall -Wextra -Werror -I "$here/shim" -I "$root/bench/ops/wasm/shim" -I "$root/src" \
  -Wl,--no-entry -Wl,--export=buffer -Wl,--export=buffer_elems -Wl,--export=gemm -Wl,--export=tiles \
  "$here/harness.cpp" -o "$out/gemm.wasm"
"$root/scripts/wasm-no-relaxed-simd.sh" "$out/gemm.wasm"
"$out/cases" "$out/cases.bin"
node "$here/parity.mjs" "$out/gemm.wasm" "$out/cases.bin"
peer=()
if [[ -d $here/node_modules/onnxruntime-web ]]; then
  /usr/bin/python3 "$here/matmul_onnx.py" "$out/models"
  peer=(--ort "$out/models")
fi
node "$here/bench.mjs" "$out/gemm.wasm" "${peer[@]}" "$@"
