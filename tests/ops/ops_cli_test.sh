#!/usr/bin/env bash
# `rung ops`, `rung tolerances` and `rung eval` end to end: outputs, exit codes, diagnostics.
set -u
RUNG=$1
fail=0
check() {  # check NAME EXPECTED_RC PATTERN -- command...
  local name=$1 want_rc=$2 pattern=$3
  shift 4
  local out rc
  out=$("$@" 2>&1)
  rc=$?
  if [[ $rc -ne $want_rc ]] || ! grep -qE -- "$pattern" <<<"$out"; then
    echo "FAIL $name: rc=$rc (want $want_rc), pattern '$pattern' in:"
    echo "$out" | head -20
    fail=1
  fi
}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

check ops-json 0 '"name": "softmax"' -- "$RUNG" ops --json
for op in add sub mul div neg abs maximum minimum pow sqrt rsqrt exp log tanh sigmoid relu gelu silu sin cos \
          square reciprocal clamp where eq ne lt le gt ge logical_and logical_or logical_xor logical_not cast \
          sum mean max min argmax prod variance logsumexp matmul linear softmax log_softmax; do
  check "ops-lists-$op" 0 "\"name\": \"$op\"" -- "$RUNG" ops --json
done
check ops-text 0 'matmul\(a: T, b: T, transpose_a: bool = false' -- "$RUNG" ops
check ops-missing 0 'without a kernel on cuda' -- "$RUNG" ops --missing cuda
check ops-missing-bad 2 'C0210' -- "$RUNG" ops --missing tpu
# Per dtype: cpu's kernels cover every dtype each op accepts; webgpu's lack 64-bit arithmetic
# (tests/webgpu/coverage_test.cpp checks the list against what the generator refuses).
check ops-missing-dtypes-cpu 0 '^0 \(op, dtype\) pairs without a kernel on cpu' -- "$RUNG" ops --missing cpu
if "$RUNG" ops --json | grep -q '"webgpu"'; then  # a build with the WebGPU backend
  check ops-missing-dtypes-webgpu 0 '^mul +(.*, )?i64(, |$)' -- "$RUNG" ops --missing webgpu
  check ops-missing-dtypes-webgpu-count 0 '^[1-9][0-9]* \(op, dtype\) pairs without a kernel on webgpu' -- "$RUNG" ops --missing webgpu
  check ops-missing-dtypes-json 0 '"missing_dtype_pairs": [1-9]' -- "$RUNG" ops --missing webgpu --json
fi
check tolerances 0 'debug +tight +f32 +2 ' -- "$RUNG" tolerances
check tolerances-json 0 '"class": "loose"' -- "$RUNG" tolerances --json

check eval-add 0 'y = f32\[2, 2\] \[\[11, 22\], \[13, 24\]\]' -- "$RUNG" eval add -i '[[1,2],[3,4]]' -i '[10,20]'
check eval-attr 0 'y = f32\[2, 1\] \[\[3\], \[7\]\]' -- "$RUNG" eval sum -i '[[1,2],[3,4]]' -a 'axes=[1]' -a keepdims=true
check eval-cast 0 'y = i8\[5\] \[1, -2, 127, 0, -128\]' -- "$RUNG" eval cast -i '[1.5, -2.7, 300, nan, -inf]' -a to=i8
check eval-bits 0 'bits: 0x3f800000 0x402df854' -- "$RUNG" eval exp -i '[0, 1]' --bits
check eval-json 0 '"values": \[' -- "$RUNG" eval softmax -i '[[1,2,3]]' --json
check eval-expect-pass 0 'expect: pass \[tight' -- "$RUNG" eval exp -i '[1]' --expect '[2.7182817]' --class tight
check eval-expect-fail 1 'N0020' -- "$RUNG" eval exp -i '[1]' --expect '[2.7182813]'
check eval-bad-literal 1 'C0201.*unclosed' -- "$RUNG" eval exp -i '[1, 2'
check eval-bad-attr 1 'C0202' -- "$RUNG" eval sum -i '[1]' -a nope=1
check eval-bad-attr-value 1 'C0202.*not a bool' -- "$RUNG" eval sum -i '[1]' -a keepdims=maybe
check eval-unknown-op 1 'N0010' -- "$RUNG" eval frobnicate -i '[1]'
check eval-shape-error 1 'N0011.*cannot be applied' -- "$RUNG" eval matmul -i '[[1,2]]' -i '[[1,2]]'
check eval-bad-tier 2 'C0204' -- "$RUNG" eval exp -i '[1]' --tier turbo
check eval-usage 2 '' -- "$RUNG" eval
# Quantized results: --json prints the blocks' storage (f16 scale 31/127 = 0x33d0, then codes
# 0, 4, ..., 127), and --expect, which compares values, is refused instead of crashing.
check eval-json-q8 0 '"storage_hex": "d0330004080c1014191d2125292d3135393d42464a4e52565a5e62666a6f73777b7f"' -- "$RUNG" eval quantize -i 'f32[1,32]:iota' -a to=q8_0 --json
check eval-expect-q8 1 'C0205' -- "$RUNG" eval quantize -i 'f32[2,32]:0.5' -a to=q8_0 --expect '[1]'

# A little-endian f4 .npy of [1, 2] written by hand: 10 bytes of preamble, then the header
# dict padded with spaces to 117 bytes plus a newline (0x76 = 118), so the data starts at 128.
hdr="{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }"
printf '\x93NUMPY\x01\x00\x76\x00%s' "$(printf '%-117s' "$hdr")" > "$tmp/x.npy"
printf '\n\x00\x00\x80\x3f\x00\x00\x00\x40' >> "$tmp/x.npy"
check eval-npy 0 'y = f32\[2\] \[2, 4\]' -- "$RUNG" eval add -i "$tmp/x.npy" -i "$tmp/x.npy"
printf 'garbage' > "$tmp/bad.npy"
check eval-bad-npy 1 'error\[Y000' -- "$RUNG" eval exp -i "$tmp/bad.npy"
check eval-missing-npy 1 'C0001' -- "$RUNG" eval exp -i "$tmp/none.npy"
exit $fail
