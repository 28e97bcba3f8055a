#!/usr/bin/env bash
# npm packages the build uses, installed into the git-ignored build-deps/ of the source tree:
#   build-deps/webgpu: bun-webgpu-linux-x64 (libwebgpu_wrapper.so, Dawn's WebGPU C API, opened
#   with dlopen by src/backends/webgpu) and the SwiftShader ICD json with an absolute path.
# Does nothing when they are present; needs node/npm only when something is missing.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
dir="$root/build-deps/webgpu"
lib="$dir/node_modules/bun-webgpu-linux-x64/libwebgpu_wrapper.so"
if [[ ! -f "$lib" ]]; then
  if ! command -v npm >/dev/null; then
    # Debian's npm only when there is none (a NodeSource node ships its own).
    sudo=""; [[ $(id -u) -ne 0 ]] && sudo=sudo
    echo "setup: installing Debian npm (for bun-webgpu-linux-x64)"
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends npm >/dev/null ||
      { $sudo apt-get update -q && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends npm >/dev/null; }
  fi
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
