#!/usr/bin/env bash
# The main job on the CPU. For now: build the sample graph, write it as a .keg artifact,
# inspect it and check it. (Later: train examples/digits.rung on the CPU backend.)
set -euo pipefail
build=${1:-build}
rung="$build/tools/rung/rung"
out="$build/demo"
mkdir -p "$out"
echo "== rung sample mlp: a two-layer perceptron as content-addressed GraphIR"
"$rung" sample mlp -o "$out/mlp.keg" --print
echo "== rung inspect"
"$rung" inspect "$out/mlp.keg" --nodes
echo "== rung validate"
"$rung" validate "$out/mlp.keg"
echo "== the main job: train examples/digits.rung (an MLP on the UCI digits) on the CPU backend (rung run's default)"
src_dir=$(cd "$(dirname "$0")/.." && pwd)
[ -f "$build/data/digits.csv" ] || "$src_dir/scripts/fetch-digits.sh" "$build/data/digits.csv"
"$rung" run "$src_dir/examples/digits.rung" --entry train --data-dir "$build/data"
