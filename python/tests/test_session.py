"""Sessions: closing, one call at a time, the GIL released while rung runs, callbacks
(progress, print) and what a Python exception inside one does."""

import io
import threading
import time

import numpy as np
import pytest

import rung
from rung import _progress
from helpers import IDENTITY, module

LOOP = """export fn f(x: f32[64, 64], n: i64) -> f32[64, 64] !{io} {
    let mut y = copy(x);
    for i in 0..n {
        y = tanh(y @ x);
        print("step", i);
    }
    y
}"""

WORK = """export fn f(x: f32[128, 128], n: i64) -> f32[128, 128] {
    let mut y = copy(x);
    for i in 0..n {
        y = tanh(y @ x);
    }
    y
}"""


def test_a_closed_session_refuses_calls():
    s = module(IDENTITY).session()
    s.close()
    assert s.closed
    with pytest.raises(rung.Error) as e:
        s.run(x=np.ones((1, 4), np.float32))
    assert e.value.code == "M0040"
    with pytest.raises(rung.Error) as e:
        s.exact_capable
    assert e.value.code == "M0040"
    s.close()  # closing twice is harmless


def test_a_session_outlives_its_program_object():
    s = module(IDENTITY).session()
    out = s.run(x=np.full((2, 4), 5.0, np.float32)).outputs["result"]
    assert np.asarray(out)[1, 3] == 5.0
    s.close()


def test_a_second_call_while_one_runs_is_m0011_not_undefined():
    p = module(LOOP)
    x = np.eye(64, dtype=np.float32) * 0.5
    errors, session = [], {}

    def during_the_run(text):
        if not errors:
            other = threading.Thread(target=_call, args=(session["s"], x, errors))
            other.start()
            other.join()  # join releases the GIL: the other thread calls while this run is inside rung

    with p.session(print=during_the_run) as s:
        session["s"] = s
        s.run(x=x, n=np.int64(2))
    assert [getattr(e, "code", repr(e)) for e in errors] == ["M0011"]


def _call(session, x, errors):
    try:
        session.run(x=x, n=np.int64(1))
        errors.append(AssertionError("the second call ran"))
    except rung.Error as e:
        errors.append(e)


def test_an_exception_in_a_callback_cancels_the_run_and_is_raised():
    p = module(LOOP)
    seen = []

    def stop_at_three(text):
        seen.append(text)
        if len(seen) == 3:
            raise KeyError("stop here")

    with p.session(print=stop_at_three) as s:
        with pytest.raises(KeyError, match="stop here"):
            s.run(x=np.eye(64, dtype=np.float32), n=np.int64(1000))
        assert len(seen) == 3  # cancelled: no print after the one that raised
        r = s.run(x=np.eye(64, dtype=np.float32), n=np.int64(0))  # the session is usable again
        assert r.outputs["result"].shape == (64, 64)


def test_the_gil_is_released_while_rung_runs():
    p = module(WORK)
    x = (np.eye(128, dtype=np.float32) + 0.01).astype(np.float32)
    with p.session() as s:
        n, took = 1, 0.0
        while took < 0.2 and n < 1 << 16:  # long enough to see the other thread run
            t0 = time.perf_counter()
            s.run(x=x, n=np.int64(n))
            took = time.perf_counter() - t0
            n *= 2
        window = []

        def run():
            window.append(time.perf_counter())
            s.run(x=x, n=np.int64(n))
            window.append(time.perf_counter())

        ticks = []
        t = threading.Thread(target=run)
        t.start()
        while t.is_alive():
            ticks.append(time.perf_counter())
            time.sleep(0.002)
        t.join()
    start, end = window
    inside = [x for x in ticks if start < x < end]
    # Holding the GIL, rung would have stopped this thread for the whole run (no tick inside).
    assert len(inside) >= 5, f"{len(inside)} ticks in a {end - start:.3f} s run"


def test_progress_reports_the_conformance_of_a_fresh_store(tmp_path, monkeypatch):
    monkeypatch.setenv("RUNG_HOME", str(tmp_path / "home"))
    p = module("export fn f(x: f32[N]) -> f32[N] { exp(x) + x }")
    reports = []
    with p.session("cpu", receipts="conform", progress=reports.append) as s:
        s.run(x=np.ones(4, np.float32))
    assert reports and all(isinstance(r, rung.Progress) for r in reports)
    assert any(r.phase == "conforming" and r.item for r in reports)


def test_receipts_require_refuses_kernels_without_a_receipt(tmp_path, monkeypatch):
    monkeypatch.setenv("RUNG_HOME", str(tmp_path / "empty-home"))
    p = module("export fn f(x: f32[N]) -> f32[N] { sin(x) }")
    with pytest.raises(rung.Error) as e:
        p.session("cpu", receipts="require").run(x=np.ones(2, np.float32))
    assert e.value.code == "Q0010"
    with pytest.raises(rung.Error) as e:
        p.session("cpu", receipts="sometimes")
    assert e.value.code == "M0035"


def test_the_default_progress_printer_is_one_line_on_a_terminal():
    out = io.StringIO()
    printer = _progress.LinePrinter(out, delay_s=0.0)
    printer(rung.Progress("conforming", 0, 3, "exp f32", 0.0, False))
    printer(rung.Progress("conforming", 1, 3, "add f32", 0.0, False))
    printer(rung.Progress("conforming", 3, 3, "", 0.0, True))
    assert out.getvalue() == "\r\033[Kconforming 0/3: exp f32\r\033[Kconforming 1/3: add f32\r\033[K"
    assert _progress.resolve(False) is None
    with pytest.raises(TypeError):
        _progress.resolve(42)


def test_no_printer_when_stderr_is_not_a_terminal(monkeypatch):
    monkeypatch.setattr("sys.stderr", io.StringIO())
    assert _progress.resolve(None) is None
