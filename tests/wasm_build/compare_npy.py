"""compare_npy.py A.npy B.npy: exit 0 when both hold the same dtype, shape and bytes; else
name the first differing element (with both bit patterns)."""
import sys

import numpy as np

a, b = np.load(sys.argv[1]), np.load(sys.argv[2])
if a.dtype != b.dtype or a.shape != b.shape:
    sys.exit(f"{sys.argv[1]}: {a.dtype}{list(a.shape)} vs {b.dtype}{list(b.shape)}")
if a.tobytes() != b.tobytes():
    ua, ub = a.reshape(-1).view(f"u{a.itemsize}"), b.reshape(-1).view(f"u{b.itemsize}")
    i = int(np.flatnonzero(ua != ub)[0])
    n = int((ua != ub).sum())
    sys.exit(f"{sys.argv[1]}: {n} of {ua.size} elements differ; first at {i}: "
             f"{a.reshape(-1)[i]!r} ({ua[i]:#x}) vs {b.reshape(-1)[i]!r} ({ub[i]:#x})")
