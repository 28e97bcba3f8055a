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
             np.dtype(np.float16): TensorProto.FLOAT16}


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
    binary("Pow", np.power, pos, r(3, 4))
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
    case("matmul_1d_left", [N("MatMul", ["v", "b"])], [("v", v), ("b", b)], [("y", v @ b)])
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
    case("symbolic_batch", [N("MatMul", ["x", "w"], ["h"]), N("Relu", ["h"], ["r0"]), N("ReduceSum", ["r0", "ax"], ["y"], keepdims=0)],
         [("x", xd)], [("y", np.maximum(xd @ cv.repeat(2, 0)[:3, :2], 0).sum(axis=1))],
         inits={"w": cv.repeat(2, 0)[:3, :2].copy(), "ax": np.array([1], np.int64)}, sym={"x": ["batch", 3], "y": ["batch"]})
    # ---- graph inputs bound at import: shape-like operands fed as inputs (I0012 without --bind) ----
    case("reshape_bound", [N("Reshape", ["x", "s"])], [("x", x3)], [("y", x3.reshape(4, 6))], bind={"s": np.array([4, -1], np.int64)})
    # Slice's starts computed from a bound input (an Add folds once it is known), its ends from another.
    case("slice_bound", [N("Add", ["st0", "one"], ["st"]), N("Slice", ["x", "st", "en"])], [("x", xs10)], [("y", xs10[1:3, 2:5])],
         inits={"one": np.array([1, 1], np.int64)}, bind={"st0": np.array([0, 1], np.int64), "en": np.array([3, 5], np.int64)})
    # An initializer also listed as a graph input: its value is the model's (binding it is I0013).
    case("reshape_default", [N("Reshape", ["x", "s"])], [("x", x3)], [("y", x3.reshape(6, 4))], defaults={"s": np.array([6, 4], np.int64)})
    print(f"wrote {len(os.listdir(OUT))} cases under {OUT}")


if __name__ == "__main__":
    sys.exit(main())
