#!/usr/bin/python3
"""What one run costs from Python (issue 18, bench/RESULTS.md): the tiny cached program of
api_overhead_bench.cpp (x + y on f32[4], cpu backend, records off, receipts ignored) through
Session.run, and through the extension's own call (no Python wrapper). Compare with the C++
figures api_overhead_bench prints in the same minute: Python's overhead over the kernels is
(Session.run here) - (Session::run there) + (its C++ API overhead).

    PYTHONPATH=build/python /usr/bin/python3 bench/api/python_overhead_bench.py [iterations]

Prints medians over 9 rounds, in microseconds per call.
"""
import os
import sys
import tempfile
import time

import numpy as np

os.environ["RUNG_HOME"] = tempfile.mkdtemp(prefix="rung-bench-")
import rung  # noqa: E402

TINY = """module tiny;

tier debug;
tolerance exact;

export fn main(x: f32[4], y: f32[4]) -> f32[4] {
    x + y
}
"""


def median_us(fn, iters):
    for _ in range(min(iters, 500)):
        fn()
    per = []
    for _ in range(9):
        t0 = time.perf_counter()
        for _ in range(iters):
            fn()
        per.append((time.perf_counter() - t0) / iters * 1e6)
    return sorted(per)[len(per) // 2]


def main():
    iters = int(sys.argv[1]) if len(sys.argv) > 1 else 20000
    program = rung.load(TINY, name="tiny.rung")
    x = np.array([1, 2, 3, 4], np.float32)
    y = np.array([5, 6, 7, 8], np.float32)
    with program.session("cpu", receipts="ignore", write_records=False) as s:
        r = s.run(x=x, y=y)
        assert r.stats.inputs_borrowed == 2 and r.outputs["result"].numpy().tolist() == [6, 8, 10, 12]
        inputs = {"x": x, "y": y}
        wrapped = median_us(lambda: s.run(x=x, y=y), iters)
        raw = median_us(lambda: s._s.run(None, inputs, "if_needed", None, None), iters)
    print(f"Session.run (Python)        {wrapped:8.2f} us/call")
    print(f"_rung session run (no .py)  {raw:8.2f} us/call")


if __name__ == "__main__":
    main()
