#!/usr/bin/env bash
# The program fingerprint and whole programs in .keg files (issue 17, item 7):
#  - programs that differ only in their BlockIR (loop count, print text, order of effects,
#    other control flow over the same regions) get different fingerprints; the same program
#    reformatted (comments, whitespace, `rung fmt`) or rebuilt gets the same one, and the
#    same .keg bytes;
#  - `rung build` writes every entry; `rung run FILE.keg` prints what `rung run FILE.rung`
#    prints (lines, fingerprint, output hashes) for control, mlp, a short digits, jumps;
#  - inspect/validate/hash show the blockir section.
# Usage: program_keg_test.sh RUNG SOURCE_DIR
set -uo pipefail
rung=$1; src=$2
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
export RUNG_HOME=$tmp/home
fail=0
bad() { echo "FAIL: $*"; fail=1; }

# --- fingerprints -----------------------------------------------------------------------
base='module fp;
tier debug;
tolerance exact;

export fn main() -> f32 !io {
    let mut x = 1.0;
    for i in 0..3 {
        x = x * 2.0;
    }
    print("x", x);
    print("done");
    x
}'
variant() {  # variant NAME SED-SCRIPT
  sed "$2" <<<"$base" >"$tmp/$1.rung"
}
printf '%s\n' "$base" >"$tmp/base.rung"
variant loops4 's/0\.\.3/0..4/'
variant text 's/print("done")/print("over")/'
variant order '/print("x", x);/{N;s/\(.*\)\n\(.*\)/\2\n\1/;}'
variant while 's/for i in 0\.\.3 {/while x < 8.0 {/'
variant comments 's|^export fn|// the entry\nexport fn|; s|x = x \* 2.0;|x = x * 2.0; /* doubled */|'
variant spacing 's/^    /        /; s/x \* 2.0/x*2.0/'
build() {  # build NAME -> "fingerprint graph blockir"
  "$rung" build "$tmp/$1.rung" -o "$tmp/$1.keg" >"$tmp/$1.build" 2>"$tmp/$1.err" || { bad "build $1: $(cat "$tmp/$1.err")"; return; }
  awk '{ for (i = 1; i < NF; i++) if ($i == "fingerprint" || $i == "graph" || $i == "blockir") printf "%s ", $(i + 1); print "" }' "$tmp/$1.build"
}
"$rung" fmt "$tmp/spacing.rung" >"$tmp/formatted.rung" 2>/dev/null || bad "rung fmt"
declare -A fp graph
for v in base loops4 text order while comments spacing formatted; do
  read -r fp[$v] graph[$v] _ <<<"$(build $v)"
  [[ -n ${fp[$v]} ]] || bad "no fingerprint for $v"
done
for v in loops4 text order while; do
  [[ ${fp[$v]} != "${fp[base]}" ]] || bad "$v has the fingerprint of the base program"
done
# Prints are BlockIR only: the graph is the same, the program is not.
for v in text order; do
  [[ ${graph[$v]} == "${graph[base]}" ]] || bad "$v changed the graph fingerprint (expected a BlockIR-only change)"
done
distinct=$(printf '%s\n' "${fp[base]}" "${fp[loops4]}" "${fp[text]}" "${fp[order]}" "${fp[while]}" | sort -u | wc -l)
[[ $distinct -eq 5 ]] || bad "the five distinct programs have $distinct distinct fingerprints"
for v in comments spacing formatted; do
  [[ ${fp[$v]} == "${fp[base]}" ]] || bad "$v (the base program reformatted) has another fingerprint"
done
"$rung" build "$tmp/base.rung" -o "$tmp/again.keg" >/dev/null && cmp -s "$tmp/base.keg" "$tmp/again.keg" || bad "a rebuild gives other bytes"
cmp -s "$tmp/base.keg" "$tmp/comments.keg" || bad "the reformatted program gives other .keg bytes"
[[ $("$rung" hash "$tmp/base.keg") == "${fp[base]}" ]] || bad "rung hash is not the fingerprint rung build printed"
[[ $("$rung" hash --graph "$tmp/base.keg") == "${graph[base]}" ]] || bad "rung hash --graph is not the graph fingerprint"
out=$("$rung" inspect "$tmp/base.keg")
grep -q "^fingerprint  ${fp[base]}" <<<"$out" || bad "inspect: fingerprint"
grep -q "^graph        ${graph[base]}" <<<"$out" || bad "inspect: graph"
grep -q "^blockir      .*exported: main" <<<"$out" || bad "inspect: blockir line"
grep -q "^  blockir " <<<"$out" || bad "inspect: the section table lists no blockir section"
grep -q "format       keg 1.2" <<<"$out" || bad "inspect: format 1.2"
"$rung" validate "$tmp/base.keg" | grep -q "1 BlockIR functions (exported: main)" || bad "validate: blockir"
"$rung" inspect --json "$tmp/base.keg" | python3 -c '
import json, sys
j = json.load(sys.stdin)
assert j["blockir"]["functions"] == [{"name": "main", "exported": True}], j["blockir"]
assert j["fingerprint"] != j["graph_fingerprint"]' || bad "inspect --json: blockir"

# A stored plan names the BlockIR it was made from: spliced into a file with another BlockIR
# over the same graph (another print text, same length), `show --rung plan` refuses it.
"$rung" build "$tmp/base.rung" -o "$tmp/base.plan.keg" --plan >/dev/null || bad "build --plan"
"$rung" build "$tmp/text.rung" -o "$tmp/text.plan.keg" --plan >/dev/null || bad "build --plan (text)"
"$rung" show --rung plan "$tmp/base.plan.keg" >/dev/null || bad "show --rung plan of a built file"
python3 - "$tmp/base.plan.keg" "$tmp/text.plan.keg" "$tmp/spliced.keg" <<'PY'
import hashlib, struct, sys
a, b = open(sys.argv[1], "rb").read(), open(sys.argv[2], "rb").read()
def entry(f, kind):
    n, table = struct.unpack_from("<I", f, 12)[0], struct.unpack_from("<Q", f, 16)[0]
    for i in range(n):
        at = table + 56 * i
        k, _, off, length = struct.unpack_from("<IIQQ", f, at)
        if k == kind:
            return at, off, length
ea, oa, la = entry(a, 8)
_, ob, lb = entry(b, 8)
assert la == lb, (la, lb)
out = bytearray(a)
out[oa:oa + la] = b[ob:ob + lb]
out[ea + 24:ea + 56] = hashlib.sha3_256(bytes(out[oa:oa + la])).digest()
open(sys.argv[3], "wb").write(out)
PY
"$rung" show --rung plan "$tmp/spliced.keg" >/dev/null 2>"$tmp/spliced.err" && bad "show --rung plan accepted a plan made for another program"
grep -q "error\[K0025\]" "$tmp/spliced.err" || bad "spliced plan: no K0025 ($(head -2 "$tmp/spliced.err"))"

# --- .keg runs == .rung runs ----------------------------------------------------------------
# Everything `rung run` prints but the record id (the record names the program file).
same_run() {  # same_run LABEL FILE.rung [run args...]
  local label=$1 file=$2; shift 2
  "$rung" build "$file" -o "$tmp/$label.keg" >/dev/null 2>"$tmp/$label.err" || { bad "build $label: $(cat "$tmp/$label.err")"; return; }
  "$rung" run "$file" "$@" >"$tmp/$label.rung.out" 2>"$tmp/$label.rung.err" || { bad "run $label.rung: $(tail -3 "$tmp/$label.rung.err")"; return; }
  "$rung" run "$tmp/$label.keg" "$@" >"$tmp/$label.keg.out" 2>"$tmp/$label.keg.err" || { bad "run $label.keg: $(tail -3 "$tmp/$label.keg.err")"; return; }
  if diff <(grep -v '^record' "$tmp/$label.rung.out") <(grep -v '^record' "$tmp/$label.keg.out") >"$tmp/$label.diff"; then
    echo "ok: $label: .keg run == .rung run ($(grep -c . "$tmp/$label.keg.out") lines, $(grep '^fingerprint' "$tmp/$label.keg.out"))"
  else
    bad "$label: the .keg run differs from the .rung run"; cat "$tmp/$label.diff"
  fi
  grep -q '^output 0' "$tmp/$label.keg.out" || bad "$label: no output"
}
same_run control "$src/examples/control.rung"
same_run control-debug "$src/examples/control.rung" --tier debug
same_run mlp "$src/examples/mlp.rung"
same_run jumps "$src/tests/frontend/programs/jumps.rung"
# digits, shortened (2 x 2 steps) on synthetic data of the real shape (next to the copy).
sed 's/for epoch in 0\.\.8/for epoch in 0..2/; s/for step in 0\.\.25/for step in 0..2/' "$src/examples/digits.rung" >"$tmp/digits.rung"
mkdir -p "$tmp/data"
python3 -c '
import random, sys
r = random.Random(5)
with open(sys.argv[1], "w") as f:
    for i in range(1797):
        f.write(",".join(str(r.randrange(17)) for _ in range(64)) + "," + str(i % 10) + "\n")' "$tmp/data/digits.csv"
same_run digits "$tmp/digits.rung" --entry train --data-dir "$tmp/data"
grep -q '^epoch 1 loss' "$tmp/digits.keg.out" || bad "digits: the .keg run printed no epoch lines"
# The run record is keyed on the program: `rung record` shows the fingerprint the run printed.
id=$(awk '/^record/ {print $2}' "$tmp/jumps.keg.out")
rec=$("$rung" record "$id" 2>&1)
[[ $(awk '/^fingerprint/ {print $2}' <<<"$rec") == $(awk '/^fingerprint/ {print $2}' "$tmp/jumps.keg.out") ]] \
  || bad "rung record does not show the run's program fingerprint"
[[ $(awk '/^graph/ {print $2}' <<<"$rec") == $(awk '/^graph/ {print $2}' "$tmp/jumps.keg.out") ]] || bad "rung record: graph fingerprint"
# The .keg declares its tier like the source: no --tier needed, and C0016 when overridden.
grep -q "C0016" "$tmp/control-debug.keg.err" || bad "--tier over a .keg's declared tier: no C0016"
exit $fail
