#!/usr/bin/env bash
# `rung run --shadow`: every region also runs on the reference; on the cpu (bit-exact with it)
# every region agrees, the outputs are those of the run without --shadow, and --json carries
# the summary. (tests/conformance/shadow_test.cpp covers a backend that differs.)
#   shadow_cli_test.sh RUNG SOURCE_DIR
set -euo pipefail
rung=$1; src=$2
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
export RUNG_HOME=$tmp/home
fail() { echo "FAIL: $*"; exit 1; }

"$rung" build "$src/examples/attention.rung" -O -o "$tmp/at.keg" >/dev/null  # fused regions
for prog in "$src/examples/transformer_block.rung" "$src/examples/attention.rung" "$tmp/at.keg --tier debug --entry run"; do
  # shellcheck disable=SC2086
  "$rung" run $prog --backend cpu >"$tmp/plain.txt" 2>&1 || fail "$prog: run failed"
  # shellcheck disable=SC2086
  "$rung" run $prog --backend cpu --shadow >"$tmp/shadow.txt" 2>&1 || fail "$prog: run --shadow failed"
  grep -E '^shadow +[1-9][0-9]* region runs compared with the reference \(bit for bit\): all agree$' "$tmp/shadow.txt" >/dev/null ||
    { cat "$tmp/shadow.txt"; fail "$prog: no 'all agree' shadow line"; }
  diff <(grep '^output' "$tmp/plain.txt") <(grep '^output' "$tmp/shadow.txt") >/dev/null || fail "$prog: --shadow changed the outputs"
done
"$rung" run "$src/examples/attention.rung" --backend cpu --shadow --json >"$tmp/run.json" 2>/dev/null
python3 -c "import json,sys; j=json.load(open(sys.argv[1])); s=j['shadow']; assert s['regions_checked']>0 and s['regions_differing']==0, s" "$tmp/run.json" ||
  fail "--json: no shadow summary"
echo "ok: --shadow agrees on the cpu and leaves the outputs alone"
