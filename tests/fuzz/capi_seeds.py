#!/usr/bin/env python3
"""Writes the seed inputs of the capi fuzz target (tests/fuzz/capi_fuzz.cpp) to corpus/capi/.

Each seed is a short program in the target's byte code: one byte picks the call (step()), the
following ones its arguments. The seeds reach every call at least once and run the centre
workflow and the `add` program to their end, so the fuzzer starts from sequences that get deep.
Run it again after changing the byte code:  /usr/bin/python3 tests/fuzz/capi_seeds.py
"""
import os

COPY, BORROW, RELEASE, STALE, ROUNDTRIP, DLPACK, LOAD, COMPILE, SESSION, RUN, DROP, NULLS, CANCEL, BYNAME, ACCESS = range(15)
F32, BOOL, Q8 = 1, 13, 14


def pick(i):  # an `any()` choice of the i-th element (non-NULL)
    return [1, i]


def none():  # an `any()` choice of NULL
    return [0]


def desc(dtype, shape, strides=None, offset=0, null=False):
    out = [dtype, len(shape) + 1, (1 if strides else 0) | (2 if null else 0)]
    for k, e in enumerate(shape):
        out += [e, (strides[k] if strides else 0) & 0xFF]
    return out + [offset]


def load(which):
    return [LOAD, which]


def compile_(module, tier=None, ok=True):
    options = [0] if tier is None else [1, 1, tier, 0]
    return [COMPILE] + pick(module) + options + ([0, 0] if ok else [])  # a success reads an entry's parameter


def session(program, backend):
    return [SESSION] + pick(program) + [backend]


NAMES = {"a": 0, "b": 1, "x": 2, "w": 3, "zz": 4, "y": 5, "result": 6}


def run(session_i, inputs, entry=0, cancellable=False):
    out = [RUN] + pick(session_i) + [len(inputs)]
    for name, tensor in inputs:
        out += [1, NAMES[name], 1] + pick(tensor)
    return out + [0 if cancellable else 1, entry]


seeds = {
    # the centre workflow on the reference backend, outputs looked up by name, then released
    "center-reference.capi": load(1) + compile_(0) + session(0, 0)
    + [COPY] + desc(F32, [3, 8]) + [1] + [COPY] + desc(F32, [8, 4]) + [1]
    + run(0, [("x", 0), ("w", 1)]) + [BYNAME] + pick(0) + [NAMES["y"]] + [DROP, 0] + pick(0) + [ACCESS] + pick(0) + [0],
    # add on cpu with borrowed inputs, then M0005 (two extents for N) and an unknown entry
    "add-cpu-borrowed.capi": load(0) + compile_(0) + session(0, 1)
    + [BORROW] + desc(F32, [4]) + [1] + [BORROW] + desc(F32, [4], offset=2) + [1]
    + run(0, [("a", 0), ("b", 1)], entry=1) + [COPY] + desc(F32, [3]) + [1]
    + run(0, [("a", 0), ("b", 2)], entry=1) + run(0, [("a", 0), ("b", 1)], entry=3),
    # strided memory: copied, refused when borrowed; negative strides; a released handle used
    "strided.capi": [COPY] + desc(F32, [3, 2], strides=[1, 3]) + [1]
    + [BORROW] + desc(F32, [3, 2], strides=[1, 3]) + [1]
    + [COPY] + desc(F32, [4], strides=[-1], offset=4) + [1]
    + [RELEASE, 0, STALE, 0] + [0] * 8 + [0],
    # descriptions rung must refuse: no dtype, negative rank, huge and negative extents, NULL data
    "bad-descriptions.capi": [COPY] + desc(0, [2]) + [1] + [COPY, F32, 0, 0, 0, 1]
    + [COPY] + desc(F32, [255, 255]) + [1] + [COPY] + desc(F32, [251]) + [1]
    + [COPY] + desc(F32, [4], null=True) + [1] + [COPY] + desc(Q8, [0x80 | 33]) + [1]
    + [BORROW] + desc(F32, [2]) + [0] + [NULLS] + none() + none() + none(),
    # DLPack: out and back (versioned, legacy), an import of another device, an unknown version
    "dlpack.capi": [COPY] + desc(F32, [2, 3]) + [1] + [ROUNDTRIP] + pick(0) + [1, 0]
    + [ROUNDTRIP] + pick(0) + [0]
    + [DLPACK] + desc(F32, [2, 2]) + [0, 210, 0, 1, 0, 0]
    + [DLPACK] + desc(F32, [2]) + [0, 0, 0, 0, 2, 0, 0]
    + [DLPACK] + desc(F32, [3, 2], strides=[1, 3]) + [1, 0, 0, 0]
    + [COPY] + desc(BOOL, [3]) + [1] + [ROUNDTRIP] + pick(4) + [1, 1],
    # compile options (a bad tier, an override), a cancelled run, an unknown backend, a bad module
    "options-cancel.capi": load(1) + compile_(0, tier=3, ok=False) + compile_(0, tier=1) + load(2)
    + [SESSION] + pick(0) + [2] + session(0, 0) + [CANCEL, 1]
    + [COPY] + desc(F32, [1, 8]) + [1] + [COPY] + desc(F32, [8, 4]) + [1]
    + run(0, [("x", 0), ("w", 1)], cancellable=True)
    + [DROP, 1] + pick(0) + [DROP, 2] + pick(0) + [STALE] + [0x12] * 8 + [1, 0],
}

here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus", "capi")
os.makedirs(here, exist_ok=True)
for name, data in seeds.items():
    with open(os.path.join(here, name), "wb") as f:
        f.write(bytes(b & 0xFF for b in data))
print("wrote", len(seeds), "seeds to", here)
