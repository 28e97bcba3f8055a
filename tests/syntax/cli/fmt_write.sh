#!/bin/sh
# fmt_write.sh RUNG FILE: `rung fmt --write` formats a copy of FILE in place, keeps its
# permission bits, and leaves it passing `--check`; a file that is already formatted is
# left byte for byte as it was.
set -e
rung=$1; src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp "$src" "$tmp/a.rung"
chmod 640 "$tmp/a.rung"
if "$rung" fmt --check "$tmp/a.rung" 2>/dev/null; then echo "the input should need formatting"; exit 1; fi
"$rung" fmt --write "$tmp/a.rung"
"$rung" fmt --check "$tmp/a.rung"
[ "$(stat -c %a "$tmp/a.rung")" = 640 ] || { echo "permission bits changed"; exit 1; }
cp "$tmp/a.rung" "$tmp/b.rung"
"$rung" fmt --write "$tmp/a.rung"
cmp "$tmp/a.rung" "$tmp/b.rung"
