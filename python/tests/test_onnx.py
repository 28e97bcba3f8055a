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
