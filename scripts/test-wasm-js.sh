#!/usr/bin/env bash
# The JS face of the wasm engine (`make test-wasm-js`, docs/wasm-js.md, issue 20): builds the
# ES module `rung_engine` in the wasm32 build, stages the package (js/ + dist/), and holds it to
# the native x86-64 CLI under node (js/test/node_test.mjs) and in Debian's chromium through a
# Web Worker (js/test/browser_test.mjs, playwright-core from npm, installed into
# WASM_BUILD_DIR/js-test on first use). A missing tool or module is a loud SKIP (exit 77, as
# ctest's wasm.js expects; the parts that could run still ran), or a failure with
# RUNG_WASM_JS_REQUIRE=1.
# Usage: scripts/test-wasm-js.sh [X86_BUILD_DIR (default build)] [WASM_BUILD_DIR (default build-wasm)]
#   RUNG_WASM_NO_BUILD=1  take both builds as they are
#   RUNG_CHROMIUM=PATH    the browser (default /usr/bin/chromium)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
x86=$(realpath -m "${1:-$root/build}")
wasm=$(realpath -m "${2:-$root/build-wasm}")
chromium=${RUNG_CHROMIUM:-/usr/bin/chromium}
playwright_version=1.65.2
typescript_version=5.9.3

skip() {
  echo "test-wasm-js: SKIPPED: $*" >&2
  [[ ${RUNG_WASM_JS_REQUIRE:-0} == 1 ]] && exit 1
  exit 77
}
for tool in node wasm-objdump; do command -v $tool >/dev/null || skip "$tool not found (Debian: apt-get install nodejs wabt)"; done
[[ ${RUNG_WASM_NO_BUILD:-0} == 1 ]] || command -v em++ >/dev/null || skip "em++ not found (Debian: apt-get install emscripten)"
export NODE_PATH=${NODE_PATH:+$NODE_PATH:}/usr/share/nodejs  # emcc's JS optimizer needs node's acorn

if [[ ${RUNG_WASM_NO_BUILD:-0} != 1 ]]; then
  cmake --build "$x86" --target rung
  [[ -f $wasm/CMakeCache.txt ]] ||
    cmake -S "$root" -B "$wasm" -G Ninja -DCMAKE_BUILD_TYPE=Release \
      -DCMAKE_TOOLCHAIN_FILE="$root/scripts/wasm32-emscripten.cmake" \
      -DRUNG_TESTS=OFF -DRUNG_BACKEND_CUDA=OFF -DRUNG_BACKEND_WEBGPU=OFF -DRUNG_ONNX=OFF -DRUNG_PYTHON=OFF >/dev/null
  cmake --build "$wasm" --target rung_engine
fi
for f in rung_engine.mjs rung_engine.wasm; do
  [[ -f $wasm/js/$f ]] || skip "no $wasm/js/$f (make test-wasm-js builds the target rung_engine)"
done

fail=0
# The module, as scripts/test-wasm.sh checks the CLI's: no relaxed SIMD, libm's fmaf/fma
# neither referenced nor linked (wasm-ld's --trace-symbol lines, kept at link time).
"$root/scripts/wasm-no-relaxed-simd.sh" "$wasm/js/rung_engine.wasm" || fail=1
trace=$wasm/js/rung_engine.link-trace.txt
if [[ ! -f $trace ]]; then
  echo "FAIL: no link trace $trace (js/CMakeLists.txt asks wasm-ld for it)"; fail=1
elif grep -E ': (reference to|definition of) fmaf?$' "$trace"; then
  echo "FAIL: libm's fmaf/fma are linked into rung_engine.wasm (above)"; fail=1
else
  echo "rung_engine.wasm: no relaxed-SIMD instruction, no libm fmaf/fma linked"
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# The package as a user installs it: node_modules/@rung/engine = js/ without its tests, plus dist/.
pkg=$tmp/node_modules/@rung/engine
mkdir -p "$pkg/dist"
cp -r "$root/js/package.json" "$root/js/index.mjs" "$root/js/index.d.ts" "$root/js/src" "$pkg/"
cp "$wasm/js/rung_engine.mjs" "$wasm/js/rung_engine.wasm" "$pkg/dist/"
echo "test-wasm-js: rung_engine.wasm $(stat -c %s "$pkg/dist/rung_engine.wasm") bytes, rung_engine.mjs $(stat -c %s "$pkg/dist/rung_engine.mjs") bytes"

node "$root/js/test/node_test.mjs" "$x86/tools/rung/rung" "$pkg" "$root" "$tmp" || fail=1

# A skip of the browser half after a failure under node is still a failure.
skip_browser() { [[ $fail == 0 ]] && skip "$@"; echo "test-wasm-js: browser half skipped: $*" >&2; exit 1; }
[[ -x $chromium ]] || skip_browser "no $chromium (Debian: apt-get install chromium)"
pw=$wasm/js-test
if [[ ! -f $pw/node_modules/playwright-core/package.json || ! -f $pw/node_modules/typescript/package.json ]]; then
  mkdir -p "$pw"
  (cd "$pw" && npm install --no-audit --no-fund --silent "playwright-core@$playwright_version" "typescript@$typescript_version") ||
    skip_browser "npm could not install playwright-core@$playwright_version and typescript@$typescript_version"
fi
# index.d.ts against its use: tsc resolves @rung/engine in the staged node_modules.
cp "$root/js/test/types_check.ts" "$tmp/types_check.ts"
if (cd "$tmp" && "$pw/node_modules/.bin/tsc" --noEmit --strict --target es2022 --module nodenext --moduleResolution nodenext \
      --lib es2022,dom types_check.ts); then
  echo "PASS index.d.ts: js/test/types_check.ts type-checks (tsc --strict)"
else
  echo "FAIL index.d.ts: js/test/types_check.ts does not type-check"; fail=1
fi
NODE_PATH=$pw/node_modules node "$root/js/test/browser_test.mjs" "$x86/tools/rung/rung" "$pkg" "$root" "$tmp" "$chromium" "$pw/node_modules" || fail=1

[[ $fail == 0 ]] && echo "test-wasm-js: the JS engine equals the native CLI under node and in chromium"
exit $fail
