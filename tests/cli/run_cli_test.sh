#!/usr/bin/env bash
# `rung run` and the top-level command line, as a new user meets them (issue 17, items 11-13):
# coded diagnostics for a wrong subcommand or tier, `run --help` telling the truth, entries
# that must be exported, struct arguments bound by field name, outputs named alike from a
# .rung and its .keg, X0001 naming the .npy file, a run-time error underlining its op, and
# --binding-limit on a symbolic dim bound by --arg.
#   run_cli_test.sh RUNG SOURCE_DIR
set -euo pipefail
rung=$1; src=$2
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
export RUNG_HOME=$tmp/home
fail() { echo "FAIL: $*"; exit 1; }
# expect RC PATTERN CMD...: runs CMD, checks its exit code and that its output matches PATTERN.
expect() {
  local want=$1 pattern=$2; shift 2
  set +e; "$@" >"$tmp/out.txt" 2>&1; local rc=$?; set -e
  [[ $rc == "$want" ]] || { cat "$tmp/out.txt"; fail "$* exited $rc, expected $want"; }
  grep -qE -- "$pattern" "$tmp/out.txt" || { cat "$tmp/out.txt"; fail "$*: no match for /$pattern/"; }
}
# npy PATH DTYPE(f4|i8) SHAPE(comma list) VALUES...: a little-endian .npy file.
npy() {
  python3 - "$@" <<'PY'
import struct, sys
path, dt, shape, vals = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
dims = [int(s) for s in shape.split(",") if s]
header = "{'descr': '<%s', 'fortran_order': False, 'shape': (%s), }" % (dt, "".join("%d," % d for d in dims))
header += " " * (63 - (10 + len(header)) % 64) + "\n"
fmt = {"f4": "f", "i8": "q"}[dt]
data = struct.pack("<%d%s" % (len(vals), fmt), *[(float if fmt == "f" else int)(v) for v in vals])
open(path, "wb").write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode() + data)
PY
}

# --- the command line: an unknown subcommand, a wrong tier, any parse error: coded ---
expect 2 'error\[C0019\]: unknown subcommand `frobnicate`' "$rung" frobnicate
expect 2 'did you mean `check`' "$rung" chek x.rung
expect 2 'error\[C0020\]' "$rung" run --no-such-option x.rung
cat >"$tmp/p.rung" <<'EOF'
module p;

tier debug;
tolerance exact;

struct P {
    w: f32[2],
    b: f32[2],
}

// A pure entry with a struct parameter and a tuple result.
export fn affine(p: &P, x: f32[2]) -> (f32[2], f32[2]) {
    (x * p.w + p.b, x)
}

// A block entry (a loop) with the same parameters.
export fn looped(p: &P, x: f32[2]) -> f32[2] {
    let mut y = x;
    for i in 0..2 {
        y = y * p.w + p.b;
    }
    y
}

fn helper(x: f32[2]) -> f32[2] {
    x * 2.0
}

export fn single(x: f32[2]) -> f32[2] {
    helper(x)
}

export fn pick(x: f32[4], i: i64[2]) -> f32[2] {
    let y = x * 2.0;
    gather(y, i, axis: 0)
}

export fn rows(x: f32[B, 4]) -> f32[B, 4] {
    x * 2.0 + 1.0
}
EOF
expect 1 'error\[C0012\]: unknown tier `turbo`' "$rung" run "$tmp/p.rung" --entry single --tier turbo
expect 1 'did you mean `prod`' "$rung" run "$tmp/p.rung" --entry single --tier prd
expect 1 'error\[C0012\]' "$rung" plan "$tmp/p.rung" --entry single --tier turbo

# --- run --help: FILE is any program, and the backends are listed ---
"$rung" run --help >"$tmp/help.txt"
grep -q 'a .rung source, a .keg file, a workflow .json document or an .onnx model' "$tmp/help.txt" || fail "run --help: FILE is not described as .rung/.keg/.json/.onnx"
grep -qE '^ +reference' "$tmp/help.txt" || { cat "$tmp/help.txt"; fail "run --help lists no backends"; }

# --- entries: only exported functions ---
expect 1 'error\[C0021\]: `helper` is not exported' "$rung" run "$tmp/p.rung" --entry helper
grep -q 'exported: affine, looped, pick, rows, single' "$tmp/out.txt" || fail "C0021 does not name the exported entries"

# --- struct arguments by field name, the index form refused with a did-you-mean ---
npy "$tmp/w.npy" f4 2 2 3
npy "$tmp/b.npy" f4 2 0.5 -1
npy "$tmp/x.npy" f4 2 1 10
for e in affine looped; do
  "$rung" run "$tmp/p.rung" --entry $e --arg p.w="$tmp/w.npy" --arg p.b="$tmp/b.npy" --arg x="$tmp/x.npy" --out "$tmp/$e" \
    >"$tmp/$e.txt" || { cat "$tmp/$e.txt"; fail "$e: struct fields bound by name do not run"; }
  expect 1 'no parameter `p\.0`' "$rung" run "$tmp/p.rung" --entry $e --arg p.0="$tmp/w.npy" --arg p.b="$tmp/b.npy" --arg x="$tmp/x.npy"
  grep -q 'struct fields are bound by name: did you mean `p.w`?' "$tmp/out.txt" || { cat "$tmp/out.txt"; fail "$e: p.0 gets no did-you-mean p.w"; }
  expect 1 '`p` of `'$e'` has several fields' "$rung" run "$tmp/p.rung" --entry $e --arg p="$tmp/w.npy" --arg x="$tmp/x.npy"
done
# --- outputs: `result`, a tuple's `result.0`, `result.1`: the same from the .rung and its .keg ---
grep -q '^output 0     result.0: f32\[2\]' "$tmp/affine.txt" || { cat "$tmp/affine.txt"; fail "affine's first output is not result.0"; }
grep -q '^output 1     result.1: f32\[2\]' "$tmp/affine.txt" || fail "affine's second output is not result.1"
[[ -f $tmp/affine/result.0.npy && -f $tmp/affine/result.1.npy ]] || fail "--out did not write result.0.npy and result.1.npy"
"$rung" run "$tmp/p.rung" --entry single --arg x="$tmp/x.npy" >"$tmp/single.txt"
"$rung" build "$tmp/p.rung" -o "$tmp/p.keg" >/dev/null
"$rung" run "$tmp/p.keg" --tier debug --entry single --arg x="$tmp/x.npy" >"$tmp/single_keg.txt"
"$rung" run "$tmp/p.keg" --tier debug --entry affine --arg p.w="$tmp/w.npy" --arg p.b="$tmp/b.npy" --arg x="$tmp/x.npy" \
  >"$tmp/affine_keg.txt" || { cat "$tmp/affine_keg.txt"; fail "the .keg does not take struct fields by name"; }
diff <(grep '^output' "$tmp/single.txt") <(grep '^output' "$tmp/single_keg.txt") || fail "single: the .rung and .keg outputs are named differently"
diff <(grep "^output" "$tmp/affine.txt" | sed "s/  -> .*//") <(grep "^output" "$tmp/affine_keg.txt") || fail "affine: the .rung and .keg outputs are named differently"
grep -q '^output 0     result: f32\[2\]' "$tmp/single.txt" || fail "a single output is not named result"

# --- X0001 names the .npy file the argument came from ---
npy "$tmp/x3.npy" f4 3 1 2 3
expect 1 'error\[X0001\]: argument `x` of `single` \(from `'"$tmp"'/x3.npy`\)' "$rung" run "$tmp/p.rung" --entry single --arg x="$tmp/x3.npy"

# --- a run-time error underlines the op that failed, not the function ---
npy "$tmp/x4.npy" f4 4 1 2 3 4
npy "$tmp/i.npy" i8 2 0 9
expect 1 'error\[N0012\]' "$rung" run "$tmp/p.rung" --entry pick --arg x="$tmp/x4.npy" --arg i="$tmp/i.npy"
grep -q 'this `gather` failed' "$tmp/out.txt" || { cat "$tmp/out.txt"; fail "N0012 does not label the gather"; }
line=$(grep -n 'gather(y, i, axis: 0)' "$tmp/p.rung" | cut -d: -f1)
grep -q -- "--> $tmp/p.rung:$line:" "$tmp/out.txt" || { cat "$tmp/out.txt"; fail "N0012 does not point at line $line (the gather)"; }
"$rung" --error-format=json run "$tmp/p.rung" --entry pick --arg x="$tmp/x4.npy" --arg i="$tmp/i.npy" 2>"$tmp/err.json" >/dev/null &&
  fail "pick with an index out of range ran"
python3 -c "
import json, sys
d = [d for d in json.load(open(sys.argv[1])) if d['code'] == 'N0012'][0]
p = [l for l in d['labels'] if l['primary']][0]
assert p['span']['line'] == int(sys.argv[2]), (p, sys.argv[2])
" "$tmp/err.json" "$line" || { cat "$tmp/err.json"; fail "json: N0012's primary label is not on the gather's line"; }

# --- --binding-limit with a symbolic dim bound by --arg: split, same bits ---
vals=(); for k in $(seq 0 1599); do vals+=("$k"); done
npy "$tmp/big.npy" f4 400,4 "${vals[@]}"
"$rung" run "$tmp/p.rung" --entry rows --arg x="$tmp/big.npy" >"$tmp/plain.txt"
"$rung" run "$tmp/p.rung" --entry rows --arg x="$tmp/big.npy" --binding-limit 1KiB >"$tmp/split.txt" 2>&1 ||
  { cat "$tmp/split.txt"; fail "--binding-limit with B bound by --arg does not run"; }
diff <(grep '^output' "$tmp/plain.txt") <(grep '^output' "$tmp/split.txt") || fail "--binding-limit changed the output"
echo "ok: rung run's command line, arguments, outputs and run-time diagnostics"
