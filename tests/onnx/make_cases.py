#!/usr/bin/python3
# Writes tests/onnx/cases/NAME/{model.onnx, in_K.npy, out_K.npy}: one small model per
# handler (and per opset form where the form changes), its inputs, and the outputs NumPy
# computes for it (the expected values onnx_cases_test.cpp compares rung's against). A graph
# input meant to be bound at import (`--bind NAME=FILE.npy`) is stored as bind_NAME.npy.
# Run with Debian's python3 (python3-onnx 1.12, numpy): /usr/bin/python3 make_cases.py
# Fixed seeds: the same bytes on every run.
import os
import shutil
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "cases")
rng = np.random.default_rng(19)
F = np.float32
ONNX_TYPE = {np.dtype(F): TensorProto.FLOAT, np.dtype(np.float64): TensorProto.DOUBLE, np.dtype(np.int64): TensorProto.INT64,
             np.dtype(np.int32): TensorProto.INT32, np.dtype(np.bool_): TensorProto.BOOL, np.dtype(np.uint8): TensorProto.UINT8,
             np.dtype(np.float16): TensorProto.FLOAT16, np.dtype(np.int8): TensorProto.INT8,
             np.dtype(np.uint32): TensorProto.UINT32}


def r(*shape):
    return rng.standard_normal(shape).astype(F)


def case(name, nodes, inputs, outputs, opset=17, inits=None, sym=None, bind=None, defaults=None):
    """inputs/outputs: lists of (name, array); inits: {name: array} become initializers; bind:
    {name: array}, graph inputs bound at import (after `inputs`); defaults: {name: array},
    initializers also listed as graph inputs (their default values, as IR < 4 writes them)."""
    sym = sym or {}
    bind, defaults = bind or {}, defaults or {}
    vi = lambda n, a: helper.make_tensor_value_info(n, ONNX_TYPE[a.dtype], sym.get(n, list(a.shape)))
    graph_inputs = [vi(n, a) for n, a in inputs] + [vi(n, a) for n, a in bind.items()] + [vi(n, a) for n, a in defaults.items()]
    g = helper.make_graph(nodes, name, graph_inputs, [vi(n, a) for n, a in outputs],
                          [numpy_helper.from_array(np.asarray(v), k) for k, v in {**(inits or {}), **defaults}.items()])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)], producer_name="make_cases.py",
                          producer_version="1")
    m.ir_version = 8
    onnx.checker.check_model(m)
    d = os.path.join(OUT, name)
    os.makedirs(d)
    onnx.save(m, os.path.join(d, "model.onnx"))
    for k, (_, a) in enumerate(inputs):
        np.save(os.path.join(d, f"in_{k}.npy"), a)
    for n, a in bind.items():
        np.save(os.path.join(d, f"bind_{n}.npy"), a)
    for k, (_, a) in enumerate(outputs):
        np.save(os.path.join(d, f"out_{k}.npy"), np.array(a, order="C"))  # C order, rank kept


def N(op, ins, outs=("y",), **attrs):
    return helper.make_node(op, list(ins), list(outs), name=f"{op}_0", **attrs)


def unary(op, f, x, opset=17, **attrs):
    y = np.asarray(f(x))
    y = y.astype(x.dtype) if y.dtype != np.bool_ else y  # NumPy widens some float32 results
    case(f"{op.lower()}_{opset}" if opset != 17 else op.lower(), [N(op, ["x"], **attrs)], [("x", x)], [("y", y)], opset)


def binary(op, f, a, b, name=None):
    case(name or op.lower(), [N(op, ["a", "b"])], [("a", a), ("b", b)], [("y", f(a, b))])


# ---- windows (Conv, ConvTranspose, MaxPool, AveragePool) as plain loops, in float64 ----------------
def _pads(pads, n):
    return ([0] * n, [0] * n) if pads is None else (pads[:n], pads[n:])


def np_conv(x, w, b=None, strides=None, pads=None, dilations=None, group=1):
    n = x.ndim - 2
    s, d = strides or [1] * n, dilations or [1] * n
    pb, pe = _pads(pads, n)
    xp = np.pad(x.astype(np.float64), [(0, 0), (0, 0)] + [(pb[i], pe[i]) for i in range(n)])
    k = w.shape[2:]
    out = [(xp.shape[2 + i] - (d[i] * (k[i] - 1) + 1)) // s[i] + 1 for i in range(n)]
    M, Cg = w.shape[0], w.shape[1]
    y = np.zeros((x.shape[0], M, *out))
    for m in range(M):
        g = m // (M // group)
        for o in np.ndindex(*out):
            sl = tuple(slice(o[i] * s[i], o[i] * s[i] + d[i] * (k[i] - 1) + 1, d[i]) for i in range(n))
            y[(slice(None), m) + o] = (xp[(slice(None), slice(g * Cg, (g + 1) * Cg)) + sl] * w[m]).reshape(x.shape[0], -1).sum(1)
        if b is not None:
            y[:, m] += b[m]
    return y.astype(F)


def np_conv_transpose(x, w, b=None, strides=None, pads=None, output_padding=None, group=1):
    n = x.ndim - 2
    s = strides or [1] * n
    pb, pe = _pads(pads, n)
    op = output_padding or [0] * n
    k = w.shape[2:]
    full = [s[i] * (x.shape[2 + i] - 1) + op[i] + k[i] for i in range(n)]
    C, Mg = w.shape[0], w.shape[1]
    y = np.zeros((x.shape[0], Mg * group, *full))
    for c in range(C):
        g = c // (C // group)
        for i in np.ndindex(*x.shape[2:]):
            sl = tuple(slice(i[a] * s[a], i[a] * s[a] + k[a]) for a in range(n))
            y[(slice(None), slice(g * Mg, (g + 1) * Mg)) + sl] += np.einsum(
                "n,m...->nm...", x[(slice(None), c) + i].astype(np.float64), w[c].astype(np.float64))
    if b is not None:
        y += b.reshape((1, -1) + (1,) * n)
    crop = tuple(slice(pb[a], full[a] - pe[a]) for a in range(n))
    return y[(slice(None), slice(None)) + crop].astype(F)


def np_pool(x, kernel, strides=None, pads=None, dilations=None, ceil=False, kind="max", include_pad=False):
    """y (and for max the flat row-major indices into x) of each window; padding never wins or counts
    (with include_pad it counts for the average)."""
    n = x.ndim - 2
    s, d = strides or [1] * n, dilations or [1] * n
    pb, pe = _pads(pads, n)
    span = [d[i] * (kernel[i] - 1) + 1 for i in range(n)]
    room = [x.shape[2 + i] + pb[i] + pe[i] - span[i] for i in range(n)]
    out = [(-(-room[i] // s[i]) if ceil else room[i] // s[i]) + 1 for i in range(n)]
    y = np.zeros((*x.shape[:2], *out), F)
    idx = np.zeros(y.shape, np.int64)
    flat = np.arange(x.size).reshape(x.shape)
    for nc in np.ndindex(*x.shape[:2]):
        for o in np.ndindex(*out):
            vals, ids, padded = [], [], 0
            for t in np.ndindex(*kernel):
                at = [o[i] * s[i] + t[i] * d[i] - pb[i] for i in range(n)]
                if all(0 <= at[i] < x.shape[2 + i] for i in range(n)):
                    vals.append(x[nc + tuple(at)])
                    ids.append(flat[nc + tuple(at)])
                elif all(-pb[i] <= at[i] < x.shape[2 + i] + pe[i] for i in range(n)):
                    padded += 1
            if kind == "max":
                j = int(np.argmax(vals))
                y[nc + o], idx[nc + o] = vals[j], ids[j]
            else:
                y[nc + o] = np.float64(np.sum(np.array(vals, np.float64))) / (len(vals) + (padded if include_pad else 0))
    return y, idx


def window_cases():
    xc, wc, bc3 = r(1, 4, 6, 7), r(6, 2, 3, 3), r(6)
    case("conv", [N("Conv", ["x", "w", "b"], group=2, pads=[1, 0, 1, 2], strides=[2, 1], dilations=[1, 2])], [("x", xc)],
         [("y", np_conv(xc, wc, bc3, [2, 1], [1, 0, 1, 2], [1, 2], 2))], inits={"w": wc, "b": bc3})
    x1, w1 = r(2, 3, 9), r(4, 3, 4)
    p1 = (max(0, (-(-9 // 2) - 1) * 2 + 4 - 9))
    case("conv_same_upper_1d", [N("Conv", ["x", "w"], auto_pad="SAME_UPPER", strides=[2])], [("x", x1)],
         [("y", np_conv(x1, w1, None, [2], [p1 // 2, p1 - p1 // 2]))], inits={"w": w1})
    xt, wt, bt = r(1, 2, 3, 4), r(2, 3, 3, 3), r(3)
    case("convtranspose", [N("ConvTranspose", ["x", "w", "b"], strides=[2, 2], pads=[1, 0, 0, 1], output_padding=[1, 0])],
         [("x", xt)], [("y", np_conv_transpose(xt, wt, bt, [2, 2], [1, 0, 0, 1], [1, 0]))], inits={"w": wt, "b": bt})
    xo, wo = r(1, 1, 3, 3), r(1, 2, 3, 3)
    case("convtranspose_output_shape", [N("ConvTranspose", ["x", "w"], strides=[3, 2], output_shape=[10, 8])], [("x", xo)],
         [("y", np_conv_transpose(xo, wo, None, [3, 2], None, [1, 1]))], inits={"w": wo})
    xm = r(1, 2, 7, 7)
    ym, im = np_pool(xm, [3, 3], [2, 2], [1, 1, 1, 1])
    case("maxpool", [N("MaxPool", ["x"], ["y", "i"], kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1])], [("x", xm)],
         [("y", ym), ("i", im)])
    xs = r(2, 1, 5, 5)
    ys, is_ = np_pool(xs, [2, 2], [2, 2])
    col = (is_ // 25) * 25 + (is_ % 25 % 5) * 5 + is_ % 25 // 5
    case("maxpool_storage_order", [N("MaxPool", ["x"], ["y", "i"], kernel_shape=[2, 2], strides=[2, 2], storage_order=1)],
         [("x", xs)], [("y", ys), ("i", col)])
    xd = r(1, 2, 8, 9)
    yd, _ = np_pool(xd, [2, 3], [2, 2], None, [2, 1], ceil=True)
    case("maxpool_ceil_dilations", [N("MaxPool", ["x"], kernel_shape=[2, 3], strides=[2, 2], dilations=[2, 1], ceil_mode=1)],
         [("x", xd)], [("y", yd)])
    xa = r(2, 3, 6, 7)
    ya, _ = np_pool(xa, [3, 3], [2, 2], [1, 0, 1, 2], kind="avg", include_pad=True)
    case("averagepool", [N("AveragePool", ["x"], kernel_shape=[3, 3], strides=[2, 2], pads=[1, 0, 1, 2], count_include_pad=1)],
         [("x", xa)], [("y", ya)])
    xl = r(1, 2, 5, 6)
    yl, _ = np_pool(xl, [2, 3], None, [1, 1, 0, 1], kind="avg")  # SAME_LOWER: the odd pad before
    case("averagepool_same_lower", [N("AveragePool", ["x"], kernel_shape=[2, 3], auto_pad="SAME_LOWER")], [("x", xl)], [("y", yl)])


def main():
    if os.path.exists(OUT):
        shutil.rmtree(OUT)
    os.makedirs(OUT)
    x = r(3, 4)
    pos = np.abs(x) + F(0.5)
    # ---- elementwise, 1:1 ----------------------------------------------------------------
    binary("Add", np.add, r(2, 3, 4), r(3, 1))
    binary("Sub", np.subtract, r(2, 3), r(3))
    binary("Mul", np.multiply, r(4, 1), r(1, 5))
    binary("Div", np.divide, r(3, 4), pos)
    # In binary64, then rounded: NumPy's float32 power and 1-D matmul take SIMD or BLAS paths
    # that depend on the arrays' alignment, so their last bit changed from run to run.
    binary("Pow", lambda a, b: np.power(a.astype(np.float64), b).astype(F), pos, r(3, 4))
    binary("Div", lambda a, b: (a // b * 0 + np.trunc(a / b)).astype(np.int64), np.array([7, -7, 9], np.int64),
           np.array([2, 2, -4], np.int64), name="div_int")
    for op, f in [("Neg", np.negative), ("Abs", np.abs), ("Relu", lambda v: np.maximum(v, 0)), ("Exp", np.exp),
                  ("Sigmoid", lambda v: 1 / (1 + np.exp(-v))), ("Tanh", np.tanh), ("Sin", np.sin), ("Cos", np.cos)]:
        unary(op, f, x)
    unary("Sqrt", np.sqrt, pos)
    unary("Log", np.log, pos)
    unary("Reciprocal", np.reciprocal, pos)
    from math import erf
    unary("Erf", np.vectorize(erf), x)
    for op, f in [("Equal", np.equal), ("Less", np.less), ("Greater", np.greater), ("LessOrEqual", np.less_equal),
                  ("GreaterOrEqual", np.greater_equal)]:
        a = np.array([1, 2, 3, 4], F)
        binary(op, f, a, np.array([2, 2, 2, 5], F))
    bt, bf = np.array([True, True, False, False]), np.array([True, False, True, False])
    for op, f in [("And", np.logical_and), ("Or", np.logical_or), ("Xor", np.logical_xor)]:
        binary(op, f, bt, bf)
    unary("Not", np.logical_not, bf)
    c = rng.standard_normal((3, 4)) > 0
    b4 = r(4)
    case("where", [N("Where", ["c", "a", "b"])], [("c", c), ("a", x), ("b", b4)], [("y", np.where(c, x, b4))])
    xs = [r(3, 4), r(4), r(3, 1)]
    for op, f in [("Max", lambda *v: np.maximum(np.maximum(v[0], v[1]), v[2])), ("Min", lambda *v: np.minimum(np.minimum(v[0], v[1]), v[2])),
                  ("Sum", lambda *v: v[0] + v[1] + v[2]), ("Mean", lambda *v: (v[0] + v[1] + v[2]) / F(3))]:
        case(op.lower(), [N(op, ["a", "b", "c"])], [("a", xs[0]), ("b", xs[1]), ("c", xs[2])], [("y", f(*xs).astype(F))])
    case("cast", [N("Cast", ["x"], to=TensorProto.INT32)], [("x", np.array([1.7, -2.5, 3.2], F))],
         [("y", np.array([1, -2, 3], np.int32))])
    case("castlike", [N("CastLike", ["x", "t"])], [("x", np.array([1, 2], np.int64)), ("t", np.array([0.5], F))],
         [("y", np.array([1, 2], F))])
    case("clip_11", [N("Clip", ["x", "lo", "hi"])], [("x", x)], [("y", np.clip(x, -0.5, 0.5))],
         inits={"lo": np.array(-0.5, F), "hi": np.array(0.5, F)})
    case("clip_6", [N("Clip", ["x"], min=-0.25, max=0.75)], [("x", x)], [("y", np.clip(x, F(-0.25), F(0.75)))], opset=6)
    ia, ib = np.array([7, -7, 7, -7], np.int64), np.array([3, 3, -3, -3], np.int64)
    case("mod", [N("Mod", ["a", "b"])], [("a", ia), ("b", ib)], [("y", np.mod(ia, ib))])
    case("mod_fmod", [N("Mod", ["a", "b"], fmod=1)], [("a", x), ("b", pos)], [("y", np.fmod(x, pos))])
    # ---- activations, decomposed (as the ONNX reference computes them) ------------------------
    unary("LeakyRelu", lambda v: np.clip(v, 0, np.inf) + np.clip(v, -np.inf, 0) * F(0.1), x, alpha=0.1)
    slope = r(4)
    case("prelu", [N("PRelu", ["x", "s"])], [("x", x)], [("y", np.where(x < 0, x * slope, x))], inits={"s": slope})
    unary("Elu", lambda v: np.where(v < 0, (np.exp(v) - 1) * F(0.7), v), x, alpha=0.7)
    al, ga = F(1.67326319217681884765625), F(1.05070102214813232421875)
    unary("Selu", lambda v: np.where(v > 0, v * ga, (np.exp(v) * al - al) * ga), x)
    unary("Celu", lambda v: np.maximum(0, v) + np.minimum(0, F(1.5) * (np.exp(v / F(1.5)) - 1)), x, alpha=1.5)
    unary("HardSigmoid", lambda v: np.clip(v * F(0.3) + F(0.4), 0, 1), x, alpha=0.3, beta=0.4)
    unary("HardSwish", lambda v: v * np.clip(v * F(1 / 6) + F(0.5), 0, 1), x * 4)
    unary("Softplus", lambda v: np.log(np.exp(v) + 1), x)
    unary("Softsign", lambda v: v / (1 + np.abs(v)), x)
    unary("ThresholdedRelu", lambda v: np.where(v > F(0.2), v, 0), x, alpha=0.2)
    unary("Shrink", lambda v: np.where(v < -F(0.5), v + F(0.1), np.where(v > F(0.5), v - F(0.1), 0)), x, bias=0.1, lambd=0.5)
    unary("Sign", np.sign, np.array([-2, 0, 3, -0.0], F))
    unary("IsNaN", np.isnan, np.array([1, np.nan, np.inf], F))
    unary("IsInf", np.isinf, np.array([1, np.nan, np.inf, -np.inf], F))
    unary("IsInf", np.isposinf, np.array([1, np.nan, np.inf, -np.inf], F), opset=10, detect_negative=0)
    # ---- reductions ------------------------------------------------------------------------
    x3 = r(2, 3, 4)
    case("reducesum_13", [N("ReduceSum", ["x", "axes"])], [("x", x3)], [("y", x3.sum(axis=1, keepdims=True))],
         inits={"axes": np.array([1], np.int64)})
    case("reducesum_11", [N("ReduceSum", ["x"], axes=[-1], keepdims=0)], [("x", x3)], [("y", x3.sum(axis=-1))], opset=11)
    case("reducesum_noop", [N("ReduceSum", ["x"], noop_with_empty_axes=1)], [("x", x3)], [("y", x3)])
    case("reducemean", [N("ReduceMean", ["x"], axes=[0, 2])], [("x", x3)], [("y", x3.mean(axis=(0, 2), keepdims=True))])
    case("reducemean_all", [N("ReduceMean", ["x"], keepdims=0)], [("x", x3)], [("y", np.array(x3.mean(), F))])
    case("reducemax", [N("ReduceMax", ["x"], axes=[1], keepdims=0)], [("x", x3)], [("y", x3.max(axis=1))])
    case("reducemin", [N("ReduceMin", ["x"], axes=[2])], [("x", x3)], [("y", x3.min(axis=2, keepdims=True))])
    case("reduceprod", [N("ReduceProd", ["x"], axes=[1])], [("x", x3)], [("y", x3.prod(axis=1, keepdims=True))])
    case("reducel1", [N("ReduceL1", ["x"], axes=[2])], [("x", x3)], [("y", np.abs(x3).sum(axis=2, keepdims=True))])
    case("reducel2", [N("ReduceL2", ["x"], axes=[2])], [("x", x3)], [("y", np.sqrt((x3 * x3).sum(axis=2, keepdims=True)))])
    case("reducesumsquare", [N("ReduceSumSquare", ["x"], axes=[1])], [("x", x3)], [("y", (x3 * x3).sum(axis=1, keepdims=True))])
    case("reducelogsum", [N("ReduceLogSum", ["x"], axes=[1])], [("x", np.abs(x3))], [("y", np.log(np.abs(x3).sum(axis=1, keepdims=True)))])
    case("reducelogsumexp", [N("ReduceLogSumExp", ["x"], axes=[2])], [("x", x3)],
         [("y", np.log(np.exp(x3).sum(axis=2, keepdims=True)))])
    ties = np.array([[1, 3, 3, 0], [2, 2, 1, 2]], F)
    case("argmax", [N("ArgMax", ["x"], axis=1)], [("x", ties)], [("y", np.argmax(ties, axis=1)[:, None])])
    case("argmin_last", [N("ArgMin", ["x"], axis=1, keepdims=0, select_last_index=1)], [("x", ties)],
         [("y", 3 - np.argmin(ties[:, ::-1], axis=1))])
    # ---- linear algebra and nn -----------------------------------------------------------------
    a, b = r(2, 3, 4), r(4, 5)
    case("matmul", [N("MatMul", ["a", "b"])], [("a", a), ("b", b)], [("y", a @ b)])
    v = r(4)
    case("matmul_1d", [N("MatMul", ["a", "v"])], [("a", a), ("v", v)], [("y", a @ v)])
    case("matmul_1d_left", [N("MatMul", ["v", "b"])], [("v", v), ("b", b)], [("y", (v.astype(np.float64) @ b).astype(F))])
    A, B, C = r(4, 3), r(5, 4), r(5)
    case("gemm", [N("Gemm", ["A", "B", "C"], transA=1, transB=1, alpha=0.5, beta=2.0)], [("A", A), ("B", B)],
         [("y", F(0.5) * (A.T @ B.T) + F(2) * C)], inits={"C": C})
    case("gemm_noc", [N("Gemm", ["A", "B"])], [("A", A.T.copy()), ("B", B.T.copy())], [("y", A.T @ B.T)])

    def softmax(v, axis):
        e = np.exp(v - v.max(axis=axis, keepdims=True))
        return e / e.sum(axis=axis, keepdims=True)
    case("softmax", [N("Softmax", ["x"], axis=1)], [("x", x3)], [("y", softmax(x3, 1))])
    flat = softmax(x3.reshape(2, 12), 1).reshape(2, 3, 4)
    case("softmax_11", [N("Softmax", ["x"])], [("x", x3)], [("y", flat)], opset=11)
    case("logsoftmax", [N("LogSoftmax", ["x"])], [("x", x3)], [("y", np.log(softmax(x3, -1)))])
    xb = r(2, 3, 2, 2)
    sc, bi, mu, var = r(3), r(3), r(3), np.abs(r(3)) + F(0.5)
    bc = lambda t: t.reshape(1, 3, 1, 1)
    case("batchnormalization", [N("BatchNormalization", ["x", "s", "b", "m", "v"], epsilon=1e-3)], [("x", xb)],
         [("y", bc(sc) * ((xb - bc(mu)) / np.sqrt(bc(var) + F(1e-3))) + bc(bi))], inits={"s": sc, "b": bi, "m": mu, "v": var})
    xl = r(2, 3, 4)
    g, be = r(3, 4), r(3, 4)
    mean = xl.mean(axis=(1, 2), keepdims=True)
    d = xl - mean
    inv = 1 / np.sqrt((d * d).mean(axis=(1, 2), keepdims=True) + F(1e-5))
    case("layernormalization", [N("LayerNormalization", ["x", "g", "b"], ["y", "mean", "inv"], axis=1)], [("x", xl)],
         [("y", d * inv * g + be), ("mean", mean), ("inv", inv)], inits={"g": g, "b": be})
    si, bi2 = r(3), r(3)
    mi = xb.mean(axis=(2, 3), keepdims=True)
    vi = xb.var(axis=(2, 3), keepdims=True)
    case("instancenormalization", [N("InstanceNormalization", ["x", "s", "b"], epsilon=1e-4)], [("x", xb)],
         [("y", bc(si) * (xb - mi) / np.sqrt(vi + F(1e-4)) + bc(bi2))], inits={"s": si, "b": bi2})
    mm = xb.mean(axis=(0, 2, 3), keepdims=True)
    sd = np.sqrt((xb * xb).mean(axis=(0, 2, 3), keepdims=True) - mm * mm)
    case("meanvariancenormalization", [N("MeanVarianceNormalization", ["x"])], [("x", xb)], [("y", (xb - mm) / (sd + F(1e-9)))])
    case("dropout", [N("Dropout", ["x"], ["y", "mask"])], [("x", x)], [("y", x), ("mask", np.ones(x.shape, bool))])
    case("globalaveragepool", [N("GlobalAveragePool", ["x"])], [("x", xb)], [("y", xb.mean(axis=(2, 3), keepdims=True))])
    case("globalmaxpool", [N("GlobalMaxPool", ["x"])], [("x", xb)], [("y", xb.max(axis=(2, 3), keepdims=True))])
    # ---- shapes ------------------------------------------------------------------------------
    case("reshape", [N("Reshape", ["x", "s"])], [("x", x3)], [("y", x3.reshape(2, 12))], inits={"s": np.array([0, -1], np.int64)})
    case("reshape_allowzero", [N("Reshape", ["x", "s"], allowzero=1)], [("x", x3)], [("y", x3.reshape(4, 6))],
         inits={"s": np.array([4, 6], np.int64)})
    case("flatten", [N("Flatten", ["x"], axis=2)], [("x", x3)], [("y", x3.reshape(6, 4))])
    case("transpose", [N("Transpose", ["x"], perm=[2, 0, 1])], [("x", x3)], [("y", x3.transpose(2, 0, 1))])
    case("transpose_default", [N("Transpose", ["x"])], [("x", x3)], [("y", x3.transpose())])
    x1 = r(3, 1, 4)
    case("squeeze", [N("Squeeze", ["x", "ax"])], [("x", x1)], [("y", x1.reshape(3, 4))], inits={"ax": np.array([1], np.int64)})
    case("squeeze_11", [N("Squeeze", ["x"])], [("x", x1)], [("y", x1.reshape(3, 4))], opset=11)
    case("unsqueeze", [N("Unsqueeze", ["x", "ax"])], [("x", x)], [("y", x.reshape(1, 3, 4, 1))], inits={"ax": np.array([0, -1], np.int64)})
    case("unsqueeze_11", [N("Unsqueeze", ["x"], axes=[1])], [("x", x)], [("y", x.reshape(3, 1, 4))], opset=11)
    cb = r(3, 2)
    case("concat", [N("Concat", ["a", "b"], axis=-1)], [("a", x), ("b", cb)], [("y", np.concatenate([x, cb], axis=-1))])
    idx = np.array([[0, -1], [2, 1]], np.int64)
    case("gather", [N("Gather", ["x", "i"], axis=1)], [("x", x), ("i", idx)], [("y", np.take(x, idx % 4, axis=1))])
    case("gather_const", [N("Gather", ["x", "i"])], [("x", x)], [("y", np.take(x, [2, 0], axis=0))], inits={"i": np.array([-1, 0], np.int64)})
    xs10 = r(5, 6)
    case("slice", [N("Slice", ["x", "st", "en", "ax", "sp"])], [("x", xs10)], [("y", xs10[4:0:-2, 1:100])],
         inits={"st": np.array([-1, 1], np.int64), "en": np.array([0, 100], np.int64), "ax": np.array([0, 1], np.int64),
                "sp": np.array([-2, 1], np.int64)})
    case("slice_reverse", [N("Slice", ["x", "st", "en", "ax", "sp"])], [("x", xs10)], [("y", xs10[:, ::-1])],
         inits={"st": np.array([-1], np.int64), "en": np.array([-(2 ** 63)], np.int64), "ax": np.array([1], np.int64),
                "sp": np.array([-1], np.int64)})
    case("slice_1", [N("Slice", ["x"], starts=[1], ends=[-1], axes=[1])], [("x", xs10)], [("y", xs10[:, 1:-1])], opset=9)
    case("pad", [N("Pad", ["x", "p", "v"])], [("x", x)], [("y", np.pad(x, ((1, 0), (0, 2)), constant_values=F(1.5)))],
         inits={"p": np.array([1, 0, 0, 2], np.int64), "v": np.array(1.5, F)})
    case("pad_reflect", [N("Pad", ["x", "p"], mode="reflect")], [("x", x)], [("y", np.pad(x, ((0, 0), (2, 1)), mode="reflect"))],
         inits={"p": np.array([0, 2, 0, 1], np.int64)})
    case("pad_2", [N("Pad", ["x"], pads=[0, 1, 0, 1], mode="edge")], [("x", x)], [("y", np.pad(x, ((0, 0), (1, 1)), mode="edge"))], opset=2)
    xe = r(3, 1)
    case("expand", [N("Expand", ["x", "s"])], [("x", xe)], [("y", xe * np.ones((2, 1, 4), F))], inits={"s": np.array([2, 1, 4], np.int64)})
    case("tile", [N("Tile", ["x", "r"])], [("x", x)], [("y", np.tile(x, (2, 3)))], inits={"r": np.array([2, 3], np.int64)})
    case("split", [N("Split", ["x", "s"], ["y0", "y1"], axis=1)], [("x", x)], [("y0", x[:, :1]), ("y1", x[:, 1:])],
         inits={"s": np.array([1, 3], np.int64)})
    case("split_equal_11", [N("Split", ["x"], ["y0", "y1"], axis=1)], [("x", x)], [("y0", x[:, :2]), ("y1", x[:, 2:])], opset=11)
    # ---- index arithmetic ------------------------------------------------------------------
    xd2 = r(1, 8, 2, 3)
    b_ = 2
    dcr = xd2.reshape(1, b_, b_, 2, 2, 3).transpose(0, 3, 4, 1, 5, 2).reshape(1, 2, 4, 6)
    crd = xd2.reshape(1, 2, b_, b_, 2, 3).transpose(0, 1, 4, 2, 5, 3).reshape(1, 2, 4, 6)
    case("depthtospace", [N("DepthToSpace", ["x"], blocksize=2)], [("x", xd2)], [("y", dcr)])
    case("depthtospace_crd", [N("DepthToSpace", ["x"], blocksize=2, mode="CRD")], [("x", xd2)], [("y", crd)])
    xs2 = r(1, 2, 4, 6)
    s2d = xs2.reshape(1, 2, 2, 2, 3, 2).transpose(0, 3, 5, 1, 2, 4).reshape(1, 8, 2, 3)
    case("spacetodepth", [N("SpaceToDepth", ["x"], blocksize=2)], [("x", xs2)], [("y", s2d)])
    xt = r(2, 4, 5)
    case("trilu", [N("Trilu", ["x", "k"])], [("x", xt)], [("y", np.triu(xt, 1))], inits={"k": np.array(1, np.int64)})
    case("trilu_lower", [N("Trilu", ["x"], upper=0)], [("x", xt)], [("y", np.tril(xt))])
    case("eyelike", [N("EyeLike", ["x"], k=-1, dtype=TensorProto.INT64)], [("x", r(3, 4))], [("y", np.eye(3, 4, k=-1, dtype=np.int64))])
    ind = np.array([[0, 3], [-1, 7]], np.int64)
    oh = np.where(np.arange(4)[None, :, None] == (ind % 4)[:, None, :], F(5), F(-1))
    oh[1, :, 1] = -1  # 7 is outside [-4, 4): no class
    case("onehot", [N("OneHot", ["i", "d", "v"], axis=1)], [("i", ind)], [("y", oh)],
         inits={"d": np.array(4, np.int64), "v": np.array([-1, 5], F)})
    hm = np.array([[1, 3, 3, 0], [2, 2, 1, 2]], F)
    case("hardmax", [N("Hardmax", ["x"])], [("x", hm)], [("y", np.eye(4, dtype=F)[np.argmax(hm, axis=-1)])])
    # ---- losses (the ONNX reference's definition: mean divides by the kept targets' weights) -----
    g = np.random.default_rng(20)  # its own stream: the cases after these keep their bytes
    rr = lambda *shape: g.standard_normal(shape).astype(F)
    def nll(lp, t, w=None, reduction="mean", ii=None):
        C = lp.shape[1]
        tc = np.clip(t, 0, C - 1)
        picked = -np.take_along_axis(lp, tc[:, None].astype(np.int64), axis=1)[:, 0]
        keep = np.ones(t.shape, bool) if ii is None else t != ii
        wt = (w[tc] if w is not None else np.ones(t.shape, F)) * keep
        loss = np.where(keep, picked, F(0)) * wt
        if reduction == "none":
            return loss.astype(F)
        if reduction == "sum":
            return np.array(loss.sum(), F)
        return np.array(loss.sum() / wt.sum(), F)
    xn, tn = rr(3, 5), np.array([1, 0, 4], np.int64)
    case("negativeloglikelihoodloss", [N("NegativeLogLikelihoodLoss", ["x", "t"], reduction="none")], [("x", xn), ("t", tn)],
         [("y", nll(xn, tn, reduction="none"))])
    xd, td, wd = rr(2, 3, 4), np.array([[0, 1, 2, 1], [2, 2, 0, 1]], np.int64), np.abs(rr(3)) + F(0.1)
    case("negativeloglikelihoodloss_mean_weight_ii", [N("NegativeLogLikelihoodLoss", ["x", "t", "w"], ignore_index=1)],
         [("x", xd), ("t", td)], [("y", nll(xd, td, wd, ii=1))], inits={"w": wd}, opset=12)
    ti = np.array([[0, -1, 2, 1], [-1, 2, 0, 1]], np.int32)
    case("negativeloglikelihoodloss_sum_negative_ii", [N("NegativeLogLikelihoodLoss", ["x", "t"], reduction="sum", ignore_index=-1)],
         [("x", xd), ("t", ti)], [("y", nll(xd, ti, reduction="sum", ii=-1))])
    case("negativeloglikelihoodloss_mean_ii", [N("NegativeLogLikelihoodLoss", ["x", "t"], ignore_index=-1)],
         [("x", xd), ("t", ti)], [("y", nll(xd, ti, ii=-1))])
    xs4, ts4 = rr(2, 3, 2, 2), g.integers(0, 3, (2, 2, 2)).astype(np.int64)
    ts4[0, 0, 0] = 7  # the ignored index, outside [0, C)
    ls4 = np.log(softmax(xs4, 1))
    case("softmaxcrossentropyloss", [N("SoftmaxCrossEntropyLoss", ["x", "t", "w"], ["y", "lp"], ignore_index=7)], [("x", xs4), ("t", ts4)],
         [("y", nll(ls4, ts4, wd, ii=7)), ("lp", ls4)], inits={"w": wd})
    case("softmaxcrossentropyloss_mean", [N("SoftmaxCrossEntropyLoss", ["x", "t"])], [("x", xn), ("t", tn)],
         [("y", np.array(nll(np.log(softmax(xn, 1)), tn), F))], opset=12)
    # ---- hyperbolic and inverse hyperbolic functions: near 0, mid range, large --------------------
    def exact(f, v):
        return f(np.array(v, F).astype(np.float64)).astype(F)
    for op, f, v in [("Sinh", np.sinh, [-30, -5, -1, -0.3, -1e-4, -1e-20, 0, 1e-7, 0.5, 0.99, 3, 25, 80]),
                     ("Cosh", np.cosh, [-30, -5, -1, -1e-4, 0, 1e-7, 0.5, 3, 25, 80]),
                     ("Tan", np.tan, [-1.5, -1, -1e-6, 0, 1e-30, 0.3, 1.2, 1.56, 100]),
                     ("Asinh", np.arcsinh, [-1e10, -3, -0.5, -1e-5, 0, 1e-30, 0.2, 1, 7, 1e30]),
                     ("Acosh", np.arccosh, [1, 1.0000001, 1.001, 1.5, 2, 10, 1e5, 1e30]),
                     ("Atanh", np.arctanh, [-0.999, -0.5, -1e-6, 0, 1e-30, 0.3, 0.9, 0.9999])]:
        unary(op, lambda x, f=f: exact(f, x), np.array(v, F))
    # ---- window functions: the size an initializer, the whole window folded at import ------------
    def window(a0, a1, a2, n, periodic):
        angle = np.arange(n, dtype=F) * (F(6.2831855) / F(n if periodic else n - 1))
        return (F(a0) - F(a1) * np.cos(angle)) + F(a2) * np.cos(angle * F(2))
    xw = rr(10)
    for op, a, n, per, dt in [("HannWindow", (0.5, 0.5, 0), 10, 1, None), ("HammingWindow", (25 / 46, 21 / 46, 0), 10, 0, None),
                              ("BlackmanWindow", (0.42, 0.5, 0.08), 10, 1, TensorProto.DOUBLE)]:
        attrs = {"periodic": per} | ({"output_datatype": dt} if dt else {})
        w = window(*a, n, per)
        xin = xw.astype(np.float64) if dt else xw
        case(op.lower() + ("" if per else "_symmetric"), [N(op, ["n"], ["w"], **attrs), N("Add", ["w", "x"])], [("x", xin)],
             [("y", w.astype(xin.dtype) + xin)], inits={"n": np.array(n, np.int64)})
    # ---- einsum: the forms matmul, transpose, sum and diagonals state ----------------------------
    for name, eq, shapes in [("einsum", "bij, bjk -> bik", [(2, 3, 4), (2, 4, 5)]), ("einsum_transposed", "bij,bkj->bik", [(2, 3, 4), (2, 5, 4)]),
                             ("einsum_implicit", "ij,jk", [(3, 4), (4, 2)]), ("einsum_inner", "i,i", [(5,), (5,)]),
                             ("einsum_outer", "i,j->ij", [(3,), (4,)]), ("einsum_sum", "ij->i", [(3, 4)]),
                             ("einsum_transpose", "ij->ji", [(3, 4)]), ("einsum_trace", "ii", [(4, 4)]),
                             ("einsum_diagonal", "...ii ->...i", [(2, 3, 4, 4)]),
                             ("einsum_ellipsis", "...ij,jk->...ik", [(2, 3, 4, 5), (5, 6)]),
                             ("einsum_contract_two", "abc,cba->b", [(2, 3, 4), (4, 3, 2)])]:
        ins = [rr(*s) for s in shapes]
        names = ["a", "b"][:len(ins)]
        case(name, [N("Einsum", names, equation=eq)], list(zip(names, ins)), [("y", np.asarray(np.einsum(eq.replace(" ", ""), *ins), F))], opset=12)
    # ---- index arithmetic: nearest upsampling by integer scales, sequences reversed -------------
    xu = rr(1, 2, 2, 3)
    up = xu.repeat(2, axis=2).repeat(3, axis=3)
    case("upsample", [N("Upsample", ["x", "s"])], [("x", xu)], [("y", up)], inits={"s": np.array([1, 1, 2, 3], F)}, opset=9)
    def reverse(v, lens, time_axis):
        out = v.copy()
        for b, n in enumerate(lens):
            if time_axis == 0:
                out[:n, b] = v[:n, b][::-1]
            else:
                out[b, :n] = v[b, :n][::-1]
        return out
    xq, lq = rr(4, 3, 2), np.array([4, 1, 3], np.int64)
    case("reversesequence", [N("ReverseSequence", ["x", "l"])], [("x", xq), ("l", lq)], [("y", reverse(xq, lq, 0))])
    xb2, lb2 = g.standard_normal((3, 4)) > 0, np.array([2, 0, 4], np.int64)
    case("reversesequence_batch_bool", [N("ReverseSequence", ["x", "l"], batch_axis=0, time_axis=1)], [("x", xb2)],
         [("y", reverse(xb2, lb2, 1))], inits={"l": lb2})
    # ---- Det by expansion (well-conditioned matrices: the expansion and LU agree closely) --------
    for name, shape in [("det", (3, 3)), ("det_batch", (2, 4, 4)), ("det_2x2", (3, 2, 2))]:
        n = shape[-1]
        m = (np.eye(n) * 3 + rr(*shape) * F(0.3)).astype(F)
        case(name, [N("Det", ["x"])], [("x", m)], [("y", np.asarray(np.linalg.det(m.astype(np.float64)), F))])
    # ---- values known at import ---------------------------------------------------------------
    cv = r(2, 2)
    case("constant", [N("Constant", [], ["c"], value=numpy_helper.from_array(cv)), N("Add", ["x", "c"])], [("x", cv)], [("y", cv + cv)])
    x6 = r(6)
    case("constant_ints", [N("Constant", [], ["c"], value_ints=[2, 3]), N("Reshape", ["x", "c"])], [("x", x6)], [("y", x6.reshape(2, 3))])
    # Shape -> Gather -> Unsqueeze -> Concat -> Reshape, as exporters write it: folded at import.
    case("shape_chain", [N("Shape", ["x"], ["s"]), N("Gather", ["s", "i0"], ["d0"]), N("Unsqueeze", ["d0", "ax"], ["u"]),
                         N("Concat", ["u", "m1"], ["t"], axis=0), N("Reshape", ["x", "t"])],
         [("x", x3)], [("y", x3.reshape(2, 12))],
         inits={"i0": np.array(0, np.int64), "ax": np.array([0], np.int64), "m1": np.array([-1], np.int64)})
    case("shape_15", [N("Shape", ["x"], start=1, end=-1)], [("x", x3)], [("y", np.array([3], np.int64))])
    case("size", [N("Size", ["x"])], [("x", x3)], [("y", np.array(24, np.int64))])
    xi = np.arange(6).reshape(2, 3).astype(np.int64)
    case("constantofshape", [N("ConstantOfShape", ["s"], ["c0"], value=numpy_helper.from_array(np.array([2], np.int64))), N("Add", ["x", "c0"])],
         [("x", xi)], [("y", xi + 2)], inits={"s": np.array([2, 3], np.int64)})
    case("identity", [N("Identity", ["x"])], [("x", x)], [("y", x)])
    case("range", [N("Range", ["s", "l", "d"], ["r0"]), N("Add", ["x", "r0"])], [("x", np.zeros(4, np.int64))],
         [("y", np.arange(2, 10, 2).astype(np.int64))],
         inits={"s": np.array(2, np.int64), "l": np.array(10, np.int64), "d": np.array(2, np.int64)})
    # ---- dynamic dims: a dim_param stays a symbol through the graph ------------------------------
    xd = r(5, 3)
    recurrent_cases()
    index_and_rounding_cases()
    case("symbolic_batch", [N("MatMul", ["x", "w"], ["h"]), N("Relu", ["h"], ["r0"]), N("ReduceSum", ["r0", "ax"], ["y"], keepdims=0)],
         [("x", xd)], [("y", np.maximum(xd @ cv.repeat(2, 0)[:3, :2], 0).sum(axis=1))],
         inits={"w": cv.repeat(2, 0)[:3, :2].copy(), "ax": np.array([1], np.int64)}, sym={"x": ["batch", 3], "y": ["batch"]})
    # A Reshape to [-1 -> batch, 8] (LeNet's flatten): the target keeps the symbol, which the
    # run binds from x's extent (no random draw: the cases after it keep theirs).
    xf = (np.arange(3 * 2 * 2 * 2, dtype=F) / 4 - 2).reshape(3, 2, 2, 2)
    case("symbolic_batch_flatten", [N("Reshape", ["x", "s"], ["h"]), N("Relu", ["h"], ["y"])],
         [("x", xf)], [("y", np.maximum(xf.reshape(3, 8), 0))],
         inits={"s": np.array([-1, 8], np.int64)}, sym={"x": ["batch", 2, 2, 2], "y": ["batch", 8]})
    # ---- resize: scales, sizes and roi as initializers; ONNX 1.12's reference gives the values ---
    from onnx.backend.test.case.node.resize import interpolate_nd, linear_coeffs, cubic_coeffs, nearest_coeffs
    xr = r(1, 2, 4, 5)
    sc = np.array([1, 1, 1.5, 0.6], F)
    case("resize_linear", [N("Resize", ["x", "", "sc"], mode="linear")], [("x", xr)],
         [("y", interpolate_nd(xr, linear_coeffs, scale_factors=sc).astype(F))], inits={"sc": sc})
    sz = np.array([1, 2, 7, 3], np.int64)
    case("resize_cubic_align", [N("Resize", ["x", "", "", "sz"], mode="cubic", coordinate_transformation_mode="align_corners",
                                  exclude_outside=1)], [("x", xr)],
         [("y", interpolate_nd(xr, cubic_coeffs, output_size=sz, coordinate_transformation_mode="align_corners",
                               exclude_outside=True).astype(F))], inits={"sz": sz})
    roi = np.array([0, 0, 0.2, -0.1, 1, 1, 0.9, 1.3], F)
    case("resize_crop", [N("Resize", ["x", "roi", "e", "sz"], mode="nearest", coordinate_transformation_mode="tf_crop_and_resize",
                           nearest_mode="ceil", extrapolation_value=-3.0)], [("x", xr)],
         [("y", interpolate_nd(xr, lambda v: nearest_coeffs(v, mode="ceil"), output_size=sz, roi=roi,
                               coordinate_transformation_mode="tf_crop_and_resize", extrapolation_value=-3.0).astype(F))],
         inits={"sz": sz, "roi": roi, "e": np.zeros(0, F)}, opset=11)
    xu = np.arange(6, dtype=np.int64).reshape(1, 2, 3)
    case("upsample_7", [N("Upsample", ["x"], scales=[1.0, 2.0, 1.5])], [("x", xu)],
         [("y", xu[:, np.arange(4) // 2][:, :, (np.arange(4) / 1.5).astype(np.int64)])], opset=7)
    case("resize_10", [N("Resize", ["x", "sc"])], [("x", xu)],
         [("y", xu[:, np.arange(4) // 2][:, :, (np.arange(4) / 1.5).astype(np.int64)])],
         inits={"sc": np.array([1.0, 2.0, 1.5], F)}, opset=10)
    window_cases()  # last: the cases above keep their random draws
    spectral_cases()
    quant_cases()
    # ---- graph inputs bound at import: shape-like operands fed as inputs (I0012 without --bind) ----
    case("reshape_bound", [N("Reshape", ["x", "s"])], [("x", x3)], [("y", x3.reshape(4, 6))], bind={"s": np.array([4, -1], np.int64)})
    # Slice's starts computed from a bound input (an Add folds once it is known), its ends from another.
    case("slice_bound", [N("Add", ["st0", "one"], ["st"]), N("Slice", ["x", "st", "en"])], [("x", xs10)], [("y", xs10[1:3, 2:5])],
         inits={"one": np.array([1, 1], np.int64)}, bind={"st0": np.array([0, 1], np.int64), "en": np.array([3, 5], np.int64)})
    # An initializer also listed as a graph input: its value is the model's (binding it is I0013).
    case("reshape_default", [N("Reshape", ["x", "s"])], [("x", x3)], [("y", x3.reshape(6, 4))], defaults={"s": np.array([6, 4], np.int64)})
    control_cases()
    scatter_cases()  # own generator, after the others (their draws unchanged)
    pool3d_cases()  # last: the cases above keep their random draws
    print(f"wrote {len(os.listdir(OUT))} cases under {OUT}")



def quant_cases():
    """QuantizeLinear, DequantizeLinear, DynamicQuantizeLinear, the integer and QLinear products,
    MaxPool on 8-bit integers, and Pow with integer operands (own generator)."""
    g = np.random.default_rng(1913)
    U8, I8, I32 = np.uint8, np.int8, np.int32

    def quantize(x, s, zp, qt):
        lo, hi = (-128, 127) if qt == I8 else (0, 255)
        return np.clip(np.rint(x / s) + zp.astype(F), lo, hi).astype(qt)

    # Per tensor, uint8: halves (x / 2 = n + 0.5) go to even, both ends saturate.
    x = np.concatenate([np.arange(-7, 8, dtype=F), [1000, -1000, 300.5, -0.0], (g.standard_normal(5) * 40).astype(F)]).astype(F)
    s, zp = np.array(2, F), np.array(100, U8)
    case("quantizelinear", [N("QuantizeLinear", ["x", "s", "zp"])], [("x", x), ("s", s), ("zp", zp)], [("y", quantize(x, s, zp, U8))])
    # Per axis (axis 1 of [2, 3, 4]), int8.
    xa = (g.standard_normal((2, 3, 4)) * 60).astype(F)
    sa, za = np.array([0.5, 1.25, 3.0], F), np.array([-3, 0, 120], I8)
    case("quantizelinear_axis_int8", [N("QuantizeLinear", ["x", "s", "zp"], axis=-2)], [("x", xa), ("s", sa), ("zp", za)],
         [("y", quantize(xa, sa.reshape(1, 3, 1), za.reshape(1, 3, 1), I8))])
    # Opset 10: per tensor, no zero point (uint8, zp 0).
    case("quantizelinear_10", [N("QuantizeLinear", ["x", "s"])], [("x", xa)], [("y", quantize(xa, F(0.75), np.zeros((), U8), U8))],
         inits={"s": np.array(0.75, F)}, opset=10)
    q8 = g.integers(-128, 128, (3, 2, 2)).astype(I8)
    sd, zd = np.array([0.1, 2.0, 0.03], F), np.array([5, -128, 127], I8)
    case("dequantizelinear_axis_int8", [N("DequantizeLinear", ["q", "s", "zp"], axis=0)], [("q", q8), ("s", sd), ("zp", zd)],
         [("y", (q8.astype(F) - zd.reshape(3, 1, 1).astype(F)) * sd.reshape(3, 1, 1))])
    q32 = np.array([0, 1, -7, 2 ** 24 + 1, -2 ** 31], I32)
    case("dequantizelinear_int32", [N("DequantizeLinear", ["q", "s"])], [("q", q32)], [("y", q32.astype(F) * F(0.5))],
         inits={"s": np.array(0.5, F)})
    xd = (g.standard_normal((3, 5)) * 2).astype(F)
    mn, mx = np.minimum(xd.min(), F(0)), np.maximum(xd.max(), F(0))
    sc = (mx - mn) / F(255)
    zq = np.rint(np.clip(F(0) - mn / sc, F(0), F(255)))
    case("dynamicquantizelinear", [N("DynamicQuantizeLinear", ["x"], ["y", "s", "zp"])], [("x", xd)],
         [("y", np.clip(np.rint(xd / sc) + zq, 0, 255).astype(U8)), ("s", np.array(sc, F)), ("zp", np.array(zq, U8))])

    # MatMulInteger: uint8 A [2, 3, 5] with a zero point per row, int8 B [5, 4] with one per column.
    A, B = g.integers(0, 256, (2, 3, 5)).astype(U8), g.integers(-128, 128, (5, 4)).astype(I8)
    az, bz = g.integers(0, 256, 3).astype(U8), g.integers(-128, 128, 4).astype(I8)
    ref = lambda a, za, b, zb: np.matmul(a.astype(np.int64) - za, b.astype(np.int64) - zb)
    case("matmulinteger_per_row_col", [N("MatMulInteger", ["a", "b", "az", "bz"])], [("a", A), ("b", B), ("az", az), ("bz", bz)],
         [("y", ref(A, az.reshape(3, 1), B, bz).astype(I32))])
    # K = 300 (past the f32 bound, through f64), extreme values: |sum| near 300 * 65025.
    A2 = np.full((2, 300), 255, U8)
    A2[1, ::2] = 0
    B2 = np.full((300, 3), -128, I8)
    B2[:, 1] = 127
    case("matmulinteger_long_k", [N("MatMulInteger", ["a", "b", "az", "bz"])], [("a", A2), ("b", B2)],
         [("y", ref(A2, 0, B2, np.array([127, -128, 0])).astype(I32))],
         inits={"az": np.array(0, U8), "bz": np.array([127, -128, 0], I8)})
    # 1-D A, no zero points.
    a1 = g.integers(0, 256, 5).astype(U8)
    case("matmulinteger_1d", [N("MatMulInteger", ["a", "b"])], [("a", a1), ("b", B)], [("y", ref(a1, 0, B, 0).astype(I32))])

    # ConvInteger: groups, strides, pads (padding counts as the zero point), a per-channel w zero point.
    xc = g.integers(0, 256, (1, 4, 5, 5)).astype(U8)
    wc = g.integers(-128, 128, (4, 2, 3, 3)).astype(I8)
    xz, wz = np.array(7, U8), g.integers(-128, 128, 4).astype(I8)
    conv_i = lambda x, xz, w, wz, **kw: np.rint(np_conv(x.astype(np.float64) - xz, w.astype(np.float64) - wz.reshape(-1, 1, 1, 1), **kw))
    case("convinteger_group_pads", [N("ConvInteger", ["x", "w", "xz", "wz"], group=2, strides=[2, 1], pads=[1, 0, 1, 2])],
         [("x", xc), ("w", wc), ("xz", xz), ("wz", wz)],
         [("y", conv_i(xc, 7, wc, wz, group=2, strides=[2, 1], pads=[1, 0, 1, 2]).astype(I32))])
    case("convinteger_1d", [N("ConvInteger", ["x", "w"])], [("x", xc[:, :, 0]), ("w", wc[:2, :, 0].repeat(2, axis=1))],
         [("y", np.rint(np_conv(xc[:, :, 0].astype(np.float64), wc[:2, :, 0].repeat(2, axis=1).astype(np.float64))).astype(I32))])

    # QLinearMatMul: int8 a, uint8 b with a scale per column; the reference's f64 requantization.
    def requant(acc, s, zp):
        lo, hi = (-128, 127) if zp.dtype == I8 else (0, 255)
        return np.rint(np.clip(acc.astype(np.float64) * s.astype(np.float64) + zp.astype(np.float64), lo, hi)).astype(zp.dtype)

    qa, qb = g.integers(-128, 128, (3, 6)).astype(I8), g.integers(0, 256, (6, 4)).astype(U8)
    sa_, za_ = np.array(0.02, F), np.array(-5, I8)
    sb_, zb_ = np.array([0.01, 0.003, 0.05, 0.02], F), np.array(128, U8)
    sy_, zy_ = np.array(0.04, F), np.array(10, I8)
    case("qlinearmatmul_int8_per_column",
         [N("QLinearMatMul", ["a", "sa", "za", "b", "sb", "zb", "sy", "zy"])],
         [("a", qa), ("sa", sa_), ("za", za_), ("b", qb), ("sb", sb_), ("zb", zb_), ("sy", sy_), ("zy", zy_)],
         [("y", requant(ref(qa, -5, qb, 128), (sa_ * sb_) / sy_, zy_))])
    # QLinearConv with an int32 bias and a scale per output channel.
    xq = g.integers(0, 256, (1, 2, 4, 4)).astype(U8)
    wq = g.integers(0, 256, (3, 2, 2, 2)).astype(U8)
    bq = np.array([1000, -70000, 2 ** 31 - 3000], I32)  # channel 2: acc + b leaves int32 and wraps
    sx, zx = np.array(0.05, F), np.array(120, U8)
    sw, zw = np.array([0.01, 0.002, 0.004], F), np.array([128, 100, 0], U8)
    sy2, zy2 = np.array(0.3, F), np.array(60, U8)
    acc = np_conv(xq.astype(np.float64) - 120, wq.astype(np.float64) - zw.reshape(3, 1, 1, 1), pads=[1, 1, 0, 0])
    acc = np.rint(acc) + bq.reshape(1, 3, 1, 1)
    acc = (acc + 2 ** 31) % 2 ** 32 - 2 ** 31  # int32 wrap-around, as an int32 accumulator
    case("qlinearconv_bias_per_channel",
         [N("QLinearConv", ["x", "sx", "zx", "w", "sw", "zw", "sy", "zy", "b"], pads=[1, 1, 0, 0])],
         [("x", xq), ("sx", sx), ("zx", zx), ("w", wq), ("sw", sw), ("zw", zw), ("sy", sy2), ("zy", zy2), ("b", bq)],
         [("y", requant(acc, ((sx * sw) / sy2).reshape(1, 3, 1, 1), zy2))])

    # MaxPool on uint8 and int8 (through an exact f32 cast).
    for qt, name in ((U8, "maxpool_uint8"), (I8, "maxpool_int8")):
        info = np.iinfo(qt)
        xp = g.integers(info.min, info.max + 1, (1, 2, 5, 5)).astype(qt)
        xp[0, 0, 0, 0] = info.max
        yp, _ = np_pool(xp.astype(F), [3, 3], strides=[2, 2], pads=[1, 1, 1, 1])
        case(name, [N("MaxPool", ["x"], kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1])], [("x", xp)], [("y", yp.astype(qt))])

    # Pow with an integer base: exact, wrapping like numpy's integer power; a negative exponent
    # gives trunc(1 / x^|e|) (1, +-1, else 0, 0^-e included: rung's definition).
    def ipow(x, e, bits):
        m = 1 << bits
        out = []
        for xv, ev in zip(np.broadcast_to(x, np.broadcast_shapes(x.shape, e.shape)).ravel(),
                          np.broadcast_to(e, np.broadcast_shapes(x.shape, e.shape)).ravel()):
            xv, ev = int(xv), int(ev)
            if ev < 0:
                v = 1 if xv == 1 else ((-1) ** (-ev) if xv == -1 else 0)
            else:
                v = pow(xv, ev, m)
            v %= m
            out.append(v - m if v >= m // 2 else v)
        return np.array(out, np.int64).reshape(np.broadcast_shapes(x.shape, e.shape))

    xb = np.array([2, -3, 7, 0, 1, -1, 5, -2, 3, 0, -1, 2], I32)
    eb = np.array([10, 5, 0, 0, -4, -3, 20, 31, 40, -2, 1000001, -1], I32)
    case("pow_int32_int32", [N("Pow", ["x", "e"])], [("x", xb), ("e", eb)], [("y", ipow(xb, eb, 32).astype(I32))])
    xl = np.array([[3], [-7], [2]], np.int64)
    el = np.array([0, 1, 63, 41], np.int64)
    case("pow_int64_int64", [N("Pow", ["x", "e"])], [("x", xl), ("e", el)], [("y", ipow(xl, el, 64))])
    # A known, integral float exponent of an integer base.
    ef = np.array([3.0, 0.0, 12.0], F)
    case("pow_int32_float_known", [N("Pow", ["x", "e"])], [("x", xb[:3])], [("y", ipow(xb[:3], ef.astype(np.int64), 32).astype(I32))],
         inits={"e": ef})
    # Float bases: an int8 exponent (always exact in f32), an int64 one bound at import.
    xf = np.array([1.5, -2.0, 0.5, 3.0, -1.0], F)
    x8 = np.array([1.5, -2.0, 0.5, 3.0, -1.0, 0.0, -0.0, 2.0], F)
    e8 = np.array([3, -2, 7, 0, 101, -2, -3, 127], I8)
    with np.errstate(divide="ignore"):  # 0^-2 = inf, -0^-3 = -inf
        y8 = np.power(x8.astype(np.float64), e8.astype(np.float64)).astype(F)
    case("pow_float_int8", [N("Pow", ["x", "e"])], [("x", x8), ("e", e8)], [("y", y8)])
    e64 = np.array([2, 3, -4, 5, 7], np.int64)
    case("pow_float_int64_bound", [N("Pow", ["x", "e"])], [("x", xf)], [("y", np.power(xf.astype(np.float64), e64).astype(F))],
         bind={"e": e64})


def scatter_cases():
    """GatherND, Compress, Scatter/ScatterElements/ScatterND, MaxUnpool, TopK, GridSample, RoiAlign
    (own generator). Index operands are initializers or bound graph inputs (known at import)."""
    g = np.random.default_rng(2024)
    I64 = np.int64
    # GatherND: negative indices, a slice per tuple; batch_dims 1 with a bound index input.
    d = g.standard_normal((3, 4, 2)).astype(F)
    ind = np.array([[[0, -1]], [[2, 1]]], I64)  # [2, 1, 2]: tuples of 2 -> slices of [2]
    case("gathernd", [N("GatherND", ["d", "i"])], [("d", d)], [("y", d[ind[..., 0], ind[..., 1]])], opset=13, inits={"i": ind})
    ib = np.array([[1], [3], [0]], I64)  # batch_dims 1: y[b] = d[b, ib[b, 0]]
    case("gathernd_batch_bound", [N("GatherND", ["d", "i"], batch_dims=1)], [("d", d)],
         [("y", np.stack([d[b, ib[b, 0]] for b in range(3)]))], opset=13, bind={"i": ib})
    # ... indices computed at run time (a graph input): flat rows computed in the graph.
    ir = np.array([[[1], [-2]], [[0], [3]], [[2], [2]]], I64)  # [3, 2, 1], batch_dims 1: y[b, j] = d[b, ir[b, j, 0]]
    case("gathernd_runtime_batch", [N("GatherND", ["d", "i"], batch_dims=1)], [("d", d), ("i", ir)],
         [("y", np.stack([d[b, ir[b, :, 0]] for b in range(3)]))], opset=13)
    i1 = np.array([-1, 2], np.int32)
    case("gathernd_runtime_scalar", [N("GatherND", ["d", "i"])], [("d", d), ("i", i1)], [("y", d[-1, 2])], opset=13)
    # Compress along an axis (a condition shorter than the axis), and flattened.
    x = g.standard_normal((3, 5)).astype(F)
    cond = np.array([True, False, True, True], np.bool_)
    case("compress_axis", [N("Compress", ["x", "c"], axis=-1)], [("x", x)], [("y", np.compress(cond, x, axis=1))], opset=11, inits={"c": cond})
    cf = np.array([False, True, False, False, True, True, False, True], np.bool_)
    case("compress_flat_bound", [N("Compress", ["x", "c"])], [("x", x)], [("y", np.compress(cf, x))], opset=11, bind={"c": cf})

    def scatter_el(data, idx, upd, axis, red=None):
        y = data.copy()
        for p in np.ndindex(*idx.shape):
            t = list(p)
            t[axis] = idx[p] % data.shape[axis]
            t = tuple(t)
            y[t] = upd[p] if red is None else (y[t] + upd[p] if red == "add" else y[t] * upd[p])
        return y

    data = g.standard_normal((3, 4)).astype(F)
    idx = np.array([[1, -1, 0, 2], [0, 2, -3, 1]], I64)
    upd = g.standard_normal((2, 4)).astype(F)
    case("scatterelements", [N("ScatterElements", ["d", "i", "u"])], [("d", data), ("u", upd)], [("y", scatter_el(data, idx, upd, 0))],
         opset=13, inits={"i": idx})
    idd = np.array([[1, 1, 3], [0, 0, 0], [2, -2, 2]], I64)  # duplicates along axis 1
    ud = g.standard_normal((3, 3)).astype(F)
    case("scatterelements_add_duplicates", [N("ScatterElements", ["d", "i", "u"], axis=1, reduction="add")], [("d", data), ("u", ud)],
         [("y", scatter_el(data, idd, ud, 1, "add"))], opset=16, inits={"i": idd})
    case("scatterelements_mul_bound", [N("ScatterElements", ["d", "i", "u"], axis=1, reduction="mul")], [("d", data), ("u", ud)],
         [("y", scatter_el(data, idd, ud, 1, "mul"))], opset=16, bind={"i": idd})
    # ... indices computed at run time (a graph input): the last write per element wins.
    case("scatterelements_runtime", [N("ScatterElements", ["d", "i", "u"], axis=1)], [("d", data), ("i", idd), ("u", ud)],
         [("y", scatter_el(data, idd, ud, 1))], opset=13)
    case("scatter_10", [N("Scatter", ["d", "i", "u"], axis=1)], [("d", data), ("u", ud[:, :2])],
         [("y", scatter_el(data, np.array([[3, 0], [1, 2], [0, 0]], I64), ud[:, :2], 1))], opset=10,
         inits={"i": np.array([[3, 0], [1, 2], [0, 0]], I64)})

    def scatter_nd(data, idx, upd, red=None):
        y = data.copy()
        for p in np.ndindex(*idx.shape[:-1]):
            t = tuple(int(v) for v in idx[p])
            y[t] = upd[p] if red is None else (y[t] + upd[p] if red == "add" else y[t] * upd[p])
        return y

    dn = g.standard_normal((4, 3, 2)).astype(F)
    inn = np.array([[[1, 2]], [[-1, 0]]], I64)  # [2, 1, 2]: elements of [2]
    un = g.standard_normal((2, 1, 2)).astype(F)
    case("scatternd", [N("ScatterND", ["d", "i", "u"])], [("d", dn), ("u", un)], [("y", scatter_nd(dn, inn, un))], opset=13, inits={"i": inn})
    ina = np.array([[0], [2], [0]], I64)  # whole [3, 2] slices, row 0 twice
    ua = g.standard_normal((3, 3, 2)).astype(F)
    case("scatternd_add_duplicates", [N("ScatterND", ["d", "i", "u"], reduction="add")], [("d", dn), ("u", ua)],
         [("y", scatter_nd(dn, ina, ua, "add"))], opset=16, inits={"i": ina})
    case("scatternd_runtime", [N("ScatterND", ["d", "i", "u"])], [("d", dn), ("i", ina), ("u", ua)], [("y", scatter_nd(dn, ina, ua))],
         opset=13)
    inr = np.array([[[1, 2]], [[-1, 0]], [[1, -1]]], np.int32)
    ur = g.standard_normal((3, 1, 2)).astype(F)
    case("scatternd_runtime_elements", [N("ScatterND", ["d", "i", "u"])], [("d", dn), ("i", inr), ("u", ur)],
         [("y", scatter_nd(dn, inr, ur))], opset=13)
    # MaxUnpool: the indices MaxPool gives (flat over the whole tensor), then a larger output_shape.
    xp = g.standard_normal((2, 2, 4, 4)).astype(F)
    pooled = np.zeros((2, 2, 2, 2), F)
    pidx = np.zeros((2, 2, 2, 2), I64)
    for n, ch, i, j in np.ndindex(2, 2, 2, 2):
        win = xp[n, ch, 2 * i:2 * i + 2, 2 * j:2 * j + 2]
        a, b = np.unravel_index(np.argmax(win), (2, 2))
        pooled[n, ch, i, j] = win[a, b]
        pidx[n, ch, i, j] = ((n * 2 + ch) * 4 + 2 * i + a) * 4 + 2 * j + b
    un4 = np.zeros((2, 2, 4, 4), F)
    un4.reshape(-1)[pidx.reshape(-1)] = pooled.reshape(-1)
    case("maxunpool", [N("MaxUnpool", ["x", "i"], kernel_shape=[2, 2], strides=[2, 2])], [("x", pooled)], [("y", un4)], opset=11,
         inits={"i": pidx})
    case("maxunpool_runtime", [N("MaxUnpool", ["x", "i"], kernel_shape=[2, 2], strides=[2, 2])], [("x", pooled), ("i", pidx)],
         [("y", un4)], opset=11)
    un5 = np.zeros((2, 2, 5, 6), F)
    un5[:, :, :4, :4] = un4
    case("maxunpool_output_shape_bound", [N("MaxUnpool", ["x", "i", "s"], kernel_shape=[2, 2], strides=[2, 2])], [("x", pooled)],
         [("y", un5)], opset=11, bind={"i": pidx, "s": np.array([2, 2, 5, 6], I64)})
    case("maxunpool_runtime_output_shape", [N("MaxUnpool", ["x", "i", "s"], kernel_shape=[2, 2], strides=[2, 2])],
         [("x", pooled), ("i", pidx)], [("y", un5)], opset=11, inits={"s": np.array([2, 2, 5, 6], I64)})

    # TopK: ties go to the lower index; NaN above every number (numpy's sort order); -inf, -0.
    def topk(x, k, axis, largest):
        n = x.shape[axis]
        xm = np.moveaxis(x, axis, -1)
        vals, inds = np.zeros(xm.shape[:-1] + (k,), x.dtype), np.zeros(xm.shape[:-1] + (k,), I64)
        for p in np.ndindex(*xm.shape[:-1]):
            row = xm[p]
            key = lambda i: ((0 if np.isnan(row[i]) else 1), -row[i] if not np.isnan(row[i]) else 0, i) if largest else \
                ((1 if np.isnan(row[i]) else 0), row[i] if not np.isnan(row[i]) else 0, i)
            order = sorted(range(n), key=key)[:k]
            inds[p] = order
            vals[p] = row[order]
        return np.moveaxis(vals, -1, axis), np.moveaxis(inds, -1, axis)

    xt = g.standard_normal((2, 6, 3)).astype(F)
    xt[0, :, 0] = [1.0, np.nan, 2.0, 1.0, -np.inf, 2.0]
    xt[1, :, 1] = [0.0, -0.0, np.nan, 0.0, np.nan, -1.0]
    v, i = topk(xt, 4, 1, True)
    case("topk", [N("TopK", ["x", "k"], ["v", "i"], axis=1)], [("x", xt)], [("v", v), ("i", i)], opset=11,
         inits={"k": np.array([4], I64)})
    v, i = topk(xt, 3, 1, False)
    case("topk_smallest_bound", [N("TopK", ["x", "k"], ["v", "i"], axis=-2, largest=0)], [("x", xt)], [("v", v), ("i", i)],
         opset=11, bind={"k": np.array([3], I64)})
    xi = g.integers(-3, 3, (3, 5)).astype(np.int32)
    v, i = topk(xi, 2, 0, True)
    case("topk_int", [N("TopK", ["x", "k"], ["v", "i"], axis=0)], [("x", xi)], [("v", v), ("i", i)], opset=11,
         inits={"k": np.array([2], I64)})
    v, i = topk(xt, 2, 2, True)
    case("topk_1", [N("TopK", ["x"], ["v", "i"], k=2)], [("x", xt)], [("v", v), ("i", i)], opset=1)

    # GridSample, as PyTorch's grid_sampler_2d: bilinear/zeros, nearest/border, bicubic/reflection.
    def unnorm(c, size, align):
        return (c + 1) / 2 * (size - 1) if align else ((c + 1) * size - 1) / 2

    def reflect(c, lo2, hi2):
        if lo2 == hi2:
            return 0.0
        mn, span = lo2 / 2, (hi2 - lo2) / 2
        c = abs(c - mn)
        extra, flips = np.fmod(c, span), np.floor(c / span)
        return extra + mn if flips % 2 == 0 else span - extra + mn

    def padc(c, size, pad, align):
        if pad == "border":
            return min(size - 1, max(c, 0))
        if pad == "reflection":
            c = reflect(c, 0, 2 * (size - 1)) if align else reflect(c, -1, 2 * size - 1)
            return min(size - 1, max(c, 0))
        return c

    def grid_sample(x, grid, mode, pad, align):
        n_, c_, h, w = x.shape
        _, ho, wo, _ = grid.shape
        y = np.zeros((n_, c_, ho, wo), np.float64)

        def px(n, yy, xx):
            yy, xx = int(yy), int(xx)
            return x[n, :, yy, xx].astype(np.float64) if 0 <= yy < h and 0 <= xx < w else np.zeros(c_)

        def cub(t):
            a = -0.75
            c1 = lambda s: ((a + 2) * s - (a + 3)) * s * s + 1
            c2 = lambda s: ((a * s - 5 * a) * s + 8 * a) * s - 4 * a
            return [c2(t + 1), c1(t), c1(1 - t), c2(2 - t)]

        for n, i, j in np.ndindex(n_, ho, wo):
            gx, gy = float(grid[n, i, j, 0]), float(grid[n, i, j, 1])
            if mode == "bicubic":
                ix, iy = unnorm(gx, w, align), unnorm(gy, h, align)
                x0, y0 = np.floor(ix), np.floor(iy)
                wx, wy = cub(ix - x0), cub(iy - y0)
                for a in range(4):
                    for b in range(4):
                        yy, xx = padc(y0 - 1 + a, h, pad, align), padc(x0 - 1 + b, w, pad, align)
                        y[n, :, i, j] += wy[a] * wx[b] * px(n, np.trunc(yy), np.trunc(xx))
                continue
            ix, iy = padc(unnorm(gx, w, align), w, pad, align), padc(unnorm(gy, h, align), h, pad, align)
            if mode == "nearest":
                y[n, :, i, j] = px(n, np.round(iy), np.round(ix))
                continue
            x0, y0 = np.floor(ix), np.floor(iy)
            for yy, xx, wt in [(y0, x0, (x0 + 1 - ix) * (y0 + 1 - iy)), (y0, x0 + 1, (ix - x0) * (y0 + 1 - iy)),
                               (y0 + 1, x0, (x0 + 1 - ix) * (iy - y0)), (y0 + 1, x0 + 1, (ix - x0) * (iy - y0))]:
                y[n, :, i, j] += wt * px(n, yy, xx)
        return y.astype(F)

    xg = g.standard_normal((2, 3, 4, 5)).astype(F)
    grid = (np.round(g.uniform(-1.3, 1.3, (2, 3, 4, 2)) * 16) / 16).astype(F)  # exact coordinates
    for mode, pad, align in [("bilinear", "zeros", 0), ("nearest", "border", 0), ("bicubic", "reflection", 1), ("bilinear", "reflection", 0)]:
        case(f"gridsample_{mode}_{pad}_{align}", [N("GridSample", ["x", "g"], mode=mode, padding_mode=pad, align_corners=align)], [("x", xg)],
             [("y", grid_sample(xg, grid, mode, pad, align))], opset=16, bind={"g": grid})

    # ... a grid computed at run time (bilinear, nearest; zeros, border): the same arithmetic as graph ops.
    for mode, pad, align in [("bilinear", "zeros", 0), ("bilinear", "border", 1), ("nearest", "zeros", 1), ("nearest", "border", 0)]:
        case(f"gridsample_runtime_{mode}_{pad}_{align}", [N("GridSample", ["x", "g"], mode=mode, padding_mode=pad, align_corners=align)],
             [("x", xg), ("g", grid)], [("y", grid_sample(xg, grid, mode, pad, align))], opset=16)
    # RoiAlign (avg), as onnxruntime's RoiAlign: half_pixel and output_half_pixel, adaptive sampling.
    def roi_align(x, rois, bidx, oh, ow, ratio, scale, half, mode="avg"):
        _, c_, h, w = x.shape
        y = np.zeros((len(rois), c_, oh, ow), np.float64)
        for r, (roi, b) in enumerate(zip(rois.astype(np.float64), bidx)):
            off = 0.5 if half else 0.0
            sw, sh, ew, eh = roi * scale - off
            rw, rh = ew - sw, eh - sh
            if not half:
                rw, rh = max(rw, 1.0), max(rh, 1.0)
            bh, bw = rh / oh, rw / ow
            gh = ratio if ratio > 0 else int(np.ceil(rh / oh))
            gw = ratio if ratio > 0 else int(np.ceil(rw / ow))
            for ph, pw in np.ndindex(oh, ow):
                acc = np.zeros(c_) if mode == "avg" else np.full(c_, -np.inf)
                for iy, ix in np.ndindex(gh, gw):
                    yy = sh + ph * bh + (iy + 0.5) * bh / gh
                    xx = sw + pw * bw + (ix + 0.5) * bw / gw
                    if yy < -1 or yy > h or xx < -1 or xx > w:
                        acc = acc if mode == "avg" else np.maximum(acc, 0.0)  # onnxruntime: four zero-weight corners
                        continue
                    yy, xx = max(yy, 0.0), max(xx, 0.0)
                    yl, xl = int(yy), int(xx)
                    if yl >= h - 1:
                        yl = yh = h - 1
                        yy = float(yl)
                    else:
                        yh = yl + 1
                    if xl >= w - 1:
                        xl = xh = w - 1
                        xx = float(xl)
                    else:
                        xh = xl + 1
                    ly, lx = yy - yl, xx - xl
                    corners = [(1 - ly) * (1 - lx) * x[b, :, yl, xl], (1 - ly) * lx * x[b, :, yl, xh], ly * (1 - lx) * x[b, :, yh, xl],
                               ly * lx * x[b, :, yh, xh]]
                    # max: the largest weighted corner, as onnxruntime's RoiAlign takes it
                    acc = acc + sum(corners) if mode == "avg" else np.maximum(acc, np.max(corners, axis=0))
                y[r, :, ph, pw] = acc / max(gh * gw, 1) if mode == "avg" else acc
        return y.astype(F)

    xr = g.standard_normal((2, 2, 6, 7)).astype(F)
    rois = np.array([[0.5, 1.0, 5.5, 4.0], [2.0, 0.0, 6.9, 5.9], [-0.5, 3.0, 1.5, 3.2]], F)
    bidx = np.array([1, 0, 1], I64)
    case("roialign_half_pixel", [N("RoiAlign", ["x", "r", "b"], output_height=3, output_width=2, sampling_ratio=2, spatial_scale=1.0)],
         [("x", xr)], [("y", roi_align(xr, rois, bidx, 3, 2, 2, 1.0, True))], opset=16, bind={"r": rois, "b": bidx})
    case("roialign_adaptive_10", [N("RoiAlign", ["x", "r", "b"], output_height=2, output_width=2, spatial_scale=0.5)],
         [("x", xr)], [("y", roi_align(xr, rois * 2, bidx, 2, 2, 0, 0.5, False))], opset=10, inits={"r": rois * 2, "b": bidx})
    case("roialign_max", [N("RoiAlign", ["x", "r", "b"], mode="max", output_height=2, output_width=3, sampling_ratio=2,
                            coordinate_transformation_mode="output_half_pixel")],
         [("x", xr)], [("y", roi_align(xr, rois, bidx, 2, 3, 2, 1.0, False, "max"))], opset=16, inits={"r": rois, "b": bidx})


def spectral_cases():
    """DFT, STFT and MelWeightMatrix against numpy.fft in float64 (own generator)."""
    g = np.random.default_rng(1917)

    def stack(y):
        return np.stack((y.real, y.imag), axis=-1)

    xr = g.standard_normal((2, 8, 3, 1)).astype(F)
    case("dft_real", [N("DFT", ["x"], axis=1)], [("x", xr)], [("y", stack(np.fft.fft(xr[..., 0].astype(np.float64), axis=1)).astype(F))])
    case("dft_onesided_length", [N("DFT", ["x", "n"], axis=2, onesided=1)], [("x", xr)],
         [("y", stack(np.fft.rfft(xr[..., 0].astype(np.float64), n=6, axis=2)).astype(F))], inits={"n": np.array(6, np.int64)})
    xc = g.standard_normal((1, 3, 6, 2)).astype(F)
    z = xc[..., 0].astype(np.float64) + 1j * xc[..., 1]
    case("dft_inverse_complex", [N("DFT", ["x"], axis=2, inverse=1)], [("x", xc)], [("y", stack(np.fft.ifft(z, axis=2)).astype(F))])
    sig = g.standard_normal((2, 20, 1)).astype(F)
    win = np.hanning(8).astype(F)
    frames = np.stack([sig[:, i * 4:i * 4 + 8, 0] * win for i in range(4)], axis=1).astype(np.float64)
    case("stft_window", [N("STFT", ["s", "step", "w"])], [("s", sig), ("w", win)], [("y", stack(np.fft.rfft(frames, axis=2)).astype(F))],
         inits={"step": np.array(4, np.int64)})
    # MelWeightMatrix: its scalars known at import; the suite's formula (num_mel_bins + 2 points).
    nb, nd, sr, lo, hi = 4, 32, 16000, 100.0, 7000.0
    mel = lambda hz: 2595 * np.log10(1 + hz / 700)
    pts = np.arange(nb + 2) * ((mel(hi) - mel(lo)) / (nb + 2)) + mel(lo)
    f = np.floor((nd + 1) * (700 * (10 ** (pts / 2595) - 1)) / sr).astype(int)
    w = np.zeros((nd // 2 + 1, nb))
    for i in range(nb):
        l, m, r_ = f[i], f[i + 1], f[i + 2]
        if m == l:
            w[m, i] = 1
        else:
            for j in range(l, m + 1):
                w[j, i] = (j - l) / (m - l)
        for j in range(m, r_):
            w[j, i] = (r_ - j) / (r_ - m)
    xm = g.standard_normal((nd // 2 + 1, nb)).astype(F)
    case("melweightmatrix", [N("MelWeightMatrix", ["nb", "nd", "sr", "lo", "hi"], ["w"]), N("Add", ["w", "x"])], [("x", xm)],
         [("y", (w.astype(F) + xm))], inits={"nb": np.array(nb, np.int32), "nd": np.array(nd, np.int32), "sr": np.array(sr, np.int32),
                                            "lo": np.array(lo, F), "hi": np.array(hi, F)})


def index_and_rounding_cases():
    """Floor, Ceil, Round, BitShift, GatherElements, CumSum (own generator: the cases above keep their bytes)."""
    g = np.random.default_rng(191)
    x = (4 * g.standard_normal((3, 4))).astype(F)
    x[0, :4] = [0.5, -0.5, 2.5, -0.0]  # halves go to even; the sign of zero stays
    case("floor", [N("Floor", ["x"])], [("x", x)], [("y", np.floor(x))])
    case("ceil", [N("Ceil", ["x"])], [("x", x)], [("y", np.ceil(x))])
    case("round", [N("Round", ["x"])], [("x", x)], [("y", np.round(x))])
    a = np.array([1, 7, 255, 16], np.uint8)
    sh = np.array([1, 2, 8, 3], np.uint8)
    case("bitshift", [N("BitShift", ["a", "s"], direction="LEFT")], [("a", a), ("s", sh)],
         [("y", np.where(sh < 8, (a.astype(np.uint32) << sh) & 0xFF, 0).astype(np.uint8))])
    case("bitshift_right", [N("BitShift", ["a", "s"], direction="RIGHT")], [("a", a), ("s", sh)],
         [("y", np.where(sh < 8, a >> np.minimum(sh, 7), 0).astype(np.uint8))])
    d = g.standard_normal((3, 4)).astype(F)
    idx = np.array([[0, -1, 2, 1], [3, 3, 0, -4]], np.int64)
    case("gatherelements", [N("GatherElements", ["d", "i"], axis=1)], [("d", d), ("i", idx)],
         [("y", np.take_along_axis(d[:2], idx % 4, axis=1))])
    c = g.standard_normal((2, 5)).astype(F)
    ex = np.concatenate([np.zeros((2, 1), F), np.cumsum(c[:, ::-1], axis=1, dtype=F)[:, :-1]], axis=1)[:, ::-1]
    case("cumsum", [N("CumSum", ["c", "ax"])], [("c", c)], [("y", np.cumsum(c, axis=1, dtype=F))], inits={"ax": np.array(1, np.int64)})
    case("cumsum_reverse_exclusive", [N("CumSum", ["c", "ax"], reverse=1, exclusive=1)], [("c", c)], [("y", ex)],
         inits={"ax": np.array(-1, np.int32)})

def recurrent_cases():
    """RNN, GRU and LSTM by the operator specification's equations, in NumPy (own generator: the
    cases above keep their bytes)."""
    g = np.random.default_rng(190)
    rr = lambda *s: (0.5 * g.standard_normal(s)).astype(F)
    sig = lambda v: 1 / (1 + np.exp(-v))
    S, B, I, H = 3, 2, 3, 4

    def run(kind, x, w, r, b, h0, c0=None, p=None, lens=None, reverse=False, lbr=0):
        h, cc, ys = h0, c0, np.zeros((S, B, H), F)
        steps = range(S - 1, -1, -1) if reverse else range(S)
        wb, rb = np.split(b, 2)
        for t in steps:
            xt = x[t]
            if kind == "RNN":
                nh = np.tanh(xt @ w.T + h @ r.T + (wb + rb))
            elif kind == "GRU":
                xw, hr = xt @ w.T, h @ r.T
                z = sig(xw[:, :H] + hr[:, :H] + (wb[:H] + rb[:H]))
                rg = sig(xw[:, H:2 * H] + hr[:, H:2 * H] + (wb[H:2 * H] + rb[H:2 * H]))
                if lbr:
                    cand = np.tanh(xw[:, 2 * H:] + rg * (hr[:, 2 * H:] + rb[2 * H:]) + wb[2 * H:])
                else:
                    cand = np.tanh(xw[:, 2 * H:] + (rg * h) @ r[2 * H:].T + wb[2 * H:] + rb[2 * H:])
                nh = (1 - z) * cand + z * h
            else:
                gs = xt @ w.T + h @ r.T + (wb + rb)
                i, o, f, c_ = np.split(gs, 4, -1)
                i, f = sig(i + p[:H] * cc), sig(f + p[2 * H:] * cc)
                nc = f * cc + i * np.tanh(c_)
                o = sig(o + p[H:2 * H] * nc)
                nh = o * np.tanh(nc)
            live = (t < lens)[:, None] if lens is not None else np.ones((B, 1), bool)
            ys[t] = np.where(live, nh, 0)
            h = np.where(live, nh, h)
            if kind == "LSTM":
                cc = np.where(live, nc, cc)
        return ys.astype(F), h.astype(F), (cc.astype(F) if kind == "LSTM" else None)

    x = rr(S, B, I)
    lens = np.array([3, 2], np.int32)
    for kind, gates in (("RNN", 1), ("GRU", 3), ("LSTM", 4)):
        w, r_, b, h0 = rr(gates * H, I), rr(gates * H, H), rr(2 * gates * H), rr(B, H)
        c0, p = (rr(B, H), rr(3 * H)) if kind == "LSTM" else (None, None)
        ys, yh, yc = run(kind, x, w, r_, b, h0, c0, p, lens)
        ins = ["x", "w", "r", "b", "lens", "h0"] + (["c0", "p"] if kind == "LSTM" else [])
        outs = [("y", ys[:, None]), ("y_h", yh[None])] + ([("y_c", yc[None])] if kind == "LSTM" else [])
        inits = {"w": w[None], "r": r_[None], "b": b[None], "h0": h0[None]}
        if kind == "LSTM":
            inits.update(c0=c0[None], p=p[None])
        case(f"{kind.lower()}_seq_lens", [N(kind, ins, [o for o, _ in outs], hidden_size=H)],
             [("x", x), ("lens", lens)], outs, opset=14, inits=inits)
    # GRU with linear_before_reset, batch-major layout, no bias or initial state: zeros.
    w, r_ = rr(3 * H, I), rr(3 * H, H)
    ys, yh, _ = run("GRU", x, w, r_, np.zeros(6 * H, F), np.zeros((B, H), F), lbr=1)
    case("gru_lbr_layout1", [N("GRU", ["x", "w", "r"], ["y", "y_h"], hidden_size=H, linear_before_reset=1, layout=1)],
         [("x", x.transpose(1, 0, 2).copy())], [("y", ys[:, None].transpose(2, 0, 1, 3).copy()), ("y_h", yh[None].transpose(1, 0, 2).copy())],
         opset=14, inits={"w": w[None], "r": r_[None]})
    # A bidirectional RNN: the second direction runs backwards.
    w2, r2, b2, h2 = rr(2, H, I), rr(2, H, H), rr(2, 2 * H), rr(2, B, H)
    fwd = run("RNN", x, w2[0], r2[0], b2[0], h2[0])
    bwd = run("RNN", x, w2[1], r2[1], b2[1], h2[1], reverse=True)
    case("rnn_bidirectional", [N("RNN", ["x", "w", "r", "b", "", "h0"], ["y", "y_h"], hidden_size=H, direction="bidirectional")],
         [("x", x)], [("y", np.stack([fwd[0], bwd[0]], 1)), ("y_h", np.stack([fwd[1], bwd[1]], 0))],
         inits={"w": w2, "r": r2, "b": b2, "h0": h2})

def control_cases():
    """The training domain's optimizers, BatchNormalization and Dropout in training mode, LRN,
    TfIdfVectorizer, and If/Loop/Scan unrolled at import (own generator)."""
    g = np.random.default_rng(1101)
    rr = lambda *s: g.standard_normal(s).astype(F)
    i64 = lambda v: np.array(v, np.int64)
    f32 = lambda v: np.array(v, F)
    TRAIN = "ai.onnx.preview.training"

    def training(name, op, ins, outs, **attrs):
        """A case whose node is of the training domain (opset 1); no ai.onnx import."""
        vi = lambda n, a: helper.make_tensor_value_info(n, ONNX_TYPE[a.dtype], list(a.shape))
        node = helper.make_node(op, [n for n, _ in ins], [n for n, _ in outs], name=f"{op}_0", domain=TRAIN, **attrs)
        gr = helper.make_graph([node], name, [vi(n, a) for n, a in ins], [vi(n, a) for n, a in outs])
        m = helper.make_model(gr, opset_imports=[helper.make_opsetid(TRAIN, 1)], producer_name="make_cases.py", producer_version="1")
        m.ir_version = 8
        onnx.checker.check_model(m)
        d = os.path.join(OUT, name)
        os.makedirs(d)
        onnx.save(m, os.path.join(d, "model.onnx"))
        for k, (_, a) in enumerate(ins):
            np.save(os.path.join(d, f"in_{k}.npy"), a)
        for k, (_, a) in enumerate(outs):
            np.save(os.path.join(d, f"out_{k}.npy"), np.array(a, order="C"))

    # ---- Adagrad, Adam, Momentum: the ONNX formulas in float32, two tensors, T > 0 and T = 0 ----
    r_, t3 = f32(0.25), i64(3)
    x1, x2, g1, g2 = rr(3), rr(2, 2), rr(3), rr(2, 2)
    h1, h2 = np.abs(rr(3)) + F(0.1), np.abs(rr(2, 2)) + F(0.1)
    nc, eps, decay = F(0.01), F(1e-3), F(0.5)

    def adagrad(x, gg, h, t):
        rate = r_ / (F(1) + F(t) * decay)
        gr = nc * x + gg
        hn = h + gr * gr
        return x - rate * gr / (np.sqrt(hn) + eps), hn

    (a1, ah1), (a2, ah2) = adagrad(x1, g1, h1, 3), adagrad(x2, g2, h2, 3)
    training("adagrad_two", "Adagrad", [("R", r_), ("T", t3), ("X1", x1), ("X2", x2), ("G1", g1), ("G2", g2), ("H1", h1), ("H2", h2)],
             [("X1n", a1), ("X2n", a2), ("H1n", ah1), ("H2n", ah2)], norm_coefficient=0.01, epsilon=1e-3, decay_factor=0.5)
    al, be, post = F(0.8), F(0.9), F(0.05)
    v1 = rr(3)

    def adam(x, gg, v, h, t):
        gr = nc * x + gg
        vn = al * v + (F(1) - al) * gr
        hn = be * h + (F(1) - be) * (gr * gr)
        rate = r_ * np.sqrt(F(1) - be ** F(t)) / (F(1) - al ** F(t)) if t > 0 else r_
        return (F(1) - post) * (x - rate * (vn / (np.sqrt(hn) + eps))), vn, hn

    for t in (0, 2):
        xn, vn, hn = adam(x1, g1, v1, h1, t)
        training(f"adam_t{t}", "Adam", [("R", r_), ("T", i64(t)), ("X", x1), ("G", g1), ("V", v1), ("H", h1)],
                 [("Xn", xn), ("Vn", vn), ("Hn", hn)], alpha=0.8, beta=0.9, epsilon=1e-3, norm_coefficient=0.01,
                 norm_coefficient_post=0.05)
    for mode in ("standard", "nesterov"):
        for t in (0, 2):
            gr = nc * x2 + g2
            vn = al * h2 + (be if t > 0 else F(1)) * gr
            xn = x2 - r_ * (vn if mode == "standard" else gr + al * vn)
            training(f"momentum_{mode}_t{t}", "Momentum", [("R", r_), ("T", i64(t)), ("X", x2), ("G", g2), ("V", h2)],
                     [("Xn", xn), ("Vn", vn)], alpha=0.8, beta=0.9, norm_coefficient=0.01, mode=mode)

    # ---- BatchNormalization training_mode (opset 15): batch statistics, running statistics ----
    xb, sb, bb, mb, vb = rr(2, 3, 4), rr(3), rr(3), rr(3), np.abs(rr(3))
    bm, bv = xb.mean(axis=(0, 2)), xb.var(axis=(0, 2))
    yb = sb[:, None] * (xb - bm[:, None]) / np.sqrt(bv[:, None] + F(1e-3)) + bb[:, None]
    case("batchnormalization_training", [N("BatchNormalization", ["x", "s", "b", "m", "v"], ["y", "rm", "rv"], epsilon=1e-3,
                                           momentum=0.75, training_mode=1)],
         [("x", xb), ("s", sb), ("b", bb), ("m", mb), ("v", vb)],
         [("y", yb.astype(F)), ("rm", (mb * F(0.75) + bm * F(0.25)).astype(F)), ("rv", (vb * F(0.75) + bv * F(0.25)).astype(F))], opset=15)
    # ---- Dropout in training mode with ratio 0: the identity, a mask of trues ----
    xd = rr(2, 3)
    case("dropout_training_ratio0", [N("Dropout", ["x", "r", "t"], ["y", "mask"], seed=3)], [("x", xd)],
         [("y", xd), ("mask", np.ones((2, 3), bool))], opset=13, inits={"r": f32(0.0), "t": np.array(True)})

    # ---- LRN: an even size (the window leans forward) and a window wider than the channels ----
    def lrn(x, size, alpha=1e-4, beta=0.75, bias=1.0):
        C = x.shape[1]
        ss = np.zeros_like(x)
        for c in range(C):
            lo, hi = max(0, c - (size - 1) // 2), min(C, c + (size - 1) - (size - 1) // 2 + 1)
            ss[:, c] = (x[:, lo:hi] ** 2).sum(axis=1)
        return (x / (F(bias) + F(alpha / size) * ss) ** F(beta)).astype(F)

    xl = rr(2, 5, 3, 2)
    case("lrn_size4", [N("LRN", ["x"], size=4, alpha=0.01, beta=0.6, bias=1.5)], [("x", xl)], [("y", lrn(xl, 4, 0.01, 0.6, 1.5))])
    case("lrn_wide", [N("LRN", ["x"], size=13, alpha=0.02)], [("x", xl[:, :3])], [("y", lrn(xl[:, :3], 13, 0.02))], opset=12)

    # ---- TfIdfVectorizer over int64 tokens (onnxruntime's counting: unigrams once, longer n-grams per skip) ----
    def tfidf(X, min_n, max_n, skip, counts, indexes, pool, mode, weights=None):
        X2 = X.reshape(1, -1) if X.ndim == 1 else X
        levels, grams = len(counts), []
        for i in range(levels):
            end = counts[i + 1] if i + 1 < levels else len(pool)
            grams += [tuple(pool[k:k + i + 1]) for k in range(counts[i], end, i + 1)]
        out = np.zeros((X2.shape[0], max(indexes) + 1), F)
        for b, row in enumerate(X2):
            for k, gram in enumerate(grams):
                n = len(gram)
                if not min_n <= n <= max_n:
                    continue
                hits = 0
                for d in range(1, (1 if n == 1 else skip + 1) + 1):
                    for s0 in range(len(row) - (n - 1) * d):
                        hits += all(row[s0 + j * d] == gram[j] for j in range(n))
                w = 1.0 if weights is None else weights[k]
                out[b, indexes[k]] = hits if mode == "TF" else (w if hits else 0) if mode == "IDF" else hits * w
        return out.reshape(-1) if X.ndim == 1 else out

    xt = g.integers(1, 6, (2, 7)).astype(np.int64)
    pool, counts, idx = [1, 2, 3, 4, 2, 3, 3, 1, 5, 5], [0, 4], [6, 0, 1, 2, 3, 4, 5]
    for mode, skip, w in (("TF", 2, None), ("IDF", 0, [0.5, 1, 2, 3, 4, 5, 6]), ("TFIDF", 1, [0.5, 1, 2, 3, 4, 5, 6])):
        attrs = dict(min_gram_length=1, max_gram_length=2, max_skip_count=skip, mode=mode, ngram_counts=counts, pool_int64s=pool)
        ix = idx if w is None else list(range(7))
        if w is not None:
            attrs["weights"] = w
        case(f"tfidfvectorizer_{mode.lower()}", [N("TfIdfVectorizer", ["x"], ngram_indexes=ix, **attrs)], [("x", xt)],
             [("y", tfidf(xt, 1, 2, skip, counts, ix, pool, mode, w))], opset=9)
    x1d = xt[0].astype(np.int32)
    case("tfidfvectorizer_int32_bigrams", [N("TfIdfVectorizer", ["x"], min_gram_length=2, max_gram_length=2, max_skip_count=3,
                                             mode="TF", ngram_counts=counts, ngram_indexes=idx, pool_int64s=pool)],
         [("x", x1d)], [("y", tfidf(x1d, 2, 2, 3, counts, idx, pool, "TF"))], opset=9)

    # ---- If, Loop, Scan: bodies imported at import, outer names visible ----
    vi = lambda n, dt=TensorProto.FLOAT, s=None: helper.make_tensor_value_info(n, dt, s)
    xi = rr(2, 3)
    then_g = helper.make_graph([N("Add", ["x", "x"], ["t"])], "then", [], [vi("t", s=[2, 3])])
    else_g = helper.make_graph([N("Neg", ["x"], ["e"])], "else", [], [vi("e", s=[2, 3])])
    case("if_initializer_cond", [N("If", ["c"], ["y"], then_branch=then_g, else_branch=else_g)], [("x", xi)], [("y", -xi)],
         inits={"c": np.array(False)}, opset=13)
    case("if_bound_cond", [N("If", ["c"], ["y"], then_branch=then_g, else_branch=else_g), N("Relu", ["y"], ["z"])], [("x", xi)],
         [("z", np.maximum(xi + xi, 0))], bind={"c": np.array(True)}, opset=13)
    # Loop with a trip count: y += x[i] * i, a scan output per step; the body's condition i < 10.
    xs = rr(4, 3)
    body = helper.make_graph(
        [N("Gather", ["xs", "i"], ["row"]), N("Cast", ["i"], ["fi"], to=TensorProto.FLOAT), N("Mul", ["row", "fi"], ["term"]),
         N("Add", ["y_in", "term"], ["y_out"]), N("Less", ["i", "ten"], ["c_out"]), N("Identity", ["term"], ["s_out"])],
        "body", [vi("i", TensorProto.INT64, []), vi("c_in", TensorProto.BOOL, []), vi("y_in", s=[3])],
        [vi("c_out", TensorProto.BOOL, []), vi("y_out", s=[3]), vi("s_out", s=[3])])
    y0 = rr(3)
    terms = np.stack([xs[i] * F(i) for i in range(4)])
    case("loop_trip_count", [N("Loop", ["m", "", "y0"], ["y", "s"], body=body)], [("xs", xs), ("y0", y0)],
         [("y", (y0 + terms[0] + terms[1] + terms[2] + terms[3]).astype(F)), ("s", terms)],
         inits={"m": i64(4), "ten": i64(10)}, opset=13)
    # Loop ended by its condition: no trip count, the body's condition i + 1 < 3 (three steps).
    body2 = helper.make_graph(
        [N("Add", ["i", "one"], ["i1"]), N("Less", ["i1", "three"], ["c_out"]), N("Mul", ["y_in", "two"], ["y_out"])],
        "body", [vi("i", TensorProto.INT64, []), vi("c_in", TensorProto.BOOL, []), vi("y_in", s=[3])],
        [vi("c_out", TensorProto.BOOL, []), vi("y_out", s=[3])])
    case("loop_condition", [N("Loop", ["", "c", "y0"], ["y"], body=body2)], [("y0", y0)], [("y", y0 * F(8))],
         inits={"c": np.array(True), "one": i64(1), "three": i64(3), "two": f32(2)}, opset=13)
    # Scan 9: a reversed scan input along axis 1, the scan output stacked along axis 1.
    xsc, s0 = rr(2, 4), rr(2)
    sbody = helper.make_graph([N("Add", ["s_in", "col"], ["s_out"]), N("Mul", ["s_out", "col"], ["o"])], "sbody",
                              [vi("s_in", s=[2]), vi("col", s=[2])], [vi("s_out", s=[2]), vi("o", s=[2])])
    st, outs = s0, []
    for t in range(3, -1, -1):
        st = st + xsc[:, t]
        outs.append(st * xsc[:, t])
    case("scan_reverse_axis1", [N("Scan", ["s0", "x"], ["s", "o"], body=sbody, num_scan_inputs=1, scan_input_axes=[1],
                                  scan_input_directions=[1], scan_output_axes=[-1])],
         [("s0", s0), ("x", xsc)], [("s", st), ("o", np.stack(outs, 1))], opset=11)
    # An If inside a Loop body, its condition the body's own i < 2: the branch differs per iteration.
    add_g = helper.make_graph([N("Add", ["acc", "xr"], ["a"])], "then", [], [vi("a", s=[3])])
    sub_g = helper.make_graph([N("Sub", ["acc", "xr"], ["b"])], "else", [], [vi("b", s=[3])])
    body3 = helper.make_graph(
        [N("Gather", ["xs", "i"], ["xr"]), N("Less", ["i", "two_i"], ["lt"]), N("Identity", ["acc_in"], ["acc"]),
         N("If", ["lt"], ["acc_out"], then_branch=add_g, else_branch=sub_g), N("Identity", ["c_in"], ["c_out"])],
        "body", [vi("i", TensorProto.INT64, []), vi("c_in", TensorProto.BOOL, []), vi("acc_in", s=[3])],
        [vi("c_out", TensorProto.BOOL, []), vi("acc_out", s=[3])])
    case("loop_if_inside", [N("Loop", ["m", "", "y0"], ["y"], body=body3)], [("xs", xs), ("y0", y0)],
         [("y", (y0 + xs[0] + xs[1] - xs[2] - xs[3]).astype(F))], inits={"m": i64(4), "two_i": i64(2)}, opset=13)
    # Scan 9 with two scan inputs and a reversed scan output.
    xa, xb2 = rr(3, 2), rr(3, 2)
    sbody2 = helper.make_graph([N("Mul", ["a", "b"], ["ab"]), N("Add", ["s_in", "ab"], ["s_out"]), N("Identity", ["s_out"], ["o"])],
                               "sbody2", [vi("s_in", s=[2]), vi("a", s=[2]), vi("b", s=[2])], [vi("s_out", s=[2]), vi("o", s=[2])])
    st, outs = s0, []
    for t in range(3):
        st = st + xa[t] * xb2[t]
        outs.append(st)
    case("scan_two_inputs_reversed_output", [N("Scan", ["s0", "a", "b"], ["s", "o"], body=sbody2, num_scan_inputs=2,
                                               scan_output_directions=[1])],
         [("s0", s0), ("a", xa), ("b", xb2)], [("s", st), ("o", np.stack(outs[::-1]))], opset=16)
    # Scan 8: a batch of two, each scanned along axis 1 on its own.
    x8, s8 = rr(2, 3, 2), rr(2, 2)
    fin, o8 = [], []
    for b in range(2):
        st, ob = s8[b], []
        for t in range(3):
            st = st + x8[b, t]
            ob.append(st * x8[b, t])
        fin.append(st)
        o8.append(np.stack(ob))
    case("scan_8_batch", [N("Scan", ["", "s0", "x"], ["s", "o"], body=sbody, num_scan_inputs=1)], [("s0", s8), ("x", x8)],
         [("s", np.stack(fin)), ("o", np.stack(o8))], opset=8)


def pool3d_cases():
    """3-D MaxPool, AveragePool, Conv and ConvTranspose (composed from 1-D and 2-D windows) against
    the plain loops above, and f64 Exp, Log, ReduceLogSumExp (own generator)."""
    g = np.random.default_rng(3303)
    rr = lambda *s: g.standard_normal(s).astype(F)
    x = rr(1, 2, 5, 6, 7)
    k, s, p, d = [2, 3, 2], [2, 1, 2], [1, 0, 1, 0, 1, 1], [1, 2, 1]
    case("maxpool_3d", [N("MaxPool", ["x"], kernel_shape=k, strides=s, pads=p, dilations=d)], [("x", x)],
         [("y", np_pool(x, k, s, p, d)[0])])
    xc = rr(2, 1, 5, 5, 4)
    case("maxpool_3d_ceil", [N("MaxPool", ["x"], kernel_shape=[2, 2, 3], strides=[2, 2, 2], ceil_mode=1)], [("x", xc)],
         [("y", np_pool(xc, [2, 2, 3], [2, 2, 2], ceil=True)[0])])
    ka, sa, pa = [2, 2, 3], [1, 2, 2], [1, 0, 1, 1, 1, 0]
    case("averagepool_3d", [N("AveragePool", ["x"], kernel_shape=ka, strides=sa, pads=pa)], [("x", x)],
         [("y", np_pool(x, ka, sa, pa, kind="avg")[0])])
    case("averagepool_3d_include_pad", [N("AveragePool", ["x"], kernel_shape=ka, strides=sa, pads=pa, count_include_pad=1)],
         [("x", x)], [("y", np_pool(x, ka, sa, pa, kind="avg", include_pad=True)[0])])
    case("averagepool_3d_ceil", [N("AveragePool", ["x"], kernel_shape=[2, 2, 3], strides=[2, 2, 2], ceil_mode=1)], [("x", xc)],
         [("y", np_pool(xc, [2, 2, 3], [2, 2, 2], ceil=True, kind="avg")[0])])
    xh = rr(1, 2, 4, 4, 4).astype(np.float16)
    case("averagepool_3d_f16", [N("AveragePool", ["x"], kernel_shape=[2, 2, 2], strides=[2, 2, 2])], [("x", xh)],
         [("y", np_pool(xh.astype(F), [2, 2, 2], [2, 2, 2], kind="avg")[0].astype(np.float16))])
    xv, wv, bv = rr(1, 4, 4, 5, 6), rr(6, 2, 2, 3, 3), rr(6)
    case("conv_3d", [N("Conv", ["x", "w", "b"], group=2, strides=[2, 1, 2], pads=[1, 0, 1, 0, 1, 1], dilations=[1, 2, 1])],
         [("x", xv)], [("y", np_conv(xv, wv, bv, [2, 1, 2], [1, 0, 1, 0, 1, 1], [1, 2, 1], 2))], inits={"w": wv, "b": bv})
    xt, wt, bt = rr(1, 2, 3, 4, 3), rr(2, 3, 3, 2, 3), rr(3)
    case("convtranspose_3d", [N("ConvTranspose", ["x", "w", "b"], strides=[2, 1, 2], pads=[1, 0, 1, 0, 1, 1],
                                output_padding=[1, 0, 1])],
         [("x", xt), ("w", wt)], [("y", np_conv_transpose(xt, wt, bt, [2, 1, 2], [1, 0, 1, 0, 1, 1], [1, 0, 1]))], inits={"b": bt})
    xg, wg = rr(1, 4, 2, 3, 3), rr(4, 1, 3, 2, 2)
    case("convtranspose_3d_group", [N("ConvTranspose", ["x", "w"], group=2, strides=[3, 1, 1])], [("x", xg)],
         [("y", np_conv_transpose(xg, wg, None, [3, 1, 1], None, None, 2))], inits={"w": wg})
    # f64 Exp, Log and ReduceLogSumExp: rung's binary64 exp_f64 / log_f64 (within 1 ulp).
    xe = g.standard_normal((3, 5)) * 20
    case("exp_f64", [N("Exp", ["x"])], [("x", xe)], [("y", np.exp(xe))])
    xl = np.exp(g.standard_normal((3, 5)) * 30)
    case("log_f64", [N("Log", ["x"])], [("x", xl)], [("y", np.log(xl))])
    xr = g.standard_normal((2, 3, 4)) * 10
    m = xr.max(axis=1, keepdims=True)
    case("reducelogsumexp_f64", [N("ReduceLogSumExp", ["x"], axes=[1], keepdims=0)], [("x", xr)],
         [("y", (m + np.log(np.exp(xr - m).sum(axis=1, keepdims=True)))[:, 0])], opset=13)
    # ConvTranspose 3-D with output_shape: depth asks for one more than the window gives
    # (output_padding 1), width for one less (a pad before, as NOTSET puts it).
    xs, ws = rr(1, 1, 3, 3, 3), rr(1, 2, 2, 2, 2)
    case("convtranspose_3d_output_shape", [N("ConvTranspose", ["x", "w"], strides=[2, 1, 1], output_shape=[7, 4, 3])], [("x", xs)],
         [("y", np_conv_transpose(xs, ws, None, [2, 1, 1], [0, 0, 1, 0, 0, 0], [1, 0, 0]))], inits={"w": ws})


if __name__ == "__main__":
    sys.exit(main())
