#!/usr/bin/env bash
# WebAssembly check (`make test-wasm`, and in `make test` as ctest wasm.engine; issue 20,
# ../shared/design/WASM.md): builds the rung CLI for wasm32 with Debian's emscripten 3.1.6
# (scripts/wasm32-emscripten.cmake: -msimd128, single thread, NODERAWFS), runs it under node 20
# and checks that its results are the x86-64 build's bits: the conformance suite on the
# reference and cpu backends (the digest of every output of every case), and the debug-tier
# examples' output hashes. Also: the module holds no relaxed-SIMD instruction, and libm's
# fmaf/fma (musl's, wrong on wasm) are not linked in (the link map).
# Needs: emscripten (em++, emcmake), nodejs (>= 20), wabt, and the host's header-only packages
# (libcli11-dev, nlohmann-json3-dev, libhwy-dev).
# Usage: scripts/test-wasm.sh [X86_BUILD_DIR (default build)] [WASM_BUILD_DIR (default build-wasm)]
#          [WASM_THREADS_BUILD_DIR (default build-wasm-mt: the pthread build, run at 2 threads; checked
#          when it exists, and built unless RUNG_WASM_NO_BUILD=1)]
#   RUNG_WASM_CASES=N     cases per (op, dtype) for the conformance runs (default 16, the suite's)
#   RUNG_WASM_NO_BUILD=1  take both builds as they are (build neither)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
x86=${1:-$root/build}
wasm=${2:-$root/build-wasm}
wasm_mt=${3:-$root/build-wasm-mt}
cases=${RUNG_WASM_CASES:-16}
start=$(date +%s)

for tool in node wasm-objdump; do
  command -v $tool >/dev/null || { echo "test-wasm: $tool not found (Debian: apt-get install nodejs wabt)" >&2; exit 2; }
done

# --- builds: x86-64 `rung` (incremental) and the lean wasm32 `rung` (scripts/build-wasm.sh)
if [[ ${RUNG_WASM_NO_BUILD:-0} != 1 ]]; then
  cmake --build "$x86" --target rung
  "$root/scripts/build-wasm.sh" "$wasm"
  "$root/scripts/build-wasm.sh" "$wasm_mt" "$(nproc)" threads
elif [[ ! -f $wasm/tools/rung/rung.wasm ]]; then
  echo "SKIP: no wasm32 build in $wasm (make build-wasm; make test builds it)"; exit 77
fi
[[ $(head -c 4 "$wasm/tools/rung/rung.wasm" | od -An -tx1 | tr -d ' ') == 0061736d ]] ||
  { echo "test-wasm: $wasm/tools/rung/rung.wasm is not a WebAssembly module"; exit 1; }
built=$(date +%s)

# node 20 has fetch: emscripten 3.1.6 would fetch the .wasm instead of reading it.
wasm_rung() { node --no-experimental-fetch "$wasm/tools/rung/rung.js" "$@"; }
wasm_mt_rung() { node --no-experimental-fetch "$wasm_mt/tools/rung/rung.js" "$@"; }
x86_rung() { "$x86/tools/rung/rung" "$@"; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export RUNG_HOME=$tmp/store
fail=0

TARGET=wasm32
target_rung() { wasm_rung "$@"; }
. "$root/scripts/cross-check-lib.sh"

# --- the module: no relaxed SIMD; libm's fmaf/fma neither referenced nor linked (wasm-ld's
# --trace-symbol lines, kept at link time by scripts/wasm32-emscripten/link-trace.sh)
"$root/scripts/wasm-no-relaxed-simd.sh" "$wasm/tools/rung/rung.wasm" || fail=1
trace=$wasm/tools/rung/rung.link-trace.txt
if [[ ! -f $trace ]]; then
  echo "FAIL: no link trace $trace (tools/rung/CMakeLists.txt asks wasm-ld for it)"; fail=1
elif grep -E ': (reference to|definition of) fmaf?$' "$trace"; then
  echo "FAIL: libm's fmaf/fma are linked into rung.wasm (above)"; fail=1
else
  echo "rung.wasm: no relaxed-SIMD instruction, no libm fmaf/fma linked ($(wc -c < "$wasm/tools/rung/rung.wasm") bytes)"
fi

# --- the conformance suite: every op of the registry (about 30 s under node at 16 cases)
for b in reference cpu; do
  conform_both $b "$cases"
done
conformed=$(date +%s)

# --- the debug-tier examples (the single-threaded build runs the cpu backend on one thread)
example_check "reference 1" "cpu 1"

# --- the pthread build: the cpu backend on 2 threads, the same bits
if [[ -f $wasm_mt/tools/rung/rung.wasm ]]; then
  TARGET=wasm32-mt
  target_rung() { wasm_mt_rung "$@"; }
  "$root/scripts/wasm-no-relaxed-simd.sh" "$wasm_mt/tools/rung/rung.wasm" || fail=1
  RUNG_CPU_THREADS=2 conform_both cpu "$cases"
  example_check "cpu 1" "cpu 2"
else
  echo "test-wasm: no pthread build in $wasm_mt: 2 threads not checked (make test-wasm builds it)"
fi
end=$(date +%s)

echo "test-wasm: times: builds $((built - start)) s, conformance $((conformed - built)) s, examples $((end - conformed)) s, total $((end - start)) s"
[[ $fail == 0 ]] && echo "test-wasm: wasm32 results are bit-identical to x86-64"
exit $fail
