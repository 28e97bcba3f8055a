#!/usr/bin/env python3
"""The literal battery (docs/language.md, "Literals"): small programs with the type and value
each literal must have, the boundaries of 64-bit integers, the diagnostics for literals that do
not fit, and a grid where every literal expression folded at compile time must print exactly
what the same expression computes at run time (both backends), and what the rule says (a
Python model of truncating division, x / 0 = 0, x % 0 = x, fmod, f32 rounding).

usage: battery.py RUNG WORKDIR [BACKEND...]   (backends: reference cpu unless given)"""
import math
import os
import struct
import subprocess
import sys

RUNG, WORK = sys.argv[1], sys.argv[2]
BACKENDS = sys.argv[3:] or ["reference", "cpu"]
os.makedirs(WORK, exist_ok=True)
failures = []


def fail(msg):
    failures.append(msg)
    print("FAIL:", msg)


def run(args, src, name):
    path = os.path.join(WORK, name)
    with open(path, "w") as f:
        f.write(src)
    p = subprocess.run([RUNG] + args + [path], capture_output=True, text=True, timeout=120)
    return p.returncode, p.stdout, p.stderr


# ---- 1. types and values: (setup, expression or annotated let, dtype, value) ----
# The value is the printed element; "let v: T = ..." forms carry their annotation.
CASES = [
    ("", "let v = 9223372036854775807;", "i64", "9223372036854775807"),
    ("", "let v = -9223372036854775808;", "i64", "-9223372036854775808"),
    ("", "let v = 9007199254740993;", "i64", "9007199254740993"),
    ("", "let v = 0x7FFF_FFFF_FFFF_FFFF;", "i64", "9223372036854775807"),
    ("", "let v: u64 = 18446744073709551615;", "u64", "18446744073709551615"),
    ("", "let v: u64 = 0xFFFF_FFFF_FFFF_FFFF;", "u64", "18446744073709551615"),
    ("", "let v: f64 = 9007199254740993;", "f64", "9007199254740992"),  # one RNE rounding
    ("", "let v: f64 = 9007199254740995;", "f64", "9007199254740996"),
    ("", "let v: f32 = 16777217;", "f32", "16777216"),
    ("", "let v: f32 = 9223372036854775807;", "f32", "9.223372e+18"),  # 2^63, rounded once
    ("", "let v: i8 = -128;", "i8", "-128"),
    ("", "let v: u8 = 255;", "u8", "255"),
    ("", "let v: i32 = -2147483648;", "i32", "-2147483648"),
    ("", "let v: i32 = 7;", "i32", "7"),
    ("", "let v: f32 = 2;", "f32", "2"),
    ("", "let v: f64 = 2;", "f64", "2"),
    # no context: an integer literal expression is i64, with a float leaf f32
    ("", "let v = 7 / 2;", "i64", "3"),
    ("", "let v = 7 / 0;", "i64", "0"),
    ("", "let v = -7 / 2;", "i64", "-3"),
    ("", "let v = 7 % 3;", "i64", "1"),
    ("", "let v = -7 % 3;", "i64", "-1"),
    ("", "let v = 7 % -3;", "i64", "1"),
    ("", "let v = 7 % 0;", "i64", "7"),
    ("", "let v = 2 + 3 * 4 % 5;", "i64", "4"),  # % binds like *: 2 + ((3 * 4) % 5)
    ("", "let v = 7.0 / 2;", "f32", "3.5"),
    ("", "let v = 7 / 2.0;", "f32", "3.5"),
    ("", "let v = 7 / 2 + 0.5;", "f32", "4"),  # one type for the whole literal expression
    ("", "let v = 1.0 / 0;", "f32", "inf"),
    ("", "let v = 0.1 + 0.2;", "f32", "0.3"),  # f32(0.1) + f32(0.2) is the f32 nearest 0.3
    ("", "let v = -0.0;", "f32", "-0"),
    ("", "let v = 7.5 % 2;", "f32", "1.5"),
    ("", "let v = -7.5 % 2;", "f32", "-1.5"),
    ("", "let v = 1e-50;", "f32", "0"),
    ("", "let v = 1e39;", "f32", "inf"),
    # the context gives the type: annotation, the other operand, a parameter
    ("", "let v: f32 = 7 / 2;", "f32", "3.5"),
    ("", "let v: f32 = 1 / 0;", "f32", "inf"),
    ("", "let v: f32 = -0;", "f32", "-0"),
    ("", "let v: f64 = 0.1 + 0.2;", "f64", "0.30000000000000004"),
    ("", "let v: f64 = 0.1;", "f64", "0.1"),
    ("let a = 7;", "let v = a / 2;", "i64", "3"),
    ("let a = 7;", "let v = a / 0;", "i64", "0"),
    ("let a = 7;", "let v = 7 / 2 + a;", "i64", "10"),
    ("let a = 7;", "let v = a % 4;", "i64", "3"),
    ("let x: f32 = 1.5;", "let v = x * 2;", "f32", "3"),
    ("let x: f64 = 2.5;", "let v = x * 2;", "f64", "5"),
    ("let x: f32 = 7.5;", "let v = x % 2;", "f32", "1.5"),
    ("let x: f32 = 7.5;", "let v = x % 0.0;", "f32", "nan"),
    ("let i: i32 = 5;", "let v = i + 2147483647;", "i32", "-2147483644"),  # i32 arithmetic wraps
    ("let i: i32 = 7;", "let v = i % 0;", "i32", "7"),
    ("let b = -9223372036854775808;", "let v = b % -1;", "i64", "0"),
    ("let b = -9223372036854775808;", "let v = b / -1;", "i64", "-9223372036854775808"),
    ("let u: u8 = 200;", "let v = u + 100;", "u8", "44"),
    ("let mut m: f32 = 1.5;", "m = 2; let v = m;", "f32", "2"),
    ("", "let v = half(3);", "f32", "1.5"),        # a parameter's type
    ("", "let v = narrow(7);", "i32", "7"),         # the return type
    ("", "let v = sqrt(4);", "f32", "2"),           # sqrt admits no i64
    ("", "let v = seven_i32();", "i32", "7"),       # pure function: `let k: i32 = 7`
    ("", "let v = two_f32();", "f32", "2"),         # pure function: `let x: f32 = 2`
    ("", "let v = sum(zeros([2, 3]));", "f32", "0"),
    ("", "let v = sum(ones([2, 3]));", "f32", "6"),
    ("", "let v = sum(full([2, 3], 7));", "i64", "42"),
    ("", "let v = sum(full([4], 0.5));", "f32", "2"),
    ("", "let v = sum(ones([3], dtype: i32));", "i32", "3"),
    ("", "let v = sum(full([2], 9007199254740993, dtype: u64));", "u64", "18014398509481986"),
    ("let s: f64 = 0.25;", "let v = sum(full([2, 2], s));", "f64", "1"),
    ("", "let v = sum([1, 2, 3] * 0.5);", "f32", "3"),
    ("let w: f64[2] = [1, 2];", "let v = sum(w);", "f64", "3"),
    ("let w: i32[2] = [7, -2];", "let v = sum(w % 3);", "i32", "-1"),  # 1 + (-2)
]

HELPERS = """
fn half(x: f32) -> f32 { x / 2 }
fn narrow(x: i32) -> i32 { x }
fn seven_i32() -> i32 { let k: i32 = 7; k }
fn two_f32() -> f32 { let x: f32 = 2; x }
"""


def value_program(cases):
    lines = ["module lits;", "tier debug;", HELPERS, "export fn main() !io {"]
    for i, (setup, let, _, _) in enumerate(cases):
        lines.append("    {")
        if setup:
            lines.append("        " + setup)
        lines.append("        " + let)
        lines.append(f'        print("c{i}", reshape(v, shape: [1]));')  # `;`: a statement, not the tail
        lines.append("    }")
    lines.append('    print("done");')  # the blocks are statements, not the body's value
    lines.append("}")
    return "\n".join(lines) + "\n"


def printed(out):
    got = {}
    for line in out.splitlines():
        parts = line.split(" ", 1)
        if len(parts) == 2 and parts[0].startswith("c"):
            got[parts[0]] = parts[1]
    return got


def check_values():
    src = value_program(CASES)
    for backend in BACKENDS:
        rc, out, err = run(["run", "--backend", backend], src, "values.rung")
        if rc != 0:
            fail(f"values program on {backend}: exit {rc}\n{err}")
            return
        got = printed(out)
        for i, (setup, let, dt, val) in enumerate(CASES):
            want = f"{dt}[1] [{val}]"
            if got.get(f"c{i}") != want:
                fail(f"{backend}: `{setup} {let}` printed {got.get(f'c{i}')!r}, want {want!r}")


# ---- 2. folded == run time == the rule, over a grid ----
INT_BITS = {"i64": 64, "i32": 32, "i8": 8, "u8": 8, "u64": 64}


def wrap(v, dt):
    bits = INT_BITS[dt]
    v &= (1 << bits) - 1
    if not dt.startswith("u") and v >= 1 << (bits - 1):
        v -= 1 << bits
    return v


def int_model(op, a, b, dt):
    if op == "+": return wrap(a + b, dt)
    if op == "-": return wrap(a - b, dt)
    if op == "*": return wrap(a * b, dt)
    if b == 0: return 0 if op == "/" else a
    q = abs(a) // abs(b) * (1 if (a < 0) == (b < 0) else -1)  # truncation toward zero
    return wrap(q, dt) if op == "/" else wrap(a - q * b, dt)


def f32(x):
    """x rounded to f32 (ties to even); a double result of one f32 + - * / rounds to what
    the f32 operation gives (the double holds it exactly enough), fmod is exact."""
    if math.isnan(x) or math.isinf(x):
        return x
    try:
        return struct.unpack("<f", struct.pack("<f", x))[0]
    except OverflowError:
        # struct refuses what rounds to inf; values just above FLT_MAX may still round down
        big = struct.unpack("<f", b"\xff\xff\x7f\x7f")[0]
        return math.copysign(big if abs(x) < big * (1 + 2 ** -25) else math.inf, x)


def ieee(op, x, y):
    if op == "/":
        if y == 0:
            if x == 0 or math.isnan(x):
                return math.nan
            return math.copysign(math.inf, x) * math.copysign(1, y)
        return x / y
    if op == "%":
        if y == 0 or math.isinf(x) or math.isnan(x) or math.isnan(y):
            return math.nan
        return math.fmod(x, y)
    return {"+": x + y, "-": x - y, "*": x * y}[op]


def float_model(op, a, b, dt):
    if dt == "f64":
        try:
            return ieee(op, a, b)
        except OverflowError:
            return math.copysign(math.inf, a * b)
    return f32(ieee(op, f32(a), f32(b)))


def same_float(text, want, dt):
    got = float(text)
    if dt == "f32":
        got = f32(got)  # the shortest text that reads back as the f32
    if math.isnan(want): return math.isnan(got)
    return got == want and math.copysign(1, got) == math.copysign(1, want)


def grid():
    cases = []
    ints = {"i64": [7, -7, 3, 0, -1, 9223372036854775807, -9223372036854775808],
            "i32": [7, -7, 2, 0, -1, 2147483647, -2147483648],
            "i8": [100, -100, 3, 0, -1, 127, -128],
            "u8": [200, 7, 3, 0, 255],
            "u64": [18446744073709551615, 7, 0, 2]}
    floats = {"f32": ["7.5", "-2.0", "0.1", "0.0", "-0.0", "3", "16777217"],
              "f64": ["7.5", "-2.0", "0.1", "0.0", "1e308", "3", "9007199254740993"]}
    for dt, vals in ints.items():
        for a in vals:
            for b in vals:
                for op in "+-*/%":
                    cases.append((dt, str(a), str(b), op, int_model(op, a, b, dt)))
    for dt, vals in floats.items():
        for a in vals:
            for b in vals:
                for op in "+-*/%":
                    cases.append((dt, a, b, op, float_model(op, float(a), float(b), dt)))
    return cases


def check_grid():
    cases = grid()
    lines = ["module grid;", "tier debug;", "export fn main() !io {"]
    for i, (dt, a, b, op, _) in enumerate(cases):
        lines.append(f"    {{ let f: {dt} = {a} {op} ({b}); let x: {dt} = {a}; let y: {dt} = {b}; "
                     f'print("f{i}", f, "r{i}", x {op} y); }}')
    lines.append('    print("done");')
    lines.append("}")
    src = "\n".join(lines) + "\n"
    for backend in BACKENDS:
        rc, out, err = run(["run", "--backend", backend], src, "grid.rung")
        if rc != 0:
            fail(f"grid program on {backend}: exit {rc}\n{err[:2000]}")
            return
        seen = 0
        for line in out.splitlines():
            parts = line.split()
            if len(parts) != 4 or not parts[0].startswith("f"):
                continue
            i = int(parts[0][1:])
            dt, a, b, op, want = cases[i]
            folded, runtime = parts[1], parts[3]
            seen += 1
            if folded != runtime:
                fail(f"{backend}: {dt} `{a} {op} ({b})` folds to {folded} but runs to {runtime}")
            ok = same_float(folded, want, dt) if dt.startswith("f") else int(folded) == want
            if not ok:
                fail(f"{backend}: {dt} `{a} {op} ({b})` is {folded}, the rule says {want}")
        if seen != len(cases):
            fail(f"{backend}: grid printed {seen} of {len(cases)} cases")


# ---- 3. diagnostics: (statement, code, text the message must contain) ----
DIAGS = [
    ("let v = 9223372036854775808;", "E2121", "does not fit in i64"),
    ("let v = -9223372036854775809;", "E2121", "does not fit in i64"),
    ("let v: i64 = 18446744073709551615;", "E2121", "does not fit in i64"),
    ("let v: u64 = 18446744073709551616;", "E1007", "too large"),
    ("let v: u64 = -1;", "E2121", "does not fit in u64"),
    ("let v: u8 = 256;", "E2121", "does not fit in u8"),
    ("let v: i8 = -129;", "E2121", "does not fit in i8"),
    ("let v: i32 = 2147483648;", "E2121", "does not fit in i32"),
    ("let v: i32 = 2.5;", "E2122", "float literal cannot take the integer type i32"),
    ("let a = 3; let v = a * 2.5;", "E2122", "i64"),
    ("let v = 7 / 2 + 9223372036854775808;", "E2121", "does not fit in i64"),
    ("let v = iota(shape: [9223372036854775808], dtype: f32);", "E2121", "9223372036854775808"),
    ("let v: f32[1] = iota(shape: [9223372036854775807, 4], dtype: f32);", "E2101", "f32[9223372036854775807, 4]"),
    ("let v = sum(ones([2]), axes: [9223372036854775808]);", "E2121", "attribute `axes`"),
    ("let v = random_bits(shape: [2], seed: 18446744073709551616);", "E1007", "too large"),
    ("let v = random_bits(shape: [2], seed: -9223372036854775809);", "E2121", "64 bits"),
    ("let v = random_bits(shape: [2], offset: 9223372036854775808, seed: 1);", "E2121", "attribute `offset`"),
    ("let v = zeros([2], dtype: q8_0);", "E2122", "q8_0"),
    ("let v = full([2], [1, 2]);", "E2104", "scalar"),
    ("let v = zeros([2], size: 3);", "E2007", "no attribute `size`"),
    ("let v = ones(2, 3);", "E2006", "takes a shape"),
    ("let b: bool = true; let v = where(1, b, b);", "E2122", "bool"),
    ("let v = " + " + ".join(["1"] * 300) + ";", "E2090", "more than 256 operations"),
]


def check_diags():
    for i, (stmt, code, text) in enumerate(DIAGS):
        src = f"module d;\ntier debug;\nexport fn main() !{{io, rand}} {{\n    {stmt}\n}}\n"
        rc, out, err = run(["check"], src, f"diag{i}.rung")
        msg = out + err
        if rc == 0 or code not in msg or text not in msg:
            fail(f"`{stmt}`: want {code} with {text!r}, got exit {rc}:\n{msg}")
        elif "-->" not in msg and "^" not in msg:
            fail(f"`{stmt}`: {code} has no location:\n{msg}")


# ---- 4. a seed is exact: seeds 2^53 and 2^53 + 1 draw different streams ----
def check_seed():
    src = ("module s;\ntier debug;\nexport fn main() !{io, rand} {\n"
           "    let a = random_bits(shape: [4], seed: 9007199254740993);\n"
           "    let b = random_bits(shape: [4], seed: 9007199254740992);\n"
           "    let c = random_bits(shape: [4], seed: 9007199254740993);\n"
           "    let d = random_bits(shape: [4], seed: 18446744073709551615);\n"
           "    let e = random_bits(shape: [4], seed: -1);\n"
           "    let f = random_bits(shape: [4], seed: 9223372036854775807);\n"
           '    print("a", a); print("b", b); print("c", c); print("d", d); print("e", e); print("f", f);\n}\n')
    rc, out, err = run(["run"], src, "seed.rung")
    lines = dict(l.split(" ", 1) for l in out.splitlines() if " " in l)
    if rc != 0 or "a" not in lines:
        fail(f"seed program: exit {rc}\n{err}")
    elif lines["a"] == lines["b"] or lines["a"] != lines["c"]:
        fail(f"seed 2^53+1 must differ from 2^53 and repeat itself: {lines}")
    elif lines["d"] != lines["e"] or lines["d"] == lines["f"]:
        fail(f"seed 2^64-1 must be the key -1 and differ from 2^63-1: {lines}")


# ---- 5. `%` survives the formatter ----
def check_fmt():
    src = "module f;\ntier debug;\nfn g(a: i64) -> i64 { a%3*2 }\n"
    rc, out, err = run(["fmt"], src, "fmt.rung")
    if rc != 0 or "a % 3 * 2" not in out:
        fail(f"fmt of `a%3*2`: exit {rc}\n{out}{err}")


check_values()
check_grid()
check_diags()
check_seed()
check_fmt()
if failures:
    print(f"{len(failures)} failures")
    sys.exit(1)
print("literal battery: all cases hold")
