#!/usr/bin/env bash
# npm packages the build uses, installed into the git-ignored build-deps/ of the source tree:
#   build-deps/webgpu: bun-webgpu-linux-x64 (libwebgpu_wrapper.so, Dawn's WebGPU C API, opened
#   with dlopen by src/backends/webgpu) and the SwiftShader ICD json with an absolute path.
#   build-deps/onnxruntime: onnxruntime-node, the peer on the ONNX node tests (tests/onnx/ort/).
# Does nothing when they are present; needs node/npm only when something is missing.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
need_npm() {
  if ! command -v npm >/dev/null; then
    # Debian's npm only when there is none (a NodeSource node ships its own).
    sudo=""; [[ $(id -u) -ne 0 ]] && sudo=sudo
    echo "setup: installing Debian npm (for $1)"
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends npm >/dev/null ||
      { $sudo apt-get update -q && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends npm >/dev/null; }
  fi
}
dir="$root/build-deps/webgpu"
lib="$dir/node_modules/bun-webgpu-linux-x64/libwebgpu_wrapper.so"
if [[ ! -f "$lib" ]]; then
  need_npm bun-webgpu-linux-x64
  mkdir -p "$dir"
  [[ -f "$dir/package.json" ]] || echo '{"name": "rung-webgpu-deps", "private": true}' > "$dir/package.json"
  echo "setup: installing npm bun-webgpu-linux-x64 into build-deps/webgpu"
  (cd "$dir" && npm install --no-audit --no-fund --ignore-scripts --no-save bun-webgpu-linux-x64@0.1.7 >/dev/null)
fi
# SwiftShader's packaged ICD json names its library relatively; write one with the absolute path.
so=/usr/lib/chromium/libvk_swiftshader.so
if [[ -f "$so" ]]; then
  printf '{"file_format_version": "1.0.0", "ICD": {"library_path": "%s", "api_version": "1.0.5"}}\n' "$so" > "$dir/swiftshader_icd.json"
fi

# onnxruntime-node: ONNXRUNTIME_NODE_INSTALL=skip, else its install script fetches CUDA libraries;
# the CPU binding for linux/x64 ships inside the package.
ort="$root/build-deps/onnxruntime"
if [[ ! -f "$ort/node_modules/onnxruntime-node/package.json" ]]; then
  need_npm onnxruntime-node
  mkdir -p "$ort"
  [[ -f "$ort/package.json" ]] || echo '{"name": "rung-onnxruntime-deps", "private": true}' > "$ort/package.json"
  echo "setup: installing npm onnxruntime-node into build-deps/onnxruntime"
  (cd "$ort" && ONNXRUNTIME_NODE_INSTALL=skip npm install --no-audit --no-fund --no-save onnxruntime-node@1.30.0 >/dev/null)
fi
