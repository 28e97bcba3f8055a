#!/usr/bin/env bash
# capi.doc_blocks: every ```c code block of docs/*.md and README.md compiles as C11 with
# -Wall -Wextra -Werror against include/ (so the docs cannot show C the header rejects); a
# block that defines main() is also linked against librung.so and run from the source folder,
# and must exit 0. Fragments that are not C are fenced as ```text.
#   doc_blocks_c_test.sh CC SOURCE_DIR LIBRUNG_SO
set -uo pipefail
cc=$1; src=$2; lib=$3
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
export RUNG_HOME=$tmp/home
blocks=0; failed=0; ran=0
for md in "$src"/docs/*.md "$src"/README.md; do
  [[ -f $md ]] || continue
  name=$(basename "$md" .md)
  awk -v dir="$tmp" -v doc="$name" '
    /^```/ && inside { inside = 0; close(out); next }
    /^```c[ \t]*$/ && !inside { inside = 1; out = dir "/" doc "." NR ".c"; printf "" > out; next }
    inside { print >> out }
  ' "$md"
done
shopt -s nullglob
for f in "$tmp"/*.c; do
  blocks=$((blocks + 1))
  where=$(basename "$f" .c); where="docs/${where%.*}.md:${where##*.}"
  [[ $where == docs/README.md:* ]] && where=${where#docs/}
  if ! out=$("$cc" -std=c11 -Wall -Wextra -Wpedantic -Werror -I"$src/include" -c "$f" -o "$f.o" 2>&1); then
    echo "FAIL: $where does not compile:"; echo "$out" | head -20; failed=$((failed + 1)); continue
  fi
  grep -qE '^int main\(' "$f" || continue
  if ! out=$("$cc" "$f.o" -o "$f.exe" "$lib" -Wl,-rpath,"$(dirname "$lib")" 2>&1); then
    echo "FAIL: $where does not link against librung.so:"; echo "$out" | head -20; failed=$((failed + 1)); continue
  fi
  if ! out=$(cd "$src" && "$f.exe" 2>&1); then
    echo "FAIL: $where exited non-zero:"; echo "$out" | head -20; failed=$((failed + 1)); continue
  fi
  ran=$((ran + 1))
done
[[ $blocks -gt 0 ]] || { echo "FAIL: no c code block found under $src/docs"; exit 1; }
[[ $failed == 0 ]] || { echo "FAIL: $failed of $blocks c code blocks"; exit 1; }
echo "ok: all $blocks c code blocks in docs/ and README.md compile ($ran with a main ran)"
