#!/usr/bin/env bash
# Cross-architecture check (`make test-arm64`): builds rung for aarch64 with Debian's cross
# compiler, runs it under qemu-user, and checks that its results are the x86-64 build's bits:
#   1. the conformance suite on the reference backend (and cpu when built): the digest of
#      every output of every case must be equal;
#   2. a debug-tier example (examples/center.workflow.json): equal output hashes.
# Needs (Debian 12): g++-aarch64-linux-gnu qemu-user-static, and through multiarch
# (dpkg --add-architecture arm64) libssl-dev:arm64 libgtest-dev:arm64.
# Usage: scripts/test-arm64.sh [X86_BUILD_DIR (default build)] [ARM_BUILD_DIR (default build-arm64)]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
x86=${1:-$root/build}
arm=${2:-$root/build-arm64}
cases=${RUNG_ARM64_CASES:-3}

for tool in aarch64-linux-gnu-g++ qemu-aarch64-static; do
  command -v $tool >/dev/null || { echo "test-arm64: $tool is missing (apt-get install g++-aarch64-linux-gnu qemu-user-static)"; exit 2; }
done
[[ -f /usr/lib/aarch64-linux-gnu/libcrypto.so ]] || { echo "test-arm64: libssl-dev:arm64 is missing (dpkg --add-architecture arm64; apt-get install libssl-dev:arm64 libgtest-dev:arm64)"; exit 2; }

cat > /tmp/rung-aarch64.cmake <<'TC'
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)
set(CMAKE_CROSSCOMPILING_EMULATOR qemu-aarch64-static -L /usr/aarch64-linux-gnu)
set(CMAKE_FIND_ROOT_PATH /usr/aarch64-linux-gnu /usr/lib/aarch64-linux-gnu)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE BOTH)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE BOTH)
set(CMAKE_LIBRARY_ARCHITECTURE aarch64-linux-gnu)
TC

[[ -x $x86/tools/rung/rung ]] || cmake --build "$x86" --target rung
cmake -S "$root" -B "$arm" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_TOOLCHAIN_FILE=/tmp/rung-aarch64.cmake >/dev/null
cmake --build "$arm" --target rung
file "$arm/tools/rung/rung" | grep -q aarch64 || { echo "test-arm64: the cross build is not aarch64"; exit 1; }
arm_rung() { qemu-aarch64-static -L /usr/aarch64-linux-gnu "$arm/tools/rung/rung" "$@"; }
x86_rung() { "$x86/tools/rung/rung" "$@"; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export RUNG_HOME=$tmp/store
fail=0

digest() { python3 -c 'import json,sys; print(json.load(sys.stdin)["outputs_digest"])'; }
backends="reference"
x86_rung devices --json | python3 -c 'import json,sys; sys.exit(0 if "cpu" in json.load(sys.stdin)["backends"] else 1)' && backends="reference cpu"
for b in $backends; do
  x=$(x86_rung conform --backend $b --cases $cases --no-receipts --json | digest) || true
  a=$(arm_rung conform --backend $b --cases $cases --no-receipts --json | digest) || true
  echo "conform $b: x86-64 $x"
  echo "conform $b: aarch64 $a"
  [[ -n $x && $x == "$a" ]] || { echo "FAIL: conformance outputs differ on $b"; fail=1; }
done

# The debug-tier example, with .npy inputs written here.
python3 - "$tmp" <<'PY'
import struct, sys
def save(path, shape, values):
    header = "{'descr': '<f4', 'fortran_order': False, 'shape': (%s), }" % "".join("%d, " % d for d in shape)
    header += " " * (64 - (10 + len(header) + 1) % 64) + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode())
        f.write(struct.pack("<%df" % len(values), *values))
save(sys.argv[1] + "/x.npy", (5, 8), [((i * 37) % 11) / 3.0 - 1.5 for i in range(40)])
save(sys.argv[1] + "/w.npy", (8, 4), [((i * 13) % 7) / 5.0 - 0.5 for i in range(32)])
PY
ex="$root/examples/center.workflow.json --arg x=$tmp/x.npy --arg w=$tmp/w.npy"
hashes() { python3 -c 'import json,sys; print(" ".join(o["sha3_256"] for o in json.load(sys.stdin)["outputs"]))'; }
x=$(x86_rung run $ex --json | hashes)
a=$(arm_rung run $ex --json | hashes)
echo "example: x86-64 $x"
echo "example: aarch64 $a"
[[ -n $x && $x == "$a" ]] || { echo "FAIL: example output hashes differ"; fail=1; }
[[ $fail == 0 ]] && echo "test-arm64: aarch64 results are bit-identical to x86-64"
exit $fail
