#!/usr/bin/python3
# Structured mutants of the handler cases (tests/onnx/cases): attribute values set to
# extremes (-2^63, 2^40, ...), initializer dims and data changed, ops swapped for other
# handled ops, input dims and names rewired, the opset moved. Random bytes mostly break the
# protobuf framing; these keep it and reach the handlers. onnx.mutants replays them through
# the fuzz target: no crash, no hang, every refusal a coded diagnostic.
#   mutate.py OUT_DIR [PER_CASE] [SEED]
import glob
import os
import random
import sys

import onnx
from onnx import AttributeProto, TensorProto, helper

HERE = os.path.dirname(os.path.abspath(__file__))
VALUES = [-2 ** 63, -2 ** 31, -5, -1, 0, 1, 2, 3, 7, 2 ** 31, 2 ** 40, 2 ** 63 - 1]


def mutate(m, ops, rnd):
    g = m.graph
    for _ in range(rnd.randint(1, 3)):
        r = rnd.random()
        if r < 0.25 and g.node:
            nd = rnd.choice(g.node)
            if nd.attribute:
                a = rnd.choice(nd.attribute)
                if a.type == AttributeProto.INT:
                    a.i = rnd.choice(VALUES)
                elif a.type == AttributeProto.INTS and a.ints:
                    a.ints[rnd.randrange(len(a.ints))] = rnd.choice(VALUES)
                elif a.type == AttributeProto.FLOAT:
                    a.f = rnd.choice([float("nan"), float("inf"), -1e38, 0.0])
            else:
                nd.attribute.append(helper.make_attribute(rnd.choice(["axis", "keepdims", "perm", "axes"]), rnd.choice(VALUES)))
        elif r < 0.45 and g.initializer:
            t = rnd.choice(g.initializer)
            if t.dims and rnd.random() < 0.5:
                t.dims[rnd.randrange(len(t.dims))] = rnd.choice(VALUES[2:8])
            elif t.raw_data and rnd.random() < 0.5:
                t.raw_data = t.raw_data[: rnd.randrange(len(t.raw_data) + 1)]
            elif t.data_type == TensorProto.INT64 and t.raw_data:
                t.raw_data = b"".join(rnd.choice(VALUES).to_bytes(8, "little", signed=True) for _ in range(len(t.raw_data) // 8))
            else:
                t.data_type = rnd.choice([1, 6, 7, 9, 10, 11, 16, 12, 13])
        elif r < 0.6 and g.node:
            rnd.choice(g.node).op_type = rnd.choice(ops)
        elif r < 0.75:
            for v in list(g.input) + list(g.output):
                dims = v.type.tensor_type.shape.dim
                if dims:
                    d = dims[rnd.randrange(len(dims))]
                    if rnd.random() < 0.5:
                        d.dim_value = rnd.choice(VALUES[3:9])
                    else:
                        d.dim_param = rnd.choice(["N", "B", "", "a b"])
        elif r < 0.88 and g.node:
            nd = rnd.choice(g.node)
            names = [i.name for i in g.input] + [t.name for t in g.initializer] + [o for x in g.node for o in x.output]
            if nd.input:
                nd.input[rnd.randrange(len(nd.input))] = rnd.choice(names + [""])
            else:
                nd.input.append(rnd.choice(names))
        else:
            m.opset_import[0].version = rnd.choice([1, 5, 6, 7, 9, 10, 11, 12, 13, 14, 15, 16, 17])


def main():
    out = sys.argv[1]
    per_case = int(sys.argv[2]) if len(sys.argv) > 2 else 10
    rnd = random.Random(int(sys.argv[3]) if len(sys.argv) > 3 else 19)
    os.makedirs(out, exist_ok=True)
    for f in glob.glob(os.path.join(out, "*.onnx")):
        os.remove(f)
    seeds = sorted(glob.glob(os.path.join(HERE, "cases", "*", "model.onnx")))
    ops = sorted({n.op_type for s in seeds for n in onnx.load(s).graph.node})
    n = 0
    for s in seeds:
        for _ in range(per_case):
            m = onnx.load(s)
            mutate(m, ops, rnd)
            with open(os.path.join(out, f"m{n:05d}.onnx"), "wb") as f:
                f.write(m.SerializeToString())
            n += 1
    print(f"wrote {n} mutants to {out}")


if __name__ == "__main__":
    main()
