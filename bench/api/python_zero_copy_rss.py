#!/usr/bin/python3
"""A 1 GiB numpy array passes into a run with no extra resident memory (issue 18): the array
is borrowed (C-contiguous, native float32), read in place, and the process's peak resident set
grows by far less than the input. The peak is reset (/proc/self/clear_refs) just before the run.

    PYTHONPATH=build/python /usr/bin/python3 bench/api/python_zero_copy_rss.py [MiB]
"""
import os
import sys
import tempfile

import numpy as np

os.environ["RUNG_HOME"] = tempfile.mkdtemp(prefix="rung-bench-")
import rung  # noqa: E402

SUM = """module total;

tier debug;
tolerance exact;

export fn main(x: f32[N]) -> f32 {
    sum(x)
}
"""


def status(key):
    for line in open("/proc/self/status"):
        if line.startswith(key):
            return int(line.split()[1])
    return -1


mib = int(sys.argv[1]) if len(sys.argv) > 1 else 1024
x = np.ones(mib * 1024 * 1024 // 4, dtype=np.float32)
p = rung.load(SUM)
s = p.session(backend="cpu", receipts="ignore", write_records=False)
s.run(x=x[:1024])  # warm-up: code and pools resident before the measurement
with open("/proc/self/clear_refs", "w") as f:
    f.write("5")
before = status("VmRSS:")
r = s.run(x=x)
peak = status("VmHWM:")
total = float(np.asarray(r.outputs["result"] if "result" in r.outputs else list(r.outputs.values())[0]))
print(f"input            {mib} MiB (float32[{x.size}]), stats {r.stats}")
print(f"rss before run   {before} KiB\npeak during run  {peak} KiB")
print(f"extra resident   {peak - before} KiB ({100.0 * (peak - before) / (mib * 1024):.3f}% of the input)")
print(f"sum              {total} (want {x.size})")
