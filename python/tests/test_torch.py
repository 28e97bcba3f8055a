"""Debian's CPU PyTorch 1.13 as a correctness peer (never a speed reference) for the ops it
has, and DLPack both ways. `-m torch` selects these; `-m "not torch"` leaves them out."""

import numpy as np
import pytest

import rung
from rung import ops
from helpers import IDENTITY, assert_within_class, module

pytestmark = pytest.mark.torch


@pytest.fixture(scope="module")
def T():
    import torch as t
    return t


def test_softmax_layer_norm_gelu_against_torch(T, rng):
    x = rng.standard_normal((4, 16)).astype(np.float32)
    x64 = T.from_numpy(x.astype(np.float64))
    assert_within_class(ops.softmax(x, axis=1), T.softmax(x64, dim=1).numpy(), ops.info("softmax").tolerance["prod"])
    assert_within_class(ops.gelu(x), T.nn.functional.gelu(x64).numpy(), ops.info("gelu").tolerance["prod"])
    gamma = rng.standard_normal(16).astype(np.float32)
    beta = rng.standard_normal(16).astype(np.float32)
    ln = ops.layer_norm(x, gamma, beta)
    want = T.nn.functional.layer_norm(x64, (16,), T.from_numpy(gamma.astype(np.float64)),
                                      T.from_numpy(beta.astype(np.float64)), eps=next(a.default for a in ops.info("layer_norm").attrs if a.name == "eps"))
    assert_within_class(ln, want.numpy(), ops.info("layer_norm").tolerance["prod"])


def test_attention_against_torch(T, rng):
    q, k, v = (rng.standard_normal((2, 5, 8)).astype(np.float32) for _ in range(3))
    q64, k64, v64 = (T.from_numpy(a.astype(np.float64)) for a in (q, k, v))
    scores = q64 @ k64.transpose(1, 2) / np.sqrt(8.0)
    cls = ops.info("attention").tolerance["prod"]
    assert_within_class(ops.attention(q, k, v, causal=False), (T.softmax(scores, dim=-1) @ v64).numpy(), cls)
    above = T.triu(T.ones(5, 5, dtype=T.bool), diagonal=1)  # key j > query i: hidden
    causal = T.softmax(scores.masked_fill(above, float("-inf")), dim=-1) @ v64
    assert_within_class(ops.attention(q, k, v), causal.numpy(), cls)  # causal by default


def test_cross_entropy_against_torch(T, rng):
    logits = rng.standard_normal((6, 5)).astype(np.float32)
    labels = rng.integers(0, 5, 6).astype(np.int64)
    cls = ops.info("cross_entropy").tolerance["prod"]
    l64, t = T.from_numpy(logits.astype(np.float64)), T.from_numpy(labels)
    got = ops.cross_entropy(logits, labels)
    assert got.shape == () and got.dtype == np.float32
    assert_within_class(got.reshape(1), T.nn.functional.cross_entropy(l64, t).numpy().reshape(1), cls)
    none = ops.cross_entropy(logits, labels, reduction="none")
    assert_within_class(none, T.nn.functional.cross_entropy(l64, t, reduction="none").numpy(), cls)


def test_dlpack_out_to_torch_without_a_copy(T):
    p = module("export fn f(x: f32[N, 4]) -> f32[N, 4] { x * 3.0 }")
    with p.session() as s:
        t = s.run(x=np.ones((2, 4), np.float32)).outputs["result"]
    tt = T.from_dlpack(t)
    assert tt.data_ptr() == t.data_ptr and tt.shape == (2, 4) and tt.dtype == T.float32
    assert tt.tolist() == [[3.0] * 4] * 2


def test_dlpack_in_from_torch_is_borrowed(T):
    identity = module(IDENTITY)
    x = T.arange(8, dtype=T.float32).reshape(2, 4)
    with identity.session() as s:
        r = s.run(x=x)
    assert r.stats.inputs_borrowed == 1 and r.outputs["result"].data_ptr == x.data_ptr()
    transposed = T.arange(8, dtype=T.float32).reshape(4, 2).t()  # a strided view
    with pytest.warns(rung.RungWarning, match="M0020"):
        out = identity.run(x=transposed)
    assert out["result"].tolist() == transposed.tolist()


def test_bf16_through_torch(T):
    p = module("export fn f(x: bf16[N]) -> bf16[N] { x + x }")
    x = T.tensor([1.0, -3.0, 0.5], dtype=T.bfloat16)
    out = p.run(x=x)["result"]
    assert out.dtype == "bf16"
    back = T.from_dlpack(out)
    assert back.dtype == T.bfloat16 and back.tolist() == [2.0, -6.0, 1.0]
