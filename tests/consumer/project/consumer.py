"""The Python consumer of an installed rung: consumer.py WORKFLOW.json HOME, run with
PYTHONPATH=<prefix>/lib/python3/dist-packages and no LD_LIBRARY_PATH (the extension finds
librung.so by its RPATH). Prints what the C and C++ consumers print: the fingerprint, then
each output's hash, for the inputs they make."""
import os
import sys

os.environ["RUNG_HOME"] = sys.argv[2]
import numpy as np  # noqa: E402
import rung  # noqa: E402

program = rung.load(sys.argv[1])
x = (0.5 * np.arange(24, dtype=np.float32)).reshape(3, 8)
w = ((np.arange(32, dtype=np.float32) - 16) / 8).reshape(8, 4)
with program.session("cpu") as session:
    result = session.run(x=x, w=w)
assert result.stats.inputs_borrowed == 2, result.stats
print("fingerprint", program.fingerprint)
for name, tensor in result.outputs.items():
    print(name, tensor.hash)
