#!/usr/bin/env bash
# Fails when a WebAssembly module holds a relaxed-SIMD instruction (relaxed_madd may fuse or
# not at the host's choice, so no exact tier may contain one; docs/backend-wasm.md).
# Usage: scripts/wasm-no-relaxed-simd.sh MODULE.wasm...
set -euo pipefail
status=0
for m in "$@"; do
  dis=$(wasm-objdump -d "$m") || { echo "wasm-no-relaxed-simd: cannot disassemble $m"; exit 2; }
  [[ -n $dis ]] || { echo "wasm-no-relaxed-simd: $m disassembles to nothing"; exit 2; }
  if hits=$(grep -E '\brelaxed_' <<< "$dis"); then
    echo "FAIL: $m holds relaxed-SIMD instructions:"; head -5 <<< "$hits"; status=1
  fi
done
exit $status
