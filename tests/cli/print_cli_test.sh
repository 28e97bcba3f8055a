#!/usr/bin/env bash
# `rung run --print` shows each output as NumPy's repr shows the same array: NumPy writes
# arrays of many kinds (magnitudes that switch to scientific notation, mixed widths, nan,
# inf, -0, subnormals, f16, f64, integers, bools, 0-d, empty, wide rows that wrap, more
# than 1000 elements summarised), rung runs an identity program on each and prints it, and
# the two texts must be equal character for character.
#   print_cli_test.sh RUNG SOURCE_DIR PYTHON3   (a python3 that has numpy)
set -euo pipefail
rung=$1; src=$2; py=$3
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
export RUNG_HOME=$tmp/home
fail() { echo "FAIL: $*"; exit 1; }

"$py" - "$tmp" <<'PY'
import sys, numpy as np
d = sys.argv[1]
rng = np.random.default_rng(17)
cases = {
  "small": np.array([[1, 2], [3, 4]], np.float32),
  "mixed": np.array([1.5, 2.25, -3.0, 0.1], np.float32),
  "random": rng.standard_normal((4, 5)).astype(np.float32),
  "sci_small": np.array([1e-5, 1.0, 3.5], np.float32),
  "sci_large": np.array([1e9, -2.5, 7.0], np.float32),
  "ratio": np.array([0.5, 999.0, 1000.5], np.float32),
  "nonfinite": np.array([np.nan, np.inf, -np.inf, 1.25, -0.0], np.float32),
  "allnan": np.array([np.nan, np.inf], np.float32),
  "subnormal": np.array([1e-40, 1.0], np.float32),
  "wide": (rng.standard_normal(40) * 100).astype(np.float32),
  "big": rng.standard_normal((40, 30)).astype(np.float32),
  "big3d": np.arange(2 * 30 * 40, dtype=np.float32).reshape(2, 30, 40) / 7,
  "cube": np.arange(24, dtype=np.float32).reshape(2, 3, 4) - 11.5,
  "long_digits": np.array([1 / 3, 2 / 3, 1e-3 / 3], np.float64),
  "f64": rng.standard_normal((3, 3)) * 1e3,
  "f64_tiny": np.array([1e-300, 2.5e-310, 1.0]),
  "f16": (rng.standard_normal(7) * 10).astype(np.float16),
  "f16_sci": np.array([6e-5, 60000, 1], np.float16),
  "i32": np.array([[-5, 120000], [7, 0]], np.int32),
  "i64": np.array([9223372036854775807, -9223372036854775808, 0], np.int64),
  "u8": np.arange(0, 250, 7, dtype=np.uint8),
  "scalar": np.array(0.1, np.float32),
  "scalar64": np.array(-2.0),
  "empty": np.zeros((0,), np.float32),
  "empty2d": np.zeros((2, 0), np.float32),
  "long_row": np.array([123456.789, 1.0] * 12, np.float32),
  "f16_int": np.array([13704, -58336], np.float16),  # exact integer digits, not 58340
  "f32_int": np.array([67108872, 1e7], np.float32),
  "f32_bits": rng.integers(0, 2**32, 30, dtype=np.uint64).astype(np.uint32).view(np.float32),
  "f64_bits": rng.integers(0, 2**63, 12, dtype=np.uint64).view(np.float64),
  "f16_bits": rng.integers(0, 2**16, 1200, dtype=np.uint64).astype(np.uint16).view(np.float16),
  "bools": np.array([True, False, True]),
}
for name, a in cases.items():
    np.save(f"{d}/{name}.npy", a)
    with open(f"{d}/{name}.want", "w") as f:
        f.write(repr(a) + "\n")
    with open(f"{d}/{name}.type", "w") as f:
        dt = {"float32": "f32", "float64": "f64", "float16": "f16", "int32": "i32", "int64": "i64", "uint8": "u8", "bool": "bool"}[a.dtype.name]
        dims = ", ".join(f"D{k}" for k in range(a.ndim))
        f.write(dt + (f"[{dims}]" if a.ndim else ""))
PY
n=0
for want in "$tmp"/*.want; do
  name=$(basename "$want" .want)
  type=$(cat "$tmp/$name.type")
  generics=$(grep -o 'D[0-9]' <<<"$type" | paste -sd, - || true)
  printf 'module show;\ntier debug;\ntolerance exact;\n\nexport fn show%s(x: %s) -> %s { x }\n' \
    "${generics:+[$generics]}" "$type" "$type" >"$tmp/$name.rung"
  "$rung" run "$tmp/$name.rung" --arg x="$tmp/$name.npy" --print >"$tmp/$name.out" 2>"$tmp/$name.err" ||
    { cat "$tmp/$name.err"; fail "$name: rung run --print failed"; }
  # The value: the lines after `output 0 ...` up to the record line.
  awk '/^record/ { p = 0 } p { print } /^output 0/ { p = 1 }' "$tmp/$name.out" >"$tmp/$name.got"
  diff "$want" "$tmp/$name.got" >"$tmp/$name.diff" || { cat "$tmp/$name.diff"; fail "$name: rung --print differs from numpy's repr"; }
  n=$((n + 1))
done
# --json carries the same text as "value".
"$rung" run "$tmp/small.rung" --arg x="$tmp/small.npy" --print --json >"$tmp/j.json" 2>/dev/null
"$py" -c "import json,sys; j=json.load(open(sys.argv[1])); assert j['outputs'][0]['value']+'\n'==open(sys.argv[2]).read(), j" \
  "$tmp/j.json" "$tmp/small.want" || fail "--json --print: no value or another one"
echo "ok: rung run --print equals numpy's repr on $n arrays"
