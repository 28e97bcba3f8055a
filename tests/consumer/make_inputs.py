#!/usr/bin/python3
"""Writes the consumers' inputs as .npy into DIR: x = 0.5 * arange(24) as 3 x 8, w = (arange(32) - 16) / 8 as 8 x 4.

  python3 tests/consumer/make_inputs.py DIR

The C, C++ and Python consumers make the same values themselves; `rung run` reads these files.
No numpy: the GPU machine's python may lack it.
"""
import struct
import sys


def npy(path, shape, vals):
    header = "{'descr': '<f4', 'fortran_order': False, 'shape': (%s), }" % "".join("%d," % d for d in shape)
    header += " " * (63 - (10 + len(header)) % 64) + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode() + struct.pack("<%df" % len(vals), *vals))


npy(sys.argv[1] + "/x.npy", (3, 8), [0.5 * i for i in range(24)])
npy(sys.argv[1] + "/w.npy", (8, 4), [(i - 16) / 8 for i in range(32)])
