#!/usr/bin/env bash
# crash_test.sh RUNG SRC CLASS: runs the cases of tests/crashes/CLASS/cases.sh. Each case
# runs `rung` under `timeout` and `ulimit -v` and must exit with the expected code (never a
# signal, a timeout or an abort) and print the expected diagnostic code.
set -u
rung=$1
src=$2
class=$3
here=$src/tests/crashes
dir=$here/$class
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
gen() { python3 "$here/gen.py" "$@"; }  # gen KIND N OUT

# expect NAME RC SECONDS MIB CODE -- ARGS...: `rung ARGS` exits RC within SECONDS, in at most
# MIB of address space, with CODE on stderr (CODE "-" checks none).
expect() {
  local name=$1 want=$2 secs=$3 mib=$4 code=$5
  shift 6
  local start=$SECONDS
  (ulimit -v $((mib * 1024)); exec timeout -s KILL "$secs" "$rung" "$@") >"$tmp/stdout" 2>"$tmp/stderr"
  local rc=$?
  local took=$((SECONDS - start))
  if [[ $rc -ne $want ]]; then
    local why="exit $rc"
    [[ $rc -eq 137 ]] && why="killed after ${took}s (over ${secs}s: a hang or a blow-up)"
    [[ $rc -gt 128 && $rc -ne 137 ]] && why="signal $((rc - 128))"
    echo "FAIL: $name: $why, expected exit $want"
    head -c 2000 "$tmp/stderr" | sed 's/^/  | /'
    fail=1
    return
  fi
  if [[ $code != - ]] && ! grep -q "$code" "$tmp/stderr"; then
    echo "FAIL: $name: exit $rc but no $code in"
    head -c 2000 "$tmp/stderr" | sed 's/^/  | /'
    fail=1
    return
  fi
  echo "ok: $name (exit $rc, ${took}s)"
}

# peak_rss_kib ARGS...: the peak resident memory of `rung ARGS`, in KiB.
peak_rss_kib() {
  python3 -c 'import resource, subprocess, sys
subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=60)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)' "$rung" "$@"
}
# What rung holds resident before it reads any input (the loader relocating its shared
# libraries, CUDA's among them): rss_below measures above it.
start_kib=$(peak_rss_kib --version)

# rss_below NAME MIB -- ARGS...: `rung ARGS` peaks below MIB of resident memory above what
# `rung --version` holds (what ulimit -v cannot see: rung's address space starts large).
rss_below() {
  local name=$1 mib=$2
  shift 3
  local kib
  kib=$(peak_rss_kib "$@")
  [[ -n $kib ]] && kib=$((kib - ${start_kib:-0}))
  if [[ -z $kib || $kib -ge $((mib * 1024)) ]]; then
    echo "FAIL: $name: peak resident memory ${kib:-?} KiB above the start, expected below $mib MiB"
    fail=1
  else
    echo "ok: $name (peak resident $((kib / 1024)) MiB)"
  fi
}

# The address space rung needs to start (its big stack, heap arenas, and its shared libraries,
# which a CUDA build makes large: cuBLAS alone maps hundreds of MiB): limits are this plus
# what an input's size justifies.
libs_mib=$(ldd "$rung" | awk '/=>/ && $3 ~ /^\// {print $3}' | xargs -r stat -L -c %s | awk '{s += $1} END {print int(s / 1048576)}')
base_mib=$((1024 + ${libs_mib:-0}))

# shellcheck source=/dev/null
source "$dir/cases.sh"
exit $fail
