"""rung.graph: values typed as they are built, hash-consed; functions with fingerprints, .keg
files and programs; value_and_grad through the autodiff layer."""

import inspect

import numpy as np
import pytest

import rung
from rung import ops
from helpers import assert_within_class, module


def softmax64(x, axis):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def test_values_are_typed_as_they_are_built():
    x = rung.graph.input("x", "f32[B, 10]")
    assert (x.type, x.dtype, x.shape, x.dims, x.op, x.name) == ("f32[B, 10]", "f32", (None, 10), ("B", "10"), "param", "x")
    y = ops.softmax(x, axis=1)
    assert isinstance(y, rung.Value) and y.type == "f32[B, 10]" and y.op == "softmax"
    s = ops.sum(y, axes=[1])
    assert s.type == "f32[B]"
    assert ops.matmul(x, rung.graph.input("w", "f32[10, 3]")).type == "f32[B, 3]"


def test_a_shape_error_raises_on_the_line_that_built_it():
    x = rung.graph.input("x", "f32[B, 10]")
    w = rung.graph.input("w_bad", "f32[7, 3]")
    line = inspect.currentframe().f_lineno + 2
    with pytest.raises(rung.Error) as e:
        ops.matmul(x, w)
    err = e.value
    assert err.code == "N0011"
    assert (err.location.file, err.location.line) == (__file__, line)
    assert "f32[B, 10]" in str(err) and "f32[7, 3]" in str(err)


def test_kinds_are_strict_in_graphs_too():
    x = rung.graph.input("x", "f32[B, 10]")
    with pytest.raises(rung.Error) as e:
        ops.softmax(x, axis=1.0)
    assert e.value.code == "N0011"
    with pytest.raises(rung.Error) as e:
        rung.graph.input("x", "f32[B, 10")
    assert e.value.code == "M0030"


def test_an_expression_built_twice_is_the_same_node():
    g = rung.Graph()
    x = g.input("x", "f32[4]")
    assert g.input("x", "f32[4]") is x
    assert ops.exp(ops.neg(x)) is ops.exp(ops.neg(x))
    assert ops.softmax(x) is ops.softmax(x, axis=-1)  # the default filled in: one node


def test_the_fingerprint_is_the_content_not_the_building_order():
    def build(order):
        g = rung.Graph()
        x = g.input("x", "f32[N]")
        w = g.input("w", "f32[N]")
        if order:
            a, b = ops.exp(x), ops.mul(x, w)
        else:
            b, a = ops.mul(x, w), ops.exp(x)
        return g.function("f", [x, w], {"a": a, "b": b})
    assert build(True).fingerprint == build(False).fingerprint
    g = rung.Graph()
    x, w = g.input("x", "f32[N]"), g.input("w", "f32[N]")
    assert g.function("f", [x, w], {"a": ops.exp(x), "b": ops.add(x, w)}).fingerprint != build(True).fingerprint


def test_a_function_compiles_and_runs_like_the_ops_on_arrays(rng):
    x = rung.graph.input("x", "f32[B, 10]")
    probs = rung.graph.function("probs", [x], {"y": ops.softmax(x, axis=1)})
    assert probs.name == "probs"
    assert [(p.name, p.type) for p in probs.params] == [("x", "f32[B, 10]")]
    assert [(r.name, r.type) for r in probs.results] == [("y", "f32[B, 10]")]
    program = rung.compile(probs, tier="debug")
    assert program.tier == "debug" and [e.name for e in program.entries] == ["probs"]
    data = rng.standard_normal((6, 10)).astype(np.float32)
    y = program.run(x=data)["y"]
    assert y.tobytes() == ops.softmax(data, axis=1).tobytes()  # one definition: the graph and the reference
    assert_within_class(y, softmax64(data.astype(np.float64), 1), ops.info("softmax").tolerance["prod"])


def test_a_function_needs_a_tier_to_compile():
    x = rung.graph.input("x", "f32[3]")
    fn = rung.graph.function("neg3", [x], ops.neg(x))
    with pytest.raises(rung.Error) as e:
        rung.compile(fn)
    assert e.value.code == "C0010"
    with pytest.raises(rung.Error) as e:
        fn.compile(tier="prod")  # prod names its class: never a silent one
    assert e.value.code == "C0022"
    assert fn.compile(tier="prod", tolerance="tight").tolerance == "tight"


def test_save_and_load_a_keg_file_keeps_names_and_fingerprint(tmp_path):
    g = rung.Graph()
    x = g.input("x", "f32[N, 3]")
    fn = g.function("twice", [x], {"doubled": x + x, "negated": -x})
    path = tmp_path / "twice.keg"
    fn.save(path)
    assert path.read_bytes() == fn.serialize()
    with pytest.raises(rung.Error) as e:
        rung.load(path)  # a function declares no tier
    assert e.value.code == "C0010"
    p = rung.load(path, tier="debug")
    assert p.graph_fingerprint == fn.fingerprint
    out = p.run(x=np.array([[1, 2, 3]], np.float32))
    assert out["doubled"].tolist() == [[2, 4, 6]] and out["negated"].tolist() == [[-1, -2, -3]]
    assert rung.compile(fn, tier="debug").fingerprint == p.fingerprint


def test_operators_and_constants():
    g = rung.Graph()
    x = g.input("x", "f32[2, 3]")
    bias = np.array([1, 2, 3], np.float32)
    y = (x * 2 + bias) / 4.0 - x @ np.ones((3, 3), np.float32)
    fn = g.function("f", [x], y)
    xs = np.array([[4, 5, 6], [-1, 0, 7]], np.float32)
    out = fn.compile(tier="debug").run(x=xs)["result"]
    assert out.tolist() == ((xs * 2 + bias) / np.float32(4.0) - xs @ np.ones((3, 3), np.float32)).tolist()


def test_a_graph_with_outputs_and_default_parameters():
    g = rung.Graph()
    x = g.input("x", "f32[N, 4]")
    g.output(ops.softmax(x, axis=1))
    fn = g.function("probs")
    assert [p.name for p in fn.params] == ["x"] and [r.name for r in fn.results] == ["result"]


@pytest.mark.parametrize("case", ["not an input", "missing parameter", "two graphs", "same name"])
def test_functions_that_cannot_be_formed_are_coded(case):
    g = rung.Graph()
    x = g.input("x", "f32[4]")
    w = g.input("w", "f32[4]")
    other = rung.Graph().input("y", "f32[4]")
    with pytest.raises(rung.Error) as e:
        if case == "not an input":
            g.function("f", [ops.exp(x)], ops.exp(x))
        elif case == "missing parameter":
            g.function("f", [x], x * w)
        elif case == "two graphs":
            ops.add(x, other)
        else:
            g.function("f", [x, g.input("x", "f32[5]")], x)  # two parameters named x
    assert e.value.code == ("M0031" if case == "two graphs" else "M0032")
    assert e.value.location.file == __file__


def test_value_and_grad_of_a_function_is_exact_where_the_math_is():
    g = rung.Graph()
    x = g.input("x", "f32[N]")
    w = g.input("w", "f32[N]")
    loss = ops.sum(x * w, axes=[0])
    fn = g.function("dot", [x, w], {"loss": loss})
    grad = rung.value_and_grad(fn, wrt=["w", "x"])
    assert grad.name == "dot.grad"
    assert [r.name for r in grad.results] == ["loss", "grad.w", "grad.x"]
    xs = np.array([1.5, -2.0, 3.25], np.float32)
    ws = np.array([0.5, 4.0, -1.0], np.float32)
    out = rung.compile(grad, tier="debug").run(x=xs, w=ws)
    assert out["grad.w"].tobytes() == xs.tobytes() and out["grad.x"].tobytes() == ws.tobytes()
    assert out["loss"] == np.float32(0.75 - 8.0 - 3.25)


def test_value_and_grad_against_numpy_for_a_least_squares_loss(rng):
    g = rung.Graph()
    a = g.input("a", "f32[8, 3]")
    w = g.input("w", "f32[3]")
    b = g.input("b", "f32[8]")
    r = ops.matmul(a, ops.reshape(w, shape=[3, 1]))
    loss = ops.mean(ops.square(ops.reshape(r, shape=[8]) - b), axes=[0])
    grad = rung.value_and_grad(g.function("lsq", [a, w, b], {"loss": loss}), "w")
    A = rng.standard_normal((8, 3)).astype(np.float32)
    W = rng.standard_normal(3).astype(np.float32)
    B = rng.standard_normal(8).astype(np.float32)
    out = rung.compile(grad, tier="debug").run(a=A, w=W, b=B)
    A64, W64, B64 = (v.astype(np.float64) for v in (A, W, B))
    assert_within_class(out["grad.w"], 2.0 / 8 * A64.T @ (A64 @ W64 - B64), "default")
    assert_within_class(out["loss"].reshape(1), np.array([np.mean((A64 @ W64 - B64) ** 2)]), "default")


def test_value_and_grad_refusals():
    g = rung.Graph()
    x = g.input("x", "f32[3]")
    vector = g.function("v", [x], ops.exp(x))
    with pytest.raises(rung.Error) as e:
        rung.value_and_grad(vector, ["x"])
    assert e.value.code == "D0001"  # the first result must be a scalar loss
    scalar = g.function("s", [x], ops.sum(x, axes=[0]))
    with pytest.raises(rung.Error) as e:
        rung.value_and_grad(scalar, ["y"])
    assert e.value.code == "D0003" and "x" in str(e.value)


def test_value_and_grad_of_a_program_entry():
    p = module("export fn loss(w: f32[3], x: f32[3]) -> f32 { sum(w * x, axes: [0]) }")
    grad = rung.value_and_grad(p, "w")
    assert isinstance(grad, rung.Program) and grad.tier == "debug"
    assert [e.name for e in grad.entries] == ["loss.grad"]
    x = np.array([1, 2, 3], np.float32)
    out = grad.run(w=np.zeros(3, np.float32), x=x)
    assert out["grad.w"].tobytes() == x.tobytes() and out["result"] == 0.0
    loop = module("export fn f(x: f32) -> f32 {\n    let mut y = copy(x);\n    for i in 0..3 { y = y * x; }\n    y\n}")
    with pytest.raises(rung.Error) as e:
        rung.value_and_grad(loop, "x")
    assert e.value.code == "M0034"
