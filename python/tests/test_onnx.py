"""rung.load of an ONNX model (docs/onnx.md): by path and as bytes, run against the NumPy
values tests/onnx/make_cases.py stored; a hostile model is a rung.Error with its code."""

import numpy as np
import pytest

import rung
from helpers import SOURCE_DIR

CASES = SOURCE_DIR / "tests" / "onnx" / "cases"


def test_load_an_onnx_model_by_path_and_run_it():
    case = CASES / "gemm"
    p = rung.load(str(case / "model.onnx"), tier="debug")
    (entry,) = p.entries
    assert entry.name == "main"
    assert [q.name for q in entry.params] == ["A", "B"]
    a, b = np.load(case / "in_0.npy"), np.load(case / "in_1.npy")
    (y,) = p.run(A=a, B=b).values()
    np.testing.assert_allclose(y, np.load(case / "out_0.npy"), rtol=1e-5, atol=1e-6)


def test_the_same_model_as_bytes_has_the_same_fingerprint():
    path = CASES / "layernormalization" / "model.onnx"
    by_path = rung.load(path, tier="debug")
    # The module is named after the file: the same name in memory gives the same program.
    by_bytes = rung.load(path.read_bytes(), kind="onnx", name="model.onnx", tier="debug")
    assert by_path.fingerprint == by_bytes.fingerprint


def test_a_hostile_model_is_an_error_with_its_code():
    with pytest.raises(rung.Error) as e:
        rung.load(SOURCE_DIR / "tests" / "onnx" / "hostile" / "I0008_dotdot_etc_passwd.onnx", tier="debug")
    assert "I0008" in str(e.value)


def test_bind_makes_a_graph_input_a_constant_and_i0012_names_it():
    model = CASES / "slice_bound" / "model.onnx"
    with pytest.raises(rung.Error) as e:
        rung.load(model, tier="debug")
    assert e.value.code == "I0012"
    assert any(n.startswith('bind the graph input "st0" at import: --bind st0=FILE.npy') for n in e.value.notes), e.value.notes
    bind = {"st0": np.load(CASES / "slice_bound" / "bind_st0.npy"), "en": np.load(CASES / "slice_bound" / "bind_en.npy")}
    p = rung.load(model, tier="debug", bind=bind)
    assert [q.name for q in p.entry().params] == ["x"]
    (y,) = p.run(x=np.load(CASES / "slice_bound" / "in_0.npy")).values()
    np.testing.assert_array_equal(y, np.load(CASES / "slice_bound" / "out_0.npy"))
    with pytest.raises(rung.Error) as e:
        rung.load(model, tier="debug", bind={**bind, "nobody": np.zeros(2, np.int64)})
    assert e.value.code == "I0013"


def test_dims_bind_a_symbol_at_import():
    p = rung.load(CASES / "symbolic_batch" / "model.onnx", tier="debug", dims={"batch": 5})
    assert p.entry().params[0].type == "f32[5, 3]"
    with pytest.raises(TypeError):
        rung.load(CASES / "symbolic_batch" / "model.onnx", tier="debug", dims={"batch": "5"})
