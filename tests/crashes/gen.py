#!/usr/bin/env python3
"""Writes one pathological input for the crash tests: gen.py KIND N OUT.

Each kind is a chain or a size the nesting limits must bound (or a loop must walk): the
inputs are generated at test time so the repository keeps no megabyte files.
"""
import sys

HEAD = "module m;\ntier debug;\ntolerance exact;\n\n"


def fn(body, params="a: f32[4]", ret="f32[4]"):
    return HEAD + f"export fn f({params}) -> {ret} {{\n    {body}\n}}\n"


def kinds(n):
    return {
        # left-nested binary chains: the lowering folds them in a loop
        "sum": lambda: fn(" + ".join(["a"] * n)),
        "and": lambda: fn(" && ".join(["a > 0.0"] * n), ret="bool[4]"),
        "matmul": lambda: fn(" @ ".join(["a"] * n), params="a: f32[4, 4]", ret="f32[4, 4]"),
        # postfix chains: bounded by the nesting limit (E2404)
        "field": lambda: fn("let t = (a,);\n    t" + ".0" * n),
        "index": lambda: fn("a" + "[0]" * n, ret="f32"),
        # an `else if` chain of n arms (BlockIR nests one level per arm)
        "elseif": lambda: HEAD + "export fn f(x: i64) -> i64 {\n    if x == 0 { 0 }\n"
        + "".join(f"    else if x == {i} {{ {i} }}\n" for i in range(1, n))
        + "    else { -1 }\n}\n",
        # n functions, each calling the next (inlining and on-demand lowering recurse)
        "calls": lambda: HEAD + "fn g0(a: f32[4]) -> f32[4] { a }\n"
        + "".join(f"fn g{i}(a: f32[4]) -> f32[4] {{ g{i - 1}(a) }}\n" for i in range(1, n))
        + f"export fn f(a: f32[4]) -> f32[4] {{ g{n - 1}(a) }}\n",
        # n BlockIR functions (an `if` makes each one), each calling the next
        "block_calls": lambda: HEAD + "fn g0(a: f32[4]) -> f32[4] { a }\n"
        + "".join(f"fn g{i}(a: f32[4]) -> f32[4] {{\n    let r = g{i - 1}(a);\n    if true {{ return r; }}\n    r\n}}\n"
                  for i in range(1, n))
        + f"export fn f(a: f32[4]) -> f32[4] {{\n    let r = g{n - 1}(a);\n    if true {{ return r; }}\n    r\n}}\n",
        # n nested calls in one expression
        "nested_calls": lambda: fn("exp(" * n + "a" + ")" * n),
        # an unknown name beside a declared one, both n characters long ("did you mean")
        "long_names": lambda: fn(f"let {'b' * n} = a;\n    {'c' * (n - 1) + 'd'}"),
        # n lines of garbage: one diagnostic per line, each on a long line
        "garbage": lambda: HEAD + ("fn ) ( } { ] [ " + "@ " * 200 + "\n") * n,
        # one line of n statements that are each wrong: every diagnostic is on that line
        "garbage_line": lambda: fn("let q = b; " * n, ret="f32[4]"),
        # a workflow whose attribute value nests n deep
        "deep_attrs": lambda: '{"format": "rung-workflow", "version": 1, "name": "w", "tier": "debug", '
        '"inputs": [{"name": "x", "type": "f32[4]"}], '
        '"nodes": [{"id": "s", "op": "sum", "attrs": {"axes": ' + "[" * n + "]" * n + "}}], "
        '"edges": [{"from": "x", "to": "s.x"}], "outputs": [{"name": "y", "from": "s"}]}',
    }


def npy(descr, shape, payload):
    """A .npy file (format 1.0) without numpy: the header dict, padded, then the bytes."""
    header = "{'descr': '%s', 'fortran_order': False, 'shape': %s, }" % (descr, shape)
    header += " " * (63 - (10 + len(header)) % 64) + "\n"
    return b"\x93NUMPY\x01\x00" + len(header).to_bytes(2, "little") + header.encode("latin-1") + payload


NPY = {
    "npy_f32_4": lambda: npy("<f4", "(4,)", b"\x00\x00\x80\x3f" * 4),
    "npy_f32_4x4": lambda: npy("<f4", "(4, 4)", b"\x00\x00\x80\x3f" * 16),
    "npy_i64": lambda: npy("<i8", "()", (3).to_bytes(8, "little")),
    # a descr that is not UTF-8: the diagnostic quotes it
    "npy_bad_descr": lambda: npy("<f4", "(4,)", b"").replace(b"<f4", b"\xff\xfe"),
}


def main():
    kind, n, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    if kind in NPY:
        with open(out, "wb") as f:
            f.write(NPY[kind]())
        return
    with open(out, "w") as f:
        f.write(kinds(n)[kind]())


if __name__ == "__main__":
    main()
