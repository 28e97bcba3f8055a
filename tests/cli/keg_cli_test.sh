#!/usr/bin/env bash
# The `rung` CLI on .keg files, as a user drives it: exit codes (0 ok, 1 diagnostics,
# 2 usage), never a signal on bad input, and the output people rely on.
set -u
rung=$1
src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
check() {  # check NAME EXPECTED_RC ACTUAL_RC
  if [[ $3 -ne $2 ]]; then echo "FAIL: $1: exit $3, expected $2"; fail=1; else echo "ok: $1"; fi
}

"$rung" --help >/dev/null; check "rung --help" 0 $?
for sub in inspect hash validate sample; do "$rung" $sub --help >/dev/null; check "rung $sub --help" 0 $?; done
"$rung" >/dev/null 2>&1; check "no subcommand" 2 $?
"$rung" frobnicate >/dev/null 2>&1; check "unknown subcommand" 2 $?
"$rung" inspect >/dev/null 2>&1; check "inspect without FILE" 2 $?
"$rung" inspect a.keg --bogus >/dev/null 2>&1; check "unknown option" 2 $?

"$rung" sample mlp -o "$tmp/mlp.keg" >/dev/null; check "sample" 0 $?
[[ "$(head -c 4 "$tmp/mlp.keg" | od -An -tx1 | tr -d ' \n')" == "4b454700" ]] || { echo "FAIL: magic"; fail=1; }
golden=c1d3c8d1a577f86621df12fc3966590cf86615f9af3e2ddbd302505a6ad45688
out=$("$rung" inspect "$tmp/mlp.keg"); check "inspect" 0 $?
grep -q "fingerprint  $golden" <<<"$out" || { echo "FAIL: inspect does not print the golden fingerprint"; fail=1; }
[[ "$("$rung" hash "$tmp/mlp.keg")" == "$golden" ]] || { echo "FAIL: hash"; fail=1; }
"$rung" validate "$tmp/mlp.keg" >/dev/null; check "validate" 0 $?
"$rung" inspect --json --nodes "$tmp/mlp.keg" | python3 -c 'import json,sys; j=json.load(sys.stdin); assert j["nodes"]==12 and len(j["node_list"])==12, j' \
  || { echo "FAIL: inspect --json"; fail=1; }

"$rung" inspect "$tmp/missing.keg" 2>"$tmp/err"; check "missing file" 1 $?
grep -q "error\[C0001\]" "$tmp/err" || { echo "FAIL: missing file has no C0001"; fail=1; }
"$rung" validate "$tmp" 2>/dev/null; check "directory" 1 $?

for f in "$src"/tests/keg/corpus/[GK]*.keg; do
  code=$(basename "$f"); code=${code%%-*}
  "$rung" validate "$f" 2>"$tmp/err" >/dev/null; rc=$?
  check "corpus $(basename "$f")" 1 $rc
  grep -q "error\[$code\]" "$tmp/err" || { echo "FAIL: $(basename "$f") did not report $code"; fail=1; }
  "$rung" --error-format=json validate "$f" 2>"$tmp/err.json" >/dev/null
  python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d[0]["code"]==sys.argv[2]' "$tmp/err.json" "$code" \
    || { echo "FAIL: json diagnostics for $(basename "$f")"; fail=1; }
done

# Random bytes, and random bytes behind a valid magic: diagnostics, never a signal.
python3 - "$tmp" <<'PY'
import random, sys
r = random.Random(7)
for i in range(40):
    n = r.randrange(0, 4000)
    body = bytes(r.randrange(256) for _ in range(n))
    open(f"{sys.argv[1]}/rand{i}.keg", "wb").write((b"KEG\0" if i % 2 else b"") + body)
PY
for f in "$tmp"/rand*.keg; do
  "$rung" inspect "$f" >/dev/null 2>&1; rc=$?
  [[ $rc -eq 1 ]] || { echo "FAIL: $(basename "$f") exit $rc"; fail=1; }
done
echo "random files: done"
exit $fail
