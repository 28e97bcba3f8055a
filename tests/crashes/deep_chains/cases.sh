# Chains as deep as the input is long. Binary chains are folded in a loop and must work;
# postfix chains, `else if` arms, nested and chained calls are bounded by the nesting
# limits (E2404 in the front end, E1198 in the parser), and deep JSON by W0001.
# Limits: 20 s and 1 GiB plus 1 MiB per 10 bytes of input.
gen npy_f32_4 0 "$tmp/a.npy"
gen npy_f32_4x4 0 "$tmp/m.npy"
gen npy_i64 0 "$tmp/x.npy"
lim() { echo $((base_mib + $(stat -c %s "$1") / 10 / 1024)); }
for kind in sum:5000 and:3000 matmul:2000; do
  gen "${kind%%:*}" "${kind##*:}" "$tmp/c.rung"
  arg=a="$tmp/a.npy"; [[ $kind == matmul* ]] && arg=a="$tmp/m.npy"
  for cmd in check build plan run; do
    extra=(); [[ $cmd == build ]] && extra=(-o "$tmp/c.keg"); [[ $cmd == run ]] && extra=(--arg "$arg")
    expect "$cmd: a chain of $kind" 0 20 "$(lim "$tmp/c.rung")" - -- $cmd "$tmp/c.rung" "${extra[@]}"
  done
done
for kind in field:5000 index:5000 elseif:10000 calls:2000; do
  gen "${kind%%:*}" "${kind##*:}" "$tmp/c.rung"
  for cmd in check build plan run; do
    extra=(); [[ $cmd == build ]] && extra=(-o "$tmp/c.keg"); [[ $cmd == run ]] && extra=(--arg a="$tmp/a.npy")
    [[ $cmd == run && $kind == elseif* ]] && extra=(--arg x="$tmp/x.npy")
    expect "$cmd: a chain of $kind" 1 20 "$(lim "$tmp/c.rung")" E2404 -- $cmd "$tmp/c.rung" "${extra[@]}"
  done
done
gen nested_calls 2000 "$tmp/c.rung"
expect "check: 2000 nested calls" 1 20 "$(lim "$tmp/c.rung")" E1198 -- check "$tmp/c.rung"
# Just under the limits, the same shapes compile and run.
gen elseif 200 "$tmp/c.rung"
expect "run: 200 else-if arms" 0 20 $base_mib - -- run "$tmp/c.rung" --arg x="$tmp/x.npy"
grep -q "result.*i64" "$tmp/stdout" || { echo "FAIL: 200 else-if arms printed no result"; fail=1; }
gen calls 100 "$tmp/c.rung"
expect "run: a chain of 100 calls" 0 20 $base_mib - -- run "$tmp/c.rung" --arg a="$tmp/a.npy"
gen deep_attrs 58000 "$tmp/w.workflow.json"
for cmd in check plan; do
  expect "$cmd: a workflow attribute nested 58000 deep" 1 20 $base_mib W0001 -- $cmd "$tmp/w.workflow.json"
done
gen deep_attrs 60 "$tmp/w.workflow.json"
expect "check: an attribute nested 60 deep is an attribute error, not a crash" 1 20 $base_mib W0006 -- check "$tmp/w.workflow.json"
# 2000 BlockIR functions, each calling the next: the call depth limits of the planner
# (L0007) and of the executor (X0005) answer, no walk overflows.
gen block_calls 2000 "$tmp/c.rung"
expect "check: a chain of 2000 BlockIR calls" 0 20 "$(lim "$tmp/c.rung")" - -- check "$tmp/c.rung"
expect "plan: a chain of 2000 BlockIR calls" 1 20 "$(lim "$tmp/c.rung")" L0007 -- plan "$tmp/c.rung"
expect "run: a chain of 2000 BlockIR calls" 1 20 "$(lim "$tmp/c.rung")" X0005 -- run "$tmp/c.rung" --arg a="$tmp/a.npy"
