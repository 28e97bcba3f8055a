"""Shapes and element types at the boundary: 0-d, empty dims, bool, f16, bf16, integers."""

import numpy as np
import pytest

import rung
from helpers import data_ptr, module


def test_a_0_d_input_and_output():
    p = module("export fn f(x: f32) -> f32 { x * 2.0 }")
    for x in (np.float32(1.25), np.array(1.25, np.float32)):
        out = p.run(x=x)["result"]
        assert out.shape == () and out.dtype == np.float32 and out == np.float32(2.5)
    with p.session() as s:
        t = s.run(x=np.float32(1.0)).outputs["result"]
    assert t.shape == () and t.ndim == 0 and t.size == 1
    with pytest.raises(TypeError):
        len(t)


def test_empty_dims():
    p = module("export fn f(x: f32[N, 4]) -> (f32[N, 4], f32[4]) { (x + 1.0, sum(x, axes: [0])) }")
    out = p.run(x=np.zeros((0, 4), np.float32))
    assert out["result.0"].shape == (0, 4) and out["result.0"].size == 0
    assert out["result.1"].tolist() == [0.0] * 4  # the sum of nothing
    t = rung.Tensor(np.zeros((3, 0), np.int64))
    assert t.shape == (3, 0) and t.nbytes == 0 and np.asarray(t).shape == (3, 0)


def test_bool_in_and_out_through_the_buffer_protocol():
    p = module("export fn f(a: bool[N], x: f32[N]) -> (bool[N], f32[N]) { (logical_not(a), where(a, x, -x)) }")
    a = np.array([True, False, True])
    x = np.array([1.0, 2.0, 3.0], np.float32)
    with p.session() as s:
        r = s.run(a=a, x=x)
    assert r.stats.inputs_borrowed == 2
    nota = np.asarray(r.outputs["result.0"])
    assert nota.dtype == np.bool_ and nota.tolist() == [False, True, False]
    assert np.asarray(r.outputs["result.1"]).tolist() == [1.0, -2.0, 3.0]


def test_f16_is_exchanged_as_numpys_float16():
    p = module("export fn f(x: f16[N]) -> f16[N] { x * x }")
    x = np.array([0.5, 1.5, -2.0, 65504.0, 6e-8], np.float16)
    with p.session() as s:
        r = s.run(x=x)
    assert r.stats.inputs_borrowed == 1
    y = np.asarray(r.outputs["result"])
    assert y.dtype == np.float16
    with np.errstate(over="ignore"):
        assert y.tobytes() == (x * x).tobytes()  # one correctly rounded multiply, as numpy's


def test_bf16_goes_by_its_bits():
    p = module("export fn f(x: bf16[N]) -> bf16[N] { x + x }")
    bits = np.array([0x3F80, 0xC040, 0x0000, 0x7F80], np.uint16)  # 1.0, -3.0, 0.0, inf
    x = rung.Tensor(bits, dtype="bf16")
    assert x.dtype == "bf16" and x.bits().tolist() == bits.tolist()
    out = p.run(x=x)["result"]
    assert isinstance(out, rung.Tensor)  # numpy has no bf16: the shortcut keeps the tensor
    assert out.bits().tolist() == [0x4000, 0xC0C0, 0x0000, 0x7F80]  # 2.0, -6.0, 0.0, inf
    with pytest.raises(BufferError, match="bf16"):
        np.asarray(out)
    assert out.bits().__array_interface__["data"][0] == out.data_ptr  # the bits are a view, not a copy


@pytest.mark.parametrize("dtype, rung_name", [
    (np.int8, "i8"), (np.int16, "i16"), (np.int32, "i32"), (np.int64, "i64"),
    (np.uint8, "u8"), (np.uint16, "u16"), (np.uint32, "u32"), (np.uint64, "u64"), (np.float64, "f64"),
])
def test_integer_and_f64_inputs_borrowed_and_outputs_exact(dtype, rung_name):
    p = module(f"export fn f(x: {rung_name}[N]) -> {rung_name}[N] {{ x }}")
    x = np.array([0, 1, 2, np.iinfo(dtype).max if np.issubdtype(dtype, np.integer) else 1e300], dtype)
    with p.session() as s:
        r = s.run(x=x)
    t = r.outputs["result"]
    assert t.dtype == rung_name and r.stats.inputs_borrowed == 1 and t.data_ptr == data_ptr(x)
    a = np.asarray(t)
    assert a.dtype == dtype and a.tobytes() == x.tobytes()


def test_tensor_values_and_repr():
    t = rung.Tensor(np.array([[1, 2], [3, 4]], np.int32))
    assert (t.type, t.dtype, t.shape, t.ndim, t.size, t.nbytes) == ("i32[2, 2]", "i32", (2, 2), 2, 4, 16)
    assert "i32[2, 2]" in repr(t) and "array(" in repr(t)
    assert t.same_bits(rung.Tensor(np.array([[1, 2], [3, 4]], np.int32)))
    assert not t.same_bits(rung.Tensor(np.array([[1, 2], [3, 5]], np.int32)))
    assert t.numpy_repr() == repr(np.array([[1, 2], [3, 4]], np.int32))


def test_npy_files_round_trip(tmp_path):
    t = rung.Tensor(np.linspace(0, 1, 7, dtype=np.float32))
    t.save_npy(str(tmp_path / "t.npy"))
    assert np.load(tmp_path / "t.npy").tobytes() == np.asarray(t).tobytes()
    assert rung.Tensor.load_npy(str(tmp_path / "t.npy")).hash == t.hash
