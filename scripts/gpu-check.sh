#!/usr/bin/env bash
# The CUDA backend's GPU suite and benchmarks in one call (bench/RESULTS.md holds the output):
#   scripts/gpu-check.sh            configure + build build-gpu (needs nvcc and the project's
#                                   dependencies), then run everything
#   scripts/gpu-check.sh BIN_DIR    run prebuilt cuda_test, cuda_gemm_bench and
#                                   cuda_transformer_bench from BIN_DIR
# Runs: device facts, the op suite (every op vs the reference, 0 differing bits), exact SGEMM
# vs cuBLAS at 4096^3 and 8192^3, elementwise vs copy bandwidth, the transformer block
# (bit-identity + debug/fast timings) and its PyTorch peer in the same session.
set -uo pipefail
cd "$(dirname "$0")/.."
BIN=${1:-}
if [ -z "$BIN" ]; then
  cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release || exit 1
  cmake --build build-gpu --target cuda_test cuda_gemm_bench cuda_transformer_bench || exit 1
  BIN=build-gpu/flat
  mkdir -p "$BIN"
  ln -sf ../tests/cuda/cuda_test ../bench/cuda/cuda_gemm_bench ../bench/cuda/cuda_transformer_bench "$BIN"/
fi
# Prebuilt binaries may bring libraries the GPU machine lacks (libhwy) next to them.
export LD_LIBRARY_PATH=$(cd "$BIN" && pwd):/usr/local/cuda/lib64:/usr/local/cuda/lib:${LD_LIBRARY_PATH:-}
status=0
echo "== date: $(date -u +%Y-%m-%d) =="
echo "== device =="
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv,noheader || status=1
echo "== op suite: every cuda kernel vs the reference (tier debug: 0 differing bits) =="
"$BIN"/cuda_test --gtest_color=no 2>&1 | grep -v "^\[ RUN\|^\[       OK" || status=1
echo "== exact SGEMM vs cuBLAS; elementwise vs copy =="
"$BIN"/cuda_gemm_bench 4096 8192 || status=1
echo "== transformer block: rung (debug, fast) =="
"$BIN"/cuda_transformer_bench || status=1
echo "== transformer block: PyTorch peer (same device, same session) =="
PYTHONUNBUFFERED=1 python3 bench/cuda/transformer_torch.py || status=1
echo "== gpu-check status: $status =="
exit $status
