#!/usr/bin/env bash
# Wall time of the digits training run (examples/digits.rung, entry train: data load, all
# epochs, evaluation) on the reference and the CPU backend, and their output hashes, which
# must be equal. Usage: bench/cpu/digits_time.sh [build-dir]   (RUNG_CPU_THREADS applies)
set -euo pipefail
build=${1:-build}
src_dir=$(cd "$(dirname "$0")/../.." && pwd)
rung="$build/tools/rung/rung"
[ -f "$build/data/digits.csv" ] || "$src_dir/scripts/fetch-digits.sh" "$build/data/digits.csv"
for backend in reference cpu; do
  start=$(date +%s.%N)
  hash=$("$rung" run "$src_dir/examples/digits.rung" --entry train --data-dir "$build/data" --backend "$backend" 2>/dev/null |
         awk '/^output 0/ {print $NF}')
  end=$(date +%s.%N)
  printf '%-9s %6.2f s  output %s\n' "$backend" "$(echo "$end - $start" | bc)" "$hash"
done
