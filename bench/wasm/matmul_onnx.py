#!/usr/bin/python3
"""MatMul models for bench/wasm/bench.mjs's onnxruntime-web peer: C = A B with A, B float
[n, n] graph inputs (no initializers, so the peer reads the same inputs as rung's kernels).
    matmul_onnx.py OUT_DIR [n ...]   (default n: 256 512 1024)"""
import os
import sys

import onnx
from onnx import TensorProto, helper


def model(n):
    a = helper.make_tensor_value_info("A", TensorProto.FLOAT, [n, n])
    b = helper.make_tensor_value_info("B", TensorProto.FLOAT, [n, n])
    c = helper.make_tensor_value_info("C", TensorProto.FLOAT, [n, n])
    graph = helper.make_graph([helper.make_node("MatMul", ["A", "B"], ["C"])], f"matmul_{n}", [a, b], [c])
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], producer_name="rung bench/wasm")
    m.ir_version = 8
    onnx.checker.check_model(m)
    return m


def main():
    out = sys.argv[1]
    sizes = [int(s) for s in sys.argv[2:]] or [256, 512, 1024]
    os.makedirs(out, exist_ok=True)
    for n in sizes:
        onnx.save(model(n), os.path.join(out, f"matmul_{n}.onnx"))


if __name__ == "__main__":
    main()
