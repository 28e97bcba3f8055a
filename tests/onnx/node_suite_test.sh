#!/usr/bin/env bash
# onnx.node_suite (in `make test`) and `make test-onnx`: the ONNX backend node tests, generated
# here from Debian's python3-onnx (scripts/onnx-node-data.py, checked against its manifest),
# every one imported and run on rung's cpu backend in tier debug through the Python module,
# judged by the suite's rule (judge.py) and compared with tests/onnx/node_expectations.txt:
# a regression, a surprise pass or a new wrong result fails, and so does a docs/onnx-node-tests.md
# whose verdicts are out of date (--update rewrites both). The whole suite takes about a minute.
#   node_suite_test.sh SOURCE_DIR BUILD_DIR [--update] [--table]
set -euo pipefail
src=$1; build=$2; shift 2
update=""; table=""
for a in "$@"; do
  case $a in --update) update=--update ;; --table) table=1 ;; *) echo "node_suite_test: unknown $a" >&2; exit 2 ;; esac
done
data=$build/onnx-node
out=$build/onnx-rung
/usr/bin/python3 "$src/scripts/onnx-node-data.py" --npy -o "$data" >"$build/onnx-node-data.log" 2>&1 || { cat "$build/onnx-node-data.log"; exit 1; }
rm -rf "$out"
PYTHONPATH=$build/python /usr/bin/python3 "$src/tests/onnx/run_rung_node_tests.py" "$data/node" "$out" 2>"$build/onnx-rung.log" ||
  { tail -20 "$build/onnx-rung.log"; echo "node_suite_test: rung crashed or hung on a test (above)"; }
/usr/bin/python3 "$src/tests/onnx/judge.py" "$data/node" "$out" --json >"$build/onnx-rung.json"
[[ -z $table ]] || /usr/bin/python3 "$src/tests/onnx/judge.py" "$data/node" "$out" --verbose
status=0
/usr/bin/python3 "$src/tests/onnx/expectations.py" "$build/onnx-rung.json" "$src/tests/onnx/node_expectations.txt" $update || status=1
# docs/onnx-node-tests.md: every test not passed with its reason, kept current by this check.
/usr/bin/python3 "$src/tests/onnx/suite_report.py" "$build/onnx-rung.json" "$src/tests/onnx/node_tests.json" \
  "$src/docs/onnx-node-tests.md" $update || status=1
exit $status
