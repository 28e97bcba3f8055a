#!/usr/bin/env bash
# rung against onnxruntime-node on the PyTorch-exported models, in one run on one machine
# (bench/RESULTS.md, issue 19): export (tests/onnx/torch/export_models.py, which also times ORT
# with its default graph optimisations at 1 and 2 threads), then time rung's cpu backend in tiers
# debug and fast at 1 and 2 threads, and print one table with the ratios.
#   bench/onnx/models_vs_ort.sh [BUILD_DIR] [RUNS]
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$root/build}; runs=${2:-200}
out=$build/onnx-torch
bench=$build/bench/onnx/onnx_models_bench
[[ -x $bench ]] || { echo "models_vs_ort: $bench is not built (cmake --build $build --target onnx_models_bench)" >&2; exit 2; }
[[ -f $root/build-deps/onnxruntime/node_modules/onnxruntime-node/package.json ]] || "$root/scripts/setup-npm.sh"
/usr/bin/python3 "$root/tests/onnx/torch/export_models.py" -o "$out" --runs "$runs" >&2
"$bench" "$out/models" --runs "$runs" --threads 1,2 --tiers debug,fast --home "$build/bench-store" >"$out/rung-latency.json"
/usr/bin/python3 - "$out/ort-latency.json" "$out/rung-latency.json" <<'PY'
import json, sys
ort, rung = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
print(f"peer: {ort['peer']}, {ort['cores']} cores ({ort['cpu']}), graph optimisations {ort['graphOptimizationLevel']}, {ort['date']}")
print("| model | ORT µs 1 / 2 thr | rung debug µs 1 / 2 | rung fast µs 1 / 2 | fast/ORT 1 / 2 | rung vs torch max abs |")
print("|---|---|---|---|---|---|")
for name, o in sorted(ort["models"].items()):
    r = rung.get(name, {"error": "not run"})
    o1, o2 = o["threads_1"]["median_us"], o["threads_2"]["median_us"]
    if "error" in r:
        print(f"| {name} | {o1:.0f} / {o2:.0f} | refused: {r['error'][:80]} | | | |")
        continue
    d, f = r["debug"], r["fast"]
    diff = max(v["max_abs_vs_torch"] for t in (d, f) for v in t.values())
    print(f"| {name} | {o1:.0f} / {o2:.0f} | {d['1']['median_us']:.0f} / {d['2']['median_us']:.0f} | "
          f"{f['1']['median_us']:.0f} / {f['2']['median_us']:.0f} | "
          f"{f['1']['median_us'] / o1:.2f} / {f['2']['median_us'] / o2:.2f} | {diff:.2g} |")
PY
