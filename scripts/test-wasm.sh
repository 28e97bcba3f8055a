#!/usr/bin/env bash
# WebAssembly check (`make test-wasm`, issue 20, ../shared/design/WASM.md): builds the rung CLI
# for wasm32 with Debian's emscripten 3.1.6 (scripts/wasm32-emscripten.cmake: -msimd128, single
# thread, NODERAWFS), runs it under node 20, and checks that its results are the x86-64 build's
# bits: the conformance suite on the reference and cpu backends, the digest of every output of
# every case equal (on a difference, the ops whose digests differ are listed).
# Needs: emscripten (em++, emcmake), nodejs (>= 20), and the host's header-only packages
# (libcli11-dev, nlohmann-json3-dev, libhwy-dev).
# Usage: scripts/test-wasm.sh [X86_BUILD_DIR (default build)] [WASM_BUILD_DIR (default build-wasm)]
#   RUNG_WASM_CASES=N  cases per (op, dtype) for the conformance runs (default 16, the suite's)
#   RUNG_WASM_NO_BUILD=1  take both builds as they are (build neither)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
x86=${1:-$root/build}
wasm=${2:-$root/build-wasm}
cases=${RUNG_WASM_CASES:-16}
start=$(date +%s)

for tool in em++ node; do
  command -v $tool >/dev/null || { echo "test-wasm: $tool not found (Debian: apt-get install emscripten nodejs)" >&2; exit 2; }
done

# emcc's JS optimizer needs node's acorn: Debian's node-acorn lies in /usr/share/nodejs.
export NODE_PATH=${NODE_PATH:+$NODE_PATH:}/usr/share/nodejs

# --- builds: x86-64 `rung` (incremental) and a lean wasm32 `rung` (no tests, no GPU backends,
# no ONNX importer, no Python module)
if [[ ${RUNG_WASM_NO_BUILD:-0} != 1 ]]; then
cmake --build "$x86" --target rung
[[ -f $wasm/CMakeCache.txt ]] ||
  cmake -S "$root" -B "$wasm" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_TOOLCHAIN_FILE="$root/scripts/wasm32-emscripten.cmake" \
    -DRUNG_TESTS=OFF -DRUNG_BACKEND_CUDA=OFF -DRUNG_BACKEND_WEBGPU=OFF -DRUNG_ONNX=OFF -DRUNG_PYTHON=OFF >/dev/null
cmake --build "$wasm" --target rung
fi
[[ $(head -c 4 "$wasm/tools/rung/rung.wasm" | od -An -tx1 | tr -d ' ') == 0061736d ]] ||
  { echo "test-wasm: $wasm/tools/rung/rung.wasm is not a WebAssembly module"; exit 1; }
built=$(date +%s)

# node 20 has fetch: emscripten 3.1.6 would fetch the .wasm instead of reading it.
wasm_rung() { node --no-experimental-fetch "$wasm/tools/rung/rung.js" "$@"; }
x86_rung() { "$x86/tools/rung/rung" "$@"; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export RUNG_HOME=$tmp/store
fail=0

field() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2], {}, {"d": d}))' "$@"; }
conform_check() {  # NAME X86_JSON WASM_JSON
  local x a
  x=$(field "$2" 'd["outputs_digest"]' 2>/dev/null || echo "(no result)")
  a=$(field "$3" 'd["outputs_digest"]' 2>/dev/null || echo "(no result)")
  printf '%s\n  x86-64 %s\n  wasm32 %s  [%s]\n' "$1" "$x" "$a" "$(field "$3" 'd["device"]' 2>/dev/null || true)"
  if [[ $x != "$a" || $x == "(no result)" ]]; then
    echo "FAIL: $1: the outputs differ; ops whose digests differ:"
    python3 - "$2" "$3" <<'PY' || true
import json, sys
x, a = (json.load(open(p)) for p in sys.argv[1:3])
xd = {r["op"]: r["outputs_digest"] for r in x["reports"]}
ad = {r["op"]: r["outputs_digest"] for r in a["reports"]}
for op in sorted(set(xd) | set(ad)):
    if xd.get(op) != ad.get(op):
        print("  ", op, "x86-64:", xd.get(op, "(missing)")[:16], "wasm32:", ad.get(op, "(missing)")[:16])
PY
    fail=1
  fi
  [[ $(field "$3" 'd["pass"]' 2>/dev/null) == True ]] || { echo "FAIL: $1: the wasm32 suite does not pass"; fail=1; }
}
for b in reference cpu; do
  t0=$(date +%s)
  x86_rung conform --backend $b --cases "$cases" --no-receipts --json > "$tmp/x86-$b.json" || true
  t1=$(date +%s)
  wasm_rung conform --backend $b --cases "$cases" --no-receipts --json > "$tmp/wasm-$b.json" 2> "$tmp/wasm-$b.err" || true
  t2=$(date +%s)
  [[ -s $tmp/wasm-$b.json ]] || { echo "test-wasm: wasm32 conform --backend $b printed nothing:"; tail -5 "$tmp/wasm-$b.err"; }
  conform_check "conform $b --cases $cases (x86-64 $((t1 - t0)) s, wasm32 $((t2 - t1)) s)" "$tmp/x86-$b.json" "$tmp/wasm-$b.json"
done
end=$(date +%s)

echo "test-wasm: times: builds $((built - start)) s, conformance $((end - built)) s, total $((end - start)) s"
[[ $fail == 0 ]] && echo "test-wasm: wasm32 results are bit-identical to x86-64"
exit $fail
