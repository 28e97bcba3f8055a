#!/usr/bin/env bash
# onnx.torch_models (in `make test`): the PyTorch 1.13 exports of tests/onnx/torch/export_models.py
# (an MLP, CNNs, a transformer encoder layer, ...) imported and run through the Python module on
# each backend given, in tier debug; judged against torch's outputs by the node suite's rule
# (judge.py), every backend's outputs equal to the reference's bit for bit, and the verdicts
# compared with tests/onnx/torch_expectations.txt ("VERDICT BACKEND/MODEL"). Bits are required
# only where tier debug promises them (cpu, cuda); webgpu agrees within a class (docs/backend-webgpu.md).
#   torch_models_test.sh SOURCE_DIR BUILD_DIR [--update] [--backends reference,cpu,webgpu]
set -euo pipefail
src=$1; build=$2; shift 2
update=""; backends=reference,cpu,webgpu
while [[ $# -gt 0 ]]; do
  case $1 in
    --update) update=--update ;;
    --backends) backends=$2; shift ;;
    *) echo "torch_models_test: unknown $1" >&2; exit 2 ;;
  esac
  shift
done
out=$build/onnx-torch-test
rm -rf "$out"
/usr/bin/python3 "$src/tests/onnx/torch/export_models.py" -o "$out" --no-ort >"$out.log" 2>&1 || { cat "$out.log"; exit 1; }
reports=()
for b in ${backends//,/ }; do
  [[ $b != webgpu ]] || export RUNG_WEBGPU_ADAPTER=${RUNG_WEBGPU_ADAPTER:-swiftshader}
  PYTHONPATH=$build/python /usr/bin/python3 "$src/tests/onnx/run_rung_node_tests.py" "$out/models" "$out/rung-$b" \
    --backend "$b" --tier debug 2>>"$out.log" || { tail -20 "$out.log"; echo "torch_models_test: rung crashed or hung ($b)"; }
  peer=(); [[ $b == reference ]] || peer=(--peer "$out/rung-reference")
  /usr/bin/python3 "$src/tests/onnx/judge.py" "$out/models" "$out/rung-$b" "${peer[@]}" --json >"$out/judge-$b.json"
  /usr/bin/python3 "$src/tests/onnx/judge.py" "$out/models" "$out/rung-$b" "${peer[@]}" --verbose | sed "s/^/[$b] /"
  reports+=("$b=$out/judge-$b.json")
done
# One report keyed BACKEND/MODEL; a passing model whose outputs differ from the reference's bits fails.
/usr/bin/python3 - "$out/judge.json" "${reports[@]}" <<'PY'
import json, sys
tests, bad = {}, []
for arg in sys.argv[2:]:
    backend, path = arg.split("=", 1)
    for name, t in json.load(open(path))["tests"].items():
        tests[f"{backend}/{name}"] = t
        eq = t.get("bits_equal_peer")
        if backend in ("cpu", "cuda") and t["verdict"] == "pass" and eq is not None and eq.split("/")[0] != eq.split("/")[1]:
            bad.append(f"{backend}/{name}: {eq} outputs equal to the reference's bits")
json.dump({"tests": tests}, open(sys.argv[1], "w"))
for b in bad:
    print("torch_models_test: tier debug but not the reference's bits:", b)
sys.exit(1 if bad else 0)
PY
/usr/bin/python3 "$src/tests/onnx/expectations.py" "$out/judge.json" "$src/tests/onnx/torch_expectations.txt" $update
