# --error-format json when a diagnostic quotes bytes that are not UTF-8: the output is
# valid JSON (the bytes become U+FFFD), never an abort in the JSON writer.
json_ok() {  # json_ok NAME: stderr parses as a JSON array of diagnostics with codes
  python3 -c 'import json,sys; d=json.load(open(sys.argv[1], encoding="utf-8")); assert d and all("code" in x for x in d), d' \
    "$tmp/stderr" || { echo "FAIL: $1: stderr is not a JSON array of diagnostics"; fail=1; }
}
gen npy_f32_4 0 "$tmp/a.npy"
prog=$src/tests/crashes/out_path/prog.rung
printf '{"format": "rung-workflow", "version": 1, \xff\xfe}' >"$tmp/bad.workflow.json"
expect "a workflow token that is not UTF-8" 1 20 $base_mib W0001 -- check "$tmp/bad.workflow.json" --error-format json
json_ok "workflow token"
gen npy_bad_descr 0 "$tmp/bad.npy"
expect "an .npy descr that is not UTF-8" 1 20 $base_mib '"code"' -- run "$prog" --arg a="$tmp/bad.npy" --error-format json
json_ok "npy descr"
expect "a file name that is not UTF-8" 1 20 $base_mib C0001 -- check "$tmp/"$'\xff\xfe'.rung --error-format json
json_ok "file name"
expect "an --arg name that is not UTF-8" 1 20 $base_mib C0014 -- run "$prog" --arg $'\xff'="$tmp/a.npy" --error-format json
json_ok "--arg name"
grep -q $'\xef\xbf\xbd' "$tmp/stderr" || { echo "FAIL: the invalid byte is not shown as U+FFFD"; fail=1; }
