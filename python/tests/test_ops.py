"""rung.ops: generated from the registry at import; on concrete arrays it runs the reference
kernels, compared with numpy (bit for bit for IEEE-exact ops, within the class otherwise)."""

import inspect
import json
import os
import subprocess

import numpy as np
import pytest

import rung
from rung import ops
from helpers import assert_within_class


def cli_ops():
    out = subprocess.run([os.environ["RUNG_CLI"], "ops", "--json"], capture_output=True, text=True, check=True)
    return json.loads(out.stdout)["ops"]


def test_the_catalog_is_the_registrys_as_rung_ops_lists_it():
    want = cli_ops()
    got = ops.catalog()
    assert [o.name for o in got] == [o["name"] for o in want]
    for o, w in zip(got, want):
        assert (o.signature, o.summary, o.family, o.tolerance) == (w["signature"], w["summary"], w["family"], w["tolerance"])
        assert [a.name for a in o.attrs] == [a["name"] for a in w["attributes"]]
        assert [a.kind for a in o.attrs] == [a["kind"] for a in w["attributes"]]
        assert [o.name for o in o.operands] == [x["name"] for x in w["operands"]]


def test_every_op_is_a_function_with_its_signature_and_doc():
    for info in ops.catalog():
        fn = getattr(ops, info.name)
        assert fn.__name__ == info.name and info.signature in fn.__doc__ and info.summary in fn.__doc__
    sig = inspect.signature(ops.softmax)
    assert list(sig.parameters)[0] == "x"
    axis = sig.parameters["axis"]
    assert axis.kind is inspect.Parameter.KEYWORD_ONLY and axis.default == -1
    assert sig.parameters["x"].kind is inspect.Parameter.POSITIONAL_OR_KEYWORD
    concat = inspect.signature(ops.concat)
    assert any(p.kind is inspect.Parameter.VAR_POSITIONAL for p in concat.parameters.values())


def test_ieee_exact_ops_on_arrays_match_numpy_bit_for_bit(rng):
    a = (rng.standard_normal((4, 5)) * 10).astype(np.float32)
    b = rng.standard_normal((4, 5)).astype(np.float32)
    with np.errstate(all="ignore"):
        cases = [
            (ops.add(a, b), a + b), (ops.sub(a, b), a - b), (ops.mul(a, b), a * b), (ops.div(a, b), a / b),
            (ops.sqrt(np.abs(a)), np.sqrt(np.abs(a))), (ops.neg(a), -a), (ops.abs(a), np.abs(a)),
            (ops.maximum(a, b), np.maximum(a, b)), (ops.minimum(a, b), np.minimum(a, b)),
            (ops.square(a), a * a), (ops.lt(a, b), a < b), (ops.eq(a, a), a == a),
            (ops.where(a > 0, a, b), np.where(a > 0, a, b)), (ops.transpose(a, perm=[1, 0]), a.T),
            (ops.reshape(a, shape=[5, 4]), a.reshape(5, 4)), (ops.concat(a, b, axis=0), np.concatenate([a, b])),
            (ops.cast(a, to="f16"), a.astype(np.float16)), (ops.cast(a, to=np.float64), a.astype(np.float64)),
            (ops.add(a, b[0]), a + b[0]),  # broadcasting
        ]
    for i, (got, want) in enumerate(cases):
        assert isinstance(got, np.ndarray), i
        assert got.dtype == want.dtype and got.shape == want.shape, i
        assert got.tobytes() == np.ascontiguousarray(want).tobytes(), i


def test_a_variadic_operand_takes_a_list_too():
    a, b = np.ones((1, 2), np.float32), np.zeros((1, 2), np.float32)
    assert ops.concat([a, b], axis=1).tolist() == ops.concat(a, b, axis=1).tolist() == [[1, 1, 0, 0]]


@pytest.mark.parametrize("name, numpy_fn", [
    ("exp", np.exp), ("log", np.log), ("tanh", np.tanh), ("sin", np.sin), ("sigmoid", lambda x: 1 / (1 + np.exp(-x))),
])
def test_transcendental_ops_are_within_their_class_of_numpy(rng, name, numpy_fn):
    x = rng.uniform(0.1, 5, 1000).astype(np.float32)
    cls = ops.info(name).tolerance["prod"]
    assert_within_class(getattr(ops, name)(x), numpy_fn(x.astype(np.float64)), cls if cls != "exact" else "tight")


def test_reductions_and_softmax_are_within_their_class_of_numpy(rng):
    x = rng.standard_normal((8, 33)).astype(np.float32)
    x64 = x.astype(np.float64)
    e = np.exp(x64 - x64.max(axis=1, keepdims=True))
    assert_within_class(ops.softmax(x, axis=1), e / e.sum(axis=1, keepdims=True), ops.info("softmax").tolerance["prod"])
    assert_within_class(ops.sum(x, axes=[1]), x64.sum(axis=1), "default")
    assert_within_class(ops.mean(x, axes=[0]), x64.mean(axis=0), "default")
    w = rng.standard_normal((33, 5)).astype(np.float32)
    assert_within_class(ops.matmul(x, w), x64 @ w.astype(np.float64), "default")


def test_python_numbers_take_their_slots_dtype(rng):
    a = np.arange(4, dtype=np.float32)
    assert ops.mul(a, 2).dtype == np.float32 and ops.mul(a, 2).tolist() == [0, 2, 4, 6]
    assert ops.add(0.5, a).tolist() == [0.5, 1.5, 2.5, 3.5]
    i = np.arange(3, dtype=np.int32)
    assert ops.add(i, 1).dtype == np.int32
    with pytest.raises(rung.Error) as e:
        ops.add(i, 1.5)  # a float literal for an int operand: never converted
    assert e.value.code == "N0011"
    with pytest.raises(rung.Error) as e:
        ops.add(i, 2**40)
    assert e.value.code == "N0011" and "does not fit" in e.value.message
    with pytest.raises(rung.Error) as e:
        ops.add(1.0, 2.0)  # no array: no dtype to take
    assert e.value.code == "N0011"


def test_attribute_kinds_are_strict():
    x = np.ones((2, 3), np.float32)
    with pytest.raises(rung.Error) as e:
        ops.softmax(x, axis=1.0)
    assert e.value.code == "N0011" and "axis" in str(e.value) and "kinds are strict" in str(e.value)
    with pytest.raises(rung.Error) as e:
        ops.softmax(x, axes=1)
    assert e.value.code == "N0011" and "did you mean `axis`" in str(e.value)
    with pytest.raises(rung.Error) as e:
        ops.reshape(x)  # `shape` is required
    assert e.value.code == "N0011"
    assert ops.softmax(x, axis=np.int64(1)).shape == (2, 3)  # numpy integers are integers


def test_an_unknown_op_or_bad_operands_are_coded_with_the_callers_line():
    x = np.ones((2, 3), np.float32)
    line = inspect.currentframe().f_lineno + 2
    with pytest.raises(rung.Error) as e:
        ops.matmul(x, x)
    assert e.value.code == "N0011"
    assert e.value.location.file == __file__ and e.value.location.line == line
    with pytest.raises(rung.Error) as e:
        rung._rung._evaluate("softmaxx", [x], {})
    assert e.value.code == "N0010" and "softmax" in str(e.value)
