#!/usr/bin/env bash
# Prepares one call of scripts/gpu-check.sh on a GPU machine that lacks the project's build
# dependencies (the device tool's machines): builds the GPU suite and benchmarks here, strips
# them, packs them (xz: the carried folder must stay small), adds the shared libraries they
# need that such a machine lacks (libhwy) and the digits data, and writes run.sh, which unpacks
# and runs the whole check, teeing its output to $OUT/gpu-check.txt when $OUT is set.
#   scripts/gpu-stage.sh [BUILD_DIR (default build)] [STAGE_DIR (default .gpu-stage-lead)]
# then, on the GPU machine from the repository root: bash STAGE_DIR/run.sh
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
stage=${2:-.gpu-stage-lead}
bins=(tools/rung/rung tests/cuda/cuda_test tests/cuda/cuda_fused_test bench/cuda/cuda_gemm_bench
      bench/cuda/cuda_transformer_bench bench/cuda/cuda_attention_bench bench/onnx/onnx_models_bench)
targets=()
for b in "${bins[@]}"; do targets+=("$(basename "$b")"); done
cmake --build "$build" --target "${targets[@]}"
rm -rf "$stage" && mkdir -p "$stage/bin" "$stage/data" "$stage/pack"
for b in "${bins[@]}"; do strip -o "$stage/pack/$(basename "$b")" "$build/$b"; done
# The CLI is a client of librung.so.1; and the C consumer (tests/consumer) runs on cuda through it.
strip -o "$stage/pack/librung.so.1" "$build/src/capi/librung.so.1"
cc -std=c11 -Wall -Werror tests/consumer/project/consumer.c -Iinclude -L"$build/src/capi" -lrung -o "$stage/pack/c_consumer"

# Debian libraries the binaries link that such a machine lacks: highway, and the ONNX importer's
# onnx and protobuf (the CLI and the ONNX bench import models).
for lib in libhwy.so.1 libonnx.so.1 libonnx_proto.so.1 libprotobuf.so.32; do
  path=$(ldconfig -p | awk -v l="$lib" '$1 == l && !found {print $NF; found = 1}')  # no early exit: SIGPIPE under pipefail
  [[ -n "$path" ]] || { echo "gpu-stage: $lib not found (ldconfig -p)" >&2; exit 1; }
  cp "$path" "$stage/pack/"
done

tar cf - -C "$stage/pack" . | xz -T0 -9 > "$stage/bins.tar.xz"
rm -rf "$stage/pack"
scripts/fetch-digits.sh "$stage/data/digits.csv"
# The ONNX node tests and the PyTorch exports with their .npy (the GPU machine has no python3-onnx).
/usr/bin/python3 scripts/onnx-node-data.py --npy -o "$build/onnx-node" >/dev/null
/usr/bin/python3 tests/onnx/torch/export_models.py -o "$build/onnx-torch-stage" --no-ort >/dev/null
# Packed (thousands of small files): run.sh unpacks them as data/onnx-node and data/onnx-torch.
absbuild=$(cd "$build" && pwd)
tar cf - -C "$absbuild/onnx-node" --transform 's|^node|onnx-node|' node -C "$absbuild/onnx-torch-stage" --transform 's|^models|onnx-torch|' models |
  xz -T0 -6 > "$stage/onnx-data.tar.xz"
cat > "$stage/run.sh" <<'RUN'
#!/usr/bin/env bash
set -u
here=$(cd "$(dirname "$0")" && pwd)
tar xJf "$here/bins.tar.xz" -C "$here/bin"
tar xJf "$here/onnx-data.tar.xz" -C "$here/data"
cd "$here/.."
export RUNG_HOME=$(mktemp -d)
scripts/gpu-check.sh "$here/bin" "$here/data" 2>&1 | tee "${OUT:-/tmp}/gpu-check.txt"
exit "${PIPESTATUS[0]}"
RUN
chmod +x "$stage/run.sh"
size=$(du -sm "$stage" | cut -f1)
echo "gpu-stage: $stage ready (${size} MiB); on the GPU machine: bash $stage/run.sh"
[[ $size -lt 60 ]] || echo "gpu-stage: warning: ${size} MiB is close to a 64 MiB transfer limit" >&2
