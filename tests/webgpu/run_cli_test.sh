#!/usr/bin/env bash
# `rung run --backend webgpu` on SwiftShader, one check per MODE:
#   examples   examples/control.rung and examples/mlp.rung run (their i64 loop counters and
#              conditions are host scalars, placed on the host and printed as such) and print
#              what the reference prints: the same words and integers, floats within 1e-4
#              relative (a convergent backend: each op within its class, not the same bits)
#   shadow     --shadow accepts subnormal products flushed to zero (the device declares it,
#              conformance accepts it): no A0030
#   progress   a first run on a fresh store conforms the kernels and says so on stderr
#              (`conforming N/M: op dtype`, plain lines when stderr is not a terminal)
#   memory     planned vs measured peak (host and device buffers) within 10% on
#              transformer_block and attention (`examples` checks control and mlp too)
#   run_cli_test.sh MODE RUNG SOURCE_DIR
set -euo pipefail
mode=$1; rung=$2; src=$3
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
export RUNG_HOME=$tmp/home RUNG_WEBGPU_ADAPTER=swiftshader
fail() { echo "FAIL: $*"; exit 1; }
# check_memory NAME OUTPUT: the planned peak (host and device buffers) within 10% of the
# measured one, and the line says what the plan does not count.
check_memory() {
  local line
  line=$(grep -E '^memory +planned' "$2") || { cat "$2"; fail "$1: no planned memory line"; }
  echo "$1: ${line:0:100}"
  /usr/bin/python3 -c "
import re, sys
m = re.search(r'planned ([0-9]+), measured ([0-9]+) bytes \(delta ([-+0-9.]+)%\)', sys.argv[1])
assert m and abs(float(m.group(3))) <= 10.0, sys.argv[1]
assert 'not counted' in sys.argv[1], 'the line must say what the plan leaves out'
" "$line" || fail "$1: planned and measured differ by more than 10%"
}

case $mode in
examples)
  for prog in control mlp; do
    "$rung" run "$src/examples/$prog.rung" --backend reference >"$tmp/ref.txt" 2>"$tmp/ref.err" ||
      { cat "$tmp/ref.txt" "$tmp/ref.err"; fail "$prog: reference run failed"; }
    "$rung" run "$src/examples/$prog.rung" --backend webgpu --receipts ignore >"$tmp/gpu.txt" 2>"$tmp/gpu.err" ||
      { cat "$tmp/gpu.txt" "$tmp/gpu.err"; fail "$prog: webgpu run failed"; }
    check_memory "$prog" "$tmp/gpu.txt"
    grep -E '^placement +region .* -> (cpu|reference): host scalars: every value is a scalar and webgpu has no kernel for `[a-z_]+` on i64' \
      "$tmp/gpu.txt" >/dev/null || { cat "$tmp/gpu.txt"; fail "$prog: no host-scalar placement line"; }
    # The program's own prints (stdout): every line before the run summary (`fingerprint ...`).
    sed '/^fingerprint /,$d' "$tmp/ref.txt" >"$tmp/ref.prints"
    sed '/^fingerprint /,$d' "$tmp/gpu.txt" >"$tmp/gpu.prints"
    [[ -s "$tmp/ref.prints" ]] || fail "$prog: the reference printed nothing"
    /usr/bin/python3 - "$tmp/ref.prints" "$tmp/gpu.prints" <<'PY' || fail "$prog: webgpu printed other results than the reference"
import re, sys
ref, gpu = (open(p).read().split("\n") for p in sys.argv[1:3])
assert len(ref) == len(gpu), (len(ref), len(gpu))
num = re.compile(r"^-?[0-9.]+(e[-+]?[0-9]+)?$")
for a, b in zip(ref, gpu):
    ta, tb = re.split(r"[\s,\[\]]+", a), re.split(r"[\s,\[\]]+", b)
    assert len(ta) == len(tb), (a, b)
    for x, y in zip(ta, tb):
        if x == y: continue
        assert num.match(x) and num.match(y) and "." in x + y, (a, b)  # integers and words: equal
        assert abs(float(x) - float(y)) <= 1e-4 * max(abs(float(x)), 1e-30), (a, b)
print("ok:", len(ref), "lines agree")
PY
  done
  echo "ok: control.rung and mlp.rung run on webgpu and print the reference's results"
  ;;
shadow)
  /usr/bin/python3 -c "import numpy as np; np.save('$tmp/x.npy', np.array([1e-20, -2e-20, 3e-20, 1.0], dtype=np.float32))"
  "$rung" run "$src/tests/webgpu/programs/subnormal.rung" --backend webgpu --receipts ignore --arg "x=$tmp/x.npy" --shadow \
    >"$tmp/out.txt" 2>&1 || { cat "$tmp/out.txt"; fail "run --shadow failed"; }
  grep -q 'A0030' "$tmp/out.txt" && { cat "$tmp/out.txt"; fail "a false alarm: A0030 for subnormals flushed to zero"; }
  grep -E '^shadow +[1-9][0-9]* region runs compared with the reference \(each node within its class\): all agree$' "$tmp/out.txt" \
    >/dev/null || { cat "$tmp/out.txt"; fail "no 'all agree' shadow line"; }
  # The products really are flushed on this device (else the test proves nothing).
  "$rung" run "$src/tests/webgpu/programs/subnormal.rung" --backend webgpu --receipts ignore --arg "x=$tmp/x.npy" --out "$tmp/o" \
    >/dev/null 2>&1 || fail "run --out failed"
  /usr/bin/python3 -c "import numpy as np; r=np.load('$tmp/o/result.npy'); assert r[0]==0 and r[3]==1, r" ||
    fail "SwiftShader did not flush the subnormal product (the test needs a flushing device)"
  echo "ok: --shadow on webgpu accepts flushed subnormals"
  ;;
progress)
  "$rung" run "$src/tests/webgpu/programs/progress.rung" --backend webgpu >"$tmp/out.txt" 2>"$tmp/err.txt" ||
    { cat "$tmp/out.txt" "$tmp/err.txt"; fail "run failed"; }
  grep -E '^conforming [0-9]+/[0-9]+: (matmul|softmax|exp|mul|sum) (f32|f16|bf16)$' "$tmp/err.txt" >/dev/null ||
    { cat "$tmp/err.txt"; fail "no progress lines on stderr"; }
  grep -q '^conforming' "$tmp/out.txt" && fail "progress went to stdout"
  # The second run finds the receipts: nothing to conform, nothing said.
  "$rung" run "$src/tests/webgpu/programs/progress.rung" --backend webgpu >/dev/null 2>"$tmp/err2.txt" || fail "second run failed"
  grep -q '^conforming' "$tmp/err2.txt" && fail "progress without conforming"
  echo "ok: conformance progress on stderr"
  ;;
memory)  # (control and mlp: checked by `examples`)
  for prog in transformer_block attention; do
    "$rung" run "$src/examples/$prog.rung" --backend webgpu --receipts ignore >"$tmp/out.txt" 2>&1 ||
      { cat "$tmp/out.txt"; fail "$prog: run failed"; }
    check_memory "$prog" "$tmp/out.txt"
  done
  echo "ok: webgpu plans within 10% of the measured peak"
  ;;
*) fail "unknown mode $mode" ;;
esac
