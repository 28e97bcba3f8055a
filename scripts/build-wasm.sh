#!/usr/bin/env bash
# Builds the lean wasm32 `rung` CLI with Debian's emscripten 3.1.6 (scripts/wasm32-emscripten.cmake;
# no tests, no GPU backends, no ONNX importer, no Python module) into WASM_BUILD_DIR/tools/rung/
# rung.js + rung.wasm, run under node by scripts/test-wasm.sh (make test's wasm.engine).
# Usage: scripts/build-wasm.sh [WASM_BUILD_DIR (default build-wasm)] [JOBS (default nproc)] [threads]
#   threads: the pthread build (RUNG_WASM_THREADS=ON; SharedArrayBuffer, 4 pooled workers)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
wasm=${1:-$root/build-wasm}
jobs=${2:-$(nproc)}
threads=OFF
[[ ${3:-} != threads ]] || threads=ON
command -v em++ >/dev/null || { echo "build-wasm: em++ not found (Debian: apt-get install emscripten)" >&2; exit 2; }
# emcc's JS optimizer needs node's acorn: Debian's node-acorn lies in /usr/share/nodejs.
export NODE_PATH=${NODE_PATH:+$NODE_PATH:}/usr/share/nodejs
[[ -f $wasm/CMakeCache.txt ]] ||
  cmake -S "$root" -B "$wasm" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_TOOLCHAIN_FILE="$root/scripts/wasm32-emscripten.cmake" \
    -DRUNG_TESTS=OFF -DRUNG_BACKEND_CUDA=OFF -DRUNG_BACKEND_WEBGPU=OFF -DRUNG_ONNX=OFF -DRUNG_PYTHON=OFF \
    -DRUNG_WASM_THREADS=$threads >/dev/null
cmake --build "$wasm" --target rung -j "$jobs"
