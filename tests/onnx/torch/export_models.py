#!/usr/bin/python3
"""Small PyTorch models exported to ONNX, with inputs and torch's outputs, for rung's importer end to end.

  /usr/bin/python3 tests/onnx/torch/export_models.py [-o build/onnx-torch] [--opset 14] [--runs 200] [--no-ort]

Debian's python3-torch 1.13 and python3-onnx 1.12; nothing is downloaded; every model and input comes from a
fixed seed. Opset 14 is torch 1.13's default and is used for every model except the transformer layer, which
is exported at 17 so that LayerNorm becomes LayerNormalization (below 17 torch spells it out as
ReduceMean/Sub/Pow/Sqrt/Div). Output, in the layout of the ONNX node tests (so the same runner and judge apply):
  OUT/models/<name>/model.onnx, test_data_set_0/input_K.npy, output_K.npy (torch's outputs)
  OUT/ort/<name>/test_data_set_0/output_K.npy   onnxruntime-node's outputs (when it is installed)
  OUT/ort-latency.json                          onnxruntime-node's latency per model, 1 and 2 threads
"""
import argparse
import json
import os
import shutil
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))

try:
    import numpy as np
    import torch
    import torch.nn as nn
    import torch.nn.functional as F
except ImportError as e:
    sys.exit(f"export_models: {e}: install Debian's python3-torch and python3-onnx, run with /usr/bin/python3")
try:  # only exporting needs it: bench/onnx/torch_models_cuda.py imports CASES on a machine without onnx
    import onnx
except ImportError:
    onnx = None


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1, self.fc2 = nn.Linear(16, 32), nn.Linear(32, 4)

    def forward(self, x):
        return self.fc2(F.gelu(self.fc1(x)))  # GELU: Erf with Mul/Div/Add at opset 14


class LeNet8(nn.Module):
    """LeNet-like on 8x8 single-channel images (the digits' size)."""
    def __init__(self):
        super().__init__()
        self.c1, self.c2 = nn.Conv2d(1, 6, 3, padding=1), nn.Conv2d(6, 16, 3, padding=1)
        self.f1, self.f2 = nn.Linear(16 * 2 * 2, 32), nn.Linear(32, 10)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.c1(x)), 2)
        x = F.max_pool2d(F.relu(self.c2(x)), 2)
        x = torch.flatten(x, 1)
        return F.softmax(self.f2(F.relu(self.f1(x))), dim=1)


class ConvBN(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv, self.bn = nn.Conv2d(3, 4, 3), nn.BatchNorm2d(4)
        with torch.no_grad():  # non-trivial running statistics, else BN is nearly the identity
            self.bn.running_mean.uniform_(-0.5, 0.5)
            self.bn.running_var.uniform_(0.5, 2.0)
            self.bn.weight.uniform_(0.5, 1.5)
            self.bn.bias.uniform_(-0.5, 0.5)

    def forward(self, x):
        return F.relu(self.bn(self.conv(x)))


class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.layer = nn.TransformerEncoderLayer(d_model=16, nhead=2, dim_feedforward=32, dropout=0.0)

    def forward(self, x):  # x: [S, B, 16]
        return self.layer(x)


class EmbedCE(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb, self.fc = nn.Embedding(20, 8), nn.Linear(8, 5)

    def forward(self, tokens, target):
        logits = self.fc(self.emb(tokens).mean(dim=1))
        return logits, F.cross_entropy(logits, target)


class Wide(nn.Module):
    """Large enough that its weights go to an external data file."""
    def __init__(self):
        super().__init__()
        self.fc1, self.fc2 = nn.Linear(64, 128), nn.Linear(128, 8)

    def forward(self, x):
        return self.fc2(torch.relu(self.fc1(x)))


def rand(g, *shape):
    return torch.randn(*shape, generator=g)


# name: (module class, seed, inputs from a generator, input names, output names, extra export arguments)
CASES = {
    "mlp_gelu": (MLP, 1, lambda g: (rand(g, 4, 16),), ["x"], ["y"], {}),
    "cnn_lenet": (LeNet8, 2, lambda g: (rand(g, 3, 1, 8, 8),), ["x"], ["y"],
                  {"dynamic_axes": {"x": {0: "B"}, "y": {0: "B"}}}),
    # Eval exports fold BN into the Conv even with do_constant_folding=False; PRESERVE keeps the node.
    "conv_batchnorm": (ConvBN, 3, lambda g: (rand(g, 2, 3, 6, 6),), ["x"], ["y"],
                       {"training": torch.onnx.TrainingMode.PRESERVE, "do_constant_folding": False}),
    "transformer_encoder": (Encoder, 4, lambda g: (rand(g, 5, 2, 16),), ["x"], ["y"], {"opset_version": 17}),
    "embedding_cross_entropy": (EmbedCE, 5, lambda g: (torch.randint(0, 20, (4, 6), generator=g),
                                                       torch.randint(0, 5, (4,), generator=g)),
                                ["tokens", "target"], ["logits", "loss"], {}),
    "external_data": (Wide, 6, lambda g: (rand(g, 2, 64),), ["x"], ["y"], {"external": True}),
}


def export(name, out, opset):
    cls, seed, make_inputs, in_names, out_names, extra = CASES[name]
    extra = dict(extra)
    external = extra.pop("external", False)
    torch.manual_seed(seed)
    model = cls().eval()
    inputs = make_inputs(torch.Generator().manual_seed(1000 + seed))
    with torch.no_grad():
        outputs = model(*inputs)
    outputs = outputs if isinstance(outputs, tuple) else (outputs,)
    d = os.path.join(out, name)
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(os.path.join(d, "test_data_set_0"))
    path = os.path.join(d, "model.onnx")
    extra.setdefault("opset_version", opset)
    torch.onnx.export(model, inputs, path, input_names=in_names, output_names=out_names, **extra)
    if external:
        m = onnx.load(path)
        # size_threshold=0: every initializer goes to the file, so an importer must read them all from it.
        onnx.save_model(m, path, save_as_external_data=True, all_tensors_to_one_file=True,
                        location="weights.bin", size_threshold=0)
    for k, t in enumerate(inputs):
        np.save(os.path.join(d, "test_data_set_0", f"input_{k}.npy"), t.numpy())
    for k, t in enumerate(outputs):
        np.save(os.path.join(d, "test_data_set_0", f"output_{k}.npy"), t.numpy())
    m = onnx.load(path, load_external_data=False)
    ops = sorted({n.op_type for n in m.graph.node})
    opset_used = {(o.domain or "ai.onnx"): o.version for o in m.opset_import}
    print(f"export_models: {name}: opset {opset_used.get('ai.onnx')}, {len(m.graph.node)} nodes, "
          f"{len(m.graph.initializer)} initializers{' (external)' if external else ''}: {' '.join(ops)}")
    return {"opset": opset_used, "ops": ops, "nodes": len(m.graph.node), "external_data": external,
            "inputs": [list(t.shape) for t in inputs], "outputs": [list(t.shape) for t in outputs]}


def have_ort():
    return os.path.exists(os.path.join(os.environ.get("RUNG_ORT_DIR", os.path.join(ROOT, "build-deps", "onnxruntime")),
                                       "node_modules", "onnxruntime-node", "package.json"))


def node(*args):
    if not shutil.which("node"):
        sys.exit("export_models: node is missing: apt-get install nodejs (or pass --no-ort)")
    r = subprocess.run(["node", *args], stdout=subprocess.PIPE, text=True)
    if r.returncode != 0:
        sys.exit(f"export_models: node {' '.join(args)} failed ({r.returncode})")
    return r.stdout


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("-o", "--output", default=os.path.join(ROOT, "build", "onnx-torch"))
    ap.add_argument("--opset", type=int, default=14, help="opset for every model that does not set its own")
    ap.add_argument("--runs", type=int, default=200, help="timed runs per model and thread count (median)")
    ap.add_argument("--no-ort", action="store_true", help="skip onnxruntime-node even when installed")
    ap.add_argument("--only", nargs="*", choices=sorted(CASES), help="export only these models")
    args = ap.parse_args()
    if onnx is None:
        sys.exit("export_models: no module named 'onnx': install Debian's python3-onnx, run with /usr/bin/python3")
    out = os.path.abspath(args.output)
    models = os.path.join(out, "models")
    os.makedirs(models, exist_ok=True)
    torch.set_num_threads(1)  # torch's reference outputs from one thread: no reduction-order variation
    info = {n: export(n, models, args.opset) for n in (args.only or sorted(CASES))}
    with open(os.path.join(out, "models.json"), "w") as f:
        json.dump({"torch": torch.__version__, "onnx": onnx.__version__, "models": info}, f, indent=1, sort_keys=True)
    if args.no_ort:
        return
    if not have_ort():
        print("export_models: onnxruntime-node not installed (scripts/setup-npm.sh): no ORT outputs or latency")
        return
    here = os.path.join(ROOT, "tests", "onnx", "ort")
    filt = "^(" + "|".join(info) + ")$"
    print(node(os.path.join(here, "run_node_tests.mjs"), models, os.path.join(out, "ort"), "--filter", filt), end="")
    lat = node(os.path.join(here, "bench_models.mjs"), models, "--filter", filt, "--runs", str(args.runs),
               "--threads", "1,2")
    with open(os.path.join(out, "ort-latency.json"), "w") as f:
        f.write(lat)
    for name, r in json.loads(lat)["models"].items():
        print(f"export_models: ORT latency {name}: " + ", ".join(
            f"{k} {v['median_us']:.1f} us" for k, v in sorted(r.items())))


if __name__ == "__main__":
    main()
