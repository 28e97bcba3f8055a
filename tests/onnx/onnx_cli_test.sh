#!/usr/bin/env bash
# The ONNX surfaces of the CLI: `rung import` writes a .keg that runs to the same output bits
# as `rung run model.onnx`; `rung import --list-ops` lists the handlers; a hostile model is a
# coded error (exit 1). Then every ```sh block of docs/onnx.md runs, in a folder holding the
# model.onnx and x.npy it talks about (tests/onnx/cases/symbolic_batch).
#   onnx_cli_test.sh RUNG SOURCE_DIR
set -uo pipefail
rung=$1; src=$2
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
export RUNG_HOME=$tmp/home
fail=0
check() { if ! eval "$2"; then echo "FAIL: $1"; fail=1; fi; }

case_dir=$src/tests/onnx/cases/symbolic_batch
cp "$case_dir/model.onnx" "$tmp/model.onnx"; cp "$case_dir/in_0.npy" "$tmp/x.npy"
# A Reshape whose shape is the graph input s (for --bind and its block in docs/onnx.md).
bound_dir=$src/tests/onnx/cases/reshape_bound
cp "$bound_dir/model.onnx" "$tmp/reshape.onnx"; cp "$bound_dir/bind_s.npy" "$tmp/s.npy"; cp "$bound_dir/in_0.npy" "$tmp/x3.npy"
cd "$tmp" || exit 1

out=$("$rung" import model.onnx -o model.keg 2>&1); rc=$?
check "rung import exits 0 ($rc): $out" '[[ $rc == 0 ]]'
check "rung import names the opset and producer: $out" 'grep -q "onnx: IR version 8, opsets ai.onnx 17, producer make_cases.py 1" <<<"$out"'
check "the .keg exists" '[[ -s model.keg ]]'
a=$("$rung" run model.onnx --tier debug --arg x=x.npy 2>&1 | grep "^output 0"); b=$("$rung" run model.keg --tier debug --arg x=x.npy 2>&1 | grep "^output 0")
check "run model.onnx and model.keg give the same output ($a | $b)" '[[ -n $a && $a == "$b" ]]'
check "the output is f32[5] (batch bound to 5)" 'grep -q "y: f32\[5\]" <<<"$a"'
sections=$("$rung" inspect model.keg 2>&1)
check "the .keg has a provenance section" 'grep -q "^  provenance" <<<"$sections"'
ops=$("$rung" import --list-ops 2>&1); rc=$?
check "--list-ops exits 0 and lists Gemm 7-17" '[[ $rc == 0 ]] && grep -Eq "^Gemm +7-17 " <<<"$ops"'
check "--list-ops lists the two Softmax forms" '[[ $(grep -c "^Softmax " <<<"$ops") == 2 ]]'
want=$(tail -n +2 <<<"$ops" | awk '{op = $1; r = $2; $1 = ""; $2 = ""; sub(/^ +/, ""); print "| " op " | " r " | " $0 " |"}')
have=$(grep -E '^\| [A-Za-z][A-Za-z0-9]* \| [0-9]+-[0-9]+ \|' "$src/docs/onnx.md")
check "the op table of docs/onnx.md is --list-ops: $(diff <(echo "$want") <(echo "$have") | head -5)" '[[ "$want" == "$have" ]]'
err=$("$rung" import "$src/tests/onnx/hostile/I0008_dotdot_etc_passwd.onnx" -o bad.keg 2>&1); rc=$?
check "a hostile model exits 1 with I0008 ($rc): $err" '[[ $rc == 1 ]] && grep -q "error\[I0008\]" <<<"$err"'
check "nothing is written for a hostile model" '[[ ! -e bad.keg ]]'

# --bind: without it the shape input is I0012 naming the input and the flag; with it the input
# is a constant (no longer an --arg) and the .onnx and its .keg run to the same bits.
err=$("$rung" import reshape.onnx -o unbound.keg 2>&1); rc=$?
check "an unbound shape input exits 1 with I0012 ($rc): $err" '[[ $rc == 1 ]] && grep -q "error\[I0012\]" <<<"$err"'
check "I0012 names the input and suggests --bind: $err" 'grep -q "bind the graph input \"s\" at import: --bind s=FILE.npy" <<<"$err"'
out=$("$rung" import reshape.onnx -o reshape.keg --bind s=s.npy 2>&1); rc=$?
check "rung import --bind exits 0 ($rc): $out" '[[ $rc == 0 && -s reshape.keg ]]'
a=$("$rung" run reshape.onnx --tier debug --bind s=s.npy --arg x=x3.npy 2>&1 | grep "^output 0"); b=$("$rung" run reshape.keg --tier debug --arg x=x3.npy 2>&1 | grep "^output 0")
check "run --bind and the bound .keg give the same output ($a | $b)" '[[ -n $a && $a == "$b" ]] && grep -q "y: f32\[4, 6\]" <<<"$a"'
err=$("$rung" run reshape.keg --tier debug --arg x=x3.npy --arg s=s.npy 2>&1); rc=$?
check "a bound input is no --arg of the .keg ($rc): $err" '[[ $rc == 1 ]] && grep -q "error\[C0014\]" <<<"$err"'
err=$("$rung" import reshape.onnx -o bad.keg --bind s 2>&1); rc=$?
check "a malformed --bind is C0020 ($rc): $err" '[[ $rc == 1 ]] && grep -q "error\[C0020\]" <<<"$err" && [[ ! -e bad.keg ]]'
err=$("$rung" import reshape.onnx -o bad.keg --bind shape=s.npy 2>&1); rc=$?
check "--bind of no input is I0013 ($rc): $err" '[[ $rc == 1 ]] && grep -q "error\[I0013\]" <<<"$err" && [[ ! -e bad.keg ]]'
err=$("$rung" import reshape.onnx -o bad.keg --bind s=x3.npy 2>&1); rc=$?
check "--bind of a wrong dtype is I0011 ($rc): $err" '[[ $rc == 1 ]] && grep -q "error\[I0011\]" <<<"$err" && [[ ! -e bad.keg ]]'

# rung onnx-suite: a good test runs and its outputs are written; a garbage model and a truncated
# .npy are refusals with their codes; a folder that cannot be written, an unknown backend and
# a malformed --compare are errors, never a silent success.
mkdir -p suite/good/test_data_set_0 suite/junk/test_data_set_0 suite/cut/test_data_set_0
cp "$src/tests/onnx/cases/add/model.onnx" suite/good/; cp "$src/tests/onnx/cases/add/in_0.npy" suite/good/test_data_set_0/input_0.npy
cp "$src/tests/onnx/cases/add/in_1.npy" suite/good/test_data_set_0/input_1.npy
printf 'not a model' > suite/junk/model.onnx
cp -r suite/good/. suite/cut/; head -c 30 "$src/tests/onnx/cases/add/in_0.npy" > suite/cut/test_data_set_0/input_0.npy
# A test whose shape input must be bound (I0012) runs specialized: bound to its data set's value.
mkdir -p suite/spec/test_data_set_0; cp reshape.onnx suite/spec/model.onnx
cp x3.npy suite/spec/test_data_set_0/input_0.npy; cp s.npy suite/spec/test_data_set_0/input_1.npy
out=$("$rung" onnx-suite suite --out suite-out 2>&1); rc=$?
check "onnx-suite exits 0 on refusals ($rc): $out" '[[ $rc == 0 ]]'
check "onnx-suite counts 2 ran (1 specialized), 2 refused: $out" 'grep -q "4 tests on cpu, tier debug: 2 ran (1 specialized: inputs bound at import), 2 refused" <<<"$out"'
check "the specialized test says so in status.json" 'grep -q "\"specialized\": true" suite-out/spec/status.json && grep -q "\"specialized\": false" suite-out/good/status.json'
check "the garbage model is I0001: $out" 'grep -q "junk .*I0001" <<<"$out"'
check "the truncated .npy is Y0002: $out" 'grep -q "cut .*Y0002" <<<"$out"'
check "the good test's output is written" '[[ -s suite-out/good/test_data_set_0/output_0.npy && -s suite-out/good/status.json ]]'
out=$("$rung" onnx-suite suite --compare reference,cpu 2>&1); rc=$?
check "reference and cpu agree bit for bit ($rc): $out" '[[ $rc == 0 ]] && grep -q "2 of 2 outputs identical bit for bit, 0 tests differ" <<<"$out"'
out=$("$rung" onnx-suite suite --out /proc/no-such-dir 2>&1); rc=$?
check "an unwritable --out is C0003 ($rc): $out" '[[ $rc == 1 ]] && grep -q "C0003" <<<"$out"'
out=$("$rung" onnx-suite suite --backend nope 2>&1); rc=$?
check "an unknown backend is a usage error ($rc): $out" '[[ $rc == 2 ]]'
out=$("$rung" onnx-suite suite --compare cpu 2>&1); rc=$?
check "--compare needs two backends ($rc): $out" '[[ $rc == 2 ]]'

# docs/onnx.md: each ```sh block runs here and must exit 0.
mkdir -p bin; ln -s "$rung" bin/rung
awk -v dir="$tmp" '/^```/ && inside { inside = 0; close(out); next }
  /^```sh[ \t]*$/ && !inside { inside = 1; n++; out = dir "/block" n ".sh"; printf "" > out; next }
  inside { print >> out }' "$src/docs/onnx.md"
blocks=0
for f in "$tmp"/block*.sh; do
  [[ -f $f ]] || continue
  blocks=$((blocks + 1))
  if ! out=$(PATH="$tmp/bin:$PATH" bash -e "$f" 2>&1); then echo "FAIL: docs/onnx.md block $(basename "$f"):"; echo "$out" | head -20; fail=1; fi
done
check "docs/onnx.md has sh blocks" '[[ $blocks -gt 0 ]]'
[[ $fail == 0 ]] && echo "ok: rung import, run and the $blocks sh blocks of docs/onnx.md"
exit $fail
