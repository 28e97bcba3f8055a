# Inputs whose diagnostics, names or sizes once made rung's time or memory grow faster
# than the input: every case ends with a coded diagnostic, quickly, in bounded memory.
gen npy_f32_4 0 "$tmp/a.npy"
prog=$src/tests/crashes/out_path/prog.rung
# 3000 lines of garbage (1.2 MB): at most 100 errors shown, each line cut to a window.
gen garbage 3000 "$tmp/g.rung"
expect "3000 lines of garbage" 1 20 $((base_mib + 100)) C0099 -- check "$tmp/g.rung"
size=$(stat -c %s "$tmp/stderr")
[[ $size -lt 200000 ]] || { echo "FAIL: 3000 lines of garbage printed $size bytes of diagnostics"; fail=1; }
expect "3000 lines of garbage, json" 1 20 $((base_mib + 100)) C0099 -- check "$tmp/g.rung" --error-format json
# One 30 KB line with an error every 11 bytes: each error shows a window of the line.
gen garbage_line 3000 "$tmp/l.rung"
expect "3000 errors on one 30 KB line" 1 20 $((base_mib + 100)) C0099 -- check "$tmp/l.rung"
size=$(stat -c %s "$tmp/stderr")
[[ $size -lt 100000 ]] || { echo "FAIL: one 30 KB line printed $size bytes of diagnostics"; fail=1; }
# Two 64K-character names, one unknown: the "did you mean" search is banded.
gen long_names 65536 "$tmp/n.rung"
expect "a 64K-character unknown name" 1 5 $base_mib E2 -- check "$tmp/n.rung"
# A device given as an input is refused, not read for gigabytes.
expect "/dev/zero as the program" 1 5 $base_mib C0001 -- check /dev/zero
expect "/dev/zero as a .keg" 1 5 $base_mib C0001 -- inspect /dev/zero
expect "/dev/zero as an --arg" 1 5 $base_mib C0001 -- run "$prog" --arg a=/dev/zero
# 250 else-if arms (just under the nesting limit): plan and run stay small and quick.
gen npy_i64 0 "$tmp/x.npy"
gen elseif 250 "$tmp/e.rung"
expect "plan: 250 else-if arms" 0 20 $((base_mib + 200)) - -- plan "$tmp/e.rung"
expect "run: 250 else-if arms" 0 20 $((base_mib + 200)) - -- run "$tmp/e.rung" --arg x="$tmp/x.npy"
# The planner once copied the whole plan at every `if` (1000 arms: 1 GB); now a branch is
# rolled back and re-applied, linear in the chain.
rss_below "plan: 250 else-if arms, resident memory" 64 -- plan "$tmp/e.rung"
