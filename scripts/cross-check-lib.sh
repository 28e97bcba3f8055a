# Shared by scripts/test-arm64.sh and scripts/test-wasm.sh (sourced): the checks that a build
# for another target gives the x86-64 build's bits. The sourcing script defines x86_rung and
# target_rung (functions running each build's `rung`), sets TARGET (its name in the report),
# tmp (a scratch folder) and fail=0; every failed check prints FAIL: and sets fail=1.

field() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2], {}, {"d": d}))' "$@"; }

# conform_check NAME X86_JSON TARGET_JSON: `rung conform --json` of both builds give the same
# outputs_digest (on a difference, the ops whose digests differ), and the target's suite passes.
conform_check() {
  local x a
  x=$(field "$2" 'd["outputs_digest"]' 2>/dev/null || echo "(no result)")
  a=$(field "$3" 'd["outputs_digest"]' 2>/dev/null || echo "(no result)")
  printf '%s\n  %-8s %s\n  %-8s %s  [%s]\n' "$1" x86-64 "$x" "$TARGET" "$a" "$(field "$3" 'd["device"]' 2>/dev/null || true)"
  if [[ $x != "$a" || $x == "(no result)" ]]; then
    echo "FAIL: $1: the outputs differ; ops whose digests differ:"
    python3 - "$2" "$3" <<'PY' || true
import json, sys
x, a = (json.load(open(p)) for p in sys.argv[1:3])
xd = {r["op"]: r["outputs_digest"] for r in x["reports"]}
ad = {r["op"]: r["outputs_digest"] for r in a["reports"]}
for op in sorted(set(xd) | set(ad)):
    if xd.get(op) != ad.get(op):
        print("  ", op, "x86-64:", xd.get(op, "(missing)")[:16], "target:", ad.get(op, "(missing)")[:16])
PY
    fail=1
  fi
  [[ $(field "$3" 'd["pass"]' 2>/dev/null) == True ]] || { echo "FAIL: $1: the $TARGET suite does not pass"; fail=1; }
}

# conform_both BACKEND CASES [OPS]: conform_check on one backend, both builds run here.
conform_both() {
  local b=$1 cases=$2 ops=${3:-} args t0 t1 t2
  args=(conform --backend "$b" --cases "$cases" --no-receipts --json)
  [[ -z $ops ]] || args+=(--ops "$ops")
  t0=$(date +%s)
  x86_rung "${args[@]}" > "$tmp/x86-$b.json" || true
  t1=$(date +%s)
  target_rung "${args[@]}" > "$tmp/target-$b.json" 2> "$tmp/target-$b.err" || true
  t2=$(date +%s)
  [[ -s $tmp/target-$b.json ]] || { echo "$TARGET conform --backend $b printed nothing:"; tail -5 "$tmp/target-$b.err"; }
  conform_check "conform $b --cases $cases${ops:+ (${ops//,/ })} (x86-64 $((t1 - t0)) s, $TARGET $((t2 - t1)) s)" \
    "$tmp/x86-$b.json" "$tmp/target-$b.json"
}

# example_check RUN...: the debug-tier examples' output hashes (the x86-64 reference's) on
# the target for each RUN, "BACKEND THREADS" (RUNG_CPU_THREADS).
example_check() {
  python3 - "$tmp" <<'PY'
import struct, sys
def save(path, shape, values):
    header = "{'descr': '<f4', 'fortran_order': False, 'shape': (%s), }" % "".join("%d, " % d for d in shape)
    header += " " * (64 - (10 + len(header) + 1) % 64) + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode())
        f.write(struct.pack("<%df" % len(values), *values))
save(sys.argv[1] + "/x.npy", (5, 8), [((i * 37) % 11) / 3.0 - 1.5 for i in range(40)])
save(sys.argv[1] + "/w.npy", (8, 4), [((i * 13) % 7) / 5.0 - 0.5 for i in range(32)])
PY
  # The run's JSON follows what the program printed: from the first line that opens an object.
  local hashes='import json,sys; t=sys.stdin.read(); i=t.find("\n{") + 1 if not t.startswith("{") else 0
print(" ".join(o["sha3_256"] for o in json.loads(t[i:])["outputs"]) or "(no outputs)")'
  local examples=(
    "center.workflow.json --arg x=$tmp/x.npy --arg w=$tmp/w.npy"
    "transformer_block.rung"
    "mlp.rung --tier debug"
    "attention.rung"
    "control.rung"
    "q8_matmul.rung"
    "spmm.rung"
  )
  local runs=("$@") ex name x a run label backend threads
  for ex in "${examples[@]}"; do
    name=${ex%% *}
    x=$(x86_rung run "$root/examples/"$ex --backend reference --json 2>/dev/null | python3 -c "$hashes" 2>/dev/null || echo "(no result)")
    printf '%-40s %-8s %s\n' "$name reference" x86-64 "$x"
    [[ $x != "(no result)" ]] || { echo "FAIL: $name does not run on x86-64"; fail=1; }
    for run in "${runs[@]}"; do
      read -r backend threads <<< "$run"
      a=$(RUNG_CPU_THREADS=$threads target_rung run "$root/examples/"$ex --backend "$backend" --json 2>/dev/null | python3 -c "$hashes" 2>/dev/null || echo "(no result)")
      label="$name $backend"; [[ $backend == reference ]] || label+=" threads=$threads"
      printf '%-40s %-8s %s\n' "$label" "$TARGET" "$a"
      [[ $x == "$a" ]] || { echo "FAIL: $name: $TARGET $backend (threads=$threads) output hashes differ from x86-64"; fail=1; }
    done
  done
}
