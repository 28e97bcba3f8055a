#!/usr/bin/env bash
# Cross-architecture check (`make test-arm64`, docs/conformance.md): builds rung for aarch64
# with Debian's cross compiler, runs it under qemu-user, and checks that its results are the
# x86-64 build's bits:
#   1. the conformance suite on the reference and cpu backends: the digest of every output of
#      every case must be equal (on a difference, the ops whose digests differ are listed);
#   2. the cpu suite again with Highway's dispatch led to each of its aarch64 targets by the
#      emulated CPU: SVE2 (512-bit vectors), SVE2_128, SVE (A64FX, 512-bit), SVE_256, NEON;
#   3. debug-tier examples (a workflow, the transformer block, the MLP's 200 Adam steps) on
#      reference and cpu at 1 and 2 threads: equal output hashes.
# Installs what it needs when missing (Debian 12, root or sudo): g++-aarch64-linux-gnu,
# qemu-user-static, and through multiarch libhwy-dev:arm64 and libssl-dev:arm64.
# Usage: scripts/test-arm64.sh [X86_BUILD_DIR (default build)] [ARM_BUILD_DIR (default build-arm64)]
#   RUNG_ARM64_CASES=N  cases per (op, dtype) for the conformance runs (default 16, the suite's)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
x86=${1:-$root/build}
arm=${2:-$root/build-arm64}
cases=${RUNG_ARM64_CASES:-16}
start=$(date +%s)

# --- what the cross build needs -------------------------------------------------------
installed() { [[ $(dpkg-query -W -f='${Status}' "$1" 2>/dev/null || true) == "install ok installed" ]]; }
missing=()
for p in g++-aarch64-linux-gnu qemu-user-static libhwy-dev:arm64 libssl-dev:arm64; do
  installed "$p" || missing+=("$p")
done
if [[ ${#missing[@]} -gt 0 ]]; then
  echo "test-arm64: installing missing packages: ${missing[*]}"
  sudo=""
  if [[ $(id -u) -ne 0 ]]; then
    command -v sudo >/dev/null || { echo "test-arm64: need root (or sudo) to install: ${missing[*]}" >&2; exit 2; }
    sudo=sudo
  fi
  export DEBIAN_FRONTEND=noninteractive
  updated=0
  if ! dpkg --print-foreign-architectures | grep -qx arm64; then
    $sudo dpkg --add-architecture arm64
    $sudo apt-get update -q
    updated=1
  fi
  if ! $sudo apt-get install -y -q --no-install-recommends "${missing[@]}"; then
    [[ $updated == 1 ]] || $sudo apt-get update -q
    $sudo apt-get install -y -q --no-install-recommends "${missing[@]}"
  fi
fi

# --- builds: x86-64 `rung` (incremental) and a lean aarch64 `rung` (no tests, no GPU backends)
cmake --build "$x86" --target rung
[[ -f $arm/CMakeCache.txt ]] ||
  cmake -S "$root" -B "$arm" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_TOOLCHAIN_FILE="$root/scripts/aarch64-linux-gnu.cmake" \
    -DRUNG_TESTS=OFF -DRUNG_BACKEND_CUDA=OFF -DRUNG_BACKEND_WEBGPU=OFF >/dev/null
cmake --build "$arm" --target rung
aarch64-linux-gnu-readelf -h "$arm/tools/rung/rung" | grep -q 'Machine:.*AArch64' ||
  { echo "test-arm64: $arm/tools/rung/rung is not an aarch64 executable"; exit 1; }
built=$(date +%s)

# qemu's CPU model decides what Highway's dispatch finds (conform's device line names it):
# `max` has SVE2 (512-bit vectors by default), sve-default-vector-length=16 makes it
# SVE2_128; a64fx has SVE without SVE2 (SVE, or SVE_256 at 32 bytes); sve=off leaves NEON.
qemu_cpu=max
# No -L /usr/aarch64-linux-gnu: that mixes the cross toolchain's ld.so with the multiarch
# libc.so.6 (two glibc builds), and pthread_create then loops forever in its stack cache.
arm_rung() { qemu-aarch64-static -cpu "$qemu_cpu" "$arm/tools/rung/rung" "$@"; }
x86_rung() { "$x86/tools/rung/rung" "$@"; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export RUNG_HOME=$tmp/store
fail=0

# --- 1, 2: the conformance suite ------------------------------------------------------
TARGET=aarch64
target_rung() { arm_rung "$@"; }
. "$root/scripts/cross-check-lib.sh"
for b in reference cpu; do
  x86_rung conform --backend $b --cases "$cases" --no-receipts --json > "$tmp/x86-$b.json" || true
  arm_rung conform --backend $b --cases "$cases" --no-receipts --json > "$tmp/arm-$b.json" || true
  conform_check "conform $b (qemu -cpu max)" "$tmp/x86-$b.json" "$tmp/arm-$b.json"
done
for qemu_cpu in max,sve-default-vector-length=16 a64fx a64fx,sve-default-vector-length=32 max,sve=off; do
  arm_rung conform --backend cpu --cases "$cases" --no-receipts --json > "$tmp/arm-cpu-t.json" || true
  conform_check "conform cpu (qemu -cpu $qemu_cpu)" "$tmp/x86-cpu.json" "$tmp/arm-cpu-t.json"
done
qemu_cpu=max
conformed=$(date +%s)

# --- 3: debug-tier examples -----------------------------------------------------------
example_check "reference 2" "cpu 1" "cpu 2"
end=$(date +%s)

echo "test-arm64: times: builds $((built - start)) s, conformance $((conformed - built)) s, examples $((end - conformed)) s, total $((end - start)) s"
[[ $fail == 0 ]] && echo "test-arm64: aarch64 results are bit-identical to x86-64"
exit $fail
