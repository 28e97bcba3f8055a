"""Inputs are borrowed, not copied, when they can be; outputs are numpy arrays over rung's
memory, kept alive by the arrays. Proven through data pointers and the run's statistics."""

import ctypes
import gc
import warnings

import numpy as np
import pytest

import rung
from helpers import IDENTITY, data_ptr, module


@pytest.fixture(scope="module")
def identity():
    return module(IDENTITY)


def run_quietly(session, **inputs):
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a borrowed input warns nothing
        return session.run(**inputs)


def test_a_c_contiguous_input_is_borrowed_and_is_the_outputs_memory(identity):
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    with identity.session() as s:
        r = run_quietly(s, x=x)
    assert (r.stats.inputs_borrowed, r.stats.inputs_copied, r.stats.bytes_copied) == (1, 0, 0)
    y = r.outputs["result"]
    # The identity's output is the input itself: rung used the caller's bytes in place.
    assert y.data_ptr == data_ptr(x)
    assert np.asarray(y).tolist() == x.tolist()


def test_a_borrowed_tensor_is_the_arrays_memory():
    x = np.arange(6, dtype=np.int32)
    t = rung.Tensor(x, copy=False)
    assert t.borrowed and t.data_ptr == data_ptr(x)
    owned = rung.Tensor(x)
    assert not owned.borrowed and owned.data_ptr != data_ptr(x)
    x[0] = 99  # the owned copy is a value: later writes do not show
    assert np.asarray(owned)[0] == 0 and np.asarray(t)[0] == 99


def test_a_read_only_array_is_borrowed_too(identity):
    x = np.ones((2, 4), np.float32)
    x.flags.writeable = False
    with identity.session() as s:
        r = run_quietly(s, x=x)
    assert r.stats.inputs_borrowed == 1 and r.outputs["result"].data_ptr == data_ptr(x)


def test_outputs_are_numpy_arrays_over_rung_memory_without_a_copy(identity):
    p = module("export fn f(x: f32[N, 4]) -> f32[N, 4] { x * 2.0 }")
    x = np.ones((3, 4), np.float32)
    with p.session() as s:
        r = s.run(x=x)
    t = r.outputs["result"]
    a = np.asarray(t)
    assert data_ptr(a) == t.data_ptr != data_ptr(x)
    assert not a.flags.writeable
    with pytest.raises(ValueError):
        a[0, 0] = 1.0
    assert memoryview(t).readonly
    with pytest.raises(TypeError, match="not writable"):
        (ctypes.c_char * t.nbytes).from_buffer(t)  # wants writable memory
    assert np.from_dlpack(t).__array_interface__["data"][0] == t.data_ptr


def test_an_output_array_keeps_rung_memory_alive(identity):
    p = module("export fn f(x: f32[N, 4]) -> f32[N, 4] { x + 1.0 }")
    out = p.run(x=np.zeros((1000, 4), np.float32))["result"]
    del p  # the program, its cached session and the run result go
    gc.collect()
    np.ones((1000, 4), np.float32) * 7  # reuse freed memory, if any was freed
    assert out.shape == (1000, 4) and bool((out == 1.0).all())
    assert isinstance(out.base, memoryview) and isinstance(out.base.obj, rung.Tensor)


def test_a_borrowed_input_stays_valid_while_a_rung_tensor_holds_it(identity):
    with identity.session() as s:
        y = s.run(x=np.full((2, 4), 3.0, np.float32)).outputs["result"]  # the array's only owner is rung now
    gc.collect()
    np.zeros((2, 4), np.float32) + 5
    assert np.asarray(y).tolist() == [[3.0] * 4] * 2


@pytest.mark.parametrize("make, why", [
    (lambda a: np.asfortranarray(a), "Fortran"),
    (lambda a: a[::-1], "negative strides"),
    (lambda a: np.ascontiguousarray(np.hstack([a, a]))[:, ::2], "not row-major"),
])
def test_non_contiguous_inputs_are_copied_once_and_counted(identity, make, why):
    a = np.arange(24, dtype=np.float32).reshape(6, 4)
    x = make(a)
    assert not x.flags.c_contiguous
    with identity.session() as s:
        with pytest.warns(rung.RungWarning, match="M0020") as caught:
            r = s.run(x=x)
    assert (r.stats.inputs_copied, r.stats.bytes_copied, r.stats.inputs_borrowed) == (1, x.nbytes, 0)
    assert [w.code for w in r.warnings] == ["M0020"] and why in r.warnings[0].message
    assert [w.message.code for w in caught] == ["M0020"]
    assert np.asarray(r.outputs["result"]).tolist() == x.tolist()


def test_copy_never_refuses_a_non_contiguous_input(identity):
    with identity.session() as s:
        with pytest.raises(rung.Error) as e:
            s.run(x=np.asfortranarray(np.ones((3, 4), np.float32)), copy="never")
        assert e.value.code == "M0006"
        r = run_quietly(s, x=np.ones((3, 4), np.float32))  # copy="never" with a contiguous one is fine
        assert r.stats.inputs_borrowed == 1


def test_a_big_endian_input_is_refused_never_converted(identity):
    x = np.ones((2, 4), dtype=">f4")
    with pytest.raises(rung.Error) as e:
        identity.run(x=x)
    assert e.value.code == "M0003" and "big-endian" in e.value.message
    # Converted by the caller, it runs.
    assert identity.run(x=x.astype("<f4"))["result"].dtype == np.float32


def test_a_wrong_dtype_is_refused_with_m0003_never_cast(identity):
    with pytest.raises(rung.Error) as e:
        identity.run(x=np.ones((2, 4), np.float64))
    assert e.value.code == "M0003"
    with pytest.raises(rung.Error) as e:
        identity.run(x=[[1.0] * 4])  # a list is no array
    assert e.value.code == "M0003"


def test_a_complex_array_has_no_rung_dtype(identity):
    with pytest.raises(rung.Error) as e:
        identity.run(x=np.ones((2, 4), np.complex64))
    assert e.value.code == "M0003"


def test_a_copy_policy_that_is_none_is_m0035(identity):
    with identity.session() as s:
        with pytest.raises(rung.Error) as e:
            s.run(x=np.ones((1, 4), np.float32), copy="maybe")
    assert e.value.code == "M0035"
