#!/bin/sh
# expect.sh RC PATTERN CMD...: runs CMD, passes when it exits with RC and its output
# (stdout and stderr) matches the extended regex PATTERN ("" matches anything).
rc_want=$1; pattern=$2; shift 2
out=$("$@" 2>&1); rc=$?
if [ "$rc" -ne "$rc_want" ]; then
  printf 'exit code %s, expected %s\n%s\n' "$rc" "$rc_want" "$out"; exit 1
fi
if [ -n "$pattern" ] && ! printf '%s' "$out" | grep -Eq -- "$pattern"; then
  printf 'output does not match /%s/:\n%s\n' "$pattern" "$out"; exit 1
fi
exit 0
