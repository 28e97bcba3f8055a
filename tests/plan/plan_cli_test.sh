#!/usr/bin/env bash
# rung plan exit codes: red 3, green 0, bad input 1, usage 2; a red verdict names a fix that fits.
set -uo pipefail
rung=$1; src=$2
fail() { echo "FAIL: $*"; exit 1; }
out=$("$rung" plan "$src/examples/digits.rung" --budget 1MiB); rc=$?
echo "$out"
[ $rc -eq 3 ] || fail "1MiB: exit $rc, expected 3 (red)"
grep -q '^verdict       red' <<<"$out" || fail "1MiB: no red verdict"
grep -q 'tried: stream the inputs' <<<"$out" || fail "1MiB: streaming not tried"
grep -q '^in place      [1-9][0-9]* dispatches write into a dying' <<<"$out" || fail "1MiB: in-place reuse not shown"
# The full-batch training step peaks (docs/plan.md); a smaller batch fits, verified by
# re-planning, and planning with that batch is not red.
fix=$(grep -o 'fix: batch 1497 -> [0-9]* (rows fed to loss.grad): peak [0-9.]* KiB, needs .* of 1.00 MiB, fits (verified by re-planning)' <<<"$out") \
  || fail "1MiB: no verified batch fix"
n=$(sed 's/fix: batch 1497 -> \([0-9]*\).*/\1/' <<<"$fix")
"$rung" plan "$src/examples/digits.rung" --budget 1MiB --batch "$n" >/dev/null; rc=$?
[ $rc -eq 0 ] || fail "1MiB with --batch $n: exit $rc, expected 0"
out=$("$rung" plan "$src/examples/center.workflow.json" --batch 100000 --budget 1MiB); rc=$?
[ $rc -eq 3 ] || fail "center 1MiB: exit $rc, expected 3 (red)"
grep -q 'fix: batch 100000 -> .*fits (verified by re-planning)' <<<"$out" || fail "center 1MiB: no verified fix"
"$rung" plan "$src/examples/digits.rung" --budget 1GiB >/dev/null; rc=$?
[ $rc -eq 0 ] || fail "1GiB: exit $rc, expected 0 (green)"
json=$("$rung" plan "$src/examples/digits.rung" --budget 1GiB --json)  # not `| grep -q`: SIGPIPE under pipefail
grep -q '"verdict": "green"' <<<"$json" || fail "1GiB json: not green"
"$rung" plan "$src/examples/digits.rung" --budget lots 2>/dev/null; rc=$?
[ $rc -eq 1 ] || fail "bad budget: exit $rc, expected 1"
"$rung" plan "$src/examples/digits.rung" --device tpu 2>/dev/null; rc=$?
[ $rc -eq 2 ] || fail "bad device: exit $rc, expected 2"
out=$("$rung" plan "$src/examples/center.workflow.json" --budget 1GiB 2>&1); rc=$?
[ $rc -eq 1 ] && grep -q 'L0002' <<<"$out" || fail "unsized dim: exit $rc, no L0002"
"$rung" plan "$src/examples/center.workflow.json" --budget 1GiB --batch 100000 >/dev/null; rc=$?
[ $rc -eq 0 ] || fail "workflow with --batch: exit $rc"
# A binding limit smaller than the data: sub and matmul are split (shown), but the column
# mean reduces over the split dim and cannot be: red, with fixes that fit.
out=$("$rung" plan "$src/examples/center.workflow.json" --budget 1GiB --batch 100000 --binding-limit 1MiB); rc=$?
[ $rc -eq 3 ] || fail "binding limit: exit $rc, expected 3"
grep -q '^tiled         4 tiles: `matmul`' <<<"$out" || fail "binding limit: no tiling shown"
grep -q '^cannot tile   `mean`' <<<"$out" || fail "binding limit: unsplittable mean not named"
grep -q 'fix: batch 100000 -> ' <<<"$out" || fail "binding limit: no batch fix"
# Streaming runs with a warning: yellow, exit 0.
out=$("$rung" plan "$src/examples/center.workflow.json" --budget 1GiB --batch 100000 --stream 1000); rc=$?
[ $rc -eq 0 ] || fail "stream: exit $rc"
grep -q '^verdict       yellow' <<<"$out" || fail "stream: not yellow"
# cuda without --budget: the backend's memory, or L0004 saying why not (not built / no device / no size).
out=$("$rung" plan "$src/examples/digits.rung" --device cuda 2>&1); rc=$?
if [ $rc -eq 1 ]; then
  grep -q 'L0004.*\(not built\|there is no cuda device\|reports no memory size\)' <<<"$out" || fail "cuda: L0004 without a reason: $out"
else
  grep -q '^budget .*(cuda device memory' <<<"$out" || fail "cuda: exit $rc without the device's memory"
fi
# The ExecPlan stored in the .keg: `rung show --rung plan` reads it back with the same hash.
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
"$rung" build "$src/examples/digits.rung" -o "$tmp/d.keg" --plan >/dev/null || fail "build --plan"
fresh=$("$rung" plan "$src/examples/digits.rung" --budget 1GiB --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["hash"])')
shown=$("$rung" show --rung plan "$tmp/d.keg") || fail "show --rung plan on the stored plan"
grep -q "^stored in .*hash verified" <<<"$shown" || fail "show does not say the plan is stored"
grep -q "^exec plan $fresh " <<<"$shown" || fail "stored plan hash differs from the fresh one ($fresh)"
"$rung" validate "$tmp/d.keg" >/dev/null || fail "validate with an exec plan section"
# Damage inside the plan payload (checksum repaired): K0020 with exit 1.
python3 - "$tmp/d.keg" "$tmp/bad.keg" <<'PY'
import hashlib, struct, sys
b = bytearray(open(sys.argv[1], "rb").read())
n, table = struct.unpack_from("<IQ", b, 12)
for i in range(n):
    e = table + 56 * i
    kind, _, off, length = struct.unpack_from("<IIQQ", b, e)
    if kind == 7:
        b[off + 4 + 32 + 4 + 3] ^= 0xFF   # the stored plan hash
        b[e + 24:e + 56] = hashlib.sha3_256(b[off:off + length]).digest()
open(sys.argv[2], "wb").write(b)
PY
"$rung" show --rung plan "$tmp/bad.keg" >/dev/null 2>"$tmp/err"; rc=$?
[ $rc -eq 1 ] && grep -q 'K0020' "$tmp/err" || fail "damaged plan: exit $rc, no K0020"
echo "ok"
