# `rung run --out DIR` where DIR cannot be made: C0003 before the run starts (so no work is
# lost), never an uncaught std::filesystem_error (SIGABRT).
gen npy_f32_4 0 "$tmp/a.npy"
prog=$dir/prog.rung
touch "$tmp/a_file"
expect "--out names an existing file" 1 30 $base_mib C0003 -- run "$prog" --arg a="$tmp/a.npy" --out "$tmp/a_file"
grep -q '^output' "$tmp/stdout" && { echo "FAIL: the run went ahead before --out was refused"; fail=1; }
expect "--out under a file" 1 30 $base_mib C0003 -- run "$prog" --arg a="$tmp/a.npy" --out "$tmp/a_file/sub"
expect "--out as json" 1 30 $base_mib C0003 -- run "$prog" --arg a="$tmp/a.npy" --out "$tmp/a_file" --error-format json
if [[ $(id -u) -ne 0 ]]; then  # root writes anywhere
  mkdir "$tmp/ro" && chmod 555 "$tmp/ro"
  expect "--out in a read-only folder" 1 30 $base_mib C0003 -- run "$prog" --arg a="$tmp/a.npy" --out "$tmp/ro/out"
fi
expect "--out that can be made" 0 30 $base_mib - -- run "$prog" --arg a="$tmp/a.npy" --out "$tmp/new/out"
[[ -f $tmp/new/out/result.npy ]] || { echo "FAIL: --out wrote no result.npy"; ls -R "$tmp/new" ; fail=1; }
