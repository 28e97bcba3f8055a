#!/usr/bin/env bash
# The CUDA backend's GPU suite and benchmarks in one call (bench/RESULTS.md holds the output):
#   scripts/gpu-check.sh            configure + build build-gpu (needs nvcc and the project's
#                                   dependencies), then run everything
#   scripts/gpu-check.sh BIN_DIR [DATA_DIR]
#                                   run prebuilt rung, cuda_test, cuda_fused_test,
#                                   cuda_gemm_bench, cuda_attention_bench and cuda_transformer_bench
#                                   from BIN_DIR; DATA_DIR holds
#                                   digits.csv (default build/data)
# Runs: device facts, the op suite (every op vs the reference, 0 differing bits), conformance
# of every op in tiers debug and fast with the examples and digits on cpu vs cuda
# (scripts/gpu-conform.sh), exact SGEMM vs cuBLAS at 4096^3 and 8192^3, elementwise and fused
# regions vs copy bandwidth, the attention op (fused exact, flash) and PyTorch's SDPA, the
# transformer block (bit-identity + debug/fast timings) and its PyTorch peer in the same session.
set -uo pipefail
cd "$(dirname "$0")/.."
BIN=${1:-}
DATA=${2:-build/data}
if [ -z "$BIN" ]; then
  cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release || exit 1
  cmake --build build-gpu --target rung cuda_test cuda_fused_test cuda_gemm_bench cuda_attention_bench cuda_transformer_bench || exit 1
  BIN=build-gpu/flat
  mkdir -p "$BIN"
  ln -sf ../tools/rung/rung ../tests/cuda/cuda_test ../tests/cuda/cuda_fused_test ../bench/cuda/cuda_gemm_bench ../bench/cuda/cuda_attention_bench ../bench/cuda/cuda_transformer_bench "$BIN"/
  scripts/fetch-digits.sh "$DATA/digits.csv" || exit 1
fi
# Prebuilt binaries may bring libraries the GPU machine lacks (libhwy) next to them.
export LD_LIBRARY_PATH=$(cd "$BIN" && pwd):/usr/local/cuda/lib64:/usr/local/cuda/lib:${LD_LIBRARY_PATH:-}
status=0
echo "== date: $(date -u +%Y-%m-%d) =="
echo "== device =="
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv,noheader || status=1
echo "== op suite: every cuda kernel vs the reference (tier debug: 0 differing bits) =="
"$BIN"/cuda_test --gtest_color=no 2>&1 | grep -v "^\[ RUN\|^\[       OK" || status=1
echo "== fused elementwise regions: one generated kernel each vs the CPU's fused executor (0 differing bits) =="
if [ -x "$BIN"/cuda_fused_test ]; then
  "$BIN"/cuda_fused_test --gtest_color=no 2>&1 | grep -v "^\[ RUN\|^\[       OK" || status=1
else
  echo "MISSING: $BIN/cuda_fused_test was not built or copied; the fused-region suite did not run"; status=1
fi
echo "== conformance, examples and digits: cpu vs cuda (scripts/gpu-conform.sh) =="
RUNG_GPU_SUITE_DONE=1 scripts/gpu-conform.sh "$BIN" "$DATA" || status=1
echo "== the C ABI on cuda: the C consumer (tests/consumer) prints rung run --backend cuda's hashes =="
if [ -x "$BIN"/c_consumer ]; then
  home=$(mktemp -d)
  python3 tests/consumer/make_inputs.py "$home" || status=1
  "$BIN"/rung run examples/center.workflow.json --backend cuda --arg x="$home/x.npy" --arg w="$home/w.npy" > "$home/cli.txt" 2>&1 || status=1
  awk '/^fingerprint/ {print "fingerprint", $2} /^output/ {n = $3; sub(":", "", n); print n, $NF}' "$home/cli.txt" > "$home/expected.txt"
  "$BIN"/c_consumer examples/center.workflow.json "$home" cuda > "$home/c.txt" || status=1
  cat "$home/c.txt"
  if [ "$(wc -l < "$home/expected.txt")" = 3 ] && diff "$home/expected.txt" "$home/c.txt"; then echo "ok: C consumer on cuda = rung run --backend cuda"
  else echo "FAIL: the C consumer on cuda differs from rung run --backend cuda"; cat "$home/cli.txt"; status=1; fi
else
  echo "MISSING: $BIN/c_consumer was not staged"; status=1
fi
echo "== ONNX: the node tests and the PyTorch exports, cpu vs cuda in tier debug (0 differing bits on every test both run) =="
if [ -d "$DATA/onnx-node" ] && [ -d "$DATA/onnx-torch" ]; then
  "$BIN"/rung onnx-suite "$DATA/onnx-node" --compare cpu,cuda --tier debug | grep -v "^refused\|^not attempted" || status=1
  "$BIN"/rung onnx-suite "$DATA/onnx-torch" --compare cpu,cuda --tier debug || status=1
  "$BIN"/rung onnx-suite "$DATA/onnx-torch" --compare reference,cuda --tier debug || status=1
  echo "== ONNX PyTorch exports: rung cuda latency (debug, fast), then PyTorch on the same GPU =="
  "$BIN"/onnx_models_bench "$DATA/onnx-torch" --backend cuda --tiers debug,fast --threads 1 --home "$(mktemp -d)" || status=1
  PYTHONUNBUFFERED=1 python3 bench/onnx/torch_models_cuda.py || status=1
else
  echo "MISSING: $DATA/onnx-node or $DATA/onnx-torch was not staged"; status=1
fi
echo "== exact SGEMM vs cuBLAS (the block's weight-gradient and score shapes, then 4096^3 and 8192^3); elementwise and a fused region vs copy =="
"$BIN"/cuda_gemm_bench 768x3072x8192:1:0 768x768x8192:1:0 768x2304x8192:1:0 1024x1024x64:0:1:96 4096 8192 || status=1
echo "== attention op: fused exact, composed, flash (tier fast) =="
"$BIN"/cuda_attention_bench || status=1
echo "== attention: PyTorch SDPA peer (same device, same session) =="
PYTHONUNBUFFERED=1 python3 bench/cuda/attention_torch.py || status=1
echo "== transformer block: rung (debug, fast) =="
"$BIN"/cuda_transformer_bench || status=1
echo "== transformer block: PyTorch peer (same device, same session) =="
PYTHONUNBUFFERED=1 python3 bench/cuda/transformer_torch.py || status=1
echo "== gpu-check status: $status =="
exit $status
