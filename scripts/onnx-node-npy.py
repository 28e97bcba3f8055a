#!/usr/bin/python3
"""Per ONNX test case: .npy beside each input_K.pb / output_K.pb, and the JSON index of the suite.

  /usr/bin/python3 scripts/onnx-node-npy.py [DIR] [--index tests/onnx/node_tests.json]

DIR (default build/onnx-node) is what scripts/onnx-node-data.py generated; node/ and simple/ are converted.
Layout conventions (the judge and the peer rely on them):
  - a tensor becomes DIR/<kind>/<test>/test_data_set_N/{input,output}_K.npy with numpy's dtype;
  - BFLOAT16 has no numpy dtype: its bit patterns are stored as uint16 (the index says bfloat16);
  - string tensors and sequence/map/optional values get no .npy (the index names their kind).
"""
import argparse
import json
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
KINDS = ("node", "simple")

try:
    import numpy as np
    import onnx
    from onnx import TensorProto, numpy_helper
except ImportError as e:
    sys.exit(f"onnx-node-npy: {e}: install Debian's python3-onnx and python3-numpy, run with /usr/bin/python3")


def dtype_name(elem_type):
    return TensorProto.DataType.Name(elem_type).lower()


def tensor_to_numpy(t):
    """A TensorProto as an ndarray, or None for strings (no .npy for those)."""
    if t.data_type == TensorProto.STRING:
        return None
    if t.data_type == TensorProto.BFLOAT16:
        # numpy_helper turns bf16 into float32; keep the bits so dtype and value stay exact.
        if t.HasField("raw_data"):
            bits = np.frombuffer(t.raw_data, dtype="<u2")
        else:
            bits = np.array(t.int32_data, dtype=np.uint16)
        return bits.reshape(tuple(t.dims))
    return numpy_helper.to_array(t)


def value_kind(type_proto):
    return type_proto.WhichOneof("value")  # tensor_type, sequence_type, map_type, optional_type, ...


def cases(out):
    for kind in KINDS:
        base = os.path.join(out, kind)
        if not os.path.isdir(base):
            continue
        for name in sorted(os.listdir(base)):
            d = os.path.join(base, name)
            if os.path.isfile(os.path.join(d, "model.onnx")):
                yield kind, name, d


def data_sets(d):
    sets = [s for s in os.listdir(d) if s.startswith("test_data_set_")]
    return sorted(sets, key=lambda s: int(s.rsplit("_", 1)[1]))


def write_npy(out):
    written, skipped = 0, {}
    for kind, name, d in cases(out):
        model = onnx.load(os.path.join(d, "model.onnx"))
        for s in data_sets(d):
            sd = os.path.join(d, s)
            for prefix, decls in (("input", model.graph.input), ("output", model.graph.output)):
                k = 0
                while os.path.exists(os.path.join(sd, f"{prefix}_{k}.pb")):
                    pb = os.path.join(sd, f"{prefix}_{k}.pb")
                    vk = value_kind(decls[k].type) if k < len(decls) else "undeclared"
                    arr = None
                    if vk == "tensor_type":
                        t = TensorProto()
                        with open(pb, "rb") as f:
                            t.ParseFromString(f.read())
                        arr = tensor_to_numpy(t)
                        if arr is None:
                            vk = "string tensor"
                    if arr is None:
                        skipped[vk] = skipped.get(vk, 0) + 1
                    else:
                        np.save(pb[:-3] + ".npy", arr, allow_pickle=False)
                        written += 1
                    k += 1
    why = ", ".join(f"{n} {k}" for k, n in sorted(skipped.items())) or "none"
    print(f"onnx-node-npy: wrote {written} .npy files; no .npy for {sum(skipped.values())} values ({why})")


def type_json(tp):
    vk = value_kind(tp)
    if vk == "tensor_type":
        shape = None
        if tp.tensor_type.HasField("shape"):
            shape = [d.dim_value if d.HasField("dim_value") else (d.dim_param or None)
                     for d in tp.tensor_type.shape.dim]
        return {"kind": "tensor", "dtype": dtype_name(tp.tensor_type.elem_type), "shape": shape}
    if vk == "sequence_type":
        return {"kind": "sequence", "elem": type_json(tp.sequence_type.elem_type)}
    if vk == "optional_type":
        return {"kind": "optional", "elem": type_json(tp.optional_type.elem_type)}
    if vk == "map_type":
        return {"kind": "map", "key": dtype_name(tp.map_type.key_type), "value": type_json(tp.map_type.value_type)}
    return {"kind": str(vk)}


def graph_ops(g, acc):
    """(domain, op_type) of every node, subgraphs (If/Loop/Scan bodies) included."""
    for n in g.node:
        acc.add((n.domain or "ai.onnx", n.op_type))
        for a in n.attribute:
            if a.type == onnx.AttributeProto.GRAPH:
                graph_ops(a.g, acc)
            for sg in a.graphs:
                graph_ops(sg, acc)
    return acc


def data_shapes(d, prefix, decls):
    """Shapes of data set 0's tensors as stored (declared shapes may be symbolic or absent)."""
    shapes = []
    sd = os.path.join(d, "test_data_set_0")
    for k, v in enumerate(decls):
        pb = os.path.join(sd, f"{prefix}_{k}.pb")
        if not os.path.exists(pb) or value_kind(v.type) != "tensor_type":
            shapes.append(None)  # absent, or a sequence/map/optional value
            continue
        t = TensorProto()
        with open(pb, "rb") as f:
            t.ParseFromString(f.read())
        shapes.append(list(t.dims))
    return shapes


def write_index(out, path):
    index = {}
    for kind, name, d in cases(out):
        model = onnx.load(os.path.join(d, "model.onnx"))
        g = model.graph
        inits = {i.name for i in g.initializer}
        gin = [v for v in g.input if v.name not in inits]
        in_shapes, out_shapes = data_shapes(d, "input", gin), data_shapes(d, "output", g.output)
        ins = [dict(name=v.name, **type_json(v.type)) for v in gin]
        outs = [dict(name=v.name, **type_json(v.type)) for v in g.output]
        for lst, shapes in ((ins, in_shapes), (outs, out_shapes)):
            for v, s in zip(lst, shapes):
                v["data_shape"] = s
        index[f"{kind}/{name}"] = {
            "ir_version": model.ir_version,
            "opsets": {(o.domain or "ai.onnx"): o.version for o in model.opset_import},
            "ops": [f"{dom}::{op}" for dom, op in sorted(graph_ops(g, set()))],
            "nodes": len(g.node),
            "initializers": len(g.initializer),
            "data_sets": len(data_sets(d)),
            "inputs": ins,
            "outputs": outs,
        }
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        # One test per line: greppable and a readable diff when the generator changes.
        f.write("{\n")
        items = sorted(index.items())
        for i, (k, v) in enumerate(items):
            f.write(f"{json.dumps(k)}: {json.dumps(v, sort_keys=True)}{',' if i + 1 < len(items) else ''}\n")
        f.write("}\n")
    print(f"onnx-node-npy: wrote {path} ({len(index)} tests)")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("dir", nargs="?", default=os.path.join(ROOT, "build", "onnx-node"))
    ap.add_argument("--index", metavar="JSON", help="also write the index (tests/onnx/node_tests.json)")
    ap.add_argument("--no-npy", action="store_true", help="only the index")
    args = ap.parse_args()
    if not os.path.isdir(os.path.join(args.dir, "node")):
        sys.exit(f"onnx-node-npy: {args.dir}/node missing: run /usr/bin/python3 scripts/onnx-node-data.py -o {args.dir}")
    if not args.no_npy:
        write_npy(args.dir)
    if args.index:
        write_index(args.dir, args.index)


if __name__ == "__main__":
    main()
