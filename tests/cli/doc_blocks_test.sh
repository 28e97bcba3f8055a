#!/usr/bin/env bash
# Every ```rung code block of docs/*.md and README.md goes through `rung check`: a block
# must compile, so the docs cannot show code the compiler rejects. A block that is wrong on
# purpose starts with a line `// expect: CODE` (CODE one diagnostic code, e.g. E2102): it
# must fail with that code. A block whose first line is `// examples/NAME.rung ...` is a copy
# of that file and must equal it. Fragments that are not programs are fenced as ```text.
#   doc_blocks_test.sh RUNG SOURCE_DIR
set -uo pipefail
rung=$1; src=$2
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
export RUNG_HOME=$tmp/home
blocks=0; failed=0
for md in "$src"/docs/*.md "$src"/README.md; do
  [[ -f $md ]] || continue
  name=$(basename "$md" .md)
  # Each block to $tmp/<doc>.<line>.rung (the line of its opening fence).
  awk -v dir="$tmp" -v doc="$name" '
    /^```/ && inside { inside = 0; close(out); next }
    /^```rung[ \t]*$/ && !inside { inside = 1; out = dir "/" doc "." NR ".rung"; printf "" > out; next }
    inside { print >> out }
  ' "$md"
done
shopt -s nullglob
for f in "$tmp"/*.rung; do
  blocks=$((blocks + 1))
  where=$(basename "$f" .rung); where="docs/${where%.*}.md:${where##*.}"
  [[ $where == docs/README.md:* ]] && where=${where#docs/}
  expect=$(head -1 "$f" | sed -n 's|^// expect: *\([A-Z][0-9]\{4\}\) *$|\1|p')
  copy=$(head -1 "$f" | sed -n 's|^// \(examples/[A-Za-z0-9_]*\.rung\)\( .*\)\{0,1\}$|\1|p')
  if [[ -n $copy ]] && ! cmp -s "$f" "$src/$copy"; then
    echo "FAIL: $where: the block is not a copy of $copy:"; diff "$src/$copy" "$f" | head -10; failed=$((failed + 1))
  fi
  out=$("$rung" check "$f" 2>&1); rc=$?
  if [[ -n $expect ]]; then
    if [[ $rc != 1 ]] || ! grep -q "error\[$expect\]" <<<"$out"; then
      echo "FAIL: $where: expected error $expect, rung check exited $rc:"; echo "$out" | head -20; failed=$((failed + 1))
    fi
  elif [[ $rc != 0 ]]; then
    echo "FAIL: $where: rung check exited $rc:"; echo "$out" | head -20; failed=$((failed + 1))
  fi
done
[[ $blocks -gt 0 ]] || { echo "FAIL: no rung code block found under $src/docs"; exit 1; }
[[ $failed == 0 ]] || { echo "FAIL: $failed of $blocks rung code blocks do not check"; exit 1; }
echo "ok: all $blocks rung code blocks in docs/ and README.md check"
