"""Small helpers the test files share (conftest.py holds the fixtures)."""

import os
import pathlib

import numpy as np

import rung

SOURCE_DIR = pathlib.Path(os.environ.get("RUNG_SOURCE_DIR", pathlib.Path(__file__).resolve().parents[2]))
EXAMPLES = SOURCE_DIR / "examples"


def module(functions: str, tier="debug", tolerance="exact", name="t"):
    """A .rung program from source text: a module header, then `functions`."""
    return rung.load(f"module {name};\ntier {tier};\ntolerance {tolerance};\n{functions}\n")


IDENTITY = "export fn f(x: f32[N, 4]) -> f32[N, 4] { x }"


def data_ptr(a: np.ndarray) -> int:
    return a.__array_interface__["data"][0]


def ulp_distance(a: np.ndarray, b: np.ndarray) -> int:
    """The largest distance in units in the last place between two f32 arrays."""
    def ordered(x):
        i = np.ascontiguousarray(x, np.float32).view(np.int32).astype(np.int64)
        return np.where(i < 0, -(i & 0x7FFFFFFF), i)
    return int(np.max(np.abs(ordered(a) - ordered(b)))) if a.size else 0


# f32 thresholds of the tolerance classes (docs/semantics.md, section 10; `rung tolerances`).
CLASS_F32 = {"tight": dict(ulp=4, rtol=2e-6, atol=0.0), "default": dict(ulp=16, rtol=1e-5, atol=1e-6),
             "loose": dict(ulp=64, rtol=1e-3, atol=1e-4)}


def assert_within_class(got: np.ndarray, want: np.ndarray, cls: str):
    """f32 `got` against `want` (computed in f64) under the class's elementwise thresholds:
    within the ulp bound of the rounded value, or within the absolute/relative bound."""
    t = CLASS_F32[cls]
    want32 = want.astype(np.float32)
    close = np.abs(got.astype(np.float64) - want) <= t["atol"] + t["rtol"] * np.abs(want)
    ulps = np.abs(got.view(np.int32).astype(np.int64) - want32.view(np.int32).astype(np.int64))
    ok = close | (ulps <= t["ulp"])
    assert ok.all(), f"{int((~ok).sum())} elements outside class {cls}; worst ulp {ulp_distance(got, want32)}"
