#!/usr/bin/env bash
# `rung build -O` and `rung opt` run the same pipeline (rung::build and rung::optimize, src/api/verbs.cpp):
# the same passes fire, --print-after prints the graph after the named pass, --stats counts,
# and an unknown pass is P0003 with exit 1 in both.
#   pipeline_cli_test.sh RUNG SOURCE_DIR
set -euo pipefail
rung=$1; src=$2
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
export RUNG_HOME=$tmp/home
fail() { echo "FAIL: $*"; exit 1; }

"$rung" build "$src/examples/attention.rung" -o "$tmp/plain.keg" >/dev/null
"$rung" build "$src/examples/attention.rung" -o "$tmp/built.keg" --passes fuse --print-after fuse --stats >"$tmp/build.txt"
"$rung" opt "$tmp/plain.keg" --passes fuse --print-after fuse --stats -o "$tmp/opted.keg" >"$tmp/opt.txt"
for f in build opt; do
  grep -q '^// ----- after fuse (iteration 1)$' "$tmp/$f.txt" || fail "$f: no graph printed after fuse"
  grep -q 'fused.0' "$tmp/$f.txt" || fail "$f: fuse made no fused region"
  grep -q 'pipeline iterations' "$tmp/$f.txt" || fail "$f: --stats printed nothing"
done
# The same graph either way: the fingerprint build prints equals the one opt's output has.
b=$(grep -o 'fingerprint [0-9a-f]*' "$tmp/build.txt" | head -1 | cut -d' ' -f2)
o=$("$rung" build "$src/examples/attention.rung" -o "$tmp/again.keg" --passes fuse | grep -o 'fingerprint [0-9a-f]*' | cut -d' ' -f2)
[[ -n $b && $b == "$o" ]] || fail "build -O is not deterministic ($b vs $o)"
cmp -s "$tmp/built.keg" "$tmp/opted.keg" || fail "rung build --passes fuse and rung opt --passes fuse wrote different graphs"
# Pass results depend on a graph's content only, not on how its nodes happen to be numbered
# (the front end's order vs the order a .keg is read back in): the default pipeline over
# every example gives the same graph from the source and from its unoptimised .keg.
for f in "$src"/examples/*.rung; do
  n=$(basename "$f" .rung)
  "$rung" build "$f" -o "$tmp/$n.plain.keg" >/dev/null
  "$rung" build "$f" -O -o "$tmp/$n.O.keg" >/dev/null
  "$rung" opt "$tmp/$n.plain.keg" -o "$tmp/$n.opt.keg" >/dev/null
  cmp -s "$tmp/$n.O.keg" "$tmp/$n.opt.keg" || fail "$n: rung build -O and rung opt of its .keg give different graphs"
done
for cmd in "build $src/examples/attention.rung -o $tmp/x.keg --passes nosuch" "opt $tmp/plain.keg --passes nosuch"; do
  set +e; $rung $cmd >"$tmp/out.txt" 2>&1; rc=$?; set -e
  [[ $rc == 1 ]] || fail "rung $cmd exited $rc, expected 1"
  grep -q 'error\[P0003\]: unknown pass `nosuch`' "$tmp/out.txt" || fail "rung $cmd: no P0003"
done
echo "ok: build -O and opt agree"
