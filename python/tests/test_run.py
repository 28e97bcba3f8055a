"""Running programs: sessions, results, records, numpy as the peer, the CLI's hashes."""

import json
import os
import subprocess

import numpy as np
import pytest

import rung
from helpers import EXAMPLES, module


def center_inputs(rng, n=5):
    return rng.standard_normal((n, 8), dtype=np.float32), rng.standard_normal((8, 4), dtype=np.float32)


def test_run_returns_numpy_arrays_within_the_ops_class_of_numpy(center, rng):
    x, w = center_inputs(rng)
    out = center.run(x=x, w=w)
    assert set(out) == {"y", "column_means"}
    assert all(isinstance(a, np.ndarray) and a.dtype == np.float32 for a in out.values())
    mean = x.mean(axis=0, keepdims=True, dtype=np.float64)
    np.testing.assert_allclose(out["column_means"], mean, rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(out["y"], (x.astype(np.float64) - mean) @ w.astype(np.float64), rtol=1e-5, atol=1e-5)


def test_a_session_run_gives_tensors_record_warnings_and_stats(center, rng):
    x, w = center_inputs(rng)
    with center.session("cpu") as s:
        assert s.backend == "cpu" and not s.closed
        r = s.run(x=x, w=w)
    assert s.closed
    assert list(r.outputs) == ["y", "column_means"]
    y = r.outputs["y"]
    assert isinstance(y, rung.Tensor) and y.type == "f32[5, 4]" and y.dtype == "f32" and y.shape == (5, 4)
    assert len(y.hash) == 64
    assert r.entry == "center_and_project" and r.tier == "debug" and r.backend == "cpu"
    assert r.fingerprint == center.fingerprint
    assert r.warnings == []
    assert (r.stats.inputs_borrowed, r.stats.inputs_copied, r.stats.bytes_copied) == (2, 0, 0)
    assert r.stats.memory.measured_peak > 0
    assert len(r.record.id) == 64
    record = r.record.json
    assert isinstance(record, dict) and record
    assert r.record.text


def test_the_reference_and_cpu_backends_agree_bit_for_bit_in_tier_debug(center, rng):
    x, w = center_inputs(rng, 17)
    ref = center.run(backend="reference", x=x, w=w)
    cpu = center.run(backend="cpu", x=x, w=w)
    for name in ref:
        assert ref[name].tobytes() == cpu[name].tobytes()


def test_ieee_exact_ops_match_numpy_bit_for_bit(rng):
    p = module("export fn f(a: f32[N], b: f32[N]) -> (f32[N], f32[N], f32[N], f32[N], f32[N]) {\n"
               "    (a + b, a - b, a * b, a / b, sqrt(abs(a)))\n}")
    a = rng.standard_normal(1000, dtype=np.float32) * 100
    b = rng.standard_normal(1000, dtype=np.float32)
    out = p.run(a=a, b=b)
    with np.errstate(all="ignore"):
        want = [a + b, a - b, a * b, a / b, np.sqrt(np.abs(a))]
    for i, w in enumerate(want):
        got = out[f"result.{i}"]
        assert got.dtype == w.dtype
        assert got.tobytes() == w.tobytes(), f"result.{i}"


def test_symbolic_dims_bind_from_the_inputs_and_conflicts_are_m0005():
    p = module("export fn f(a: f32[N], b: f32[N]) -> f32[N] { a + b }")
    assert p.run(a=np.ones(3, np.float32), b=np.ones(3, np.float32))["result"].shape == (3,)
    with pytest.raises(rung.Error) as e:
        p.run(a=np.ones(3, np.float32), b=np.ones(4, np.float32))
    assert e.value.code == "M0005"


@pytest.mark.parametrize("inputs, code", [
    ({"x": np.ones((2, 4), np.float32)}, "M0002"),                                   # w missing
    ({"x": np.ones((2, 4), np.float32), "w": np.ones(4, np.float32), "z": np.ones(1, np.float32)}, "M0001"),  # no parameter z
    ({"x": np.ones((2, 4), np.float64), "w": np.ones(4, np.float32)}, "M0003"),       # dtype differs
    ({"x": np.ones((2, 5), np.float32), "w": np.ones(4, np.float32)}, "M0004"),       # static extent differs
])
def test_bad_inputs_are_coded_errors(inputs, code):
    p = module("export fn f(x: f32[N, 4], w: f32[4]) -> f32[N, 4] { x * w }")
    with pytest.raises(rung.Error) as e:
        p.run(**inputs)
    assert e.value.code == code


def test_names_that_are_not_identifiers_go_in_inputs():
    p = module("struct P { w: f32[2], b: f32[2] }\nexport fn f(p: &P, x: f32[2]) -> f32[2] { x * p.w + p.b }")
    assert [q.name for q in p.entry().params] == ["p.w", "p.b", "x"]
    one = np.ones(2, np.float32)
    out = p.run(inputs={"p.w": one * 2, "p.b": one}, x=one * 3)
    assert out["result"].tolist() == [7.0, 7.0]


def test_prints_go_to_the_print_callback():
    p = module('export fn f(x: f32) -> f32 !{io} {\n    print("x is", x);\n    x\n}')
    lines = []
    with p.session(print=lines.append) as s:
        s.run(x=np.float32(1.5))
    assert lines == ["x is 1.5\n"]


def cli_json(*args):
    cli = os.environ.get("RUNG_CLI")
    if not cli:
        pytest.fail("RUNG_CLI is not set: CTest sets it to the rung binary")
    out = subprocess.run([cli, *args], capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def test_the_same_output_hashes_and_fingerprint_as_rung_run(center, rng, tmp_path):
    x, w = center_inputs(rng, 6)
    np.save(tmp_path / "x.npy", x)
    np.save(tmp_path / "w.npy", w)
    cli = cli_json("run", str(EXAMPLES / "center.workflow.json"), "--backend", "cpu", "--json",
                   "--arg", f"x={tmp_path / 'x.npy'}", "--arg", f"w={tmp_path / 'w.npy'}")
    with center.session("cpu") as s:
        r = s.run(x=x, w=w)
    assert cli["fingerprint"] == r.fingerprint == center.fingerprint
    assert {o["name"]: o["sha3_256"] for o in cli["outputs"]} == {k: t.hash for k, t in r.outputs.items()}
